"""The provider simulators refuse what the real APIs refuse, so a wrong request fails a test instead of
passing: a missing API key, a missing required field, and a tool result answering no call (Anthropic
tool_use_id, OpenAI tool_call_id / call_id, Gemini function responses), each with the provider's own
error shape and status, sent through the real SDKs where they can send it."""

import json
import urllib.error
import urllib.request

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from tests.simulators.computer_use import anthropic_turn, openai_turn
from tests.simulators.server import ProviderSimulator

CLICK = {"action": "left_click", "coordinate": [10, 20]}


def post(url: str, body: dict, headers: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def sim():
    with ProviderSimulator(script=[anthropic_turn("Clicking.", [("computer", CLICK)])]) as simulator:
        yield simulator


def _anthropic_tool_exchange(client, tool_use_id: str):
    first = client.messages.create(model="claude-x", max_tokens=100,
                                   messages=[{"role": "user", "content": "Click."}])  # fmt: skip
    (call,) = [b for b in first.content if b.type == "tool_use"]
    answer = {"type": "tool_result", "tool_use_id": tool_use_id(call.id), "content": "done"}
    return client.messages.create(model="claude-x", max_tokens=100, messages=[
        {"role": "user", "content": "Click."},
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [answer]},
    ])  # fmt: skip


def test_anthropic_pairs_each_tool_result_with_a_tool_use_of_the_previous_turn(sim):
    client = anthropic.Anthropic(api_key="test-key", base_url=sim.url, max_retries=0)
    assert _anthropic_tool_exchange(client, lambda real: real).content[0].text == "ok"


def test_anthropic_refuses_a_wrong_tool_use_id_with_its_400(sim):
    client = anthropic.Anthropic(api_key="test-key", base_url=sim.url, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as refused:
        _anthropic_tool_exchange(client, lambda real: "toolu_not_asked")
    assert refused.value.status_code == 400
    assert refused.value.body["error"]["type"] == "invalid_request_error"
    assert "unexpected `tool_use_id` found in `tool_result` blocks: toolu_not_asked" in str(refused.value)


def test_anthropic_refuses_a_tool_use_left_unanswered(sim):
    client = anthropic.Anthropic(api_key="test-key", base_url=sim.url, max_retries=0)
    first = client.messages.create(model="claude-x", max_tokens=100, messages=[{"role": "user", "content": "Go"}])
    with pytest.raises(anthropic.BadRequestError, match="without `tool_result` blocks"):
        client.messages.create(model="claude-x", max_tokens=100, messages=[
            {"role": "user", "content": "Go"},
            {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
            {"role": "user", "content": "And now?"},
        ])  # fmt: skip


def test_anthropic_needs_its_key_header_and_required_fields(sim):
    body = {"model": "claude-x", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}]}
    status, error = post(sim.url + "/v1/messages", body, {"anthropic-version": "2023-06-01"})
    assert (status, error["error"]["type"]) == (401, "authentication_error")
    headers = {"anthropic-version": "2023-06-01", "x-api-key": "test-key"}
    status, error = post(sim.url + "/v1/messages", {k: v for k, v in body.items() if k != "max_tokens"}, headers)
    assert (status, error["error"]["message"]) == (400, "max_tokens: Field required")
    assert sim.of_api("anthropic") == [], "refused requests never reach the scripted replies"


def test_openai_chat_needs_a_bearer_key_and_a_tool_message_answering_a_call():
    with ProviderSimulator() as sim:
        status, error = post(sim.openai_url + "/chat/completions", {"model": "m", "messages": []}, {})
        assert status == 401 and error["error"]["type"] == "invalid_request_error"
        client = openai.OpenAI(api_key="test-key", base_url=sim.openai_url, max_retries=0)
        call = {"id": "call_1", "type": "function", "function": {"name": "click", "arguments": "{}"}}
        asked = [{"role": "user", "content": "Click."}, {"role": "assistant", "content": None, "tool_calls": [call]}]
        ok = client.chat.completions.create(model="m", messages=[*asked, {"role": "tool", "tool_call_id": "call_1",
                                                                           "content": "done"}])  # fmt: skip
        assert ok.choices[0].message.content == "ok"
        with pytest.raises(openai.BadRequestError) as refused:
            client.chat.completions.create(model="m", messages=[*asked, {"role": "tool", "tool_call_id": "call_9",
                                                                         "content": "done"}])  # fmt: skip
        assert refused.value.status_code == 400 and refused.value.body["param"] == "messages.[2].role"


