"""deploy/docker-compose.yml describes the topology deploy/topology.py runs: the same
services with the same commands and settings, no volume shared between app containers. `docker
compose config` validates the file where the compose plugin exists. The whole topology run
(`deploy/run-topology --check`, needs PostgreSQL, Redis and RabbitMQ) is opt-in:
MYPCBENCH_TOPOLOGY_TEST=1."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "docker-compose.yml"


def load_topology():
    spec = importlib.util.spec_from_file_location("deploy_topology", ROOT / "deploy" / "topology.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


topology = load_topology()


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


APP_SERVICES = ["bucket", "migrate", "web", "worker-vm", "worker-judging", "worker-media", "worker-default"]


def test_compose_has_the_topologys_services_and_nothing_else(compose):
    assert sorted(compose["services"]) == sorted(APP_SERVICES + ["postgres", "redis", "rabbitmq", "s3"])


def test_compose_runs_the_same_commands_as_the_topology_script(compose):
    services = compose["services"]
    expected = topology.service_commands("0.0.0.0:8000")
    assert sorted(expected) == ["web", "worker-default", "worker-judging", "worker-media", "worker-vm"]
    for name, argv in expected.items():
        assert services[name]["command"] == argv, name
    assert services["web"]["command"][:2] == ["gunicorn", "mypcbench_site.wsgi:application"]
    assert services["worker-media"]["command"][4:6] == ["-Q", "media"]
    assert services["migrate"]["command"] == topology.MIGRATE_COMMAND == ["python", "manage.py", "migrate", "--noinput"]
    assert services["bucket"]["command"] == topology.MAKE_BUCKET_COMMAND


def test_every_app_container_has_the_shared_settings_and_no_shared_disk(compose):
    for name in APP_SERVICES:
        service = compose["services"][name]
        assert set(topology.SHARED_SETTINGS) <= set(service["environment"]), name
        assert service["environment"]["DJANGO_DEBUG"] == "0"
        assert "volumes" not in service, f"{name} mounts a volume: app containers share no disk"
    assert compose["services"]["web"]["environment"]["MYPCBENCH_CACHE_URL"].startswith("redis://")


def test_workers_and_web_wait_for_migrations_and_the_bucket(compose):
    for name in ("web", "worker-vm", "worker-judging", "worker-media", "worker-default"):
        needs = compose["services"][name]["depends_on"]
        assert needs["migrate"]["condition"] == needs["bucket"]["condition"] == "service_completed_successfully"


def compose_plugin_reason() -> str:
    if shutil.which("docker") is None:
        return "docker is not installed"
    found = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True)
    if found.returncode != 0:
        said = ((found.stderr or found.stdout).strip().splitlines() or [""])[0][:120]
        return f"the docker compose plugin is not installed ({said})"
    return ""


@pytest.mark.skipif(bool(compose_plugin_reason()), reason=compose_plugin_reason() or "available")
def test_docker_compose_config_accepts_the_file():
    env = {**os.environ, "DJANGO_SECRET_KEY": "x" * 60, "POSTGRES_PASSWORD": "compose-check"}
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "config", "--quiet"], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(os.environ.get("MYPCBENCH_TOPOLOGY_TEST") != "1", reason="opt-in: MYPCBENCH_TOPOLOGY_TEST=1")
@pytest.mark.parametrize("broker", ["redis", "rabbitmq"])
def test_the_whole_topology_comes_up_and_answers(broker, tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "deploy/topology.py",
            "up",
            "--check",
            "--broker",
            broker,
            "--port",
            "0",
            "--state",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "topology: OK" in result.stdout


def test_compose_and_the_topology_ship_the_same_lease_settings_and_leases_recover_in_minutes(compose):
    shipped = {key: f"${{{key}:-{value}}}" for key, value in topology.LEASE_SETTINGS.items()}
    for name in APP_SERVICES:
        environment = compose["services"][name]["environment"]
        assert {key: environment[key] for key in shipped} == shipped, name
    assert float(topology.LEASE_SETTINGS["MYPCBENCH_WORK_LEASE_SECONDS"]) <= 120, "a lost host's work in minutes"
    assert float(topology.LEASE_SETTINGS["MYPCBENCH_VM_LEASE_SECONDS"]) <= 120


def test_the_topology_keeps_earlier_logs_rotated_and_service_addresses_are_settable(tmp_path, monkeypatch):
    state = tmp_path / "topology"
    for start in range(1, 8):
        topology.fresh_state(state)
        assert not (state / "web").exists(), "the hosts' folders are fresh each time"
        topology.rotate_log(state / "web.log")
        (state / "web.log").write_text(f"start {start}\n")
        (state / "web" / "var").mkdir(parents=True)
    kept = sorted(p.name for p in state.iterdir())
    assert kept == ["web", "web.log", *(f"web.log.{n}" for n in range(1, topology.KEPT_LOGS + 1))]
    assert (state / "web.log.1").read_text() == "start 6\n" and (state / "web.log.5").read_text() == "start 2\n"
    monkeypatch.setenv("TOPOLOGY_BROKER_URL", "redis://broker.example:6380/4")
    monkeypatch.setenv("TOPOLOGY_CACHE_URL", "redis://cache.example:6381/5")
    rig = topology.Topology(state=state, broker="redis", web_port=1)
    assert (rig.broker_url, rig.cache_url) == ("redis://broker.example:6380/4", "redis://cache.example:6381/5")
    env = rig.env("worker-vm", "http://s3.example")
    assert env["CELERY_BROKER_URL"] == "redis://broker.example:6380/4"
    assert env["MYPCBENCH_WORK_LEASE_SECONDS"] == topology.LEASE_SETTINGS["MYPCBENCH_WORK_LEASE_SECONDS"]
