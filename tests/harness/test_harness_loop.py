"""The agent loop against the fake guest: turn budget, screenshot window, each stop signal, agent
crashes, provider errors, an unresponsive guest, and the bundle it writes, read back by
harness.results exactly as the site's importer reads it."""

import json
from pathlib import Path

import pytest

from harness.agents import DummyAgent, ScriptedAgent
from harness.agents.base import AgentState
from harness.agents.prompts import stop_signal, strip_signal, system_prompt
from harness.agents.scripted import Plan, Turn
from harness.results import read_task_dir
from harness.run import CallbackSink, LoopConfig, Recorder, run_task

DEMO_SUITE = Path(__file__).resolve().parents[2] / "seeding" / "demo_suite.json"
FAST = LoopConfig(sleep_after=0.0)


def run(task, env, agent, tmp_path, config=FAST, sinks=()):
    recorder = Recorder.to_folder(task, tmp_path / task.id, meta={"agent": agent.name}, extra_sinks=sinks)
    return run_task(task, env, agent, recorder, config), tmp_path / task.id


class Clicker(AgentState):
    """Clicks forever and remembers every observation it was shown."""

    name = model = "clicker"

    def __init__(self, actions_per_turn=1):
        super().__init__()
        self.per_turn = actions_per_turn
        self.observations = []

    def reset(self, task_id=""):
        self.observations = []

    def predict(self, instruction, observation):
        self.observations.append(observation)
        turn = observation["turn"]
        return f"turn {turn}", [f"pyautogui.click({turn}, {i})" for i in range(self.per_turn)]


def test_budget_counts_model_turns_not_actions(task, env, tmp_path):
    agent = Clicker(actions_per_turn=2)
    result, folder = run(task, env, agent, tmp_path, LoopConfig(max_turns=4, sleep_after=0))
    assert result.ended_by == "budget" and result.status == "finished"
    assert result.turns == 4 and result.steps == 8
    bundle = read_task_dir(folder, turn_budget=4)
    assert bundle.ended_by == "budget" and bundle.n_turns == 4 and len(bundle.steps) == 8
    assert [s.turn for s in bundle.steps] == [1, 1, 2, 2, 3, 3, 4, 4]
    assert len(env.guest.actions) == 8


def test_screenshot_window_keeps_only_the_most_recent(task, env, tmp_path):
    agent = Clicker()
    run(task, env, agent, tmp_path, LoopConfig(max_turns=6, screenshot_window=3, sleep_after=0))
    sizes = [len(o["recent_screenshots"]) for o in agent.observations]
    assert sizes == [1, 2, 3, 3, 3, 3]
    last = agent.observations[-1]
    assert last["recent_screenshots"][-1] == last["screenshot"]
    # the window slides: turn 6 no longer holds what turn 3 saw first
    assert agent.observations[2]["recent_screenshots"][0] not in last["recent_screenshots"]


@pytest.mark.parametrize(
    ("outcome", "ended_by", "last_action"),
    [("done", "done", "DONE"), ("fail", "fail", "FAIL"), ("infeasible", "infeasible", "FAIL")],
)
def test_stop_signals_end_the_loop(task, env, tmp_path, outcome, ended_by, last_action):
    plan = Plan(turns=[Turn("open it", ["pyautogui.click(5, 5)"])], final_answer="Code DN-83823.", outcome=outcome)
    result, folder = run(task, env, ScriptedAgent({"*": plan}), tmp_path)
    assert result.ended_by == ended_by and result.turns == 2
    bundle = read_task_dir(folder)
    assert bundle.ended_by == ended_by
    assert bundle.steps[-1].action_text == last_action and bundle.steps[-1].done
    assert "DN-83823" in bundle.final_answer and "```" not in bundle.final_answer


def test_a_reply_without_actions_ends_the_task_and_keeps_the_answer(task, env, tmp_path):
    plan = Plan(turns=[], final_answer="The code is DN-83823.", outcome="none")
    result, folder = run(task, env, ScriptedAgent({"*": plan}), tmp_path)
    assert result.ended_by == "done" and result.status == "finished" and result.steps == 1
    bundle = read_task_dir(folder)
    assert bundle.final_answer == "The code is DN-83823." and bundle.ended_by == "done"
    assert bundle.steps[0].info == {"implicit_stop": "reply without actions"}


class Replier(AgentState):
    """Clicks on turn 1, then replies ``text`` with no actions (``truncated``: it says it was cut off)."""

    name, model = "replier", "none"

    def __init__(self, text, truncated=False):
        super().__init__()
        self.text, self.truncated = text, truncated

    def reset(self, task_id=""):
        AgentState.__init__(self)
        self.reply_truncated = False

    def predict(self, instruction, observation):
        if observation["turn"] == 1:
            return "Clicking.", ["pyautogui.click(1, 1)"]
        self.reply_truncated = self.truncated
        return self.text, []


