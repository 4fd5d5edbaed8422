"""The contamination scan as a maintainer meets it: a trajectory that visits the benchmark's repository
or paper, or types its rubric criterion, is flagged at the step where it happens; a clean one is not;
words the instruction gives the agent never count; bad patterns in settings are refused naming them."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from harness.results import StepRecord, TrajectoryBundle
from tests.factories import make_run, make_suite
from trajectories.models import Trajectory
from trajectories.recording import contamination, ingest

pytestmark = pytest.mark.django_db

CRITERION = (
    "The agent replies to Priya Raman confirming the dentist appointment moved to Thursday the fourteenth "
    "at half past three in the afternoon"
)
RUBRIC = [
    {"criterion": CRITERION, "type": "llm_judge", "weight": 0.6},
    {"criterion": "States the new time in the final answer", "type": "llm_judge", "weight": 0.4},
]


@pytest.fixture
def graded_run(isolated_media):
    return make_run(make_suite(["retrieval-f016"], rubric=RUBRIC))


def step(index: int, action: dict, model_text: str = "", info: dict | None = None) -> StepRecord:
    return StepRecord(
        index=index,
        turn=index,
        tool="computer",
        action=action,
        action_text=str(action.get("type", "")),
        model_text=model_text,
        info=info or {},
    )


def ingest_steps(graded_run, steps, tmp_path, attempt=0, final_answer="") -> Trajectory:
    bundle = TrajectoryBundle(
        path=tmp_path / f"retrieval-f016-{attempt}",
        layout="mypcbench",
        task_id="retrieval-f016",
        attempt=attempt,
        steps=steps,
        final_answer=final_answer,
    )
    trajectory = ingest.ingest_bundle(graded_run, bundle)
    trajectory.refresh_from_db()
    return trajectory


def test_a_visit_to_the_repository_is_flagged_at_its_step(graded_run, tmp_path):
    trajectory = ingest_steps(
        graded_run,
        [
            step(1, {"type": "click", "x": 10, "y": 20}, "I will open the mail app."),
            step(2, {"type": "type", "text": "https://raw.githubusercontent.com/ljang0/MyPCBench/main/x"}),
            step(3, {"type": "key", "keys": "Return"}, info={"url": "https://arxiv.org/pdf/2606.16748v2"}),
        ],
        tmp_path,
    )
    hits = trajectory.contamination["hits"]
    assert [(h["step"], h["kind"]) for h in hits] == [(2, "repository"), (3, "paper")]
    assert hits[0]["field"] == "action" and "ljang0/MyPCBench" in hits[0]["excerpt"]
    assert hits[1]["field"] == "visited URL"
    assert trajectory.contamination["total"] == 2


def test_typing_a_rubric_criterion_is_flagged_but_the_instruction_is_not(graded_run, tmp_path):
    task = graded_run.suite.tasks.get()
    task.instruction = "Reply to Priya Raman confirming the dentist appointment moved to Thursday the fourteenth."
    task.save()
    copied = "Sure: " + CRITERION.lower().replace("the agent ", "") + ". Done."
    trajectory = ingest_steps(
        graded_run,
        [
            step(1, {"type": "type", "text": "confirming the dentist appointment moved to Thursday the fourteenth"}),
            step(2, {"type": "type", "text": copied}),
        ],
        tmp_path,
    )
    hits = trajectory.contamination["hits"]
    assert [(h["step"], h["kind"], h["pattern"]) for h in hits] == [(2, "rubric", "rubric item R1")]
    assert hits[0]["excerpt"].startswith("replies to priya raman confirming")
    assert hits[0]["excerpt"].endswith("half past three in the afternoon")


def test_a_rubric_run_in_the_model_text_or_the_final_answer_is_flagged(graded_run, tmp_path):
    words = CRITERION.split()
    trajectory = ingest_steps(
        graded_run,
        [step(1, {"type": "click"}, "The rubric says: " + " ".join(words[3:15]))],
        tmp_path,
        final_answer="anything " + " ".join(words[5:17]),
    )
    assert [(h["step"], h["field"]) for h in trajectory.contamination["hits"]] == [
        (1, "model text"),
        (1, "final answer"),
    ]


def test_a_shorter_run_of_a_criterion_is_not_enough(graded_run, tmp_path):
    short = " ".join(CRITERION.split()[2 : 2 + contamination.RUBRIC_RUN_WORDS - 1])
    trajectory = ingest_steps(graded_run, [step(1, {"type": "type", "text": short})], tmp_path)
    assert trajectory.contamination == {}


def test_numbers_are_not_words_of_a_run(isolated_media, tmp_path):
    """An agent reporting the facts it found repeats a criterion's figures: numbers never make up a run."""
    criterion = "Confirms in Dinoco Airlines that flight DN6769 leaves AVP at 7:30am on Friday, April 17, 2026"
    graded_run = make_run(make_suite(["retrieval-f016"], rubric=[{"criterion": criterion, "weight": 1.0}]))
    said = "Your flight DN6769 leaves AVP at 7:30am on Friday, April 17, 2026, as booked."
    assert ingest_steps(graded_run, [step(1, {"type": "click"}, said)], tmp_path).contamination == {}
    copied = "Confirms in Dinoco Airlines that flight DN6769 leaves AVP at 7:30am on Friday"
    assert (
        ingest_steps(graded_run, [step(1, {"type": "click"}, copied)], tmp_path, attempt=1).contamination["total"] == 1
    )


