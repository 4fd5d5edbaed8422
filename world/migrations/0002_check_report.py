"""The world keeps the check report (check.json: answer keys, released facts, invariants) instead of coverage."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("world", "0001_world_and_review")]

    operations = [
        migrations.RenameField(model_name="world", old_name="coverage", new_name="check_report"),
        migrations.AlterField(
            model_name="world",
            name="check_report",
            field=models.JSONField(blank=True, default=dict, help_text="check.json of `seeding check`, if any."),
        ),
    ]
