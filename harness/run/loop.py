"""The agent loop for one task: reset the environment, let the agent act turn by turn within the budget,
execute and screenshot every action, stop on DONE / FAIL / INFEASIBLE, and record it all. How the run
went (status) is kept apart from how well it did (the judge's score, later)."""

import time
import traceback
from collections import deque
from dataclasses import dataclass, field

from harness.agents.prompts import stop_signal, strip_signal
from harness.control import ControlError

API_ERROR_MARKERS = ("Error code:", "BadRequestError")


@dataclass
class LoopConfig:
    max_turns: int = 100
    screenshot_window: int = 20
    sleep_after: float = 1.0  # seconds between an action and its screenshot
    settle_seconds: float = 0.0  # after reset, before the first screenshot
    timeout: float = 7200.0  # wall clock per task
    max_api_errors: int = 3  # consecutive empty turns that look like provider errors
    max_guest_failures: int = 3  # consecutive actions the guest did not carry out or screenshot
    write_answer: bool = True


@dataclass
class LoopResult:
    task_id: str
    status: str  # finished | errored
    ended_by: str  # done | fail | infeasible | budget | timeout | error
    turns: int = 0
    steps: int = 0
    final_answer: str = ""
    error: str = ""
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)


class _Abort(Exception):
    pass


# What one turn tells the loop: stop the task, go to the next turn at once (no wall-clock check), or
# go on after checking the wall clock.
_STOP, _AGAIN, _NEXT = "stop", "again", "next"


class _TaskRun:
    """One task's loop: what the turns share (the screenshots seen, the last reply, the error counts)."""

    def __init__(self, task, env, agent, recorder, config: LoopConfig, result: LoopResult, reset_guest: bool = True,
                 resume_with: str | None = None):  # fmt: skip
        self.task, self.env, self.agent, self.recorder = task, env, agent, recorder
        self.reset_guest, self.resume_with = reset_guest, resume_with
        self.config, self.result = config, result
        self.window: deque[bytes] = deque(maxlen=max(1, config.screenshot_window))
        self.last_response = ""
        self.screenshot = b""
        self.api_errors = self.guest_failures = 0

    def start(self) -> None:
        """Reset the guest (unless a session's later turn carries its desktop over) and the agent (or,
        in a session's later turn, let it resume its conversation with the user's message), and take the
        first screenshot."""
        try:
            if self.reset_guest:
                self.env.reset(self.task)
            if self.resume_with is None:
                self.agent.reset(self.task.id)
            else:
                self.agent.resume(self.resume_with)
            if self.config.settle_seconds:
                time.sleep(self.config.settle_seconds)
            self.screenshot = self.env.screenshot()
        except ControlError as exc:
            raise _Abort(f"environment not ready: {exc}") from exc
        self.window.append(self.screenshot)

    def play(self, started: float, clock) -> None:
        """Turns until the agent stops, the budget or the wall clock runs out, or something fails."""
        turn = 0
        while turn < self.config.max_turns:
            turn += 1
            self.result.turns = turn
            step = self.turn(turn)
            if step == _STOP:
                return
            if step == _AGAIN:
                continue
            if clock() - started > self.config.timeout:
                self.result.ended_by = "timeout"
                self.result.notes.append(f"stopped after {self.config.timeout:g} s of wall clock")
                return
        self.result.ended_by = "budget"

    def turn(self, turn: int) -> str:
        result, agent = self.result, self.agent
        observation = {
            "screenshot": self.screenshot,
            "recent_screenshots": list(self.window),
            "screen_size": tuple(self.env.screen_size),
            "turn": turn,
        }
        try:
            response, actions = agent.predict(self.task.instruction, observation)
        except Exception as exc:  # the agent's own failure ends the trajectory as an error
            detail = f"{type(exc).__name__}: {exc}"
            self.recorder.step(turn, "PREDICT_CRASH", "", done=True, info={"error": detail},
                               extra={"traceback": traceback.format_exc(limit=5)})  # fmt: skip
            result.status, result.ended_by, result.error = "errored", "error", detail
            return _STOP
        response = response if isinstance(response, str) else str(response)
        if response.strip():
            self.last_response = response
        implicit = not actions
        if implicit:
            step = self.without_actions(turn, response)
            if step is not None:
                return step
            # A reply without actions ends the task (as upstream's Claude agent reads it); recording
            # it as DONE / FAIL keeps the final answer in the trajectory the judge reads.
            actions = ["FAIL" if stop_signal(response) in ("fail", "infeasible") else "DONE"]
        self.api_errors = 0
        for action in actions:
            action = action if isinstance(action, str) else str(action)
            if self.act(turn, action, response, implicit):
                signal = stop_signal(response)
                result.ended_by = "infeasible" if signal == "infeasible" else action.lower()
                return _STOP
        return _NEXT

    def without_actions(self, turn: int, response: str) -> str | None:
        """A reply without actions: a provider error, a round of tool calls, an empty or cut-off reply
        (what the loop does next), or None: the reply ends the task."""
        result, agent = self.result, self.agent
        if response.startswith(API_ERROR_MARKERS[0]) or API_ERROR_MARKERS[1] in response:
            self.api_errors += 1
            if self.api_errors >= self.config.max_api_errors:
                result.status, result.ended_by = "errored", "error"
                result.error = f"{self.api_errors} consecutive provider errors; last: {response[:300]}"
                return _STOP
            return _AGAIN
        if getattr(agent, "pending_tool_round", False):
            self.recorder.step(turn, "TOOL_CALL", response, info={"kind": "tool_call_round"},
                               screenshot=self.screenshot, extra={"tool": "bash"})  # fmt: skip
            return _AGAIN
        if not response.strip() or getattr(agent, "reply_truncated", False):
            # Nothing to stop on: an empty (or cut-off) reply is never read as "done" with no answer.
            result.status, result.ended_by = "errored", "error"
            result.error = f"turn {turn}: the model's reply " + (
                "was cut off at its output limit" if getattr(agent, "reply_truncated", False)
                else "was empty (no text, no actions)"
            )  # fmt: skip
            return _STOP
        return None

    def act(self, turn: int, action: str, response: str, implicit: bool) -> bool:
        """Carry out one action, screenshot and record it; True when it stops the task (DONE / FAIL)."""
        config = self.config
        stamp_time = _now()
        execution = None
        try:
            outcome = self.env.run_action(action)
        except ControlError as exc:
            raise _Abort(f"guest stopped answering at turn {turn}: {exc}") from exc
        if action not in ("WAIT", "DONE", "FAIL"):
            execution = outcome.as_dict()
        if config.sleep_after and action not in ("DONE", "FAIL"):
            time.sleep(config.sleep_after)
        info: dict = {"implicit_stop": "reply without actions"} if implicit else {}
        try:
            self.screenshot = self.env.screenshot()
            self.window.append(self.screenshot)
            shot = self.screenshot
        except ControlError as exc:
            shot, info["screenshot_error"] = None, str(exc)
        # A command stopped by the guest's own timeout is the command's fault, not the guest's.
        failed = shot is None or (outcome.client_gave_up if execution else False)
        self.guest_failures = self.guest_failures + 1 if failed else 0
        done = action in ("DONE", "FAIL")
        extra = {"tool": "control" if action in ("WAIT", "DONE", "FAIL") else "computer"}
        if execution is not None:
            extra["execution"] = execution
        self.recorder.step(turn, action, response, done=done, info=info, screenshot=shot, when=stamp_time,
                           extra=extra)  # fmt: skip
        if self.guest_failures >= config.max_guest_failures:
            raise _Abort(f"guest failed {self.guest_failures} actions in a row; last: "
                         f"{info.get('screenshot_error') or (execution or {}).get('error')}")  # fmt: skip
        return done