def test_a_clean_trajectory_has_no_hits(graded_run, tmp_path):
    trajectory = ingest_steps(
        graded_run,
        [
            step(1, {"type": "click", "x": 5, "y": 5}, "Opening HooliMail to find Priya's message."),
            step(
                2, {"type": "type", "text": "Thursday works for me, see you then."}, info={"url": "https://mail.local/"}
            ),
            step(3, {"type": "key", "keys": "ctrl+Return"}, "github.com/someone/else is unrelated"),
        ],
        tmp_path,
        final_answer="Replied to Priya.",
    )
    assert trajectory.contamination == {}


def test_the_task_files_and_other_runs_answer_files_are_flagged(graded_run, tmp_path):
    trajectory = ingest_steps(
        graded_run,
        [
            step(1, {"type": "bash", "command": "cat ~/Downloads/all_tasks_with_grading.json"}),
            step(2, {"type": "bash", "command": "find / -name rubric_judge_result.json"}),
        ],
        tmp_path,
    )
    assert [(h["step"], h["kind"]) for h in trajectory.contamination["hits"]] == [(1, "task file"), (2, "answer file")]


def test_this_sites_host_and_a_suites_own_patterns(graded_run, tmp_path, settings):
    settings.CONTAMINATION_SITE_HOST = "bench.example.org"
    settings.CONTAMINATION_SUITE_PATTERNS = {
        graded_run.suite.slug: [{"name": "the answer key", "pattern": r"answer[-_]key"}]
    }
    trajectory = ingest_steps(
        graded_run,
        [
            step(1, {"type": "type", "text": "https://bench.example.org/runs/"}),
            step(2, {"type": "type", "text": "open answer_key.txt"}),
        ],
        tmp_path,
    )
    assert [(h["step"], h["kind"], h["pattern"]) for h in trajectory.contamination["hits"]] == [
        (1, "site", "this site (bench.example.org)"),
        (2, "custom", "the answer key"),
    ]


@pytest.mark.parametrize(
    "value, named",
    [
        (["github\\.com/(unclosed"], "CONTAMINATION_PATTERNS[0]: pattern 'github\\\\.com/(unclosed' is not a valid"),
        ([{"name": "x", "pattern": ""}], "CONTAMINATION_PATTERNS[0]: pattern '' is empty"),
        (["ok", "a*"], "CONTAMINATION_PATTERNS[1]: pattern 'a*' matches empty text"),
        ([{"pattern": "x", "kind": "secret"}], "CONTAMINATION_PATTERNS[0]: kind 'secret' is not one of"),
        ([{"pattern": "x", "regex": "y"}], "CONTAMINATION_PATTERNS[0]: unknown keys ['regex']"),
        ("github", "CONTAMINATION_PATTERNS is str (expected a list)"),
    ],
)
def test_bad_patterns_in_settings_are_refused_naming_them(settings, value, named):
    settings.CONTAMINATION_PATTERNS = value
    with pytest.raises(ImproperlyConfigured) as caught:
        contamination.configured_patterns()
    assert named in str(caught.value)


def test_a_bad_site_host_is_refused(settings):
    settings.CONTAMINATION_SITE_HOST = "https://bench.example.org/"
    with pytest.raises(
        ImproperlyConfigured, match="CONTAMINATION_SITE_HOST 'https://bench.example.org/' is not a host"
    ):
        contamination.configured_patterns()


def test_the_rescan_command_flags_runs_stored_before_a_new_pattern(graded_run, tmp_path, settings):
    trajectory = ingest_steps(graded_run, [step(1, {"type": "type", "text": "open answer_key.txt"})], tmp_path)
    assert trajectory.contamination == {}
    settings.CONTAMINATION_SUITE_PATTERNS = {graded_run.suite.slug: [r"answer[-_]key"]}
    call_command("rescan_contamination", graded_run.slug, verbosity=0)
    trajectory.refresh_from_db()
    assert [(h["step"], h["pattern"]) for h in trajectory.contamination["hits"]] == [(1, "answer[-_]key")]


def test_the_rescan_command_names_an_unknown_run():
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no run with slug 'nope'"):
        call_command("rescan_contamination", "nope")


def test_the_scan_reads_each_steps_text_once(graded_run, tmp_path, monkeypatch):
    """Cost in proportion to the text: each word window is looked up once, never compared with every
    rubric window."""
    lookups = []
    trajectory = ingest_steps(
        graded_run, [step(i, {"type": "type", "text": "lorem ipsum " * 200}) for i in range(1, 21)], tmp_path
    )
    scanner = contamination.Scanner(trajectory.task)

    class Counting(dict):
        def get(self, key, default=None):
            lookups.append(key)
            return super().get(key, default)

    scanner.windows = Counting(scanner.windows)
    monkeypatch.setattr(contamination, "Scanner", lambda task, patterns=None: scanner)
    contamination.scan(trajectory)
    words = 20 * 400
    assert words - 20 * contamination.RUBRIC_RUN_WORDS < len(lookups) <= words


def test_the_rescan_command_refuses_bad_patterns_naming_them(graded_run, tmp_path, settings):
    from django.core.management.base import CommandError

    ingest_steps(graded_run, [step(1, {"type": "click"})], tmp_path)
    settings.CONTAMINATION_SUITE_PATTERNS = {graded_run.suite.slug: ["answer[key"]}
    with pytest.raises(CommandError, match=r"CONTAMINATION_SUITE_PATTERNS\['mypcbench-eval-round0'\]\[0\]: pattern"):
        call_command("rescan_contamination", verbosity=0)
