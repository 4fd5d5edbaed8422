"""Human labels in the admin: bulk actions on judgments (agree, disagree, success, failure) with who, when
and a note; the "unlabelled" changelist filter; the labelling page that shows each unlabelled verdict
with its evidence and records a batch in one post; permissions; and the reliability pages reading them."""

import pytest
from django.contrib.auth.models import Permission, User

from tests.trajectories.judging.test_reliability_items import build, published
from trajectories.judging import labelling
from trajectories.judging.reliability import items_reliability
from trajectories.models import HumanLabel, Judgment, Step, Trajectory

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/trajectories/judgment/"
LABEL_PAGE = "/admin/trajectories/judgment/label/"


@pytest.fixture
def data(client):
    suite, tasks, items, judges, runs, maintainer = build()
    client.force_login(maintainer)
    return suite, tasks, items, judges, runs, maintainer


def i2_judgments(items):
    return {
        (j.trajectory.run.slug, j.trajectory.attempt, j.judge.name): j
        for j in Judgment.objects.filter(rubric_item=items[1]).select_related("trajectory__run", "judge")
    }


def test_bulk_agree_and_disagree_from_the_changelist(client, data):
    suite, _, items, _, _, maintainer = data
    found = i2_judgments(items)
    failure, error, success = found[("ra", 0, "A")], found[("ra", 1, "A")], found[("rb", 0, "A")]
    post = {"action": "label_agree", "_selected_action": [failure.pk, error.pk, success.pk], "note": "checked"}
    response = client.post(CHANGELIST, post, follow=True)
    shown = [str(m) for m in response.context["messages"]]
    assert "2 human labels recorded, 1 skipped." in shown
    assert any("the judge gave no verdict (error)" in m and f"judgment {error.pk}" in m for m in shown)
    labels = {label.judgment_id: label for label in HumanLabel.objects.filter(judgment__rubric_item=items[1])}
    assert {pk: label.verdict for pk, label in labels.items()} == {failure.pk: "failure", success.pk: "success"}
    assert all(label.labeller == maintainer and label.note == "checked" and label.created for label in labels.values())

    again = client.post(CHANGELIST, post, follow=True)  # no duplicates when nothing changed
    assert "0 human labels recorded, 2 already labelled the same way, 1 skipped." in [
        str(m) for m in again.context["messages"]
    ]
    client.post(CHANGELIST, {"action": "label_disagree", "_selected_action": [success.pk]})
    assert HumanLabel.objects.filter(judgment=success).latest("created").verdict == "failure"
    # The reliability view reads the latest labels: A's two verdicts on i2, one now disputed.
    i2 = next(i for i in items_reliability(suite, published()).items if i.rubric_item_id == items[1].pk)
    assert (i2.human.n, i2.human.agreed) == (2, 1)


def test_explicit_success_and_failure_actions_label_errors_too(client, data):
    _, _, items, *_ = data
    error = i2_judgments(items)[("ra", 1, "A")]
    client.post(CHANGELIST, {"action": "label_success", "_selected_action": [error.pk]})
    assert HumanLabel.objects.get(judgment=error).verdict == "success"


def test_the_unlabelled_failures_filter(client, data):
    response = client.get(CHANGELIST, {"verdict__exact": "failure", "human_label": "none"})
    rows = list(response.context["cl"].result_list)
    assert len(rows) == 4 and all(j.verdict == "failure" and j.latest_label is None for j in rows)
    page = response.content.decode()
    assert f'href="{LABEL_PAGE}?verdict=failure"' in page  # the shortcut to the labelling page
    disputed = client.get(CHANGELIST, {"human_label": "disagrees"}).context["cl"].result_list
    # ra#0 i1 (judge success, human failure), ra#1 i1 (failure/success), rb#0 i1 B (failure, latest success)
    assert sorted((j.trajectory.run.slug, j.trajectory.attempt, j.judge.name) for j in disputed) == [
        ("ra", 0, "A"),
        ("ra", 1, "A"),
        ("rb", 0, "B"),
    ]


def with_steps(trajectory, n=4):
    Trajectory.objects.filter(pk=trajectory.pk).update(n_steps=n)
    for i in range(1, n + 1):
        Step.objects.create(
            trajectory=trajectory, index=i, turn=i, thumbnail=f"derivatives/thumb-{trajectory.pk}-{i}.webp"
        )


