"""The provider computer-use agents (Anthropic, OpenAI Responses, Gemini, OpenAI-compatible/Qwen) over
their real SDKs against the loopback provider simulator, each driving the fake guest through the real
agent loop: the pyautogui commands the guest received, coordinate scaling, the turn budget, the
screenshot window (images counted in the requests the simulator recorded), each stop signal, shell
tools run through the Control API, usage counters, provider errors, and a missing API key."""

import base64
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from harness.agents import AnthropicAgent, GeminiAgent, MissingApiKey, OpenAIAgent, OpenAICompatibleAgent
from harness.agents.anthropic import tool_versions
from harness.agents.openai import PLACEHOLDER_PNG
from harness.agents.openai_compatible import parse_tool_calls
from harness.backends import FakeEnv
from harness.control import ExecResult
from harness.results import read_task_dir
from harness.run import LoopConfig, Recorder, main, run_task
from tests.simulators import Reply
from tests.simulators.computer_use import anthropic_turn, chat_turn, gemini_turn, images_in, openai_turn, qwen_call

ROOT = Path(__file__).resolve().parents[2]
DEMO_SUITE = ROOT / "seeding" / "demo_suite.json"


def make_env(size=(1280, 800)):
    env = FakeEnv(screen_size=size)
    env.start()
    return env


@pytest.fixture
def env():
    env = make_env()
    yield env
    env.stop()


# What each agent's model says, in its own wire format: click at a point given in the model's own
# coordinates, a bare answer, and where its base URL points.
def _anthropic_click(x, y):
    return anthropic_turn("Clicking.", [("computer", {"action": "left_click", "coordinate": [x, y]})])


def _openai_click(x, y):
    return openai_turn("Clicking.", [{"type": "click", "button": "left", "x": x, "y": y}])


def _gemini_click(x, y):
    return gemini_turn("Clicking.", [("click_at", {"x": x, "y": y})])


def _qwen_click(x, y):
    return "Clicking.\n" + qwen_call("computer_use", action="left_click", coordinate=[x, y])


AGENTS = {
    "anthropic": (AnthropicAgent, "url", _anthropic_click, anthropic_turn),
    "openai": (OpenAIAgent, "openai_url", _openai_click, openai_turn),
    "gemini": (GeminiAgent, "url", _gemini_click, gemini_turn),
    "openai_compatible": (OpenAICompatibleAgent, "openai_url", _qwen_click, lambda text: text),
}


def build(name, sim, env, **kwargs):
    cls, url_attr, _, _ = AGENTS[name]
    kwargs.setdefault("model", "sim-model" if name in ("openai_compatible",) else None)
    agent = cls(api_key="sim-key", base_url=getattr(sim, url_attr), max_retries=0, **kwargs)
    agent.attach(env)
    return agent


def run(task, env, agent, tmp_path, **config):
    config.setdefault("sleep_after", 0.0)
    meta = {"agent": agent.name, "model": agent.model, "agent_protocol": agent.protocol()}
    recorder = Recorder.to_folder(task, tmp_path / task.id, meta=meta)
    return run_task(task, env, agent, recorder, LoopConfig(**config)), tmp_path / task.id


def bundle_json(folder) -> dict:
    return json.loads((folder / "bundle.json").read_text())


def pyautogui_sent(env) -> list[str]:
    """The pyautogui code the guest was asked to run (without the client's prelude)."""
    out = []
    for command in env.guest.commands:
        argv = command.get("command")
        if isinstance(argv, list) and argv[:2] == ["python3", "-c"] and "pyautogui" in argv[2]:
            out.append(argv[2].split("pyautogui.PAUSE = 0; ", 1)[-1])
    return out


def shell_sent(env) -> list[str]:
    return [
        c["command"] for c in env.guest.commands if c.get("shell") and "mypcbench_agent_response" not in c["command"]
    ]


# ---------------------------------------------------------------- every agent through the loop


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.parametrize("name", sorted(AGENTS))
def test_budget_and_screenshot_window(name, task, sim, env, tmp_path):
    _, _, click, _ = AGENTS[name]
    sim.responder = lambda request: click(100, 100)
    agent = build(name, sim, env, screenshot_window=3)
    result, folder = run(task, env, agent, tmp_path, max_turns=6, screenshot_window=3)
    assert (result.status, result.ended_by, result.turns) == ("finished", "budget", 6)
    assert len(sim.requests) == 6 and len(pyautogui_sent(env)) == 6
    sent = [images_in(request) for request in sim.requests]
    if name == "openai":
        # turns are chained server side: each request carries only the screenshot after the last batch
        assert sent == [1] * 6
        assert all(r.body.get("truncation") == "auto" for r in sim.requests)
    elif name == "openai_compatible":
        # the paper's Qwen harness folds old screenshots away in chunks (10, here the whole window of 3)
        assert sent == [1, 2, 3, 1, 2, 3]
    else:
        assert sent == [1, 2, 3, 3, 3, 3]
    bundle = read_task_dir(folder, turn_budget=6)
    assert bundle.ended_by == "budget" and len(bundle.steps) == 6
    assert bundle.usage["api_calls"] == 6 and bundle.usage["output_tokens"] > 0 and bundle.usage["input_tokens"] > 0
    assert "cached_tokens" in bundle.usage


@pytest.mark.parametrize("name", sorted(AGENTS))
@pytest.mark.parametrize(
    ("answer", "ended_by", "last_action"),
    [
        ("The flight is DN1562.\n```DONE```", "done", "DONE"),
        ("I could not finish.\n```FAIL```", "fail", "FAIL"),
        ("[INFEASIBLE] There is no such airline.\n```FAIL```", "infeasible", "FAIL"),
    ],
)
def test_each_stop_signal_ends_the_task(name, answer, ended_by, last_action, task, sim, env, tmp_path):
    _, _, click, say = AGENTS[name]
    sim.script = [click(10, 10), say(answer)]
    result, folder = run(task, env, build(name, sim, env), tmp_path)
    assert (result.ended_by, result.turns, len(sim.requests)) == (ended_by, 2, 2)
    bundle = read_task_dir(folder)
    assert bundle.ended_by == ended_by and bundle.steps[-1].action_text == last_action
    assert "```" not in bundle.final_answer and bundle.final_answer


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_provider_errors_are_counted_by_the_loop(name, task, sim, env, tmp_path):
    _, _, click, say = AGENTS[name]
    # two overloaded answers are survived and the pending tool results are sent again...
    sim.script = [click(10, 10), Reply(status=529), Reply(status=500), say("Done.\n```DONE```")]
    result, _ = run(task, env, build(name, sim, env), tmp_path / "a")
    assert result.ended_by == "done" and result.turns == 4
    assert images_in(sim.requests[-1]) >= 1
    # ...three in a row end the trajectory as an error, with the provider's status in the reason
    sim.requests.clear()
    sim.script = [Reply(status=529)] * 3
    result, folder = run(task, env, build(name, sim, env), tmp_path / "b")
    assert result.status == "errored" and "3 consecutive provider errors" in result.error
    assert "Error code: 529" in result.error
    assert read_task_dir(folder).ended_by == "error"


