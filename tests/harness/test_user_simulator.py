"""The simulated user's two stages on hand-made agent turns: the rule-based user's statuses (completed,
inferred, provided), and the model-backed user against the provider simulator with the real SDKs (its
JSON answer checked, a protocol-breaking answer asked again, a 500 retried, a hopeless one refused)."""

import pytest

from harness.judge.providers import make_provider
from harness.judge.usersim import (
    NOTHING_MORE,
    USER_PROMPT_VERSION,
    AgentTurn,
    ModelUser,
    RuleUser,
    UserAnswerError,
    UserReply,
    check_reply,
    is_question,
    parse_user_answer,
)
from harness.tasks.sessions import Evidence, IntentSpec
from tests.simulators import ProviderSimulator, Reply

SPEC = (Evidence("spec", path="preferences.rides"),)
XL = IntentSpec("I1", "Book an XL ride, not a standard car.", SPEC)
TIP = IntentSpec("I2", "Tip the driver 25 percent.", SPEC)
PICKUP = IntentSpec("I3", "Pickup from the office at 4pm.", SPEC)
INTENTS = [XL, TIP, PICKUP]
REQUEST = "Book me a ride to the airport."


def test_an_intent_the_agent_acted_on_is_completed_and_its_question_is_answered():
    turn = AgentTurn("Which tip percent should I give the driver?", ["pyautogui.write('XL ride, not a standard car')"])
    reply = RuleUser().respond(REQUEST, INTENTS, turn)
    assert reply.completed == ("I1",)  # 4 of its 5 keywords typed: xl, ride, standard, car
    assert (reply.inferred, reply.provided) == ("I2", "")  # the question shares tip, percent, driver with I2
    assert reply.message == "Yes: Tip the driver 25 percent."


def test_an_agent_that_stops_is_supplied_the_first_open_intent():
    reply = RuleUser().respond(REQUEST, [TIP, PICKUP], AgentTurn("Your ride is booked."))
    assert reply.completed == ()
    assert (reply.inferred, reply.provided) == ("", "I2")
    assert reply.message == "Oh, and Tip the driver 25 percent."


def test_a_question_about_something_else_gets_an_intent_supplied_not_answered():
    reply = RuleUser().respond(REQUEST, [TIP, PICKUP], AgentTurn("Shall I play some music on the way?"))
    assert (reply.inferred, reply.provided) == ("", "I2")


def test_a_question_asked_in_passing_does_not_count_as_having_done_it():
    # The words of I2 are in the question, not in anything the agent did: not completed, but inferred.
    reply = RuleUser().respond(REQUEST, [TIP], AgentTurn("Should the driver get a 25 percent tip?"))
    assert reply.completed == () and reply.inferred == "I2"


def test_nothing_left_open_means_nothing_to_say_unless_asked():
    done = AgentTurn("Booked, and the driver gets a 25 percent tip.")
    assert RuleUser().respond(REQUEST, [TIP], done) == UserReply(completed=("I2",), message="")
    asked = AgentTurn("Anything else?", ["pyautogui.write('tip the driver 25 percent')"])
    assert RuleUser().respond(REQUEST, [TIP], asked).message == NOTHING_MORE


def test_is_question_reads_the_end_of_the_message():
    assert is_question("I booked it. Which terminal?") and is_question("Which terminal?**")
    assert not is_question("Is it booked? Yes, it is.") and not is_question("")


def test_check_reply_names_what_breaks_the_protocol():
    with pytest.raises(UserAnswerError, match=r"completed: I9 not among the open intents \(I1, I2, I3\)"):
        check_reply(UserReply(completed=("I9",), provided="I1", message="x"), INTENTS)
    with pytest.raises(UserAnswerError, match="inferred and provided are both set"):
        check_reply(UserReply(inferred="I1", provided="I2", message="x"), INTENTS)
    with pytest.raises(UserAnswerError, match="provided: 'I1' is not an intent still open after stage 1"):
        check_reply(UserReply(completed=("I1",), provided="I1", message="x"), INTENTS)
    with pytest.raises(UserAnswerError, match="intents I2, I3 are still open"):
        check_reply(UserReply(completed=("I1",)), INTENTS)
    with pytest.raises(UserAnswerError, match="message: empty"):
        check_reply(UserReply(provided="I1", message=" "), INTENTS)


def test_parse_user_answer_reads_the_json_after_any_preamble():
    text = 'Let me see.\n{"completed": ["I1"], "inferred": null, "provided": "I3", "message": "From the office."}'
    assert parse_user_answer(text, INTENTS) == UserReply(completed=("I1",), provided="I3", message="From the office.")
    with pytest.raises(UserAnswerError, match="no JSON object"):
        parse_user_answer("I think I1.", INTENTS)
    with pytest.raises(UserAnswerError, match='completed: "I1" is not a list'):
        parse_user_answer('{"completed": "I1", "provided": "I2", "message": "x"}', INTENTS)