@pytest.mark.parametrize(
    ("text", "truncated", "reason"),
    [
        ("", False, "turn 2: the model's reply was empty (no text, no actions)"),
        ("   \n", False, "turn 2: the model's reply was empty (no text, no actions)"),
        ("The answer is", True, "turn 2: the model's reply was cut off at its output limit"),
    ],
)
def test_an_empty_or_cut_off_reply_is_an_error_never_an_implicit_done(task, env, tmp_path, text, truncated, reason):
    result, folder = run(task, env, Replier(text, truncated), tmp_path)
    assert (result.status, result.ended_by, result.error) == ("errored", "error", reason)
    bundle = read_task_dir(folder)
    assert bundle.ended_by == "error" and [s.action_text for s in bundle.steps] == ["pyautogui.click(1, 1)"]


def test_dummy_agent_is_done_on_turn_one(task, env, tmp_path):
    result, folder = run(task, env, DummyAgent(), tmp_path)
    assert (result.ended_by, result.turns, result.steps) == ("done", 1, 1)
    rows = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    assert rows[0]["action"] == "DONE" and rows[0]["response"] == "dummy agent: marking task DONE"


class Crasher(Clicker):
    def predict(self, instruction, observation):
        if observation["turn"] == 2:
            raise RuntimeError("model exploded")
        return super().predict(instruction, observation)


def test_agent_crash_is_an_error_row_and_an_errored_bundle(task, env, tmp_path):
    result, folder = run(task, env, Crasher(), tmp_path)
    assert result.status == "errored" and result.ended_by == "error" and "model exploded" in result.error
    assert (folder / "result.txt").read_text() == "0.0\n"
    assert "model exploded" in (folder / "incomplete.txt").read_text()
    bundle = read_task_dir(folder)
    assert bundle.ended_by == "error" and bundle.completed is False
    assert bundle.steps[-1].action_text == "PREDICT_CRASH" and "model exploded" in bundle.error


class ProviderErrors(AgentState):
    name = model = "errors"

    def __init__(self, errors_before_done):
        super().__init__()
        self.left = errors_before_done

    def reset(self, task_id=""):
        pass

    def predict(self, instruction, observation):
        if self.left:
            self.left -= 1
            return "Error code: 529 - overloaded", []
        return "All done.\n```DONE```", ["DONE"]


def test_two_provider_errors_are_retried_three_abort(task, env, tmp_path):
    result, _ = run(task, env, ProviderErrors(2), tmp_path / "a")
    assert result.ended_by == "done" and result.turns == 3
    result, folder = run(task, env, ProviderErrors(3), tmp_path / "b")
    assert result.status == "errored" and "3 consecutive provider errors" in result.error
    assert read_task_dir(folder).ended_by == "error"


class ToolRounds(ProviderErrors):
    def predict(self, instruction, observation):
        self.pending_tool_round = observation["turn"] < 3
        if self.pending_tool_round:
            return "ran a shell command", []
        return "Found it.\n```DONE```", ["DONE"]


def test_tool_only_rounds_are_recorded_and_the_loop_goes_on(task, env, tmp_path):
    result, folder = run(task, env, ToolRounds(0), tmp_path)
    assert result.ended_by == "done" and result.turns == 3
    bundle = read_task_dir(folder)
    assert [s.action_text for s in bundle.steps] == ["TOOL_CALL", "TOOL_CALL", "DONE"]
    assert bundle.steps[0].tool == "bash" and bundle.steps[0].screenshot is not None


def test_unresponsive_guest_ends_the_trajectory_as_error(task, env, tmp_path):
    env.client.retry_delay = 0
    env.reset()
    agent = Clicker()
    agent.reset = lambda task_id="": env.guest.fail_next("screenshot", "error", 100)
    result, folder = run(task, env, agent, tmp_path, LoopConfig(sleep_after=0, max_guest_failures=2))
    assert result.status == "errored"
    assert "environment not ready" in result.error and "/screenshot" in result.error
    assert read_task_dir(folder).ended_by == "error"


def test_failed_screenshots_after_actions_are_bounded(task, env, tmp_path):
    env.client.retry_delay = 0
    agent = Clicker()
    original = agent.predict

    def predict(instruction, observation):
        if observation["turn"] == 2:
            env.guest.fail_next("screenshot", "error", 100)
        return original(instruction, observation)

    agent.predict = predict
    result, folder = run(task, env, agent, tmp_path, LoopConfig(sleep_after=0, max_guest_failures=2, max_turns=10))
    assert result.status == "errored" and "2 actions in a row" in result.error
    rows = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    assert rows[-1]["screenshot_file"] == "" and "HTTP 500" in rows[-1]["info"]["screenshot_error"]