def test_openai_responses_pair_each_call_output_with_a_call_of_the_chain():
    click = [{"type": "click", "button": "left", "x": 1, "y": 2}]
    with ProviderSimulator(script=[openai_turn("Clicking.", click)]) as sim:
        client = openai.OpenAI(api_key="test-key", base_url=sim.openai_url, max_retries=0)
        first = client.responses.create(model="computer-use-preview", input="Click.")
        call_id = next(item.call_id for item in first.output if item.type == "computer_call")
        answer = {"type": "computer_call_output", "call_id": call_id,
                  "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}}  # fmt: skip
        client.responses.create(model="computer-use-preview", previous_response_id=first.id, input=[answer])
        with pytest.raises(openai.BadRequestError, match="No tool call found for function call output") as refused:
            client.responses.create(model="computer-use-preview", previous_response_id=first.id,
                                    input=[{**answer, "call_id": "call_wrong"}])  # fmt: skip
        assert refused.value.status_code == 400
        # without the chain (no previous_response_id) the call is unknown too
        with pytest.raises(openai.BadRequestError):
            client.responses.create(model="computer-use-preview", input=[answer])


def test_gemini_needs_its_key_and_function_responses_after_their_calls():
    with ProviderSimulator() as sim:
        body = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
        status, error = post(sim.url + "/v1beta/models/gemini-x:generateContent", body, {})
        assert (status, error["error"]["status"]) == (403, "PERMISSION_DENIED")
        status, _ = post(sim.url + "/v1beta/models/gemini-x:generateContent?key=test-key", body, {})
        assert status == 200
        client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=sim.url))
        answer = types.Content(role="user", parts=[types.Part.from_function_response(name="click", response={})])
        called = types.Content(role="model", parts=[types.Part.from_function_call(name="click", args={})])
        ask = types.Content(role="user", parts=[types.Part.from_text(text="Click.")])
        assert client.models.generate_content(model="gemini-x", contents=[ask, called, answer]).text == "ok"
        with pytest.raises(genai_errors.ClientError) as refused:
            client.models.generate_content(model="gemini-x", contents=[ask, answer])
        assert refused.value.code == 400 and "function response turn" in str(refused.value)
        assert [api for api, *_ in sim.invalid] == ["gemini", "gemini"]


def test_openai_responses_refuse_a_call_of_the_previous_response_left_without_its_output():
    click = [{"type": "click", "button": "left", "x": 1, "y": 2}]
    with ProviderSimulator(script=[openai_turn("Clicking.", click)]) as sim:
        client = openai.OpenAI(api_key="test-key", base_url=sim.openai_url, max_retries=0)
        first = client.responses.create(model="computer-use-preview", input="Click.")
        call_id = next(item.call_id for item in first.output if item.type == "computer_call")
        with pytest.raises(openai.BadRequestError, match=f"No tool output found for computer call {call_id}"):
            client.responses.create(model="computer-use-preview", previous_response_id=first.id,
                                    input=[{"role": "user", "content": "And now?"}])  # fmt: skip


def test_anthropic_refuses_text_before_a_tool_result_and_a_fifth_cache_breakpoint():
    with ProviderSimulator() as sim:
        client = anthropic.Anthropic(api_key="test-key", base_url=sim.url, max_retries=0)
        used = [{"role": "user", "content": "Click."},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "computer",
                                                   "input": {"action": "left_click"}}]}]  # fmt: skip
        answer = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}
        said = {"type": "text", "text": "Also, the tip is 25%."}
        ok = client.messages.create(model="m", max_tokens=10, messages=[*used, {"role": "user",
                                                                               "content": [answer, said]}])  # fmt: skip
        assert ok.content[0].text == "ok"
        with pytest.raises(anthropic.BadRequestError, match="`tool_result` blocks must come first"):
            client.messages.create(model="m", max_tokens=10, messages=[*used, {"role": "user",
                                                                               "content": [said, answer]}])  # fmt: skip
        marked = [{"type": "text", "text": f"part {n}", "cache_control": {"type": "ephemeral"}} for n in range(5)]
        with pytest.raises(anthropic.BadRequestError, match="A maximum of 4 blocks with cache_control"):
            client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": marked}])
        client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": marked[:4]}])


def test_gemini_refuses_a_function_call_left_without_its_response():
    with ProviderSimulator() as sim:
        client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=sim.url))
        ask = types.Content(role="user", parts=[types.Part.from_text(text="Click twice.")])
        called = types.Content(role="model", parts=[types.Part.from_function_call(name="click", args={})] * 2)
        one = types.Content(role="user", parts=[types.Part.from_function_response(name="click", response={})])
        with pytest.raises(genai_errors.ClientError, match="number of function response parts"):
            client.models.generate_content(model="gemini-x", contents=[ask, called, one])
        both = types.Content(role="user", parts=[*one.parts, *one.parts, types.Part.from_text(text="Thanks.")])
        assert client.models.generate_content(model="gemini-x", contents=[ask, called, both]).text == "ok"
