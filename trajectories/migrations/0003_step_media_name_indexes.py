"""Indexes on Step's media file names: screenshots and derivatives are stored by content hash and
shared between steps, so "which steps show this file" is asked before deleting one."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('trajectories', '0002_trajectory_action_counts'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='step',
            index=models.Index(fields=['screenshot'], name='step_screenshot'),
        ),
        migrations.AddIndex(
            model_name='step',
            index=models.Index(fields=['display_image'], name='step_display_image'),
        ),
        migrations.AddIndex(
            model_name='step',
            index=models.Index(fields=['thumbnail'], name='step_thumbnail'),
        ),
    ]
