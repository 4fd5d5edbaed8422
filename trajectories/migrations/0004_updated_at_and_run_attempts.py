"""Trajectory.updated_at indexed and Judgment.updated_at added (the scores' data version reads their
maxima, so bulk updates in any process invalidate cached figures), and each graded run's
declared attempts per task filled from what it holds: the launch's attempts for harness runs, else
the number of distinct attempt numbers of its trajectories."""

from django.db import migrations, models
from django.db.models import Count


def fill_attempts(apps, schema_editor):
    Run = apps.get_model("leaderboard", "Run")
    Trajectory = apps.get_model("trajectories", "Trajectory")
    distinct = dict(
        Trajectory.objects.values("run_id").annotate(n=Count("attempt", distinct=True)).values_list("run_id", "n")
    )
    for run in Run.objects.filter(attempts_per_task__isnull=True).exclude(provenance="reported"):
        launch = (run.metadata or {}).get("launch") or {}
        declared = launch.get("attempts") if isinstance(launch, dict) else None
        if not (isinstance(declared, int) and declared >= 1):
            declared = distinct.get(run.pk)
        if declared:
            Run.objects.filter(pk=run.pk).update(attempts_per_task=declared)


class Migration(migrations.Migration):
    dependencies = [
        ("leaderboard", "0004_run_attempts_per_task"),
        ("trajectories", "0003_step_media_name_indexes"),
    ]

    operations = [
        migrations.AlterField(
            model_name="trajectory",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, db_index=True),
        ),
        migrations.AddField(
            model_name="judgment",
            name="updated_at",
            field=models.DateTimeField(auto_now=True, db_index=True),
        ),
        migrations.RunPython(fill_attempts, migrations.RunPython.noop),
    ]
