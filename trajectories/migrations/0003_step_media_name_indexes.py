"""Indexes on Step's media file names: screenshots and derivatives are stored by content hash and
shared between steps; the media view and deletion ask which steps name a file."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('trajectories', '0002_trajectory_action_counts'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='step',
            index=models.Index(fields=['screenshot'], name='step_screenshot_name'),
        ),
        migrations.AddIndex(
            model_name='step',
            index=models.Index(fields=['display_image'], name='step_display_image_name'),
        ),
        migrations.AddIndex(
            model_name='step',
            index=models.Index(fields=['thumbnail'], name='step_thumbnail_name'),
        ),
    ]
