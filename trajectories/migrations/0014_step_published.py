"""Steps carry whether their run is published (``Step.published``), filled here from the runs and kept in
step by trajectories.recording.published_steps, with two partial indexes of the published steps: in
step order (a visitor's search for common words walks it and stops at the cap) and, on PostgreSQL,
their full-text documents (rare words), so a visitor's step search never steps over hidden runs' steps
(bench/README.md). The foreign key's own index goes: the unique (trajectory, index) constraint serves
lookups by trajectory."""

import django.db.models.deletion
from django.db import migrations, models


# trajectories.player.step_search.PUBLISHED_INDEX_NAME (tests/trajectories/player/test_step_search.py checks)
PUBLISHED_DOCUMENTS = "step_search_published_document"


def fill_published(apps, schema_editor):
    Step = apps.get_model("trajectories", "Step")
    Step.objects.filter(trajectory__run__publication="published").update(published=True)


def index_published_documents(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":  # the document column of migration 0010
        schema_editor.execute(
            f"CREATE INDEX IF NOT EXISTS {PUBLISHED_DOCUMENTS} ON trajectories_step "
            "USING gin (search_document) WHERE published"
        )


def drop_published_documents(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"DROP INDEX IF EXISTS {PUBLISHED_DOCUMENTS}")


class Migration(migrations.Migration):
    dependencies = [
        ("trajectories", "0013_session_turns_and_intents"),
    ]

    operations = [
        migrations.AddField(
            model_name="step",
            name="published",
            field=models.BooleanField(default=False, editable=False),
        ),
        migrations.RunPython(fill_published, migrations.RunPython.noop, elidable=False),
        migrations.AlterField(
            model_name="step",
            name="trajectory",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="steps",
                to="trajectories.trajectory",
            ),
        ),
        migrations.AddIndex(
            model_name="step",
            index=models.Index(
                condition=models.Q(("published", True)), fields=["trajectory", "index"], name="step_published_order"
            ),
        ),
        migrations.RunPython(index_published_documents, drop_published_documents, elidable=False),
    ]
