"""Migrations on a database holding data: back to the first migrations (leaderboard 0001, trajectories
0001), rows written with the models as they were then, forward to the latest (the data kept, new
columns at their defaults, action counts filled from the stored steps), back again (every migration
since is reversible) and forward once more. Runs in the normal suite on the test database."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

FIRST = [("leaderboard", "0001_initial"), ("trajectories", "0001_initial")]


def _latest() -> list[tuple[str, str]]:
    executor = MigrationExecutor(connection)
    return [key for key in executor.loader.graph.leaf_nodes() if key[0] in ("leaderboard", "trajectories")]


def _migrate(targets):
    """Migrate the test database to ``targets`` and return the historical apps of that state."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection).loader.project_state(targets).apps


def _columns(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return {c.name for c in connection.introspection.get_table_description(cursor, table)}


def _write_old_rows(apps) -> dict:
    """A suite, a task with a rubric item, a run and one trajectory of five steps, as 0001 knew them."""
    Suite = apps.get_model("leaderboard", "Suite")
    Task = apps.get_model("leaderboard", "Task")
    RubricItem = apps.get_model("leaderboard", "RubricItem")
    Model = apps.get_model("leaderboard", "Model")
    Run = apps.get_model("leaderboard", "Run")
    Trajectory = apps.get_model("trajectories", "Trajectory")
    Step = apps.get_model("trajectories", "Step")
    suite = Suite.objects.create(name="Old suite", version="v0", slug="old-suite")
    task = Task.objects.create(suite=suite, task_id="retrieval-f016", position=1, instruction="Find it.")
    RubricItem.objects.create(task=task, version=1, position=1, rubric_id="R1", criterion="Found", weight=1.0,
                              normalised_weight=1.0, content_hash="h1")  # fmt: skip
    model = Model.objects.create(name="Old model", slug="old-model")
    run = Run.objects.create(name="Old run", slug="old-run", model=model, suite=suite)
    trajectory = Trajectory.objects.create(run=run, task=task, attempt=1)
    steps = [("computer", {"type": "click"}), ("computer", {"type": "double_click"}), ("computer", {"type": "type"}),
             ("bash", {"command": "ls"}), ("control", {"type": "done"})]  # fmt: skip
    for index, (tool, action) in enumerate(steps, start=1):
        Step.objects.create(trajectory=trajectory, index=index, turn=index, tool=tool, action=action)
    return {"trajectory": trajectory.pk, "suite": suite.pk}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_data_survives_migrating_from_the_first_migrations_to_the_latest_and_back():
    latest = _latest()
    assert {app for app, _ in latest} == {"leaderboard", "trajectories"}
    try:
        old = _migrate(FIRST)
        assert "action_counts" not in _columns("trajectories_trajectory")
        assert "kind" not in _columns("leaderboard_suite")
        ids = _write_old_rows(old)

        new = _migrate(latest)
        trajectory = new.get_model("trajectories", "Trajectory").objects.get(pk=ids["trajectory"])
        # counted from the five steps by hand: two clicks, one type, one bash; the done step is not counted
        assert trajectory.action_counts == {"click": 2, "type": 1, "bash": 1}
        assert trajectory.steps.count() == 5
        suite = new.get_model("leaderboard", "Suite").objects.get(pk=ids["suite"])
        assert (suite.name, suite.kind) == ("Old suite", "mypcbench")
        item = new.get_model("leaderboard", "RubricItem").objects.get(task__suite=suite)
        assert (item.criterion, item.source_run_id) == ("Found", None)

        back = _migrate(FIRST)
        assert "action_counts" not in _columns("trajectories_trajectory")
        assert back.get_model("trajectories", "Step").objects.filter(trajectory_id=ids["trajectory"]).count() == 5
        assert back.get_model("leaderboard", "Suite").objects.get(pk=ids["suite"]).slug == "old-suite"
    finally:
        _migrate(latest)  # the rest of the suite needs the latest schema
    assert "action_counts" in _columns("trajectories_trajectory") and "kind" in _columns("leaderboard_suite")
