"""The OSWorld suites' own heatmap: runs x domain (chrome, gimp, os, multi_apps, ...), a cell being the
run's mean evaluator score over the domain's tasks of the suite, under the same scoring rules and
intervals as the MyPCBench maps (missing tasks count 0). MyPCBench suites have no domain map: their
categories are not the paper's slices."""

import numpy as np

from leaderboard.models import Suite, Task


def domain_heatmaps(scored: list, metric: str) -> list:
    """One heatmap of the scored runs on OSWorld suites by domain, or none."""
    from leaderboard import analysis  # the heatmap shape and cell rules live there

    suite_ids = {sc.outcomes.suite_id for sc in scored}
    osworld = set(Suite.objects.filter(pk__in=suite_ids, kind=Suite.Kind.OSWORLD).values_list("pk", flat=True))
    rows = [sc for sc in scored if sc.outcomes.suite_id in osworld]
    if not rows:
        return []
    domain_of = dict(Task.objects.filter(suite_id__in=osworld).values_list("pk", "category"))
    keys = sorted(set(domain_of.values()))
    base = analysis.trajectory_list_base()
    cells = analysis._cells(
        rows,
        keys,
        metric,
        mask_of=lambda o, key: np.array([domain_of.get(pk) == key for pk in o.task_pks], dtype=bool),
        url_of=lambda run, key: f"{base}?run={run.slug}",
    )
    return [
        analysis.Heatmap(
            id=f"graded-domain-{metric}",
            title=f"{analysis.METRICS[metric]} by OSWorld domain",
            metric=metric,
            row_labels=[sc.run.name for sc in rows],
            col_keys=keys,
            col_labels=keys,
            cells=cells,
            row_keys=[sc.run.slug for sc in rows],
        )
    ]
