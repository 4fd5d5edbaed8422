"""deploy/docker-compose.yml describes the topology deploy/topology.py runs: the same
services with the same commands and settings, no volume shared between app containers. `docker
compose config` validates the file where the compose plugin exists. The whole topology run
(`deploy/run-topology --check`, needs PostgreSQL, Redis and RabbitMQ) is opt-in:
MYPCBENCH_TOPOLOGY_TEST=1."""

import configparser
import importlib.util
import json
import os
import shlex
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
    assert sorted(compose["services"]) == sorted(APP_SERVICES + ["postgres", "redis", "rabbitmq", "s3", "proxy"])


def test_only_the_proxy_is_published_and_it_runs_the_shipped_configuration(compose):
    services = compose["services"]
    published = sorted(name for name, service in services.items() if "ports" in service)
    assert published == ["proxy"]  # gunicorn is reached through nginx only
    assert services["web"]["expose"] == ["8000"]
    proxy = services["proxy"]
    assert "./nginx/mypcbench.conf.template:/etc/nginx/templates/default.conf.template:ro" in proxy["volumes"]
    template = (ROOT / "deploy" / "nginx" / "mypcbench.conf.template").read_text()
    needed = set(topology.front_proxy.PLACEHOLDER.findall(template))
    assert needed <= set(proxy["environment"]), needed - set(proxy["environment"])
    assert proxy["environment"]["MYPCBENCH_UPSTREAM"] == "web:8000"
    for name in APP_SERVICES:
        assert services[name]["environment"]["MYPCBENCH_CLIENT_ADDRESS_HEADER"] == "HTTP_X_REAL_IP"


def test_long_running_services_restart_and_one_shots_do_not(compose):
    for name, service in compose["services"].items():
        want = "no" if name in ("bucket", "migrate") else "unless-stopped"
        assert service["restart"] == want, name
    redis = compose["services"]["redis"]["command"]
    assert redis[redis.index("--appendonly") + 1] == "yes"  # the queues survive a restart


def test_compose_runs_the_same_commands_as_the_topology_script(compose):
    services = compose["services"]
    # the vm worker runs a process per VM slot: the host's MYPCBENCH_VM_SLOTS, which its containers get too
    expected = topology.service_commands("0.0.0.0:8000", vm_processes="${MYPCBENCH_VM_SLOTS:-1}")
    assert compose["x-app"]["environment"]["MYPCBENCH_VM_SLOTS"] == "${MYPCBENCH_VM_SLOTS:-1}"
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
    assert compose["services"]["web"]["environment"]["MYPCBENCH_CACHE_URL"].startswith(
        "${MYPCBENCH_CACHE_URL:-redis://"
    )


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
            "--http-port",
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
    # what --check saw, as a person reading its output would
    out = result.stdout
    assert "301 -> https://127.0.0.1:" in out and "at the limit: 401 (the site)" in out
    assert "over nginx's limit: 413 (nginx)" in out and "#stage-image painted, 0 not" in out
    assert "supervisor: worker-default exited with -9; starting it again" in out


