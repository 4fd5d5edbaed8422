"""The judge against provider simulators that answer as the real APIs do (tests/simulators/server.py):
OpenAI reasoning models (no temperature, reasoning effort, an output limit with room for reasoning),
request byte limits per provider, retry hints in error bodies and headers, no retries for requests that
cannot succeed (and a run that stops when every call fails the same way), Gemini cache failures and
expiry, cache storage in the cost, and adaptive concurrency under a request quota. The real SDKs talk
to the simulator on 127.0.0.1; nothing is mocked but the clock of the retry waits (``sleep``)."""

import email.utils
import json
import os
import time

import openai
import pytest
from PIL import Image

from harness.judge import ERROR, SUCCESS, Judge, JudgeItem, TrajectoryForJudge, make_provider
from harness.judge.cli import judge_folder, main
from harness.judge.images import ImagePolicy
from harness.judge.provider_base import REQUEST_LIMITS, request_bytes, retry_delay_from_body
from harness.results import StepRecord
from tests.factories import write_task_dir
from tests.simulators import ProviderSimulator, Reply

GOOD = 'Seen in step 2.\n{"reasoning": "Opened in step 2.", "cited_steps": [2], "verdict": "success"}'


ITEMS = [JudgeItem(n, f"R{n}", f"Requirement number {n} is met", weight=1.0) for n in range(1, 4)]


class Sleeps(list):
    """The judge's sleep, recorded instead of waited (the simulator's retry hints are up to a minute)."""

    def __call__(self, seconds):
        self.append(seconds)


def judge_for(sim, provider="google", model=None, **kwargs):
    url = sim.openai_url if provider.startswith("openai") else sim.url
    model = model or ("sim-model" if provider == "openai_compatible" else None)
    kwargs.setdefault("sleep", Sleeps())
    return Judge(make_provider(provider, model, api_key="k", base_url=url), **kwargs)


def small_trajectory(tmp_path, n_steps=3) -> TrajectoryForJudge:
    from harness.results import read_task_dir

    actions = [(n, f"pyautogui.click({n}, {n})") for n in range(1, n_steps + 1)]
    bundle = read_task_dir(write_task_dir(tmp_path, f"retrieval-f{n_steps:03d}", actions=actions))
    return TrajectoryForJudge(f"t{n_steps}", "Find the invoice.", bundle.steps, bundle.final_answer)


@pytest.fixture(scope="module")
def big_screenshots(tmp_path_factory):
    """Twelve 1280x800 screenshots of noise stored as PNG: 3 MB each, 48 MB in base64, more than
    any provider takes in one request (noise cannot be compressed, unlike real screens)."""
    folder = tmp_path_factory.mktemp("big")
    paths = []
    for n in range(12):
        path = folder / f"step_{n + 1}.png"
        Image.frombytes("RGB", (1280, 800), os.urandom(1280 * 800 * 3)).save(path, compress_level=0)
        paths.append(path)
    return paths


def big_trajectory(paths) -> TrajectoryForJudge:
    steps = [
        StepRecord(index=n, turn=n, tool="computer", action={}, action_text=f"pyautogui.click({n}, {n})", screenshot=p)
        for n, p in enumerate(paths, start=1)
    ]
    return TrajectoryForJudge("big", "Find the invoice.", steps)


# ---------------------------------------------------------------- 1. OpenAI reasoning models


def test_the_simulator_refuses_temperature_for_reasoning_models_as_the_api_does():
    with ProviderSimulator(lambda r: "ok") as sim:
        client = openai.OpenAI(api_key="k", base_url=sim.openai_url, max_retries=0)
        with pytest.raises(openai.BadRequestError) as caught:
            client.chat.completions.create(
                model="gpt-5-mini", temperature=0, messages=[{"role": "user", "content": "hi"}]
            )
        assert caught.value.status_code == 400
        assert caught.value.body["message"] == (
            "Unsupported value: 'temperature' does not support 0 with this model. "
            "Only the default (1) value is supported."
        )
        assert caught.value.body["param"] == "temperature" and caught.value.body["code"] == "unsupported_value"
        # a chat model still takes it
        client.chat.completions.create(model="gpt-4o-mini", temperature=0, messages=[{"role": "user", "content": "hi"}])


