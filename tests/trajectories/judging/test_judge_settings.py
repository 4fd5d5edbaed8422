"""The judge's settings from the environment: MYPCBENCH_FAILURE_CLASSIFIER (off or provider[:model][@base_url])
and MYPCBENCH_JUDGE_PRICES (a JSON price file over the shipped, unverified estimates): parsing, a clear
error naming the variable when malformed (the site refuses to start), costs from the configured prices,
"estimated" beside costs priced from the shipped table (the judge command, the judgment admin), and a
classifier that cannot start refusing the work before any call. Providers are the simulator on
127.0.0.1 with the real SDKs (no network here)."""

import json

import pytest
from django.core.management import call_command

from harness.judge.classify import ClassifierSettingError, parse_classifier_setting
from harness.judge.cli import main
from harness.judge.core import cost_of
from harness.judge.prices import DEFAULT_PRICES, PriceFileError, price_table, read_price_file
from harness.judge.provider_base import Usage
from tests.factories import write_task_dir
from tests.simulators import ProviderSimulator
from tests.site.test_settings import manage
from trajectories.judging import our_judge
from trajectories.models import Judgment
from trajectories.recording.import_results import import_results

TASKS = ["retrieval-f001"]  # the imported run (conftest.py)
GOOD = '{"reasoning": "Seen in step 2.", "cited_steps": [2], "verdict": "success"}'


@pytest.mark.parametrize(
    "value, expected",
    [
        ("off", {"mode": "rules"}),
        ("", {"mode": "rules"}),
        ("anthropic", {"mode": "llm", "provider": "anthropic", "model": "", "base_url": ""}),
        ("google:gemini-2.5-flash-lite", {"mode": "llm", "provider": "google", "model": "gemini-2.5-flash-lite",
                                          "base_url": ""}),
        ("openai_compatible:qwen2.5:7b@http://127.0.0.1:8000/v1",
         {"mode": "llm", "provider": "openai_compatible", "model": "qwen2.5:7b", "base_url": "http://127.0.0.1:8000/v1"}),
    ],
)  # fmt: skip
def test_the_classifier_setting_is_parsed(value, expected):
    assert parse_classifier_setting(value) == expected


@pytest.mark.parametrize("value", ["vertex:gemini", "Anthropic", "anthropic claude", "llm"])
def test_a_malformed_classifier_setting_names_the_variable(value):
    with pytest.raises(ClassifierSettingError, match="MYPCBENCH_FAILURE_CLASSIFIER=.*provider\\[:model\\]"):
        parse_classifier_setting(value)


