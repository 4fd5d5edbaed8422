"""Per-trajectory action counts ({kind: steps}, the kinds of harness.actions.ACTION_KINDS) stored on
Trajectory.action_counts wherever steps are written or removed, so the analysis pages read one row
per trajectory instead of every step."""

from collections import Counter
from collections.abc import Iterable

from django.db.models import Count, QuerySet
from django.db.models.fields.json import KT

from harness.actions import ACTION_KINDS, action_kind, action_type_of, count_action_kinds
from trajectories.models import Step, Trajectory


def counts_by_trajectory(steps: QuerySet) -> dict[int, dict[str, int]]:
    """{trajectory id: {kind: n}} over ``steps``, grouped in the database (1 query); a trajectory
    whose steps are all control steps maps to {}."""
    rows = steps.values("trajectory_id", "tool", atype=KT("action__type")).annotate(n=Count("id")).order_by()
    grouped: dict[int, list] = {}
    for r in rows:
        grouped.setdefault(r["trajectory_id"], []).append((r["tool"], r["atype"], r["n"]))
    return {pk: count_action_kinds(triples) for pk, triples in grouped.items()}


def recount(trajectory_ids: Iterable[int]) -> None:
    """Count the steps of these trajectories again and store the counts that changed (a constant
    number of queries)."""
    ids = set(trajectory_ids)
    if not ids:
        return
    counted = counts_by_trajectory(Step.objects.filter(trajectory_id__in=ids))
    changed = []
    for trajectory in Trajectory.objects.filter(pk__in=ids).only("pk", "action_counts"):
        fresh = counted.get(trajectory.pk, {})
        if trajectory.action_counts != fresh:
            trajectory.action_counts = fresh
            changed.append(trajectory)
    Trajectory.objects.bulk_update(changed, ["action_counts"], batch_size=500)


def step_kind(step: Step) -> str | None:
    """The kind a stored step counts as (None: a control step, not counted)."""
    return action_kind(step.tool, action_type_of(step.action))


def adjust(trajectory: Trajectory, *, added: Iterable[Step] = (), removed: Iterable[Step] = ()) -> dict[str, int]:
    """Move the trajectory's stored counts by steps just written and removed, under a row lock so
    concurrent writers of one trajectory do not lose each other's changes (call inside the
    transaction that wrote them; 1 locked read, 1 update). Returns the new counts, also set on
    ``trajectory`` so a later full save of that object keeps them."""
    locked = Trajectory.objects.select_for_update().values_list("action_counts", flat=True)
    counts = Counter(locked.get(pk=trajectory.pk))
    for step in added:
        if kind := step_kind(step):
            counts[kind] += 1
    for step in removed:
        if kind := step_kind(step):
            counts[kind] -= 1
    fresh = {k: counts[k] for k in ACTION_KINDS if counts[k] > 0}
    Trajectory.objects.filter(pk=trajectory.pk).update(action_counts=fresh)
    trajectory.action_counts = fresh
    return fresh