def test_wall_clock_timeout(task, env, tmp_path):
    ticks = iter(range(0, 10_000, 10))
    recorder = Recorder.to_folder(task, tmp_path / task.id)
    result = run_task(task, env, Clicker(), recorder, LoopConfig(sleep_after=0, timeout=25), clock=lambda: next(ticks))
    assert result.ended_by == "timeout" and result.status == "finished" and result.turns == 3


def test_bundle_round_trip_and_live_sink(task, env, tmp_path):
    streamed, finished = [], []
    sink = CallbackSink(on_step=lambda row, png: streamed.append((row, png)), on_finish=finished.append)
    plan = Plan(
        turns=[
            Turn("Open the mail", ["pyautogui.click(100, 50)"]),
            Turn("Search", ["pyautogui.typewrite('Dinoco', interval=0.02)", "pyautogui.press('enter')"]),
        ],
        final_answer="The confirmation code is DN-83823.",
    )
    result, folder = run(task, env, ScriptedAgent({task.id: plan}), tmp_path, sinks=[sink])
    assert result.ended_by == "done" and result.steps == 4

    rows = [json.loads(line) for line in (folder / "traj.jsonl").read_text().splitlines()]
    upstream_keys = ["step_num", "action_timestamp", "action", "response", "reward", "done", "info", "screenshot_file"]
    assert all(list(row)[:8] == upstream_keys for row in rows)
    assert rows[1]["execution"] == {"returncode": 0, "output": "", "error": ""}
    assert [r for r, _ in streamed] == rows  # the sink saw every row as it was written
    for row, png in streamed:
        assert (folder / row["screenshot_file"]).read_bytes() == png

    bundle = read_task_dir(folder)
    assert bundle.layout == "mypcbench" and bundle.completed is True and bundle.ended_by == "done"
    assert [s.action["type"] for s in bundle.steps] == ["click", "type", "key", "done"]
    assert [s.turn for s in bundle.steps] == [1, 2, 2, 3]
    assert all(s.screenshot and s.screenshot.is_file() for s in bundle.steps)
    assert bundle.final_answer == "The confirmation code is DN-83823."
    assert [r.content_hash for r in bundle.rubric] == [r.content_hash for r in task.rubric]
    assert bundle.messages_path == folder / "messages.json" and bundle.warnings == []

    rubric_bundle = json.loads((folder / "rubric_bundle.json").read_text())
    assert rubric_bundle["task"]["id"] == task.id and rubric_bundle["artifacts"]["counts"]["steps"] == 4
    meta = json.loads((folder / "bundle.json").read_text())
    assert meta["status"] == "finished" and meta["ended_by"] == "done" and meta["agent"] == "scripted"
    assert finished[0]["bundle"] == meta
    assert "<stripped:base64 image>" in (folder / "messages.json").read_text()
    # the final answer is left in the guest, as upstream does
    assert any(c.get("shell") and "/tmp/mypcbench_agent_response.txt" in c["command"] for c in env.guest.commands)


def test_rerunning_a_task_replaces_the_old_folder(task, env, tmp_path):
    run(task, env, Clicker(), tmp_path, LoopConfig(max_turns=3, sleep_after=0))
    result, folder = run(task, env, DummyAgent(), tmp_path)
    assert len(list(folder.glob("step_*.png"))) == 1
    assert len(read_task_dir(folder).steps) == 1


def test_prompts_and_stop_signals():
    prompt = system_prompt()
    assert "```DONE```" in prompt and "[INFEASIBLE]" in prompt and "sudo password" in prompt
    assert stop_signal("Here it is.\n```DONE```") == "done"
    assert stop_signal("Cannot.\nFAIL") == "fail"
    assert stop_signal("[INFEASIBLE] no such app\n```FAIL```") == "infeasible"
    assert stop_signal("I am done looking, next I will click") is None
    assert strip_signal("Answer: 42\n\n```DONE```") == "Answer: 42"


def test_a_scripted_key_pyautogui_would_ignore_ends_the_task_naming_the_key(task, env, tmp_path):
    turn = Turn("Press it", [{"action": "key", "text": "ctrl+Hyper_R"}], vocabulary="anthropic")
    result, _ = run(task, env, ScriptedAgent({"*": Plan(turns=[turn])}), tmp_path)
    assert result.status == "errored"
    assert "scripted turn 1: key 'Hyper_R' has no equivalent on this computer" in result.error