@pytest.mark.parametrize(
    ("name", "agent_class", "variable"),
    [
        ("anthropic", AnthropicAgent, "ANTHROPIC_API_KEY"),
        ("openai", OpenAIAgent, "OPENAI_API_KEY"),
        ("gemini", GeminiAgent, "GEMINI_API_KEY"),
    ],
)
def test_missing_api_key_is_an_error_at_construction(name, agent_class, variable):
    with pytest.raises(MissingApiKey, match=f"no API key for the {name} agent: set {variable}"):
        agent_class(environ={})


def test_openai_compatible_needs_a_server_url_and_a_model():
    with pytest.raises(Exception, match="needs the server's URL"):
        OpenAICompatibleAgent("qwen3-vl", environ={})
    with pytest.raises(Exception, match="needs a model name"):
        OpenAICompatibleAgent(base_url="http://127.0.0.1:1/v1", environ={})


# ---------------------------------------------------------------- Anthropic


def _png_size(block_data: str) -> tuple[int, int]:
    return Image.open(io.BytesIO(base64.b64decode(block_data))).size


def _anthropic_images(request) -> list[dict]:
    found = []

    def walk(value):
        if isinstance(value, dict):
            if value.get("type") == "image":
                found.append(value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(request.body["messages"])
    return found


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_anthropic_scales_screenshots_and_coordinates_and_runs_bash(task, sim, tmp_path):
    env = make_env((1920, 1200))
    try:
        sim.script = [
            anthropic_turn(
                "Open it.",
                [
                    ("computer", {"action": "left_click", "coordinate": [100, 200]}),
                    ("computer", {"action": "key", "text": "ctrl+l"}),
                ],
            ),  # fmt: skip
            anthropic_turn("", [("bash", {"command": "ls /home/user/Documents"})]),
            anthropic_turn(
                "", [("computer", {"action": "left_click_drag", "start_coordinate": [0, 0], "coordinate": [1279, 799]})]
            ),  # fmt: skip
            anthropic_turn("Found it.\n```DONE```"),
        ]
        agent = build("anthropic", sim, env, display="fit")  # the screen fitted within 1280x800
        result, folder = run(task, env, agent, tmp_path)
    finally:
        env.stop()
    assert result.ended_by == "done" and result.turns == 4
    first = sim.requests[0]
    computer = first.body["tools"][0]
    assert (computer["display_width_px"], computer["display_height_px"]) == (1280, 800)
    assert [_png_size(i["source"]["data"]) for i in _anthropic_images(first)] == [(1280, 800)]
    assert pyautogui_sent(env) == [
        "pyautogui.click(150, 300)",
        "pyautogui.hotkey('ctrl', 'l')",
        "pyautogui.moveTo(0, 0); pyautogui.dragTo(1918, 1198, duration=0.5)",
    ]
    assert shell_sent(env) == ["ls /home/user/Documents"]
    # both computer calls of turn 1 get a tool_result; the screenshot answers the batch once
    results = [b for b in sim.requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert len(results) == 2 and images_in(results) == 1
    bash_result = sim.requests[2].body["messages"][-1]["content"][0]
    assert bash_result["type"] == "tool_result" and bash_result["content"][0]["text"] == "(no output)"
    bundle = read_task_dir(folder)
    assert [s.action_text for s in bundle.steps][2] == "TOOL_CALL" and bundle.steps[2].tool == "bash"
    messages = json.loads((folder / "messages.json").read_text())
    assert "<stripped:base64 image>" in json.dumps(messages)  # messages.json keeps the words, not the images
    assert not re.search(r"[A-Za-z0-9+/]{600,}", json.dumps(messages))


@pytest.mark.parametrize(
    ("model", "computer", "beta", "editor"),
    [
        ("claude-sonnet-4-6", "computer_20251124", "computer-use-2025-11-24", "str_replace_based_edit_tool"),
        ("claude-opus-4-7", "computer_20251124", "computer-use-2025-11-24", "str_replace_based_edit_tool"),
        ("claude-sonnet-4-5-20250929", "computer_20250124", "computer-use-2025-01-24", "str_replace_based_edit_tool"),
        ("claude-opus-4-1-20250805", "computer_20250124", "computer-use-2025-01-24", "str_replace_based_edit_tool"),
        ("claude-sonnet-4-20250514", "computer_20250124", "computer-use-2025-01-24", "str_replace_based_edit_tool"),
        ("claude-3-7-sonnet-20250219", "computer_20250124", "computer-use-2025-01-24", "str_replace_editor"),
        ("claude-3-5-sonnet-20241022", "computer_20241022", "computer-use-2024-10-22", "str_replace_editor"),
    ],
)
def test_anthropic_tool_version_and_beta_header_per_model(model, computer, beta, editor, task, sim, env, tmp_path):
    sim.script = [anthropic_turn("Nothing to do.\n```DONE```")]
    run(task, env, build("anthropic", sim, env, model=model), tmp_path)
    request = sim.requests[0]
    assert request.headers["anthropic-beta"] == beta and request.model == model
    assert [t["type"] for t in request.body["tools"]][0] == computer
    assert request.body["tools"][2]["name"] == editor == tool_versions(model).editor_name


def test_anthropic_text_editor_runs_in_the_guest_and_bash_output_is_truncated(task, sim, env, tmp_path):
    sim.script = [
        anthropic_turn(
            "",
            [
                ("str_replace_based_edit_tool", {"command": "create", "path": "/tmp/n.txt", "file_text": "hello"}),
                ("bash", {"command": "cat /var/log/big"}),
            ],
        ),  # fmt: skip
        anthropic_turn("Done.\n```DONE```"),
    ]
    agent = build("anthropic", sim, env, output_limit=100)
    # The fake guest records shell commands but has no system to run them on, so this one answers
    # the bash call with a long output the way a real guest would.
    guest_execute = agent._execute

    def execute(command, shell=False):
        if command == "cat /var/log/big":
            return ExecResult(returncode=0, output="x" * 5000)
        return guest_execute(command, shell=shell)

    agent._execute = execute
    result, _ = run(task, env, agent, tmp_path)
    assert result.ended_by == "done"
    editor = [c["command"] for c in env.guest.commands if isinstance(c.get("command"), list)]
    assert editor and editor[0][:2] == ["python3", "-c"]
    assert json.loads(base64.b64decode(editor[0][3])) == {"command": "create", "path": "/tmp/n.txt",
                                                          "file_text": "hello"}  # fmt: skip
    results = sim.requests[1].body["messages"][-1]["content"]
    bash_text = results[1]["content"][0]["text"]
    assert bash_text.startswith("x" * 100) and "output truncated: 4900 more characters" in bash_text


# ---------------------------------------------------------------- OpenAI


def test_openai_batches_acknowledges_safety_checks_chains_turns_and_runs_the_shell(task, sim, env, tmp_path):
    check = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "The page asks you to ignore the user."}
    sim.script = [
        openai_turn(
            "Typing the search.",
            [
                {"type": "click", "button": "left", "x": 640, "y": 100},
                {"type": "type", "text": "Dinoco"},
                {"type": "keypress", "keys": ["ENTER"]},
                {"type": "scroll", "x": 640, "y": 400, "scroll_x": 0, "scroll_y": 300},
            ],
            safety_checks=[check],
        ),  # fmt: skip
        openai_turn("", shell=["grep -r DN1562 /home/user/Maildir", "echo ok"]),
        openai_turn("DN1562 leaves at 6:00am.\nDONE"),
    ]
    result, folder = run(task, env, build("openai", sim, env), tmp_path)
    assert (result.ended_by, result.turns) == ("done", 3)
    assert pyautogui_sent(env) == [
        "pyautogui.click(640, 100)",
        "pyautogui.typewrite('Dinoco', interval=0.02)",
        "pyautogui.press('enter')",
        "pyautogui.scroll(-6, x=640, y=400)",  # 300 px at Firefox's 50 px per wheel click
    ]
    assert shell_sent(env) == ["grep -r DN1562 /home/user/Maildir", "echo ok"]
    first, second, third = sim.requests
    assert first.body["tools"] == [{"type": "computer"}, {"type": "shell", "environment": {"type": "local"}}]
    assert "previous_response_id" not in first.body
    reply = second.body["input"][0]
    assert reply["type"] == "computer_call_output" and reply["acknowledged_safety_checks"] == [check]
    assert reply["output"]["type"] == "computer_screenshot" and reply["output"]["image_url"].startswith(
        "data:image/png;base64,"
    )
    assert second.body["previous_response_id"].startswith("resp_sim")
    assert third.body["previous_response_id"] != second.body["previous_response_id"]
    shell_output = third.body["input"][0]
    assert shell_output["type"] == "shell_call_output" and len(shell_output["output"]) == 2
    assert shell_output["output"][0]["outcome"] == {"type": "exit", "exit_code": 0}
    assert [s.action_text for s in read_task_dir(folder).steps][4:] == ["TOOL_CALL", "DONE"]


def test_openai_drops_a_batch_with_an_unknown_action_and_says_why(task, sim, env, tmp_path):
    sim.script = [
        openai_turn("", [{"type": "click", "button": "left", "x": 1, "y": 1}, {"type": "teleport"}]),
        openai_turn("Giving up.\nFAIL"),
    ]
    result, folder = run(task, env, build("openai", sim, env), tmp_path)
    assert result.ended_by == "fail" and pyautogui_sent(env) == []
    assert "dropped an action batch" in read_task_dir(folder).steps[0].model_text
    # the model is told: its call still gets its screenshot, and a message after it says what failed
    output, note = sim.requests[1].body["input"]
    assert output["type"] == "computer_call_output" and output["output"]["type"] == "computer_screenshot"
    assert note["role"] == "user" and note["content"][0]["type"] == "input_text"
    assert "None of the actions of your last computer call were run" in note["content"][0]["text"]
    assert "OpenAI action 'teleport' is not supported" in note["content"][0]["text"]


# ---------------------------------------------------------------- Gemini


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_gemini_normalised_coordinates_and_safety_acknowledgement_by_policy(task, sim, tmp_path):
    env = make_env((1000, 500))
    try:
        sim.script = [
            gemini_turn(
                "",
                [
                    ("click_at", {"x": 500, "y": 500, "safety_decision": {"decision": "require_confirmation"}}),
                    ("type_text_at", {"x": 999, "y": 0, "text": "DN1562", "press_enter": False}),
                ],
            ),  # fmt: skip
            gemini_turn("", [("bash", {"command": "ls /home/user"})]),
            gemini_turn("Found it. ```DONE```"),
        ]
        agent = build("gemini", sim, env, safety_policy="acknowledge")
        result, folder = run(task, env, agent, tmp_path)
    finally:
        env.stop()
    assert result.ended_by == "done"
    assert pyautogui_sent(env) == [
        "pyautogui.click(500, 250)",
        "pyautogui.click(999, 0)",
        "pyautogui.hotkey('ctrl', 'a')",
        "pyautogui.press('backspace')",
        "pyautogui.typewrite('DN1562', interval=0.02)",
    ]
    assert shell_sent(env) == ["ls /home/user"]
    tool = sim.requests[0].body["tools"][0]["computerUse"]
    assert tool["environment"] == "ENVIRONMENT_DESKTOP"
    responses = [p["functionResponse"] for p in sim.requests[1].body["contents"][-1]["parts"]]
    assert [r["name"] for r in responses] == ["click_at", "type_text_at"]
    assert responses[0]["response"]["safety_acknowledgement"] == "true"
    assert "safety_acknowledgement" not in responses[1]["response"]
    assert images_in(responses) == 1  # the screenshot after the batch answers its last call
    bash = sim.requests[2].body["contents"][-1]["parts"][0]["functionResponse"]
    assert bash["name"] == "bash" and bash["response"]["exit_code"] == 0
    assert bundle_json(folder)["agent_protocol"]["safety_policy"] == "acknowledge"


def test_gemini_stops_when_the_model_asks_for_the_users_confirmation(task, sim, env, tmp_path):
    decision = {"decision": "require_confirmation", "explanation": "The site asks to accept its terms."}
    sim.script = [
        gemini_turn("", [("click_at", {"x": 500, "y": 500, "safety_decision": decision})]),
        gemini_turn("Done. ```DONE```"),
    ]
    result, folder = run(task, env, build("gemini", sim, env), tmp_path)  # the default policy: stop
    assert result.status == "errored" and result.ended_by == "error"
    assert "asked for the user's confirmation before click_at" in result.error
    assert pyautogui_sent(env) == [] and len(sim.requests) == 1  # nothing ran, the model was not asked again
    messages = json.loads((folder / "messages.json").read_text())
    assert {"role": "safety_decision", "content": {"call": "click_at", "decision": decision}} in messages
    # a blocked call stops the task whatever the policy
    sim.requests.clear()
    sim.script = [gemini_turn("", [("click_at", {"x": 1, "y": 1, "safety_decision": {"decision": "block"}})])]
    result, _ = run(task, env, build("gemini", sim, env, safety_policy="acknowledge"), tmp_path / "blocked")
    assert result.status == "errored" and "the safety service blocked click_at" in result.error


# ---------------------------------------------------------------- OpenAI-compatible (Qwen tool calls)


def test_qwen_tool_calls_are_parsed_in_xml_and_json():
    text, calls = parse_tool_calls(
        "I will click.\n"
        + qwen_call("computer_use", action="left_click", coordinate=[10, 990])
        + '\n<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>'
    )
    assert text == "I will click."
    assert calls == [("computer_use", {"action": "left_click", "coordinate": [10, 990]}),
                     ("bash", {"command": "ls -la"})]  # fmt: skip


def test_openai_compatible_relative_coordinates_bash_and_terminate(task, sim, tmp_path):
    env = make_env((1998, 999))
    try:
        sim.script = [
            "Open the menu.\n"
            + qwen_call("computer_use", action="double_click", coordinate=[999, 500])
            + qwen_call("computer_use", action="key", keys=["ctrl", "s"]),  # fmt: skip
            qwen_call("bash", command="ls /tmp"),
            "The file is saved.\n" + qwen_call("computer_use", action="terminate", status="success"),
        ]
        result, folder = run(task, env, build("openai_compatible", sim, env), tmp_path)
    finally:
        env.stop()
    assert (result.ended_by, result.turns) == ("done", 3)
    assert pyautogui_sent(env) == ["pyautogui.doubleClick(1998, 500)", "pyautogui.hotkey('ctrl', 's')"]
    assert shell_sent(env) == ["ls /tmp"]
    system = sim.requests[0].body["messages"][0]["content"]
    assert "<tools>" in system and '"name": "computer_use"' in system and '"name": "bash"' in system
    tool_response = sim.requests[2].body["messages"][-1]["content"][0]["text"]
    assert tool_response.startswith("<tool_response>")
    assert read_task_dir(folder).final_answer == "The file is saved."


def image_sizes(request) -> list[tuple[int, int]]:
    """Pixel sizes of the screenshots in one chat completions request the simulator recorded."""
    sizes = []
    for message in request.body["messages"]:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part.get("type") == "image_url":
                data = base64.b64decode(part["image_url"]["url"].split(",", 1)[1])
                sizes.append(Image.open(io.BytesIO(data)).size)
    return sizes


def test_openai_compatible_relative_grid_sends_the_screen_as_it_is(task, sim, env, tmp_path):
    sim.script = [_qwen_click(500, 500), "Done.\n" + qwen_call("computer_use", action="terminate", status="success")]
    run(task, env, build("openai_compatible", sim, env), tmp_path)
    assert pyautogui_sent(env) == ["pyautogui.click(641, 400)"]  # 500/999 of 1280x800
    assert image_sizes(sim.requests[0]) == [(1280, 800)]
    system = sim.requests[0].body["messages"][0]["content"]
    assert "0-999 grid" in system and "resolution" not in system


@pytest.mark.parametrize(
    ("screen", "sent", "model_point", "screen_point"),
    [
        ((1280, 800), (1260, 784), [630, 392], (640, 400)),
        ((1920, 1080), (1316, 728), [658, 364], (960, 540)),
        ((1920, 1080), (1316, 728), [1316, 728], (1920, 1080)),
    ],
)
@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_openai_compatible_absolute_pixels_of_the_resized_screenshot(task, sim, tmp_path, screen, sent, model_point,
                                                                     screen_point):  # fmt: skip
    env = make_env(screen)
    try:
        sim.script = [
            _qwen_click(*model_point),
            "Saved.\n" + qwen_call("computer_use", action="terminate", status="success"),
        ]
        agent = build("openai_compatible", sim, env, model="qwen2.5-vl-72b", coordinate_type="absolute")
        result, folder = run(task, env, agent, tmp_path)
    finally:
        env.stop()
    assert (result.ended_by, result.turns) == ("done", 2)
    # the fake guest ran the click at the screen pixel, scaled back from the model's image
    assert pyautogui_sent(env) == [f"pyautogui.click({screen_point[0]}, {screen_point[1]})"]
    assert [s.action_text for s in read_task_dir(folder).steps][0] == pyautogui_sent(env)[0]
    # every screenshot the model got was at the smart_resize size, and the prompt speaks of that size
    assert [image_sizes(r) for r in sim.requests] == [[sent], [sent, sent]]
    system = sim.requests[0].body["messages"][0]["content"]
    width, height = sent
    assert f"The screen's resolution is {width}x{height}. Coordinates are pixels of the screenshot" in system
    assert f"in pixels of the {width}x{height} screenshot" in system and "0-999" not in system
    assert f"at {width}x{height} pixels" in system  # the shared persona-and-environment context


def test_openai_compatible_refuses_an_unknown_coordinate_type(sim):
    with pytest.raises(Exception, match="coordinate_type 'pixels' .expected one of: relative = Qwen3-VL"):
        OpenAICompatibleAgent("qwen", base_url=sim.openai_url, coordinate_type="pixels", environ={})


# ---------------------------------------------------------------- the command line


def test_cli_runs_the_anthropic_agent_against_the_simulator(sim, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sim-key")
    sim.script = [
        _anthropic_click(640, 360),  # the centre of the paper's declared 1280x720 display
        anthropic_turn("Flight DN1562 leaves AVP at 6:00am.\n```DONE```"),
    ]
    out = tmp_path / "results"
    code = main(["run", "--tasks", str(DEMO_SUITE), "--task", "demo-d001", "--backend", "fake", "--no-progress",
                 "--agent", "anthropic", "--model", "claude-opus-4-7", "--base-url", sim.url,
                 "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    run_info = json.loads((out / "run.json").read_text())
    assert run_info["agent"] == "anthropic" and run_info["model"] == "claude-opus-4-7"
    bundle = read_task_dir(out / "demo-d001")
    assert bundle.ended_by == "done" and bundle.final_answer.startswith("Flight DN1562")
    assert [s.action_text for s in bundle.steps] == ["pyautogui.click(640, 400)", "DONE"]
    assert bundle.usage["api_calls"] == 2 and bundle.usage["input_tokens"] > 0
    headers = sim.requests[0].headers
    assert "sim-key" in headers.get("x-api-key", headers.get("authorization", ""))  # the key from the environment


def test_cli_runs_a_qwen25_model_in_absolute_pixels(sim, tmp_path, capsys):
    sim.script = [_qwen_click(658, 364), "Done.\n" + qwen_call("computer_use", action="terminate", status="success")]
    out = tmp_path / "results"
    code = main(["run", "--tasks", str(DEMO_SUITE), "--task", "demo-d001", "--backend", "fake", "--no-progress",
                 "--agent", "openai_compatible", "--model", "qwen2.5-vl-72b", "--base-url", sim.openai_url,
                 "--coordinate-type", "absolute", "--width", "1920", "--height", "1080",
                 "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert [s.action_text for s in read_task_dir(out / "demo-d001").steps] == ["pyautogui.click(960, 540)", "DONE"]
    assert image_sizes(sim.requests[0]) == [(1316, 728)]
    assert json.loads((out / "run.json").read_text())["coordinate_type"] == "absolute"


def test_cli_refuses_a_coordinate_type_for_an_agent_without_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sim-key")
    code = main(["run", "--tasks", str(DEMO_SUITE), "--backend", "fake", "--no-progress", "--agent", "anthropic",
                 "--coordinate-type", "absolute", "--out", str(tmp_path / "results")])  # fmt: skip
    assert code == 2 and not (tmp_path / "results").exists()
    assert "coordinate type 'absolute': only the openai_compatible agent takes one" in capsys.readouterr().err


@pytest.mark.slow
def test_python_m_harness_run_in_a_subprocess(sim, tmp_path):
    sim.script = [_openai_click(5, 5), openai_turn("Nothing else to do.\nDONE")]
    out = tmp_path / "results"
    environ = {**os.environ, "OPENAI_API_KEY": "sim-key", "NO_PROXY": "127.0.0.1"}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--tasks", str(DEMO_SUITE), "--task", "demo-d002", "--backend",
         "fake", "--no-progress", "--agent", "openai", "--base-url", sim.openai_url, "--out", str(out)],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    bundle = read_task_dir(out / "demo-d002")
    assert [s.action_text for s in bundle.steps] == ["pyautogui.click(5, 5)", "DONE"]
    assert bundle.usage["api_calls"] == 2 and len(sim.requests) == 2


def test_cli_without_an_api_key_stops_before_any_task(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    out = tmp_path / "results"
    code = main(["run", "--tasks", str(DEMO_SUITE), "--backend", "fake", "--no-progress", "--agent", "anthropic",
                 "--out", str(out)])  # fmt: skip
    assert code == 2 and not out.exists()
    assert "no API key for the anthropic agent: set ANTHROPIC_API_KEY" in capsys.readouterr().err


# ---------------------------------------------------------------- replies cut off at the output limit


def _long_reply(name, text, needs):
    """A reply of ``needs`` output tokens ending with ``text``, as each API sends it (cut off below that)."""
    if name == "anthropic":
        return anthropic_turn(text, needs_tokens=needs)
    if name == "openai":
        return openai_turn(text, needs_tokens=needs)
    if name == "gemini":
        return gemini_turn(text, needs_tokens=needs)
    return chat_turn("<think>" + "Let me look at the screen first. " * 40 + "</think>" + text, needs_tokens=needs)


def _budget_asked(name, request) -> int:
    if name == "openai":
        return request.body["max_output_tokens"]
    if name == "gemini":
        return request.body["generationConfig"]["maxOutputTokens"]
    return request.body["max_tokens"]


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_a_cut_off_reply_is_asked_again_with_the_larger_budget(name, task, sim, env, tmp_path):
    sim.script = [_long_reply(name, "The flight is DN1562.\n```DONE```", 3000)] * 2  # asked, then asked again
    agent = build(name, sim, env, max_output_tokens=1000, retry_output_tokens=4000)
    result, folder = run(task, env, agent, tmp_path)
    assert (result.status, result.ended_by, result.turns) == ("finished", "done", 1)
    assert [_budget_asked(name, r) for r in sim.requests] == [1000, 4000]
    assert result.final_answer == "The flight is DN1562."
    usage = json.loads((folder / "usage.json").read_text())
    assert usage["truncated_replies"] == 1 and usage["api_calls"] == 2
    protocol = bundle_json(folder)["agent_protocol"]
    assert (protocol["max_output_tokens"], protocol["retry_output_tokens"]) == (1000, 4000)


@pytest.mark.parametrize("name", sorted(AGENTS))
@pytest.mark.parametrize("retry", [0, 2000])
def test_a_reply_cut_off_again_ends_the_task_as_an_error_never_as_done(name, retry, task, sim, env, tmp_path):
    sim.script = [_long_reply(name, "The flight is DN1562.\n```DONE```", 3000)] * 2
    agent = build(name, sim, env, max_output_tokens=1000, retry_output_tokens=retry)
    result, folder = run(task, env, agent, tmp_path)
    assert (result.status, result.ended_by) == ("errored", "error")
    assert "reply was cut off at its output limit" in result.error
    assert len(sim.requests) == (2 if retry else 1) and pyautogui_sent(env) == []
    bundle = read_task_dir(folder)
    assert bundle.ended_by == "error" and "DONE" not in [s.action_text for s in bundle.steps]
    assert not (folder / "result.txt").exists() or float((folder / "result.txt").read_text()) == 0.0


def test_a_qwen_reply_that_never_finished_thinking_is_cut_off_not_done(task, sim, env, tmp_path):
    # served with vLLM's reasoning parser: the unfinished thought is all in `reasoning`, the content empty
    sim.script = [chat_turn("Done.\n```DONE```", reasoning="I should check the mail first. " * 50, needs_tokens=5000)]
    agent = build("openai_compatible", sim, env, max_output_tokens=2000, retry_output_tokens=0)
    result, _ = run(task, env, agent, tmp_path)
    assert (result.status, result.ended_by) == ("errored", "error") and "finish_reason length" in result.error


def test_each_agent_documents_its_default_budget_and_sampling(sim, env):
    expected = {
        "anthropic": (8192, 32000, None, None),
        "openai": (25000, 64000, "high", None),
        "gemini": (32768, 65536, None, None),
        "openai_compatible": (32768, 81920, None, 1.0),
    }
    for name, (budget, retry, effort, temperature) in expected.items():
        protocol = build(name, sim, env).protocol()
        assert (protocol["max_output_tokens"], protocol["retry_output_tokens"]) == (budget, retry), name
        assert (protocol["reasoning_effort"], protocol["temperature"]) == (effort, temperature), name


def test_effort_and_temperature_reach_each_api(task, sim, env, tmp_path):
    for name, say in [("anthropic", anthropic_turn), ("openai", openai_turn), ("gemini", gemini_turn)]:
        sim.requests.clear()
        sim.script = [say("Nothing to do.\n```DONE```")]
        settings = {"reasoning_effort": "low", "temperature": None if name == "anthropic" else 0.3}
        run(task, env, build(name, sim, env, **settings), tmp_path / name)
        body = sim.requests[0].body
        if name == "anthropic":
            assert body["output_config"] == {"effort": "low"} and "temperature" not in body
        elif name == "openai":
            assert body["reasoning"]["effort"] == "low" and body["temperature"] == 0.3
        else:
            config = body["generationConfig"]
            thinking = config["thinkingConfig"]  # as google-genai writes it on the wire
            assert thinking.get("thinkingLevel", thinking.get("thinking_level")) == "LOW"
            assert config["temperature"] == 0.3
    with pytest.raises(Exception, match=r"reasoning effort 'turbo' for the openai agent \(expected one of: none"):
        build("openai", sim, env, reasoning_effort="turbo")
    with pytest.raises(Exception, match="temperature: the anthropic API takes no sampling temperature"):
        build("anthropic", sim, env, temperature=0.5)


def test_qwen_is_sampled_as_its_model_card_recommends(task, sim, env, tmp_path):
    sim.script = [chat_turn("Nothing to do.\n" + qwen_call("computer_use", action="terminate", status="success"))]
    run(task, env, build("openai_compatible", sim, env), tmp_path)
    body = sim.requests[0].body
    assert (body["max_tokens"], body["temperature"], body["top_p"]) == (32768, 1.0, 0.95)
    assert (body["top_k"], body["min_p"], body["presence_penalty"]) == (20, 0.0, 1.5)


# ---------------------------------------------------------------- Qwen thinking: only what follows </think> runs


def test_qwen_tool_calls_drafted_inside_the_thinking_are_never_run(task, sim, env, tmp_path):
    draft = qwen_call("computer_use", action="left_click", coordinate=[10, 10])
    thought = f"<think>Maybe I should click the menu:\n{draft}\nNo: the search box is better.</think>"
    sim.script = [
        thought + "\nClicking the search box.\n" + qwen_call("computer_use", action="left_click", coordinate=[999, 0]),
        # served with the reasoning parser, the thought (and its draft) comes apart from the content
        chat_turn("Done.\n" + qwen_call("computer_use", action="terminate", status="success"),
                  reasoning=f"Should I {draft}? No, it is done."),
    ]  # fmt: skip
    result, folder = run(task, env, build("openai_compatible", sim, env), tmp_path)
    assert (result.ended_by, result.turns) == ("done", 2)
    assert pyautogui_sent(env) == ["pyautogui.click(1280, 0)"]  # the draft at (10, 10) never ran
    # the conversation keeps the answer, not the thought
    assistant = sim.requests[1].body["messages"][2]
    assert assistant["role"] == "assistant" and "<think>" not in assistant["content"]
    assert assistant["content"].startswith("Clicking the search box.") and "Maybe I should" not in assistant["content"]
    messages = json.loads((folder / "messages.json").read_text())
    thoughts = [m["content"] for m in messages if m["role"] == "thinking"]
    assert "Maybe I should click the menu" in thoughts[0] and "No, it is done." in thoughts[1]


# ---------------------------------------------------------------- what failed is told to the model


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_anthropic_tells_the_model_which_key_could_not_be_pressed(task, sim, env, tmp_path):
    sim.script = [
        anthropic_turn("", [("computer", {"action": "key", "text": "ctrl+Hyper_R"}),
                            ("computer", {"action": "key", "text": "ctrl+a BackSpace"})]),
        anthropic_turn("Cleared.\n```DONE```"),
    ]  # fmt: skip
    result, _ = run(task, env, build("anthropic", sim, env), tmp_path)
    assert result.ended_by == "done"
    assert pyautogui_sent(env) == ["pyautogui.hotkey('ctrl', 'a'); pyautogui.press('backspace')"]
    results = [b for b in sim.requests[1].body["messages"][-1]["content"] if b["type"] == "tool_result"]
    failed = [r for r in results if r.get("is_error")]
    assert len(failed) == 1 and "key 'Hyper_R' has no equivalent" in failed[0]["content"][0]["text"]
    assert images_in(results) == 1  # the key that worked is answered by the screenshot


def test_gemini_tells_the_model_which_call_could_not_be_run(task, sim, env, tmp_path):
    sim.script = [
        gemini_turn("", [("key_combination", {"keys": "ctrl+Hyper_R"}), ("click_at", {"x": 10, "y": 10})]),
        gemini_turn("Done. ```DONE```"),
    ]
    result, _ = run(task, env, build("gemini", sim, env), tmp_path)
    assert result.ended_by == "done" and pyautogui_sent(env) == ["pyautogui.click(12, 8)"]
    responses = [p["functionResponse"] for p in sim.requests[1].body["contents"][-1]["parts"]]
    assert "key 'Hyper_R' has no equivalent" in responses[0]["response"]["error"]
    assert "error" not in responses[1]["response"]


def test_qwen_tool_text_gives_the_scroll_unit_and_held_keys(task, sim, env, tmp_path):
    sim.script = [
        qwen_call("computer_use", action="scroll", pixels=-100000)
        + qwen_call("computer_use", action="left_click", coordinate=[0, 0], text="ctrl"),
        "Done.\n" + qwen_call("computer_use", action="terminate", status="success"),
    ]
    run(task, env, build("openai_compatible", sim, env), tmp_path)
    assert pyautogui_sent(env) == [
        "pyautogui.scroll(-30)",
        "pyautogui.keyDown('ctrl'); pyautogui.click(0, 0); pyautogui.keyUp('ctrl')",
    ]
    system = sim.requests[0].body["messages"][0]["content"]
    assert "mouse-wheel clicks of about 50 px, at most 1500 px per call" in system
    assert "for a click, keys held during it" in system


# ---------------------------------------------------------------- Claude models and their tool versions


def test_an_unknown_claude_model_is_refused_with_the_known_ones(sim, env):
    with pytest.raises(Exception, match=r"unknown Claude model 'claude-nova-5'.*Known models: .*claude-opus-4-7"):
        build("anthropic", sim, env, model="claude-nova-5")


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_maintainer_adds_a_claude_model_in_a_json_file(task, sim, env, tmp_path, monkeypatch):
    table = tmp_path / "claude-tools.json"
    table.write_text(json.dumps({
        "claude-nova-5": "claude-opus-4-7",
        "claude-nova-6": {"computer": "computer_20270101", "beta": "computer-use-2027-01-01", "bash": "bash_20250124",
                          "editor": "text_editor_20250728", "editor_name": "str_replace_based_edit_tool"},
    }))  # fmt: skip
    monkeypatch.setenv("MYPCBENCH_CLAUDE_TOOLS", str(table))
    sim.script = [anthropic_turn("Nothing to do.\n```DONE```")] * 2
    run(task, env, build("anthropic", sim, env, model="claude-nova-5-20270301"), tmp_path / "a")
    run(task, env, build("anthropic", sim, env, model="claude-nova-6"), tmp_path / "b")
    assert [r.headers["anthropic-beta"] for r in sim.requests] == ["computer-use-2025-11-24", "computer-use-2027-01-01"]
    assert [r.body["tools"][0]["type"] for r in sim.requests] == ["computer_20251124", "computer_20270101"]
    assert bundle_json(tmp_path / "b" / task.id)["agent_protocol"]["tools"]["computer"] == "computer_20270101"
    table.write_text(json.dumps({"claude-nova-7": {"computer": "computer_20270101"}}))
    with pytest.raises(Exception, match="'claude-nova-7' must be a known model name or an object with exactly"):
        build("anthropic", sim, env, model="claude-nova-7")
    table.write_text(json.dumps({"claude-nova-8": "claude-nova-1"}))
    with pytest.raises(Exception, match="'claude-nova-8' refers to 'claude-nova-1', which the table does not know"):
        build("anthropic", sim, env, model="claude-nova-8")


def test_cli_reads_a_claude_tool_table_and_refuses_an_unknown_model(sim, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sim-key")
    monkeypatch.delenv("MYPCBENCH_CLAUDE_TOOLS", raising=False)
    common = ["run", "--tasks", str(DEMO_SUITE), "--task", "demo-d001", "--backend", "fake", "--no-progress",
              "--agent", "anthropic", "--model", "claude-nova-5", "--base-url", sim.url]  # fmt: skip
    assert main([*common, "--out", str(tmp_path / "a")]) == 2
    assert "unknown Claude model 'claude-nova-5'" in capsys.readouterr().err
    table = tmp_path / "t.json"
    table.write_text('{"claude-nova-5": "claude-sonnet-4-5"}')
    sim.script = [anthropic_turn("Nothing to do.\n```DONE```")]
    assert main([*common, "--claude-tools", str(table), "--out", str(tmp_path / "b")]) == 0
    assert sim.requests[0].headers["anthropic-beta"] == "computer-use-2025-01-24"


# ---------------------------------------------------------------- protocol fidelity with the paper


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_claude_sees_the_papers_1280x720_display_by_default(task, sim, env, tmp_path):
    sim.script = [_anthropic_click(1280, 720), anthropic_turn("Done.\n```DONE```")]
    result, folder = run(task, env, build("anthropic", sim, env), tmp_path)
    computer = sim.requests[0].body["tools"][0]
    assert (computer["display_width_px"], computer["display_height_px"]) == (1280, 720)
    assert [_png_size(i["source"]["data"]) for i in _anthropic_images(sim.requests[0])] == [(1280, 720)]
    assert pyautogui_sent(env) == ["pyautogui.click(1280, 800)"]  # the display's corner is the screen's
    assert bundle_json(folder)["agent_protocol"]["display"] == "1280x720"


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_dual_tool_hint_goes_to_openai_and_qwen_as_in_the_paper(task, sim, env, tmp_path):
    hint = "You have both the screen and a shell"
    prompts = {}
    for name, say in [("anthropic", anthropic_turn), ("openai", openai_turn), ("gemini", gemini_turn),
                      ("openai_compatible", lambda text: text)]:  # fmt: skip
        sim.requests.clear()
        sim.script = [say("Done.\n```DONE```")]
        agent = build(name, sim, env)
        run(task, env, agent, tmp_path / name)
        body = sim.requests[0].body
        prompts[name] = json.dumps(body.get("system") or body.get("instructions") or body.get("systemInstruction")
                                   or body.get("messages"))  # fmt: skip
        assert agent.protocol()["dual_tool_hint"] == (hint in prompts[name]), name
    assert [name for name, prompt in prompts.items() if hint in prompt] == ["openai", "openai_compatible"]
    assert hint not in build("openai", sim, env, dual_tool_hint=False).system_prompt((1280, 800))


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_anthropic_drops_old_screenshots_in_chunks_so_the_cached_prefix_holds(task, sim, env, tmp_path):
    sim.responder = lambda request: _anthropic_click(10, 10)
    agent = build("anthropic", sim, env, screenshot_window=4, image_drop_chunk=2)
    run(task, env, agent, tmp_path, max_turns=8, screenshot_window=4)
    assert [images_in(r) for r in sim.requests] == [1, 2, 3, 4, 3, 4, 3, 4]

    def prefix_kept(earlier, later) -> bool:
        """Whether ``later`` re-sends, unchanged, the conversation ``earlier`` cached (all but its marked last turn)."""
        n = len(earlier.body["messages"]) - 1
        return later.body["messages"][:n] == earlier.body["messages"][:n]

    pairs = list(zip(sim.requests, sim.requests[1:], strict=False))
    # chunks of 2: a drop changes the prefix once every other turn once the window is full
    assert [prefix_kept(a, b) for a, b in pairs] == [True, True, True, False, True, False, True]
    sim.requests.clear()
    agent = build("anthropic", sim, env, screenshot_window=4)  # chunks of 1: one more image leaves every turn
    run(task, env, agent, tmp_path / "one", max_turns=8, screenshot_window=4)
    assert [images_in(r) for r in sim.requests] == [1, 2, 3, 4, 4, 4, 4, 4]
    pairs = list(zip(sim.requests, sim.requests[1:], strict=False))
    assert [prefix_kept(a, b) for a, b in pairs] == [True, True, True, False, False, False, False]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_openai_windowed_context_resends_the_conversation_with_the_newest_screenshots(task, sim, env, tmp_path):
    sim.responder = lambda request: _openai_click(10, 10)
    agent = build("openai", sim, env, screenshot_window=3, context="windowed")
    result, folder = run(task, env, agent, tmp_path, max_turns=5, screenshot_window=3)
    assert result.turns == 5 and len(pyautogui_sent(env)) == 5
    assert all("previous_response_id" not in r.body for r in sim.requests)

    def screenshots(request):
        return [
            item["output"]["image_url"] for item in request.body["input"] if item.get("type") == "computer_call_output"
        ]

    last = sim.requests[-1]
    shots = screenshots(last)
    # five screenshots so far (the first in the user message): the two oldest left the window of three
    assert len(shots) == 4 and shots[0] == PLACEHOLDER_PNG and PLACEHOLDER_PNG not in shots[1:]
    assert "[image removed]" in json.dumps(last.body["input"][0])

    def real_images(request):
        return images_in(request) - json.dumps(request.body).count(PLACEHOLDER_PNG)

    assert [real_images(r) for r in sim.requests] == [1, 2, 3, 3, 3]
    assert any(item.get("type") == "computer_call" for item in last.body["input"])  # the model's own calls
    protocol = bundle_json(folder)["agent_protocol"]
    assert (protocol["context"], protocol["screenshot_window_applied"]) == ("windowed", True)
    sim.requests.clear()
    chained = build("openai", sim, env)
    assert chained.protocol()["screenshot_window_applied"] is False  # recorded: the server keeps them all


def test_cli_settings_are_sent_and_recorded_in_bundle_json(sim, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sim-key")
    sim.script = [_anthropic_click(640, 400), anthropic_turn("Done.\n```DONE```")]
    out = tmp_path / "results"
    code = main(["run", "--tasks", str(DEMO_SUITE), "--task", "demo-d001", "--backend", "fake", "--no-progress",
                 "--agent", "anthropic", "--base-url", sim.url, "--max-output-tokens", "3000",
                 "--retry-output-tokens", "0", "--reasoning-effort", "max", "--display", "fit",
                 "--image-drop-chunk", "5", "--dual-tool-hint", "on", "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    body = sim.requests[0].body
    assert body["max_tokens"] == 3000 and body["output_config"] == {"effort": "max"}
    assert (body["tools"][0]["display_width_px"], body["tools"][0]["display_height_px"]) == (1280, 800)
    protocol = bundle_json(out / "demo-d001")["agent_protocol"]
    assert protocol["max_output_tokens"] == 3000 and protocol["retry_output_tokens"] == 0
    assert (protocol["reasoning_effort"], protocol["display"], protocol["image_drop_chunk"]) == ("max", "fit", 5)
    assert protocol["dual_tool_hint"] is True and "You have both the screen and a shell" in json.dumps(body["system"])
    assert json.loads((out / "run.json").read_text())["agent_protocol"] == protocol


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--agent", "dummy", "--max-output-tokens", "10"], "--max-output-tokens: only provider agents take these"),
        (["--agent", "anthropic", "--openai-context", "windowed"], "context: only the openai agent takes it"),
        (["--agent", "openai", "--gemini-safety", "acknowledge"], "safety policy: only the gemini agent takes it"),
        (["--agent", "anthropic", "--display", "wide"], "display 'wide' (expected WIDTHxHEIGHT"),
        (["--agent", "anthropic", "--reasoning-effort", "huge"], "reasoning effort 'huge' for the anthropic agent"),
        (["--agent", "openai", "--max-output-tokens", "0"], "max_output_tokens: 0 (expected at least 1)"),
    ],
)
def test_cli_refuses_a_setting_the_agent_cannot_take(flags, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sim-key")
    monkeypatch.setenv("OPENAI_API_KEY", "sim-key")
    code = main(["run", "--tasks", str(DEMO_SUITE), "--backend", "fake", "--no-progress", *flags,
                 "--out", str(tmp_path / "results")])  # fmt: skip
    assert code == 2 and not (tmp_path / "results").exists()
    assert message in capsys.readouterr().err
