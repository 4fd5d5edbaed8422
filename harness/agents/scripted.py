"""The scripted agent: plays a fixed plan (actions per turn, then a final answer and a stop signal)
for smoke tests and demos. A plan file maps task ids (or "*") to plans; actions are pyautogui lines
or any provider vocabulary, which goes through the one translation layer. In a session, a plan keyed
"<task id>#<n>" plays on user turn n (the session loop sets ``user_turn``)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from harness.actions import VOCABULARIES, TranslationError, translate
from harness.agents.base import AgentError, AgentState

OUTCOMES = {"done", "fail", "infeasible", "none"}


class PlanError(ValueError):
    pass


@dataclass
class Turn:
    response: str
    actions: list  # pyautogui strings, or provider action dicts when vocabulary is set
    vocabulary: str = "pyautogui"
    model_size: tuple[int, int] | None = None


@dataclass
class Plan:
    turns: list[Turn] = field(default_factory=list)
    final_answer: str = ""
    outcome: str = "done"  # done, fail, infeasible, or none (stop without a signal)

    @classmethod
    def from_dict(cls, data, where: str) -> "Plan":
        if not isinstance(data, dict):
            raise PlanError(f"{where}: is {type(data).__name__} (expected an object with turns and final_answer)")
        outcome = data.get("outcome", "done")
        if outcome not in OUTCOMES:
            raise PlanError(f"{where}.outcome: {outcome!r} (expected one of {sorted(OUTCOMES)})")
        raw_turns = data.get("turns", [])
        if not isinstance(raw_turns, list):
            raise PlanError(f"{where}.turns: is {type(raw_turns).__name__} (expected a list of turns)")
        turns = []
        for i, raw in enumerate(raw_turns):
            here = f"{where}.turns[{i}]"
            if isinstance(raw, str):
                raw = {"actions": [raw]}
            if not isinstance(raw, dict) or not isinstance(raw.get("actions", []), list):
                raise PlanError(f"{here}: expected an object with an actions list (or one pyautogui line)")
            vocabulary = raw.get("vocabulary", "pyautogui")
            if vocabulary != "pyautogui" and vocabulary not in VOCABULARIES:
                raise PlanError(
                    f"{here}.vocabulary: {vocabulary!r} (expected pyautogui or one of {sorted(VOCABULARIES)})"
                )
            for j, action in enumerate(raw.get("actions", [])):
                wanted = str if vocabulary == "pyautogui" else dict
                if not isinstance(action, wanted):
                    raise PlanError(f"{here}.actions[{j}]: {action!r} (expected a {wanted.__name__} for {vocabulary})")
            model_size = raw.get("model_size")
            turns.append(
                Turn(
                    response=str(raw.get("response", "")),
                    actions=list(raw.get("actions", [])),
                    vocabulary=vocabulary,
                    model_size=tuple(model_size) if model_size else None,
                )
            )
        return cls(turns=turns, final_answer=str(data.get("final_answer", "")), outcome=outcome)


def load_plans(path) -> dict[str, Plan]:
    """A plan file: one plan object (used for every task) or ``{"plans": {"<task id>" | "*": plan}}``."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlanError(f"{path}: cannot read the plan file: {exc}") from exc
    if isinstance(data, dict) and "plans" in data:
        if not isinstance(data["plans"], dict):
            raise PlanError(f"{path}: plans: expected an object mapping task ids to plans")
        return {task_id: Plan.from_dict(plan, f"{path}: plans[{task_id!r}]") for task_id, plan in data["plans"].items()}
    return {"*": Plan.from_dict(data, str(path))}


DEFAULT_PLAN = Plan(
    turns=[Turn(response="Looking at the screen first.", actions=["pyautogui.click(640, 400)"])],
    final_answer="scripted agent: plan finished",
)


class ScriptedAgent(AgentState):
    name = "scripted"
    model = "scripted"

    def __init__(self, plans: dict[str, Plan] | None = None):
        super().__init__()
        self.plans = plans or {"*": DEFAULT_PLAN}
        self.plan = DEFAULT_PLAN
        self.turn = 0
        self.task_id = ""
        self.user_turn = 1  # a session's user turn (set by the session loop): plans "<task id>#<n>" play there

    def reset(self, task_id: str = "") -> None:
        AgentState.__init__(self)
        plan = self.plans.get(f"{task_id}#{self.user_turn}") or self.plans.get(task_id) or self.plans.get("*")
        if plan is None:
            raise AgentError(f"scripted agent has no plan for task {task_id!r} (plans for: {sorted(self.plans)})")
        self.plan = plan
        self.task_id = task_id
        self.turn = 0

    def enter_session(self) -> None:
        """Nothing to tell a plan: it already knows when it asks."""

    def resume(self, message: str) -> None:
        """The session's next user turn: the plan for it (``user_turn`` set by the session loop); the
        loop hands the user's message in as the turn's instruction, recorded as what the agent read."""
        self.reset(self.task_id)

    def predict(self, instruction: str, observation: dict) -> tuple[str, list[str]]:
        self.messages.append(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": instruction if not self.turn else "(screenshot)"},
                    {"type": "image", "source": "<stripped:base64 image>"},
                ],
            }
        )
        self.turn += 1
        if self.turn <= len(self.plan.turns):
            turn = self.plan.turns[self.turn - 1]
            actions = self._actions(turn, observation)
            response = turn.response
        else:
            response, actions = self._finish()
        self.messages.append({"role": "assistant", "content": response, "actions": actions})
        self.add_usage(turns=1)
        return response, actions

    def _actions(self, turn: Turn, observation: dict) -> list[str]:
        if turn.vocabulary == "pyautogui":
            return list(turn.actions)
        screen = tuple(observation.get("screen_size") or (1280, 800))
        commands = []
        for action in turn.actions:
            try:
                commands.extend(translate(turn.vocabulary, action, screen, turn.model_size))
            except (TranslationError, KeyError, TypeError, ValueError) as exc:  # ValueError: a key name
                raise AgentError(f"scripted turn {self.turn}: {exc}") from exc
        return commands

    def _finish(self) -> tuple[str, list[str]]:
        answer = self.plan.final_answer
        if self.plan.outcome == "done":
            return f"{answer}\n\n```DONE```", ["DONE"]
        if self.plan.outcome == "fail":
            return f"{answer}\n\n```FAIL```", ["FAIL"]
        if self.plan.outcome == "infeasible":
            return f"[INFEASIBLE] {answer}\n\n```FAIL```", ["FAIL"]
        return answer, []