def test_gpt5_is_judged_without_temperature_with_low_effort_and_room_to_reason(tmp_path):
    trajectory = small_trajectory(tmp_path)
    with ProviderSimulator(lambda r: GOOD, openai_reasoning_tokens=3000) as sim:
        judge = judge_for(sim, "openai")  # the default judge model, gpt-5-mini
        verdicts = judge.judge(trajectory, ITEMS)
    assert judge.provider.model == "gpt-5-mini"
    assert [v.verdict for v in verdicts] == [SUCCESS] * 3
    body = sim.of_api("openai_chat")[0].body
    assert "temperature" not in body and body["reasoning_effort"] == "low"
    assert body["max_completion_tokens"] >= 16_000  # a 4,096 limit would leave 3,000 reasoning tokens little room
    assert judge.settings["temperature"] is None and judge.settings["temperature_mode"] == "provider default"
    assert judge.settings["reasoning_effort"] == "low"


def test_an_empty_answer_cut_by_the_output_limit_is_asked_again_with_more_room(tmp_path):
    trajectory = small_trajectory(tmp_path)
    with ProviderSimulator(lambda r: GOOD, openai_reasoning_tokens=20_000) as sim:
        verdict = judge_for(sim, "openai").judge(trajectory, ITEMS[:1])[0]
    limits = [r.body["max_completion_tokens"] for r in sim.of_api("openai_chat")]
    assert limits == [16_000, 32_000]
    assert verdict.verdict == SUCCESS and verdict.notes["output_limit_raised_to"] == 32_000
    assert verdict.output_tokens >= 16_000 + 20_000  # both calls' reasoning is billed


# ---------------------------------------------------------------- 2. request size limits


def test_the_simulator_answers_an_oversized_anthropic_request_with_413_request_too_large():
    import anthropic

    with ProviderSimulator(lambda r: "ok", max_request_bytes={"anthropic": 1000}) as sim:
        client = anthropic.Anthropic(api_key="k", base_url=sim.url, max_retries=0)
        with pytest.raises(anthropic.APIStatusError) as caught:
            client.messages.create(model="m", max_tokens=10, messages=[{"role": "user", "content": "x" * 2000}])
    assert caught.value.status_code == 413
    assert caught.value.body["error"]["type"] == "request_too_large"


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.parametrize("provider", ["anthropic", "google", "openai"])
def test_a_trajectory_too_big_for_one_request_is_fitted_to_the_provider_limit(big_screenshots, provider):
    trajectory = big_trajectory(big_screenshots)
    original = ImagePolicy("original")
    with ProviderSimulator(lambda r: GOOD) as sim:
        judge = judge_for(sim, provider, images=original)
        verdicts = judge.judge(trajectory, ITEMS[:2])
    assert sim.refused == []
    assert [v.verdict for v in verdicts] == [SUCCESS] * 2
    dropped = verdicts[0].notes.get("images_dropped_for_request_limit", 0)
    sent = verdicts[0].notes["images_sent"]
    assert sent + dropped == 12 and sent >= 1
    if provider != "openai":  # OpenAI's 50 MB of images takes all twelve 3 MB originals
        assert dropped > 0
    assert verdicts[0].notes["request_bytes"] <= REQUEST_LIMITS[{"google": "google"}.get(provider, provider)]
    assert judge.settings["max_request_bytes"] == judge.provider.max_request_bytes


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_without_a_cap_the_oversized_request_is_refused_once_and_not_retried(big_screenshots):
    trajectory = big_trajectory(big_screenshots)
    with ProviderSimulator(lambda r: GOOD) as sim:
        judge = judge_for(sim, "anthropic", images=ImagePolicy("original"), max_request_bytes=10**10)
        verdict = judge.judge(trajectory, ITEMS[:1])[0]
    assert verdict.verdict == ERROR and "HTTP 413" in verdict.error and "not retried" in verdict.error
    assert verdict.attempts == 1 and [s for _, s, _ in sim.refused] == [413]


def test_screenshots_are_re_encoded_and_the_configuration_says_how(tmp_path):
    trajectory = small_trajectory(tmp_path)
    with ProviderSimulator(lambda r: GOOD) as sim:
        judge = judge_for(sim, "anthropic", images=ImagePolicy("jpeg", 70, 640))
        judge.judge(trajectory, ITEMS[:1])
    blocks = sim.of_api("anthropic")[0].body["messages"][0]["content"]
    images = [b for b in blocks if b["type"] == "image"]
    assert images and all(b["source"]["media_type"] == "image/jpeg" for b in images)
    assert judge.settings["images"] == {"format": "jpeg", "quality": 70, "max_side": 640}
    assert judge.settings["max_request_bytes"] == int(32_000_000 * 0.95)