def run_task(task, env, agent, recorder, config: LoopConfig | None = None, *, clock=time.monotonic,
             reset_guest: bool = True, resume_with: str | None = None) -> LoopResult:  # fmt: skip
    """Run ``task`` to its end; ``reset_guest=False`` keeps the desktop as the last run left it and
    ``resume_with`` continues the agent's conversation with the user's message (a session's later user
    turns)."""
    config = config or LoopConfig()
    started = clock()
    result = LoopResult(task_id=task.id, status="finished", ended_by="error")
    recorder.begin()
    run = _TaskRun(task, env, agent, recorder, config, result, reset_guest, resume_with)
    try:
        run.start()
        run.play(started, clock)
    except _Abort as exc:
        result.status, result.ended_by, result.error = "errored", "error", str(exc)

    result.final_answer = strip_signal(run.last_response)
    if config.write_answer and result.status == "finished":
        try:
            written = env.write_answer(result.final_answer)
            if not written.ok:
                result.notes.append(f"final answer not written to the guest: {written.error[:200]}")
        except ControlError as exc:
            result.notes.append(f"final answer not written to the guest: {exc}")
    result.steps = len(recorder.rows)
    result.seconds = clock() - started
    recorder.finish(
        status=result.status,
        ended_by=result.ended_by,
        final_answer=result.final_answer,
        error=result.error,
        turns=result.turns,
        messages=getattr(agent, "messages", None),
        usage=getattr(agent, "total_usage", None),
        notes=result.notes,
    )
    return result


def _now():
    from datetime import datetime

    return datetime.now()
