"""Steps' published flag (what a visitor's step search walks) follows their run through every change of
publication: a step stored in a published or a draft run, a run published, withdrawn or made a draft by
a save or a bulk update, a submission approved, rejected and withdrawn, a trajectory moved to another
run, a run deleted. At each point the flags equal the runs' publication and a visitor's step search
finds exactly the published runs' steps; a flag set wrongly behind the site's back still shows nothing."""

import pytest

from leaderboard.models import Run
from tests.catalog_data import build_catalog
from trajectories.models import Step, Submission, Trajectory
from trajectories.player import step_search
from trajectories.recording.published_steps import sync_published_steps
from trajectories.submissions import review

pytestmark = pytest.mark.django_db


@pytest.fixture
def flagged_catalog(django_user_model):
    """The small catalog with a findable step ("heron") in its published run and one ("egret") in its
    draft run, the draft being an author's submission, and a maintainer."""
    cat = build_catalog()
    Step.objects.create(trajectory=cat.traj, index=3, turn=3, model_text="A heron in the published run.")
    Step.objects.bulk_create([Step(trajectory=cat.draft_traj, index=1, turn=1, model_text="An egret in the draft.")])
    cat.author = django_user_model.objects.create_user("ann", password="pw")
    cat.staff = django_user_model.objects.create_user("toby", password="pw", is_staff=True)
    cat.submission = Submission.objects.create(
        author=cat.author,
        run=cat.draft,
        archive_name="a.zip",
        archive_sha256="0" * 64,
        status=Submission.Status.AWAITING_REVIEW,
    )
    return cat


def flags_match_runs() -> bool:
    """Every step's flag says what its run's publication says."""
    wrong = Step.objects.exclude(published=True).filter(trajectory__run__publication="published").count()
    return wrong + Step.objects.filter(published=True).exclude(trajectory__run__publication="published").count() == 0


def visitor_finds(words: str) -> list[str]:
    return [hit.step.model_text for hit in step_search.search_steps(None, {"q": words}).hits]


def test_stored_steps_take_their_runs_publication(flagged_catalog):
    assert Step.objects.get(model_text__contains="heron").published
    assert not Step.objects.get(model_text__contains="egret").published
    assert flags_match_runs()
    assert visitor_finds("heron") == ["A heron in the published run."]
    assert visitor_finds("egret") == []


def test_saving_a_run_moves_its_steps_flags_both_ways(flagged_catalog):
    draft = flagged_catalog.draft
    draft.publication = Run.Publication.PUBLISHED
    draft.save(update_fields=["publication"])
    assert flags_match_runs() and visitor_finds("egret") == ["An egret in the draft."]
    draft.publication = Run.Publication.WITHDRAWN
    draft.save()
    assert flags_match_runs() and visitor_finds("egret") == []
    published = flagged_catalog.published
    published.publication = Run.Publication.DRAFT
    published.save()
    assert flags_match_runs() and visitor_finds("heron") == []


def test_a_bulk_update_of_runs_moves_their_steps_flags(flagged_catalog):
    Run.objects.filter(pk=flagged_catalog.draft.pk).update(publication=Run.Publication.PUBLISHED)
    assert flags_match_runs() and visitor_finds("egret") == ["An egret in the draft."]
    Run.objects.filter(publication=Run.Publication.PUBLISHED).update(publication=Run.Publication.WITHDRAWN)
    assert flags_match_runs() and Step.objects.filter(published=True).count() == 0
    assert visitor_finds("heron") == [] and visitor_finds("egret") == []


def test_review_decisions_move_the_submissions_steps(flagged_catalog):
    sub, staff = flagged_catalog.submission, flagged_catalog.staff
    review.decide(sub, staff, "approve", "checked by hand")
    assert flags_match_runs() and visitor_finds("egret") == ["An egret in the draft."]
    review.decide(sub, staff, "reject", "the upload's verdicts do not hold")
    assert flags_match_runs() and visitor_finds("egret") == []
    review.decide(sub, staff, "approve", "fixed")
    review.decide(sub, flagged_catalog.author, "withdraw", "withdrawn by the author")
    assert flags_match_runs() and visitor_finds("egret") == []
    # the author and maintainers still find it; the flag narrows a visitor's search only
    assert [h.step.index for h in step_search.search_steps(flagged_catalog.author, {"q": "egret"}).hits] == [1]
    assert [h.step.index for h in step_search.search_steps(flagged_catalog.staff, {"q": "egret"}).hits] == [1]


def test_a_trajectory_moved_to_another_run_takes_its_flags(flagged_catalog):
    trajectory = Trajectory.objects.get(pk=flagged_catalog.draft_traj.pk)
    trajectory.run = flagged_catalog.published
    trajectory.attempt = 7  # (run, task, attempt) stays unique
    trajectory.save()
    assert flags_match_runs() and visitor_finds("egret") == ["An egret in the draft."]


def test_deleting_a_run_takes_its_steps_out_of_search(flagged_catalog):
    flagged_catalog.published.delete()
    assert flags_match_runs() and visitor_finds("heron") == []


def test_a_flag_set_behind_the_sites_back_shows_nothing_and_is_repaired(flagged_catalog):
    # raw SQL (COPY, a restore) bypasses the model: the runs still decide what visitors find
    Step.objects.filter(model_text__contains="egret").update(published=True)
    assert visitor_finds("egret") == []
    assert sync_published_steps() == 1 and flags_match_runs()
    assert sync_published_steps() == 0
