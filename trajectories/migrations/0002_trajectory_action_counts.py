"""Trajectory.action_counts: steps per action kind, stored so the analysis pages read one row per
trajectory; filled here for trajectories already stored, counted from their steps in batches."""

from django.db import migrations, models
from django.db.models import Count
from django.db.models.fields.json import KT

from harness.actions import count_action_kinds

BATCH = 500


def fill_action_counts(apps, schema_editor):
    Trajectory = apps.get_model("trajectories", "Trajectory")
    Step = apps.get_model("trajectories", "Step")
    last = 0
    while True:
        ids = list(Trajectory.objects.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:BATCH])
        if not ids:
            return
        last = ids[-1]
        rows = (
            Step.objects.filter(trajectory_id__in=ids)
            .values("trajectory_id", "tool", atype=KT("action__type"))
            .annotate(n=Count("id"))
            .order_by()
        )
        grouped = {}
        for r in rows:
            grouped.setdefault(r["trajectory_id"], []).append((r["tool"], r["atype"], r["n"]))
        changed = []
        for pk, triples in grouped.items():
            counts = count_action_kinds(triples)
            if counts:
                changed.append(Trajectory(pk=pk, action_counts=counts))
        Trajectory.objects.bulk_update(changed, ["action_counts"])


class Migration(migrations.Migration):

    dependencies = [
        ("trajectories", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="trajectory",
            name="action_counts",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Steps per action kind ({kind: n}, harness.actions.ACTION_KINDS; control steps not"
                " counted), kept by ingest as steps are written.",
            ),
        ),
        migrations.RunPython(fill_action_counts, migrations.RunPython.noop, elidable=True),
    ]