def test_request_bytes_counts_images_in_base64(tmp_path):
    from harness.judge.prompt import ImagePart, Prefix, TextPart

    prefix = Prefix(system="s", parts=[TextPart("abc"), ImagePart(b"x" * 3000, "image/png", 1)])
    assert 4000 <= request_bytes(prefix) - 2048 - 1 - 3 - 32 <= 4000 + 128


# ---------------------------------------------------------------- 3. retry hints


def test_retry_delay_is_read_from_a_google_error_body():
    body = {
        "error": {
            "code": 429,
            "status": "RESOURCE_EXHAUSTED",
            "details": [
                {"@type": "type.googleapis.com/google.rpc.QuotaFailure"},
                {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "50s"},
            ],
        }
    }
    assert retry_delay_from_body(body) == 50.0
    assert retry_delay_from_body([body]) == 50.0  # the API sometimes wraps the error in a list
    assert (
        retry_delay_from_body({"error": {"details": [{"@type": "x.google.rpc.RetryInfo", "retryDelay": "0.5s"}]}})
        == 0.5
    )
    assert retry_delay_from_body({"error": {"message": "no details"}}) is None


def test_a_gemini_429_waits_for_the_retry_delay_in_its_body(tmp_path):
    trajectory = small_trajectory(tmp_path)
    script = [Reply(status=429, retry_delay="50s")]
    with ProviderSimulator(lambda r: GOOD, script=script) as sim:
        judge = judge_for(sim, "google", base_delay=0.01)
        verdict = judge.judge(trajectory, ITEMS[:1])[0]
    assert verdict.verdict == SUCCESS and verdict.attempts == 2
    assert judge.sleep and max(judge.sleep) >= 49.9  # the body's 50 s, not our 0.01 s backoff


@pytest.mark.parametrize("header, at_least", [("retry-after-ms", 2.4), ("retry-after", 7100)])
def test_retry_after_ms_and_http_date_headers_are_honoured(tmp_path, header, at_least):
    trajectory = small_trajectory(tmp_path)
    # 2.5 s in milliseconds, or an HTTP date two hours ahead (made here, not when tests are collected)
    value = "2500" if header == "retry-after-ms" else email.utils.formatdate(time.time() + 7200, usegmt=True)
    with ProviderSimulator(lambda r: GOOD, script=[Reply(status=429, headers={header: value})]) as sim:
        judge = judge_for(sim, "openai", model="gpt-4o-mini", base_delay=0.01, rate_limit_budget=10**9)
        verdict = judge.judge(trajectory, ITEMS[:1])[0]
    assert verdict.verdict == SUCCESS and max(judge.sleep) >= at_least


def test_a_per_minute_quota_is_waited_out_beyond_five_attempts(tmp_path):
    """Seven 429s a minute apart: today's five tries over 15 s would give up; the 429 budget does not."""
    trajectory = small_trajectory(tmp_path)
    script = [Reply(status=429, retry_delay="50s") for _ in range(7)]
    with ProviderSimulator(lambda r: GOOD, script=script) as sim:
        judge = judge_for(sim, "google", attempts=5)
        verdict = judge.judge(trajectory, ITEMS[:1])[0]
    assert verdict.verdict == SUCCESS and verdict.attempts == 8
    assert sum(judge.sleep) >= 7 * 49.9


# ---------------------------------------------------------------- 5. only retry what can succeed


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_requests_that_cannot_succeed_are_not_retried(tmp_path, status):
    trajectory = small_trajectory(tmp_path)
    with ProviderSimulator(lambda r: Reply(status=status)) as sim:
        verdict = judge_for(sim, "anthropic").judge(trajectory, ITEMS[:1])[0]
    assert verdict.verdict == ERROR and verdict.attempts == 1 and len(sim.of_api("anthropic")) == 1
    assert f"HTTP {status}" in verdict.error and "simulated error" in verdict.error  # the provider's message


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_run_whose_calls_all_fail_the_same_way_stops_with_one_error(tmp_path, capsys):
    root = tmp_path / "results"
    for n in range(1, 6):
        write_task_dir(root, f"retrieval-f00{n}")
    with ProviderSimulator(lambda r: Reply(status=400)) as sim:
        judge = judge_for(sim, "openai", model="gpt-4o-mini", concurrency=1)
        summary = judge_folder(root, judge, workers=1)
        calls = len(sim.of_api("openai_chat"))
    assert calls == 3  # 5 tasks x 3 items would be 15 calls
    assert "stopped after 3 calls failed the same way" in summary["stopped"]
    assert summary["judge_errors"] == 5 and summary["graded"] == 0
    with ProviderSimulator(lambda r: Reply(status=400)) as sim:
        code = main([str(root), "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", sim.openai_url,
                         "--api-key", "k", "--concurrency", "1", "--force"])  # fmt: skip
        assert len(sim.of_api("openai_chat")) <= 3 + 1
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("error: the judge stopped after") == 1 and "HTTP 400" not in err.split("error:")[0]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_run_that_has_succeeded_does_not_stop_on_one_item_s_refusals(tmp_path):
    trajectory = small_trajectory(tmp_path)

    def answer(request):
        return Reply(status=400) if "number 3" in request.last_text else GOOD

    with ProviderSimulator(answer) as sim:
        judge = judge_for(sim, "openai", model="gpt-4o-mini", concurrency=1)
        for _ in range(4):
            verdicts = judge.judge(trajectory, ITEMS)
    assert not judge.stopped and [v.verdict for v in verdicts] == [SUCCESS, SUCCESS, ERROR]


