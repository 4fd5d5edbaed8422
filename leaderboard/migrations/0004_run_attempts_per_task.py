"""Run.attempts_per_task: the declared attempt grid of a run."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('leaderboard', '0003_suite_kind_osworld'),
    ]

    operations = [
        migrations.AddField(
            model_name='run',
            name='attempts_per_task',
            field=models.PositiveIntegerField(blank=True, help_text="Declared attempts per task: the grid scored (an attempt without a trajectory counts as a failure). Empty: the number of distinct attempt numbers the run's trajectories use.", null=True),
        ),
    ]