def test_the_shipped_nginx_configuration_is_accepted_by_nginx(tmp_path):
    """The template filled as run-topology fills it: nginx -t accepts it, and it carries the body
    limit, the client address header and TLS."""
    if shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists():
        pytest.skip("nginx is not installed (apt-get install nginx-light)")
    conf = topology.front_proxy.nginx_conf(tmp_path, upstream="unix:/tmp/none.sock", http_port=18080, https_port=18443)
    text = conf.read_text()
    assert not [line for line in text.splitlines() if "${" in line and not line.lstrip().startswith("#")]
    assert "client_max_body_size 9m;" in text and "proxy_set_header X-Real-IP $remote_addr;" in text
    assert "return 301 https://$host:18443$request_uri;" in text
    checked = subprocess.run([*topology.front_proxy.nginx_command(conf), "-t"], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_a_placeholder_without_a_value_is_named():
    with pytest.raises(SystemExit, match="no value for MYPCBENCH_TLS_KEY"):
        topology.front_proxy.render({"MYPCBENCH_TLS_CERT": "x"} | dict.fromkeys(ALL_BUT_KEY, "x"))


ALL_BUT_KEY = [
    "MYPCBENCH_UPSTREAM",
    "MYPCBENCH_SERVER_NAME",
    "MYPCBENCH_HTTP_LISTEN",
    "MYPCBENCH_HTTPS_LISTEN",
    "MYPCBENCH_HTTPS_PORT",
    "MYPCBENCH_BODY_LIMIT",
    "MYPCBENCH_MEDIA_DIR",
]


def test_logs_are_kept_across_starts_five_deep(tmp_path):
    for start in range(7):
        topology.fresh_state(tmp_path)
        (tmp_path / "web").mkdir()
        (tmp_path / "web.log").write_text(f"start {start}\n")
    assert (tmp_path / "web.log").read_text() == "start 6\n"
    kept = sorted(p.name for p in tmp_path.glob("web.log.*"))
    assert kept == ["web.log.1", "web.log.2", "web.log.3", "web.log.4"]
    assert (tmp_path / "web.log.4").read_text() == "start 2\n"
    topology.fresh_state(tmp_path)
    assert not (tmp_path / "web").exists()  # the "hosts" are fresh each start


def unit(name: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # keys as systemd spells them
    parser.read(ROOT / "deploy" / "systemd" / name)
    return parser


def exec_start(name: str, instance: str = "") -> list[str]:
    """ExecStart as systemd runs it: %i the instance, %% a plain %."""
    line = unit(name)["Service"]["ExecStart"].replace("%i", instance).replace("%%", "%")
    return shlex.split(line)


def test_systemd_units_run_the_topologys_commands_and_restart_them():
    web = exec_start("mypcbench-web.service")
    assert web[0].endswith("/.venv/bin/gunicorn")
    assert web[1:] == topology.service_commands("unix:/run/mypcbench/gunicorn.sock")["web"][1:]
    for queue in topology.WORKER_QUEUES:
        worker = exec_start("mypcbench-worker@.service", queue)
        assert worker[0].endswith("/.venv/bin/celery") and worker[1:] == topology.worker_command(queue)[1:]
    # the vm queue's own unit: a process per VM slot, 1 unless the host's settings say otherwise
    vm = exec_start("mypcbench-worker-vm.service")
    assert vm[1:] == topology.worker_command("vm", "${MYPCBENCH_VM_SLOTS}")[1:]
    assert unit("mypcbench-worker-vm.service")["Service"]["Environment"] == "MYPCBENCH_VM_SLOTS=1"
    for name in ("mypcbench-web.service", "mypcbench-worker@.service", "mypcbench-worker-vm.service"):
        assert unit(name)["Service"]["Restart"] == "always", name
    sweep = exec_start("mypcbench-sweep.service")
    assert sweep[1:] == ["manage.py", "sweep_media"]
    assert unit("mypcbench-sweep.timer")["Timer"]["OnCalendar"] == "daily"


def test_compose_and_the_topology_ship_the_same_lease_settings_and_leases_recover_in_minutes(compose):
    shipped = {key: f"${{{key}:-{value}}}" for key, value in topology.LEASE_SETTINGS.items()}
    for name in APP_SERVICES:
        environment = compose["services"][name]["environment"]
        assert {key: environment[key] for key in shipped} == shipped, name
    assert float(topology.LEASE_SETTINGS["MYPCBENCH_WORK_LEASE_SECONDS"]) <= 120, "a lost host's work in minutes"
    assert float(topology.LEASE_SETTINGS["MYPCBENCH_VM_LEASE_SECONDS"]) <= 120


def test_service_addresses_are_settable_and_every_process_gets_the_lease_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("TOPOLOGY_BROKER_URL", "redis://broker.example:6380/4")
    monkeypatch.setenv("TOPOLOGY_CACHE_URL", "redis://cache.example:6381/5")
    rig = topology.Topology(state=tmp_path / "topology", broker="redis", web_port=1)
    assert (rig.broker_url, rig.cache_url) == ("redis://broker.example:6380/4", "redis://cache.example:6381/5")
    env = rig.env("worker-vm", "http://s3.example")
    assert env["CELERY_BROKER_URL"] == "redis://broker.example:6380/4"
    assert env["MYPCBENCH_WORK_LEASE_SECONDS"] == topology.LEASE_SETTINGS["MYPCBENCH_WORK_LEASE_SECONDS"]


LOCAL_IMAGES_OVERRIDE = ROOT / "deploy" / "docker-compose.local-images.yml"


def local_images(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "deploy" / "local-images"), *args], capture_output=True, text=True)


def test_the_local_images_override_builds_every_app_service_on_the_stand_in_and_names_only_its_own_images(compose):
    override = yaml.safe_load(LOCAL_IMAGES_OVERRIDE.read_text())["services"]
    made = local_images("--list").stdout.split()
    assert sorted(override) == sorted(compose["services"])  # no service left on an official image
    for name in APP_SERVICES:
        assert override[name]["build"]["args"]["BASE"] in made
        assert override[name]["build"]["network"] == "host"
    image_services = sorted(name for name, service in compose["services"].items() if "image" in service)
    assert all(override[name]["image"] in made for name in image_services)
    assert all(override[name]["image"].startswith("mypcbench-local/") for name in image_services)
    # the shipped Dockerfile builds on the official image unless told otherwise
    assert "ARG BASE=python:3.11-slim-bookworm\nFROM ${BASE}\n" in (ROOT / "deploy" / "Dockerfile").read_text()


