"""Claude's extended thinking (harness/agents/anthropic.py) against the Anthropic simulator, which refuses
requests that break the API's thinking rules: a budget of at least 1,024 tokens and below max_tokens, no
temperature beside it, thinking blocks sent back unchanged with their signature."""

import json
from pathlib import Path

import pytest
import requests

from harness.agents import AnthropicAgent, provider_agent
from harness.agents.base import AgentError
from harness.backends import FakeEnv
from harness.run import LoopConfig, Recorder, main, run_task
from harness.tasks import load_tasks
from tests.simulators.computer_use import anthropic_turn

DEMO_SUITE = Path(__file__).resolve().parents[2] / "seeding" / "demo_suite.json"
THOUGHT = "The Dinoco tab is open; the booking list is below the header."


@pytest.fixture
def env():
    env = FakeEnv(screen_size=(1280, 800))
    env.start()
    yield env
    env.stop()


def run_agent(agent, env, tmp_path):
    task = load_tasks(DEMO_SUITE).tasks[0]
    agent.attach(env)
    meta = {"agent": agent.name, "model": agent.model, "agent_protocol": agent.protocol()}
    recorder = Recorder.to_folder(task, tmp_path / task.id, meta=meta)
    return run_task(task, env, agent, recorder, LoopConfig(sleep_after=0.0))


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_thinking_blocks_go_back_unchanged_and_the_budget_is_sent(sim, env, tmp_path):
    sim.script = [
        anthropic_turn(
            "Clicking.", [("computer", {"action": "left_click", "coordinate": [100, 200]})], thinking=THOUGHT
        ),
        anthropic_turn("", [("bash", {"command": "echo hi"})], thinking="Now check the file."),
        anthropic_turn("All done.\n```DONE```"),
    ]
    agent = AnthropicAgent(api_key="sim-key", base_url=sim.url, max_retries=0, thinking=2048)
    result = run_agent(agent, env, tmp_path)
    assert sim.refused == []
    assert (result.status, result.ended_by, result.turns) == ("finished", "done", 3)
    first, second, third = (r.body for r in sim.requests)
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048} and first["max_tokens"] == 8192
    assert "temperature" not in first
    assistant = second["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0]["type"] == "thinking" and assistant["content"][0]["thinking"] == THOUGHT
    # the third request carries both earlier thinking blocks, byte for byte as they came
    thoughts = [b["thinking"] for m in third["messages"] if m["role"] == "assistant" for b in m["content"]
                if b["type"] == "thinking"]  # fmt: skip
    assert thoughts == [THOUGHT, "Now check the file."]
    assert agent.protocol()["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_without_thinking_nothing_is_sent_and_the_protocol_says_off(sim, env, tmp_path):
    sim.script = [anthropic_turn("Nothing to do.\n```DONE```")]
    agent = AnthropicAgent(api_key="sim-key", base_url=sim.url, max_retries=0)
    run_agent(agent, env, tmp_path)
    assert "thinking" not in sim.requests[0].body and agent.protocol()["thinking"] == "off"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"thinking": 512}, "thinking budget 512: the API takes at least 1024 tokens"),
        ({"thinking": 8192}, r"max_output_tokens \(8192\) must be larger"),
        ({"thinking": 4096, "retry_output_tokens": 4000}, r"retry_output_tokens \(4000\) must be larger"),
        ({"thinking": "lots"}, "thinking 'lots' \\(expected off, adaptive, paper or a token budget"),
    ],
)
def test_the_agent_refuses_a_budget_the_api_would_refuse(sim, options, message):
    with pytest.raises(AgentError, match=message):
        AnthropicAgent(api_key="sim-key", base_url=sim.url, **options)


def test_paper_thinking_is_3584_tokens_and_adaptive_on_opus_4_7(sim):
    sonnet = provider_agent("anthropic", "claude-sonnet-4-5", base_url=sim.url, thinking="paper")
    opus = provider_agent("anthropic", "claude-opus-4-7-20260101", base_url=sim.url, thinking="paper")
    assert sonnet.thinking == {"type": "enabled", "budget_tokens": 3584}
    assert opus.thinking == {"type": "adaptive"}


@pytest.fixture(autouse=True)
def anthropic_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sim-key")


def post(sim, **body) -> requests.Response:
    payload = {"model": "claude-sonnet-4-6", "max_tokens": 4096, "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": "test-key", "anthropic-version": "2023-06-01"}  # as the SDK sends them
    return requests.post(f"{sim.url}/v1/messages", json={**payload, **body}, headers=headers, timeout=10)


def tool_turn(first_block: dict | None) -> list[dict]:
    """A conversation whose last assistant turn called a tool, starting with ``first_block`` if given."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}}
    assistant = [first_block, call] if first_block else [call]
    return [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": assistant},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}]},
    ]


def test_the_simulator_refuses_what_the_api_refuses_with_thinking(sim):
    sim.script = [anthropic_turn("ok")] * 3
    enabled = {"type": "enabled", "budget_tokens": 2048}
    refusals = [
        (post(sim, thinking={"type": "enabled", "budget_tokens": 1000}), "greater than or equal to 1024"),
        (post(sim, thinking={"type": "enabled", "budget_tokens": 4096}), "`max_tokens` must be greater than"),
        (post(sim, thinking=enabled, temperature=0), "`temperature` may only be set to 1"),
        (post(sim, thinking=enabled, messages=tool_turn(None)), "Expected `thinking` or `redacted_thinking`"),
        (
            post(
                sim,
                thinking=enabled,
                messages=tool_turn({"type": "thinking", "thinking": "edited on the way back", "signature": "0" * 64}),
            ),  # fmt: skip
            "Invalid `signature` in `thinking` block",
        ),
    ]
    for response, message in refusals:
        assert response.status_code == 400 and message in response.json()["error"]["message"], response.text
    # what the API accepts: a block sent back as the simulator wrote it, and thinking with the default temperature
    written = post(sim, thinking=enabled).json()["content"][0]
    assert written["type"] == "thinking"
    assert post(sim, thinking=enabled, messages=tool_turn(written)).status_code == 200
    assert post(sim, thinking=enabled, temperature=1).status_code == 200


def test_cli_thinking_is_sent_and_recorded_in_bundle_json(sim, tmp_path, capsys):
    sim.script = [anthropic_turn("Done.\n```DONE```")]
    out = tmp_path / "results"
    code = main(["run", "--tasks", str(DEMO_SUITE), "--task", "demo-d001", "--backend", "fake", "--no-progress",
                 "--agent", "anthropic", "--base-url", sim.url, "--thinking", "3000", "--out", str(out)])  # fmt: skip
    assert code == 0, capsys.readouterr().err
    assert sim.requests[0].body["thinking"] == {"type": "enabled", "budget_tokens": 3000}
    bundle = json.loads((out / "demo-d001" / "bundle.json").read_text())
    assert bundle["agent_protocol"]["thinking"] == {"type": "enabled", "budget_tokens": 3000}