GOOD = '{"completed": ["I1"], "inferred": "I2", "provided": null, "message": "A 25% tip, please.", "reason": "asked"}'
ASKED = AgentTurn("What tip should the driver get?", ["pyautogui.write('XL')"])


@pytest.fixture
def user_keys(monkeypatch):
    for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(name, "test-key")


def model_user(provider, sim):
    return ModelUser(make_provider(provider, None, base_url=sim.url), base_delay=0.0, sleep=lambda s: None)


@pytest.mark.parametrize("provider", ["google", "anthropic", "openai"])
def test_the_model_user_answers_in_two_stages_on_each_provider(provider, user_keys):
    with ProviderSimulator(lambda r: GOOD) as sim:
        user = model_user(provider, sim)
        reply = user.respond(REQUEST, INTENTS, ASKED)
    assert reply == UserReply(completed=("I1",), inferred="I2", message="A 25% tip, please.", reason="asked")
    assert user.identity["prompt_version"] == USER_PROMPT_VERSION and user.identity["provider"] == provider
    (request,) = sim.requests
    assert "I3: Pickup from the office at 4pm." in request.all_text and "What tip should" in request.all_text
    assert request.n_images == 0
    assert sim.invalid == []  # the strict simulator accepted every request as the real API would


def test_an_answer_breaking_the_protocol_is_asked_again_with_the_reason(user_keys):
    bad = '{"completed": ["I9"], "provided": "I1", "message": "x"}'
    with ProviderSimulator(script=[bad, GOOD]) as sim:
        reply = model_user("anthropic", sim).respond(REQUEST, INTENTS, ASKED)
    assert reply.inferred == "I2"
    assert len(sim.requests) == 2
    assert "Your previous answer was refused: completed: I9 not among the open intents" in sim.requests[1].all_text


def test_a_server_error_is_retried_then_answered(user_keys):
    with ProviderSimulator(script=[Reply(status=500), GOOD]) as sim:
        reply = model_user("openai", sim).respond(REQUEST, INTENTS, ASKED)
    assert reply.completed == ("I1",)
    assert len(sim.requests) >= 2


def test_a_user_model_that_keeps_breaking_the_protocol_is_a_clear_error(user_keys):
    with ProviderSimulator(lambda r: "I would say I2.") as sim:
        with pytest.raises(UserAnswerError, match="broke the protocol 2 times; last: no JSON object"):
            model_user("anthropic", sim).respond(REQUEST, INTENTS, ASKED)


# What each user prompt version says, pinned: changing the words means a new version in USER_PROMPTS
# (the old one kept), as the judge's prompts are versioned, so a recorded prompt_version names the words.
PROMPT_DIGESTS = {"mypc-user-1": "d0706c75278e22484afa5df3bbc83117d77241683366f676529b916ce1090b08"}


def test_each_user_prompt_version_keeps_its_words():
    import hashlib

    from harness.judge.usersim import USER_PROMPTS, user_prompt

    turn = AgentTurn("Which car?", ["pyautogui.click(1, 2)"])
    digests = {
        version: hashlib.sha256(f"{system}\n{user_prompt(REQUEST, [XL], turn)}".encode()).hexdigest()
        for version, system in USER_PROMPTS.items()
    }
    assert digests == PROMPT_DIGESTS
    assert USER_PROMPT_VERSION in USER_PROMPTS


def test_the_model_user_records_its_model_prompt_version_and_temperature_and_refuses_an_unknown_version():
    from harness.judge.usersim import make_user_simulator

    provider = make_provider("openai", "gpt-4.1-mini", api_key="k", temperature=0.0)
    assert ModelUser(provider).identity == {"kind": "model", "provider": "openai", "model": "gpt-4.1-mini",
                                            "prompt_version": "mypc-user-1", "temperature": 0.0}  # fmt: skip
    with pytest.raises(ValueError, match="user prompt version 'mypc-user-9'"):
        ModelUser(provider, prompt_version="mypc-user-9")
    with pytest.raises(ValueError, match="--user-prompt-version: 'mypc-user-9' .expected one of mypc-user-1"):
        make_user_simulator("openai", "gpt-4.1-mini", prompt_version="mypc-user-9", api_key="k")
    assert make_user_simulator("rules").identity == {
        "kind": "rules",
        "model": "",
        "prompt_version": "mypc-user-rules-1",
    }