def test_local_images_refuses_an_unknown_argument_and_a_missing_ca_file(tmp_path):
    unknown = local_images("--frobnicate")
    assert unknown.returncode == 2 and "unknown argument --frobnicate" in unknown.stderr
    missing = local_images("--ca", str(tmp_path / "none.crt"))
    assert missing.returncode == 2 and "no CA file" in missing.stderr


@pytest.mark.skipif(bool(compose_plugin_reason()), reason=compose_plugin_reason() or "available")
def test_docker_compose_config_accepts_the_file_with_the_local_images_override():
    env = {**os.environ, "DJANGO_SECRET_KEY": "x" * 60, "POSTGRES_PASSWORD": "compose-check"}
    result = subprocess.run(
        ["docker", "compose", "-f", str(COMPOSE), "-f", str(LOCAL_IMAGES_OVERRIDE), "config", "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    services = json.loads(result.stdout)["services"]
    assert services["postgres"]["image"] == "mypcbench-local/postgres:15"
    assert services["web"]["build"]["args"]["BASE"] == "mypcbench-local/python:3.11-bookworm"
    # the override changes images only: the shipped commands, ports and settings stay
    assert (
        services["web"]["environment"]["DATABASE_URL"] == "postgres://mypcbench:compose-check@postgres:5432/mypcbench"
    )
    assert sorted(name for name, service in services.items() if service.get("ports")) == ["proxy"]


def load_compose_check():
    spec = importlib.util.spec_from_file_location("deploy_compose_check", ROOT / "deploy" / "compose_check.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compose_check_waits_for_health_and_one_shots_and_stops_on_a_failed_one():
    check = load_compose_check()
    names = ["migrate", "postgres", "web", "worker-default"]
    services = [
        {"Service": "migrate", "State": "running", "ExitCode": 0},
        {"Service": "postgres", "State": "running", "Health": "healthy"},
        {"Service": "web", "State": "running", "Health": "starting"},
        {"Service": "worker-default", "State": "running", "Health": ""},
    ]
    assert check.not_ready(services, names) == ["migrate (running)", "web (running, starting)"]
    services[0] = {"Service": "migrate", "State": "exited", "ExitCode": 0}
    services[2]["Health"] = "healthy"
    assert check.not_ready(services, names) == []
    assert check.not_ready(services[1:], names) == ["migrate (no container)"]
    services[0]["ExitCode"] = 1
    with pytest.raises(SystemExit, match="migrate exited with 1"):
        check.not_ready(services, names)


def test_compose_check_uses_the_override_only_when_asked():
    check = load_compose_check()
    assert check.compose_files(False) == ["-f", str(COMPOSE)]
    assert check.compose_files(True) == ["-f", str(COMPOSE), "-f", str(LOCAL_IMAGES_OVERRIDE)]


# Commands of docs/operating.md's "From an empty host" that `deploy/compose-check --systemd` types as they
# stand on the page (the others differ only by a password or a certificate's path).
OPERATOR_COMMANDS = [
    "useradd --system --home /srv/mypcbench --shell /usr/sbin/nologin mypcbench",
    "install -d -o mypcbench /srv/mypcbench/var",
    "runuser -u postgres -- createdb -O mypcbench mypcbench",
    "redis-cli CONFIG SET appendonly yes && redis-cli CONFIG REWRITE",
    "set -a && . /etc/mypcbench/env && set +a",
    "manage.py migrate --noinput",
    "manage.py collectstatic --noinput",
    "chown -R mypcbench /srv/mypcbench/var",
    "cp deploy/systemd/* /etc/systemd/system/ && systemctl daemon-reload",
    "systemctl enable --now mypcbench-worker-vm",
    "systemctl enable --now mypcbench-sweep.timer",
    "envsubst \"$(compgen -e | grep '^MYPCBENCH_' | sed 's/.*/${&}/')\"",
    "> /etc/nginx/sites-enabled/mypcbench.conf && rm -f /etc/nginx/sites-enabled/default",
    "nginx -t && systemctl reload nginx",
    "manage.py backup /backups/mypcbench-$(date +%F)",
]


def test_the_systemd_check_types_the_operator_pages_commands():
    page = (ROOT / "docs" / "operating.md").read_text()
    spec = importlib.util.spec_from_file_location("deploy_systemd_check", ROOT / "deploy" / "systemd_check.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    typed = (ROOT / "deploy" / "systemd_check.py").read_text() + check.FILL_TEMPLATE
    for command in OPERATOR_COMMANDS:
        assert command in page, f"not on the operator page: {command}"
        assert command in typed, f"not run by compose-check --systemd: {command}"
    units = (
        "systemctl enable --now mypcbench-web mypcbench-worker@default mypcbench-worker@media mypcbench-worker@judging"
    )
    assert units in page and units == f"systemctl enable --now {' '.join(check.UNITS)}"
