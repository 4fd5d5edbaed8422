"""Shared fixtures: the staff client, the analysis world (tests/analysis_data.py), the catalog, a fake
guest, upstream reference data (skipped when absent on a user's clone, a failure in CI), an isolated
media folder, fresh caches; and the selection of the services pass (bin/test's second pass runs only
tests the database or broker can change). Each test folder's conftest.py holds what its tests share."""

import os
from pathlib import Path

import pytest

# Fixtures of shared test data modules, available to every test module, and the fast lane's guard.
pytest_plugins = ["tests.analysis_data", "tests.fast_lane", "pytester"]

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
UPSTREAM = SHARED / "upstream"
REFERENCE = SHARED / "reference"
# ../shared beside the checkout, or beside a worktree's parent folder (worktrees live one level down)
_UPSTREAM_CANDIDATES = (UPSTREAM, Path(__file__).resolve().parents[3] / "shared" / "upstream")


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def need_upstream(*files: str) -> Path:
    """The ../shared/upstream folder holding ``files`` (MYPCBENCH_UPSTREAM_DIR may name another one).
    Missing: the test skips on a user's clone, and fails when the CI environment variable is set, so
    CI never passes by skipping what it was meant to check."""
    extra = os.environ.get("MYPCBENCH_UPSTREAM_DIR")
    for base in (*_UPSTREAM_CANDIDATES, *([Path(extra)] if extra else [])):
        if all((base / name).exists() for name in files):
            return base
    missing = f"../shared/upstream ({', '.join(files)}) is not present on this machine"
    if in_ci():
        pytest.fail(f"{missing}, and CI is set: CI must have the upstream files", pytrace=False)
    pytest.skip(missing)


@pytest.fixture
def upstream_dir():
    """../shared/upstream, the real upstream data files (see need_upstream)."""
    return need_upstream("all_tasks_with_grading.json")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Under mutation testing (mutmut sets MUTANT_UNDER_TEST in each forked child that tests a mutant),
    each child gets a test database of its own, named by its process id, so children running side by
    side never share one (on SQLite the test database is a file, for the worker tests' sake)."""
    if "MUTANT_UNDER_TEST" not in os.environ:
        return
    from django.conf import settings

    for db in settings.DATABASES.values():
        test = db.setdefault("TEST", {})
        name = test.get("NAME") or ("" if db["ENGINE"].endswith("sqlite3") else f"test_{db['NAME']}")
        if name and name != ":memory:":
            test["NAME"] = f"{name}_mutant{os.getpid()}"


@pytest.fixture(autouse=True)
def fresh_caches():
    """Every test starts with empty caches: Django's cache (rate-limit counters live there, and user
    ids repeat between tests) and the in-process memos of the code."""
    from django.core.cache import cache

    from harness.judge.images import encoded
    from leaderboard.boards.board_display import paper_facts
    from leaderboard.scoring import one_trajectory, public_version
    from mypcbench_site import page_cache

    cache.clear()
    paper_facts.cache_clear()
    encoded.cache_clear()
    page_cache._page_memos.clear()
    one_trajectory._run_memo.clear()
    public_version.forget_memos()
    yield


@pytest.fixture(autouse=True)
def uploads_in_the_request_thread(settings):
    """Uploads run in the request's own thread in tests (MYPCBENCH_UPLOAD_NICE=0): a thread of its own
    would have its own database connection, which cannot see a test's uncommitted rows.
    tests/trajectories/submissions/test_upload_priority.py runs the lower-priority thread for real, on
    committed rows."""
    settings.MYPCBENCH_UPLOAD_NICE = 0


@pytest.fixture(autouse=True)
def isolated_media(settings, tmp_path):
    """Every test writes media into its own temporary folder."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.MEDIA_ROOT.mkdir()
    return settings.MEDIA_ROOT


@pytest.fixture
def staff_client(client, django_user_model):
    """A client signed in as a staff user with no specific permission."""
    client.force_login(django_user_model.objects.create_user("maintainer", password="pw", is_staff=True))
    return client


@pytest.fixture
def quiet_runs(settings):
    """Harness runs moved through their states by hand: no derivatives, no judging when a trajectory
    finishes, leases long enough never to lapse during a test."""
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_JUDGE_ON_FINISH = False
    settings.MYPCBENCH_VM_LEASE_SECONDS = 600


@pytest.fixture
def clock_mid_hour(monkeypatch):
    """Django's clock stopped at half past the current hour, so a test of the per-clock-hour rate
    limits never sees its window turn over between two requests."""

    from django.utils import timezone

    stopped = timezone.now().replace(minute=30, second=0, microsecond=0)
    monkeypatch.setattr(timezone, "now", lambda: stopped)
    return stopped


# Fixtures through which a test reaches the database; a test with none of them (and no django_db
# mark) behaves the same on SQLite and PostgreSQL, so the services pass need not run it again.
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def reaches_the_services(item) -> bool:
    if item.get_closest_marker("django_db") or item.get_closest_marker("services"):
        return True
    return bool(DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())))


def pytest_collection_modifyitems(config, items):
    """With MYPCBENCH_TEST_PASS=services (bin/test's PostgreSQL + Redis pass), keep only the tests
    that use the database or are marked `services`; the rest ran in the first pass unchanged."""
    if os.environ.get("MYPCBENCH_TEST_PASS") != "services":
        return
    kept = [item for item in items if reaches_the_services(item)]
    dropped = [item for item in items if not reaches_the_services(item)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture
def catalog():
    """The catalog of tests/catalog_data.py: suites, tasks and rubrics a visitor browses."""
    from tests.catalog_data import build_catalog

    return build_catalog()


@pytest.fixture
def env():
    """A started fake guest (harness.backends.FakeEnv) with a 320x200 screen, stopped afterwards."""
    from harness.backends import FakeEnv

    env = FakeEnv(screen_size=(320, 200))
    env.start()
    yield env
    env.stop()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Passwords hashed with MD5 in tests, for speed only: the default PBKDF2 takes a large part of a
    second per hash, and every signed-in client (admin_client, force_login of a new user) pays it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
