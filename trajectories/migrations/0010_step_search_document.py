"""Step search's full-text document on PostgreSQL: a stored generated column ``search_document`` (the
tsvector of a step's model text, action line and structured action; the expression is
trajectories.player.step_search.STEP_DOCUMENT_SQL) with a GIN index. Stored, not an expression index,
so a search walking steps in order reads each row's words instead of parsing its text again (on the
bench's 200,000 steps: 6.3 s for two common words with the expression index, see bench/README.md).
The models do not name the column: PostgreSQL fills it on every insert and update. Other databases
(SQLite) search by substring and get nothing here. A later migration changing the type of model_text,
action_text or action on PostgreSQL must drop the column first and add it again."""

from django.db import migrations

# A copy of STEP_DOCUMENT_SQL with no table named (migrations do not import app code);
# tests/trajectories/player/test_step_search.py checks the two stay equal.
DOCUMENT = (
    "to_tsvector('simple'::regconfig, left(regexp_replace("
    "coalesce(model_text, '') || ' ' || coalesce(action_text, '') || ' ' || coalesce(action::text, ''), "
    "'[^[:alnum:]]+', ' ', 'g'), 200000))"
)
COLUMN = "search_document"
INDEX = "step_search_document"


def add_document(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f"ALTER TABLE trajectories_step ADD COLUMN IF NOT EXISTS {COLUMN} tsvector GENERATED ALWAYS AS ({DOCUMENT}) STORED"
        )
        schema_editor.execute(f"CREATE INDEX IF NOT EXISTS {INDEX} ON trajectories_step USING gin ({COLUMN})")


def drop_document(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE trajectories_step DROP COLUMN IF EXISTS {COLUMN}")


class Migration(migrations.Migration):
    dependencies = [
        ("trajectories", "0009_trajectory_contamination"),
    ]

    operations = [migrations.RunPython(add_document, drop_document, elidable=False)]
