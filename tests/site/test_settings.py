"""Settings read from the environment: DATABASE_URL and CELERY_BROKER_URL switch backends, and a
production environment passes `manage.py check --deploy`. Each case runs in a fresh process,
because settings are read once per process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each case starts Python processes (manage.py, a settings probe)

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "db = settings.DATABASES['default']; "
    "print(json.dumps({'engine': db['ENGINE'], 'name': str(db['NAME']), 'host': db.get('HOST', ''), "
    "'broker': settings.CELERY_BROKER_URL, "
    "'folders': getattr(settings, 'CELERY_BROKER_TRANSPORT_OPTIONS', {}), "
    "'var': str(settings.VAR_DIR), 'debug': settings.DEBUG}))"
)
PRODUCTION_KEY = "k3J9-production-only-q8V2x!Lm4Zr7Tw1Yb6Nc0Pd5Hs8Gf2Ea9Uo3Ik7Rj"


def clean_env(tmp_path, **overrides) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DATABASE_URL", "CELERY_"))}
    env.update(DJANGO_SETTINGS_MODULE="mypcbench_site.settings", MYPCBENCH_VAR_DIR=str(tmp_path / "var"))
    env.update(overrides)
    return env


def probe(tmp_path, **env) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean_env(tmp_path, **env), capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def manage(tmp_path, *args, **env) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean_env(tmp_path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_embedded_defaults_are_sqlite_and_a_filesystem_broker_under_the_var_dir(tmp_path):
    found = probe(tmp_path)
    assert found["engine"] == "django.db.backends.sqlite3"
    assert found["name"] == str(tmp_path / "var" / "mypcbench.sqlite3")
    assert found["broker"] == "filesystem://"
    assert (tmp_path / "var" / "celery-queue").is_dir()
    # Every folder the filesystem broker uses sits in the var folder, none in the working directory.
    folders = {k: v for k, v in found["folders"].items() if k.endswith("_folder") or k.startswith("data_folder")}
    assert {"data_folder_in", "data_folder_out", "processed_folder", "control_folder"} <= folders.keys()
    assert all(v.startswith(str(tmp_path / "var")) for v in folders.values()), folders


def test_database_and_broker_urls_switch_to_postgresql_and_redis(tmp_path):
    found = probe(
        tmp_path,
        DATABASE_URL="postgres://bench:pw@db.internal:5433/mypcbench",
        CELERY_BROKER_URL="redis://cache.internal:6379/2",
    )
    assert found["engine"] == "django.db.backends.postgresql"
    assert (found["name"], found["host"]) == ("mypcbench", "db.internal")
    assert found["broker"] == "redis://cache.internal:6379/2"


def test_production_settings_pass_check_deploy(tmp_path):
    result = manage(
        tmp_path,
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=PRODUCTION_KEY,
        DJANGO_ALLOWED_HOSTS="mypcbench.example.org",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_development_defaults_fail_check_deploy(tmp_path):
    # The guard above means something only if the deploy check does flag an unsafe setup.
    result = manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "DEBUG" in result.stderr + result.stdout


def test_production_without_a_secret_key_refuses_to_start(tmp_path):
    result = manage(tmp_path, "check", DJANGO_DEBUG="0", DJANGO_ALLOWED_HOSTS="mypcbench.example.org")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize("weak", ["abc", "ab" * 30], ids=["short", "few-distinct"])
def test_production_with_a_weak_secret_key_refuses_to_start(tmp_path, weak):
    result = manage(
        tmp_path, "check", DJANGO_DEBUG="0", DJANGO_SECRET_KEY=weak, DJANGO_ALLOWED_HOSTS="mypcbench.example.org"
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY" in result.stderr
    assert "at least 50 characters" in result.stderr and "5 distinct characters" in result.stderr