def write(tmp_path, data, name="prices.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_a_price_file_overrides_and_adds_entries(tmp_path):
    path = write(tmp_path, {"claude-sonnet-4-6": {"input": 2, "output": 10}, "my-model": {"input": 1, "output": 1}})
    table, configured = price_table({"MYPCBENCH_JUDGE_PRICES": str(path)})
    assert configured == {"claude-sonnet-4-6", "my-model"}
    assert table["claude-sonnet-4-6"] == {"input": 2.0, "output": 10.0, "cached_input": 2.0, "cache_write": 2.0}
    assert table["gpt-5-mini"] == DEFAULT_PRICES["gpt-5-mini"]  # untouched entries stay
    # 1M fresh input tokens and 100k output tokens at the configured price
    assert cost_of(Usage(1_000_000, 0, 0, 100_000), "claude-sonnet-4-6", table) == pytest.approx(3.0)
    assert price_table({}) == (DEFAULT_PRICES, frozenset())


@pytest.mark.parametrize(
    "content, problem",
    [
        (None, "cannot read the file"),
        ("{not json", "not valid JSON"),
        ([1, 2], "expected a JSON object of model -> prices"),
        ({"m": 3}, "'m' should map to an object of prices"),
        ({"m": {"input": 1}}, "'m' lacks ['output']"),
        ({"m": {"input": 1, "output": -2}}, "'m' output should be a number >= 0"),
        ({"m": {"input": 1, "output": "2"}}, "'m' output should be a number >= 0"),
        ({"m": {"input": 1, "output": 2, "cached": 1}}, "'m' has unknown field(s) ['cached']"),
    ],
)
def test_a_bad_price_file_is_a_clear_error(tmp_path, content, problem):
    path = tmp_path / "missing.json" if content is None else write(tmp_path, content)
    with pytest.raises(PriceFileError) as caught:
        read_price_file(path)
    assert str(caught.value).startswith(f"MYPCBENCH_JUDGE_PRICES={path}: ")
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("MYPCBENCH_FAILURE_CLASSIFIER", "vertex", "MYPCBENCH_FAILURE_CLASSIFIER='vertex': expected 'off' or"),
        ("MYPCBENCH_JUDGE_PRICES", "/nowhere/prices.json", "MYPCBENCH_JUDGE_PRICES=/nowhere/prices.json: cannot read"),
        ("MYPCBENCH_UPLOAD_CPU_SHARE", "0", "MYPCBENCH_UPLOAD_CPU_SHARE is '0' (expected a share of one CPU"),
        ("MYPCBENCH_UPLOAD_CPU_SHARE", "1.5", "MYPCBENCH_UPLOAD_CPU_SHARE is '1.5' (expected a share of one CPU"),
        ("MYPCBENCH_UPLOAD_CPU_SHARE", "a tenth", "MYPCBENCH_UPLOAD_CPU_SHARE is 'a tenth' (expected a share"),
    ],
)
@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_the_site_refuses_to_start_with_a_malformed_setting(tmp_path, variable, value, message):
    result = manage(tmp_path, "check", **{variable: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and message in result.stderr


@pytest.mark.django_db
def test_manage_py_judge_says_estimated_unless_the_price_was_configured(imported_run, settings, capsys):
    with ProviderSimulator(lambda r: GOOD) as sim:
        call_command("judge", imported_run.slug, "--provider", "anthropic", "--base-url", sim.url)
        out = capsys.readouterr().out
        assert "(estimated from unverified shipped prices; set MYPCBENCH_JUDGE_PRICES to a price file)" in out
        settings.MYPCBENCH_JUDGE_PRICES = {"claude-sonnet-4-6": {"input": 1.0, "output": 1.0}}
        settings.MYPCBENCH_JUDGE_PRICES_CONFIGURED = frozenset({"claude-sonnet-4-6"})
        call_command("judge", imported_run.slug, "--provider", "anthropic", "--base-url", sim.url, "--force")
    out = capsys.readouterr().out
    assert "estimated" not in out and "cost $0.0" in out
    judged = Judgment.objects.filter(judge__origin="ours").first()
    # every token at $1 per million (cached and cache-write tokens default to the input price)
    assert float(judged.cost_usd) == pytest.approx((judged.input_tokens + judged.output_tokens) / 1e6, abs=1e-6)
    assert our_judge.describe_judge_cost(0, "some-new-model").startswith("unknown (no price for some-new-model")


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
@pytest.mark.django_db
def test_the_judgment_admin_says_estimated_beside_the_cost(imported_run, settings, client, django_user_model, tmp_path):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    client.force_login(django_user_model.objects.create_user("michael", is_staff=True, is_superuser=True))
    with ProviderSimulator(lambda r: GOOD) as sim:
        call_command("judge", imported_run.slug, "--provider", "anthropic", "--base-url", sim.url)
    judged = Judgment.objects.filter(judge__origin="ours").order_by("pk").first()
    cost = f"${float(judged.cost_usd):.4f}"
    why = "estimated from unverified shipped prices; set MYPCBENCH_JUDGE_PRICES to a price file"
    ours_listing = f"/admin/trajectories/judgment/?judge__id__exact={judged.judge_id}"
    listing = client.get(ours_listing).content.decode()
    assert "Judge cost (USD)" in listing
    assert f'<span title="{cost} ({why})">{cost} (estimated)</span>' in listing
    page = client.get(f"/admin/trajectories/judgment/{judged.pk}/change/").content.decode()
    assert f"{cost} ({why})" in page
    assert 'name="cost_usd"' not in page, "the cost is not a field to type over"

    # the price configured: the same cost without the label
    settings.MYPCBENCH_JUDGE_PRICES_CONFIGURED = frozenset({judged.judge.model})
    listing = client.get(ours_listing).content.decode()
    assert f">{cost}</span>" in listing and "(estimated" not in listing
    assert "estimated" not in client.get(f"/admin/trajectories/judgment/{judged.pk}/change/").content.decode()

    # an imported judgment carries no cost, and says so
    write_task_dir(tmp_path / "judged", "retrieval-f001", full_judge=[True, False, True])
    import_results(tmp_path / "judged", "Opus with its own judge")
    imported = Judgment.objects.filter(judge__origin="imported").order_by("pk").first()
    page = client.get(f"/admin/trajectories/judgment/{imported.pk}/change/").content.decode()
    assert "no cost was recorded for this judgment" in page


@pytest.mark.django_db
def test_a_classifier_that_cannot_start_refuses_before_any_call(imported_run, settings, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings.MYPCBENCH_FAILURE_CLASSIFIER = parse_classifier_setting("openai:gpt-5-mini")
    with ProviderSimulator(lambda r: GOOD) as sim:
        spec = our_judge.JudgeSpec(provider="anthropic", base_url=sim.url, attempts=1)
        with pytest.raises(our_judge.JudgingError, match="MYPCBENCH_FAILURE_CLASSIFIER \\(openai\\): no API key"):
            our_judge.build_judge(spec)
    assert sim.requests == []


def test_the_offline_cli_reads_the_price_file(tmp_path, monkeypatch, capsys):
    root = tmp_path / "results"
    write_task_dir(root, "retrieval-f001")
    monkeypatch.setenv("MYPCBENCH_JUDGE_PRICES", str(tmp_path / "absent.json"))
    assert main([str(root), "--provider", "anthropic", "--api-key", "k", "--base-url", "http://127.0.0.1:9"]) == 2
    assert "MYPCBENCH_JUDGE_PRICES=" in capsys.readouterr().err
    monkeypatch.setenv("MYPCBENCH_JUDGE_PRICES", str(write(tmp_path, {"claude-sonnet-4-6": {"input": 0, "output": 0}})))
    with ProviderSimulator(lambda r: GOOD) as sim:
        assert main([str(root), "--provider", "anthropic", "--api-key", "k", "--base-url", sim.url]) == 0
    assert "estimated" not in capsys.readouterr().err
    items = json.loads((root / "retrieval-f001" / "mypc_judge_result.json").read_text())["items"]
    assert all(item["cost_usd"] == 0 for item in items)  # the configured (zero) price, not the shipped one
