"""The permission rules themselves, beside the authorisation matrix that tries every URL as every
role: which media names can be asked for at all, who reads a stored file (its run's launcher and its
uploading author, maintainers, anybody once published), which trajectories of a task and which runs
each user sees, and that the lists a user sees are fetched in a fixed number of queries."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from leaderboard.catalog import selectors
from leaderboard.models import JudgeConfig
from tests.factories import make_run, make_suite
from trajectories.models import Step, Submission, Trajectory
from trajectories.recording.media_access import NOBODY, MediaOwners, clean_name, media_owners
from trajectories.submissions.review import visible_submissions

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "name",
    ["", "a\\b.png", "a\x00.png", "/etc/passwd", "../secret", "steps/../../secret", "steps/..", "\\\\host\\share"],
)
def test_names_that_cannot_be_stored_media(name):
    assert clean_name(name) is None


@pytest.mark.parametrize("name", ["steps/ab/cd.png", "submissions/ab/x.zip", "a..b/c..png", "steps/.hidden.png"])
def test_names_that_can(name):
    assert clean_name(name) == name


@pytest.fixture
def people():
    users = get_user_model().objects
    return {
        "anonymous": AnonymousUser(),
        "author": users.create_user("pam", password="x"),
        "launcher": users.create_user("jan", password="x"),  # launched a run, no longer a maintainer
        "other": users.create_user("dwight", password="x"),
        "staff": users.create_user("michael", password="x", is_staff=True),
    }


def test_who_reads_what_the_rows_say(people):
    nobody_reads = [who for who, user in people.items() if NOBODY.allows(user)]
    assert nobody_reads == [], "a file no row names is nobody's, maintainers' included"
    assert not NOBODY.allows(None)
    private = MediaOwners(owned=True, readers=frozenset({people["author"].pk}))
    assert [who for who, user in people.items() if private.allows(user)] == ["author", "staff"]
    public = MediaOwners(owned=True, public=True)
    assert all(public.allows(user) for user in people.values()) and public.allows(None)


@pytest.fixture
def runs(people):
    suite = make_suite(["retrieval-f016", "writing-a001"])

    def run(slug, name, publication="draft", **kwargs):
        return make_run(suite, slug=slug, name=name, publication=publication, **kwargs)

    return {
        "suite": suite,
        "draft": run("b-draft", "B draft", launched_by=people["launcher"]),
        "uploaded": run("c-upload", "C upload", provenance="upload"),  # nobody recorded as launching it
        "published": run("a-published", "A published", "published", judge_config=JudgeConfig.objects.create(
            name="judge", origin="ours")),
    }  # fmt: skip


def step_with(run, shot: str, task_id="retrieval-f016", attempt=0):
    trajectory = Trajectory.objects.create(run=run, task=run.suite.tasks.get(task_id=task_id), attempt=attempt)
    Step.objects.create(trajectory=trajectory, index=1, turn=1, screenshot=shot)
    return trajectory


def test_an_unpublished_screenshot_is_read_by_its_launcher_and_its_uploading_author(runs, people):
    for n in range(3):  # submissions of other runs first: their ids are not the author's id
        Submission.objects.create(author=people["other"], archive_name=f"{n}.zip", archive_sha256=f"{n}" * 64)
    step_with(runs["draft"], "steps/aa/shared.png")
    step_with(runs["uploaded"], "steps/aa/shared.png")  # content-addressed: one file, two runs
    Submission.objects.create(author=people["author"], archive_name="a.zip", archive_sha256="a" * 64,
                              run=runs["uploaded"])  # fmt: skip
    owners = media_owners("steps/aa/shared.png")
    assert owners.owned and not owners.public
    assert owners.readers == frozenset({people["launcher"].pk, people["author"].pk})
    assert [who for who, user in people.items() if owners.allows(user)] == ["author", "launcher", "staff"]
    step_with(runs["published"], "steps/aa/shared.png")  # once any of its runs is published, anybody
    assert media_owners("steps/aa/shared.png").public


def test_a_tasks_trajectories_in_the_runs_each_user_sees(runs, people):
    step_with(runs["draft"], "x1.png", attempt=1)
    step_with(runs["published"], "x2.png", attempt=1)
    step_with(runs["draft"], "x3.png", attempt=0)
    step_with(runs["published"], "x4.png", attempt=0)
    step_with(runs["published"], "x5.png", task_id="writing-a001")  # another task
    task = runs["suite"].tasks.get(task_id="retrieval-f016")

    def seen(who):
        return [(t.run.name, t.attempt) for t in selectors.task_trajectories(task, people[who])]

    assert seen("staff") == [("A published", 0), ("A published", 1), ("B draft", 0), ("B draft", 1)]
    assert seen("anonymous") == seen("author") == [("A published", 0), ("A published", 1)]


def test_a_run_page_for_those_who_see_the_run(runs, people, django_assert_num_queries):
    with django_assert_num_queries(1):  # the run with its model, suite, judge and launcher
        run = selectors.run_detail(people["staff"], "b-draft")
        assert (run.model.name, run.suite.slug, run.judge_config, run.launched_by.username) == (
            "Alpha",
            "mypcbench-eval-round0",
            None,
            "jan",
        )
    with django_assert_num_queries(1):
        assert selectors.run_detail(people["anonymous"], "a-published").judge_config.name == "judge"
    for who in ["anonymous", "author", "launcher"]:
        with pytest.raises(Http404, match="No run 'b-draft'"):
            selectors.run_detail(people[who], "b-draft")
    assert [r.slug for r in selectors.visible_runs(people["staff"]).order_by("slug")] == [
        "a-published",
        "b-draft",
        "c-upload",
    ]
    assert [r.slug for r in selectors.visible_runs(None)] == ["a-published"]
    assert selectors.sees_unpublished(people["staff"]) and not selectors.sees_unpublished(None)
    assert not selectors.sees_unpublished(people["author"]) and not selectors.sees_unpublished(people["anonymous"])


def test_submissions_each_user_sees_in_one_query(runs, people, django_assert_num_queries):
    for who, run in [("author", runs["uploaded"]), ("other", runs["published"])]:
        Submission.objects.create(author=people[who], archive_name=f"{who}.zip", archive_sha256=who[0] * 64, run=run)
    with django_assert_num_queries(1):  # author, run, model and suite come with each row
        rows = [(s.author.username, s.run.name, s.run.model.name, s.run.suite.slug)
                for s in visible_submissions(people["staff"]).order_by("archive_name")]  # fmt: skip
    assert rows == [("pam", "C upload", "Alpha", "mypcbench-eval-round0"),
                    ("dwight", "A published", "Alpha", "mypcbench-eval-round0")]  # fmt: skip
    assert [s.archive_name for s in visible_submissions(people["author"])] == ["author.zip"]
    assert list(visible_submissions(people["anonymous"])) == [] and list(visible_submissions(people["launcher"])) == []
