"""Agents talk back: every provider adapter (OpenAI both chained and windowed) plays a 3-turn session in
ONE conversation on its strict provider simulator. Turn 1 types and asks a question; the user's answer
goes in as the next user message; turn 2 types and signals DONE in the same reply (its call is owed a
result); the user supplies an intent, which reaches the model after that result; turn 3 answers. No
request is refused, the system prompt tells the model the user is at hand, and each turn's folder records
only that turn's usage."""

import json

import pytest

from harness.agents import AnthropicAgent, GeminiAgent, OpenAIAgent, OpenAICompatibleAgent
from harness.judge.usersim import RuleUser
from harness.run import LoopConfig
from harness.run.session import run_session
from harness.tasks.sessions import read_session_data, session_tasks
from tests.harness.test_session_runs import SESSION_FILE, SESSION_ID
from tests.simulators import ProviderSimulator
from tests.simulators.computer_use import anthropic_turn, chat_turn, gemini_turn, openai_turn, qwen_call

QUESTION = "Which tip percent should I give the driver?"
ANSWER = "Yes: Tip the driver 25 percent."  # the rule user's answer to the question (I2 inferred)
SUPPLIED = "Oh, and Pickup from the office at 4pm."  # what it supplies after turn 2 (I3 provided)
XL, TIP = "XL ride, not a standard car", "tip 25 percent"


def _anthropic(text, typed=None):
    return anthropic_turn(text, [("computer", {"action": "type", "text": typed})] if typed else [])


def _openai(text, typed=None):
    return openai_turn(text, [{"type": "type", "text": typed}] if typed else [])


def _gemini(text, typed=None):
    return gemini_turn(text, [("type_text_at", {"x": 500, "y": 500, "text": typed})] if typed else [])


def _qwen(text, typed=None):
    return chat_turn(text + ("\n" + qwen_call("computer_use", action="type", text=typed) if typed else ""))


def _texts(parts, key="text") -> list[str]:
    return [p[key] for p in parts if isinstance(p, dict) and isinstance(p.get(key), str)]


# name: (agent class, simulator URL attribute, reply builder, the newest user words of a request body,
#        the system prompt of a request body, whether the request's last user turn answers an owed call)
ADAPTERS = {
    "anthropic": (AnthropicAgent, "url", _anthropic,
                  lambda b: _texts(b["messages"][-1]["content"]),
                  lambda b: b["system"][0]["text"],
                  lambda b: b["messages"][-1]["content"][0]["type"] == "tool_result"),
    "openai": (OpenAIAgent, "openai_url", _openai,
               lambda b: [t for i in b["input"] if i.get("role") == "user" for t in _texts(i["content"])],
               lambda b: b["instructions"],
               lambda b: b["input"][0]["type"] == "computer_call_output" and bool(b.get("previous_response_id"))),
    "openai_windowed": (OpenAIAgent, "openai_url", _openai,
                        lambda b: [t for i in b["input"][-2:] if i.get("role") == "user" for t in _texts(i["content"])],
                        lambda b: b["instructions"],
                        lambda b: b["input"][-2]["type"] == "computer_call_output"),
    "gemini": (GeminiAgent, "url", _gemini,
               lambda b: _texts(b["contents"][-1]["parts"]),
               lambda b: b["systemInstruction"]["parts"][0]["text"],
               lambda b: "functionResponse" in b["contents"][-1]["parts"][0]),
    "openai_compatible": (OpenAICompatibleAgent, "openai_url", _qwen,
                          lambda b: _texts(b["messages"][-1]["content"]),
                          lambda b: b["messages"][0]["content"],
                          None),
}  # fmt: skip


@pytest.fixture
def talk_back_guest():
    from harness.backends import FakeEnv

    env = FakeEnv(screen_size=(1280, 800))
    env.start()
    yield env
    env.stop()


@pytest.mark.slow  # four model calls through a provider SDK, a 3-turn session on the fake guest
@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_each_adapter_plays_a_three_turn_session_in_one_conversation(name, talk_back_guest, tmp_path):
    cls, url_attr, reply, newest_user_words, system_of, answers_owed_call = ADAPTERS[name]
    script = [
        reply("Booking.", XL),  # turn 1: types ...
        reply(QUESTION),  # ... and asks
        reply("Setting the tip.\n```DONE```", TIP),  # turn 2: types and stops in one reply: its call is owed
        reply("Pickup set for the office at 4pm."),  # turn 3
    ]
    sessions = read_session_data(SESSION_FILE, "rides.json")
    (task,) = session_tasks(sessions).tasks
    with ProviderSimulator(script=script) as sim:
        options = {"openai_compatible": {"model": "sim-model"}, "openai_windowed": {"context": "windowed"}}
        agent = cls(api_key="sim-key", base_url=getattr(sim, url_attr), max_retries=0, **options.get(name, {}))
        agent.attach(talk_back_guest)
        result = run_session(sessions.sessions[0], task, talk_back_guest, agent, RuleUser(), tmp_path,
                             LoopConfig(sleep_after=0.0, max_turns=10))  # fmt: skip
    assert sim.invalid == [] and sim.refused == []  # every request as the provider's documented rules want
    assert len(sim.requests) == 4
    record = result.record
    assert {k: v["status"] for k, v in record["intents"].items()} == {
        "I1": "completed",
        "I2": "inferred",
        "I3": "provided",
    }
    assert (record["ended_by"], len(record["turns"]), record["agent_conversation"]) == ("final_response", 3, "one")
    bodies = [r.body for r in sim.requests]
    # One conversation: turn 2 and turn 3 read the user's words as the newest user message, after the
    # call results they owe (turn 3 answers the call turn 2 made beside its DONE).
    assert newest_user_words(bodies[2]) == [ANSWER]
    assert newest_user_words(bodies[3]) == [SUPPLIED]
    if answers_owed_call is not None:
        assert answers_owed_call(bodies[3])
    # The conversation is never restarted: it opens with the request (chained: sent once, in the first).
    assert [json.dumps(b).count("Book me a ride to the airport.") for b in bodies] == (
        [1, 0, 0, 0] if name == "openai" else [1] * 4
    )
    assert all("The user is at hand" in system_of(b) for b in bodies)
    assert system_of(bodies[0]) == system_of(bodies[3])  # the same system prompt all along (caching)
    usage = [json.loads((tmp_path / SESSION_ID / f"turn_{n}" / "usage.json").read_text()) for n in (1, 2, 3)]
    assert [u.get("api_calls") for u in usage] == [2, 1, 1]  # each turn's record holds its own calls only