def test_the_labelling_page_shows_the_evidence_and_records_a_batch(client, data):
    _, _, items, _, _, maintainer = data
    found = i2_judgments(items)
    failure = found[("ra", 0, "A")]
    Judgment.objects.filter(pk=failure.pk).update(cited_steps=[2, 3], explanation="No reply was sent.")
    with_steps(failure.trajectory)
    success = found[("rb", 0, "A")]
    with_steps(success.trajectory)  # cites nothing: its last step is shown

    page = client.get(LABEL_PAGE, {"verdict": "any"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "<strong>8</strong> unlabelled verdicts" in text
    card = text.split(f'data-judgment="{failure.pk}"', 1)[1].split("</fieldset>", 1)[0]
    assert "Criterion 2 of retrieval-r001" in card and "No reply was sent." in card
    assert f"thumb-{failure.trajectory_id}-2.webp" in card and f"thumb-{failure.trajectory_id}-3.webp" in card
    assert f"/trajectories/{failure.trajectory_id}/play/?step=2" in card
    other = text.split(f'data-judgment="{success.pk}"', 1)[1].split("</fieldset>", 1)[0]
    assert f"thumb-{success.trajectory_id}-4.webp" in other

    choices = {f"label-{failure.pk}": "success", f"note-{failure.pk}": "It was sent in step 3.",
               f"label-{success.pk}": "failure", f"label-{found[('rb', 0, 'C')].pk}": "skip"}  # fmt: skip
    response = client.post(f"{LABEL_PAGE}?verdict=any", choices, follow=True)
    assert "2 human labels recorded." in [str(m) for m in response.context["messages"]]
    assert "<strong>6</strong> unlabelled verdicts" in response.content.decode()  # the skipped one stays
    label = HumanLabel.objects.get(judgment=failure)
    assert (label.verdict, label.note, label.labeller) == ("success", "It was sent in step 3.", maintainer)
    assert HumanLabel.objects.get(judgment=success).verdict == "failure"
    assert not HumanLabel.objects.filter(judgment=found[("rb", 0, "C")]).exists()


def test_the_labelling_page_narrows_to_one_rubric_item_and_run(client, data):
    _, _, items, *_ = data
    page = client.get(LABEL_PAGE, {"verdict": "failure", "rubric_item": items[1].pk, "run": "ra"})
    cards = page.context["queue"].cards
    assert [(c.judgment.trajectory.run.slug, c.judgment.verdict) for c in cards] == [("ra", "failure")]
    assert "all items" in page.content.decode()
    # malformed filters fall back to the defaults instead of failing
    assert client.get(LABEL_PAGE, {"verdict": "maybe", "batch": "lots", "rubric_item": "x"}).status_code == 200


@pytest.mark.parametrize("batch", [2, 50])
def test_the_labelling_page_query_count_does_not_grow(client, data, batch, django_assert_max_num_queries):
    _, _, items, judges, runs, _ = data
    for n in range(batch):  # more unlabelled judgments, each with steps
        t = Trajectory.objects.create(run=runs[0], task=items[0].task, attempt=100 + n)
        with_steps(t, 3)
        Judgment.objects.create(trajectory=t, rubric_item=items[0], judge=judges[0], verdict="failure",
                                cited_steps=[1, 3])  # fmt: skip
    # session, user, count, batch, steps, state checks, rubric item (none here), runs
    with django_assert_max_num_queries(8):
        response = client.get(LABEL_PAGE, {"verdict": "failure", "batch": batch})
    assert len(response.context["queue"].cards) == batch


def test_labelling_needs_the_permission_to_add_labels(client, data):
    clerk = User.objects.create_user("clerk", is_staff=True)
    clerk.user_permissions.add(*Permission.objects.filter(codename__in=["view_judgment", "change_judgment"]))
    client.force_login(clerk)
    assert client.get(LABEL_PAGE).status_code == 403
    actions = [name for name, _ in client.get(CHANGELIST).context["cl"].model_admin.get_action_choices(
        client.get(CHANGELIST).wsgi_request)]  # fmt: skip
    assert not any(name.startswith("label_") for name in actions)
    clerk.user_permissions.add(Permission.objects.get(codename="add_humanlabel"))
    clerk = User.objects.get(pk=clerk.pk)  # permissions are cached on the user object
    client.force_login(clerk)
    assert client.get(LABEL_PAGE).status_code == 200


def test_an_unknown_choice_writes_nothing(data):
    *_, maintainer = data
    pk = Judgment.objects.first().pk
    before = HumanLabel.objects.count()
    with pytest.raises(labelling.LabelError, match="unknown label choice"):
        labelling.record_labels({pk: "success", pk + 1: "probably"}, maintainer)
    assert HumanLabel.objects.count() == before