# ---------------------------------------------------------------- 6. Gemini cache failures and storage


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_failing_gemini_cache_creation_falls_back_to_the_full_prefix(tmp_path):
    trajectory = small_trajectory(tmp_path)
    with ProviderSimulator(lambda r: GOOD, gemini_cache_create_status=500) as sim:
        verdicts = judge_for(sim, "google", attempts=2).judge(trajectory, ITEMS)
    assert [v.verdict for v in verdicts] == [SUCCESS] * 3
    assert all(r.n_images == 3 and "cachedContent" not in r.body for r in sim.of_api("gemini"))
    assert "cache_unavailable" in verdicts[0].notes


def test_a_gemini_cache_that_expires_mid_trajectory_falls_back_to_the_full_prefix(tmp_path):
    trajectory = small_trajectory(tmp_path)

    def expire_after_first(request):
        if "cachedContent" in request.body:
            sim.caches.clear()  # the cache's TTL ran out between two rubric calls
        return GOOD

    with ProviderSimulator(expire_after_first) as sim:
        verdicts = judge_for(sim, "google", concurrency=1).judge(trajectory, ITEMS)
    assert [v.verdict for v in verdicts] == [SUCCESS] * 3
    generates = sim.of_api("gemini")
    assert "cachedContent" in generates[0].body and generates[-1].n_images == 3
    assert all("cache_lost" in v.notes for v in verdicts)
    assert verdicts[1].notes.get("sent_full_prefix_after_cache_loss") is True


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_gemini_cache_storage_is_in_the_cost(tmp_path):
    trajectory = small_trajectory(tmp_path)
    prices = {"gemini-3.1-flash-lite-preview": {"input": 0.25, "cached_input": 0.025, "output": 1.5}}
    stored = {
        "gemini-3.1-flash-lite-preview": {**prices["gemini-3.1-flash-lite-preview"], "cache_storage_per_hour": 1e6}
    }
    costs = {}
    for name, table in (("without", prices), ("with", stored)):
        with ProviderSimulator(lambda r: GOOD, latency=(0.05, 0.05)) as sim:
            first = judge_for(sim, "google", price_table=table).judge(trajectory, ITEMS)[0]
        costs[name] = first.cost_usd
        hours = first.notes["cache_storage_token_hours"]
    assert hours > 0
    assert costs["with"] > costs["without"]


# ---------------------------------------------------------------- 4. adaptive concurrency under a quota


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_adaptive_concurrency_keeps_429s_rare_under_a_request_quota(tmp_path):
    trajectory = small_trajectory(tmp_path)
    items = [JudgeItem(n, f"R{n}", f"Requirement number {n} is met", weight=1.0) for n in range(1, 91)]
    with ProviderSimulator(lambda r: GOOD, latency=(0.02, 0.04), quota=(30, 1.0)) as sim:
        judge = judge_for(sim, "anthropic", concurrency=16, sleep=time.sleep, quota_window_s=1.0)
        verdicts = judge.judge(trajectory, items)
        rate_limited = sim.rate_limited
    assert [v.verdict for v in verdicts] == [SUCCESS] * 90
    # A fixed 16 calls in flight at ~30 ms each asks for ~500 calls a second against a quota of 30:
    # most calls would be refused. Adaptive, only the calls in flight when the quota is first met are.
    assert rate_limited <= 9, f"{rate_limited} of {90 + rate_limited} calls were answered 429"
    state = judge.limiter.state()
    assert state["quota_per_window"] is not None and state["quota_per_window"] <= 31
    assert json.dumps(state)
