"""The site's judge is told about the persona as the paper's judge is: the summary of the world loaded
on the site by default, a file when one is named, nothing when told "none"; the judge configuration
records which, so runs judged with and without it never share a configuration."""

import pytest

from trajectories.judge_spec import JudgeSpec
from trajectories.judging import our_judge
from world.models import World

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def judge_key(monkeypatch):
    monkeypatch.setenv("GEMINI_API_KEY", "test-key")  # no call is made: the judge is only built


def _settings(spec):
    return our_judge.build_judge(spec, check_classifier=False).settings["persona_summary"]


def test_without_a_world_nothing_is_sent():
    assert _settings(JudgeSpec(provider="google")) == {"sent": False}


def test_the_loaded_worlds_summary_is_sent_and_named(tmp_path):
    World.objects.create(persona="Michael Scott", anchor="2026-04-13", source="x", summary="# Michael Scott\nManager.")
    sent = _settings(JudgeSpec(provider="google"))
    assert sent["sent"] is True and sent["path"] == "the loaded world: Michael Scott, anchor 2026-04-13"
    judge = our_judge.build_judge(JudgeSpec(provider="google"), check_classifier=False)
    assert judge.persona_summary.startswith("# Michael Scott")
    with_world = our_judge.judge_config_for(judge)
    assert f"persona {sent['sha256'][:8]}" in with_world.name

    assert _settings(JudgeSpec(provider="google", persona_summary="none")) == {"sent": False}
    without = our_judge.judge_config_for(our_judge.build_judge(JudgeSpec(provider="google", persona_summary="none"),
                                                               check_classifier=False))  # fmt: skip
    assert without.pk != with_world.pk

    own = tmp_path / "summary.md"
    own.write_text("# Someone else\n")
    named = _settings(JudgeSpec(provider="google", persona_summary=str(own)))
    assert named["path"] == str(own) and named["sha256"] != sent["sha256"]


def test_an_empty_world_summary_is_not_sent():
    World.objects.create(persona="Michael Scott", anchor="2026-04-13", source="x", summary="  \n")
    assert _settings(JudgeSpec(provider="google")) == {"sent": False}
