"""Post-boot setup (harness/postboot.py, formats.md §4.4) run for real against our headless test guest on
this machine: every guest path goes under a scratch root, the web apps are the stand-ins of
harness/guest/apps_stub.py (which check the signed session cookie and seed their database). The test
reads back what each part touched: resolv.conf, the chat-bot key file and unit drop-ins, the databases."""

import json
import os
import sqlite3
import subprocess

import pytest

from harness.backends import RemoteEnv
from harness.control import PARTS, WEB_APPS, ControlError, PostBootConfig, SetupError, parse_parts, session_token
from harness.guest.apps_stub import check_token, start_app_stubs, stop_app_stubs
from harness.guest.headless import HeadlessGuest
from harness.guest.server import ControlServer

KEY = "sk-test-0123456789abcdef"


stopped: set[str] = set()


@pytest.fixture
def guest(tmp_path):
    stopped.clear()
    server = ControlServer(HeadlessGuest(640, 400)).start()
    stubs = start_app_stubs(WEB_APPS, tmp_path / "root" / "data", ephemeral=True)
    yield server, stubs
    stop_app_stubs({name: stub for name, stub in stubs.items() if name not in stopped})
    server.stop()
    subprocess.run(["chattr", "-i", str(tmp_path / "root" / "etc" / "resolv.conf")], capture_output=True)


def config(tmp_path, stubs, **overrides) -> PostBootConfig:
    settings = {"root": str(tmp_path / "root"), "app_ports": {name: stub.port for name, stub in stubs.items()},
                "openai_api_key": KEY, "restart_units": False, "resolution": (640, 400)}  # fmt: skip
    return PostBootConfig(**{**settings, **overrides})


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_every_part_does_its_work_and_the_record_says_so(guest, tmp_path):
    server, stubs = guest
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=10, post_boot=config(tmp_path, stubs))
    env.start()
    record = env.protocol()["post_boot"]
    env.stop()
    root = tmp_path / "root"

    assert record["dns"]["status"] == "done"
    assert (root / "etc" / "resolv.conf").read_text() == "nameserver 8.8.8.8\nnameserver 1.1.1.1\n"

    assert record["chatbot_key"]["status"] == "done"
    env_file = root / "etc" / "mypcbench-env"
    assert f"OPENAI_API_KEY={KEY}\n" in env_file.read_text() and "LLM_MODEL=gpt-5.4-mini" in env_file.read_text()
    assert oct(env_file.stat().st_mode & 0o777) == "0o600"
    for unit in ("mypcbench-buzzchat", "mypcbench-workbuzz"):
        dropin = root / "etc" / "systemd" / "system" / f"{unit}.service.d" / "llm.conf"
        assert "EnvironmentFile=/etc/mypcbench-env" in dropin.read_text()
    assert KEY not in json.dumps(record)  # the secret never enters the run's protocol

    assert record["prewarm"]["status"] == "done" and len(record["prewarm"]["rows"]) == 17
    for name, stub in stubs.items():
        assert stub.requests == 1 and stub.rejected == 0, name
        with sqlite3.connect(stub.database) as con:
            assert con.execute("select email from users").fetchall() == [("michael.scott@dundermifflin.com",)]

    assert record["dinoco_fare_paid"]["status"] == "done"
    with sqlite3.connect(stubs["dinoco-airlines"].database) as con:
        rows = con.execute("select confirmation, fare, fare_paid from bookings order by confirmation").fetchall()
    assert rows == [("DN4K2P", 412.5, 412.5), ("DN7Q9X", 189.0, 189.0)]
    # the guest answered at once: nothing to nudge, and the record says so
    assert record["network_nudge"]["status"] == "not needed"

    # no xrandr on this machine's headless guest: the part fails and says so, the run goes on
    assert record["xrandr"]["status"] == "failed" and "xrandr -s 640x400" in record["xrandr"]["detail"]


def test_an_app_that_does_not_answer_fails_prewarm_naming_it(guest, tmp_path):
    server, stubs = guest
    settings = config(tmp_path, stubs, parts=("prewarm",), attempts=1)
    stubs["speedtax"].stop()  # nothing listens on its port any more
    stopped.add("speedtax")
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=10, post_boot=settings)
    env.start()
    prewarm = env.protocol()["post_boot"]["prewarm"]
    env.stop()
    assert (
        prewarm["status"] == "failed"
        and "1 of 17 app databases not ready; speedtax: init request failed" in (prewarm["detail"])
    )
    assert env.protocol()["post_boot"]["dns"] == {"status": "off"}


def test_without_a_key_the_chatbot_part_is_skipped_not_failed(guest, tmp_path):
    server, stubs = guest
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=10,
                    post_boot=config(tmp_path, stubs, parts=("chatbot_key",), openai_api_key=""))  # fmt: skip
    env.start()
    assert env.protocol()["post_boot"]["chatbot_key"]["status"] == "skipped"
    assert not (tmp_path / "root" / "etc" / "mypcbench-env").exists()
    env.stop()


def test_session_cookies_are_signed_for_one_app():
    token = session_token("pam@dundermifflin.com", "mail")
    assert check_token(token, "mail") == "pam@dundermifflin.com"
    assert check_token(token, "vaultbank") is None  # issued for another app
    assert check_token(session_token("pam@dundermifflin.com", "mail", key=b"guess"), "mail") is None


def test_setup_parts_from_the_command_line():
    assert parse_parts("all") == PARTS and parse_parts("none") == ()
    assert parse_parts("dns,chatbot-key") == ("dns", "chatbot_key")
    assert parse_parts("network-nudge,dinoco-fare-paid") == ("network_nudge", "dinoco_fare_paid")
    with pytest.raises(SetupError, match="unknown part\\(s\\) wallpaper"):
        parse_parts("dns,wallpaper")


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_fare_paid_backfill_fills_only_empty_rows_and_can_run_twice(guest, tmp_path):
    server, stubs = guest
    settings = config(tmp_path, stubs, parts=("prewarm", "dinoco_fare_paid"))
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=10, post_boot=settings)
    env.start()
    assert env.protocol()["post_boot"]["dinoco_fare_paid"]["filled"] == 2
    with sqlite3.connect(stubs["dinoco-airlines"].database) as con:
        con.execute("update bookings set fare_paid = 99.0 where confirmation = 'DN7Q9X'")  # a refund, say
        con.execute("insert into bookings (confirmation, fare) values ('DN0NEW', 250.0)")
    env.after_boot()  # as after a reset
    again = env.protocol()["post_boot"]["dinoco_fare_paid"]
    env.stop()
    assert again["status"] == "done" and again["added"] is False and again["filled"] == 1
    with sqlite3.connect(stubs["dinoco-airlines"].database) as con:
        rows = con.execute("select confirmation, fare_paid from bookings order by confirmation").fetchall()
    assert rows == [("DN0NEW", 250.0), ("DN4K2P", 412.5), ("DN7Q9X", 99.0)]


def test_fare_paid_without_the_dinoco_database_fails_naming_it(tmp_path):
    server = ControlServer(HeadlessGuest(640, 400)).start()
    settings = PostBootConfig(parts=("dinoco_fare_paid",), root=str(tmp_path), resolution=(640, 400))
    (tmp_path / "data").mkdir()
    with sqlite3.connect(tmp_path / "data" / "dinoco-airlines.sqlite") as con:
        con.execute("create table users (email text)")
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=10, post_boot=settings)
    env.start()
    part = env.protocol()["post_boot"]["dinoco_fare_paid"]
    env.stop()
    server.stop()
    assert part["status"] == "failed" and "has no table bookings" in part["detail"]


def fake_nmcli(tmp_path, ready_file):
    """A NetworkManager stand-in on PATH: logs its arguments; "networking on" brings the guest's network up."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "nmcli.log"
    script = bin_dir / "nmcli"
    script.write_text(f'#!/bin/sh\necho "$*" >> {log}\n[ "$*" = "networking on" ] && touch {ready_file}\nexit 0\n')
    script.chmod(0o755)
    return bin_dir, log


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_guest_whose_network_is_down_is_nudged_once_and_comes_up(tmp_path, monkeypatch):
    ready_file = tmp_path / "network-up"
    bin_dir, log = fake_nmcli(tmp_path, ready_file)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    server = ControlServer(HeadlessGuest(640, 400, ready_file=ready_file)).start()
    settings = PostBootConfig(parts=("network_nudge",), nudge_after=0.5, resolution=(640, 400))
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=20, post_boot=settings)
    try:
        env.start()
        nudge = env.protocol()["post_boot"]["network_nudge"]
    finally:
        env.stop()
        server.stop()
    assert log.read_text() == "networking off\nnetworking on\n"
    assert nudge["status"] == "done" and nudge["guest_was"] == "not ready" and 0.5 <= nudge["after_seconds"] < 5
    assert "NetworkManager restarted through the Control API" in nudge["detail"]


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_without_the_nudge_part_a_guest_whose_network_is_down_never_gets_ready(tmp_path, monkeypatch):
    ready_file = tmp_path / "network-up"
    bin_dir, log = fake_nmcli(tmp_path, ready_file)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    server = ControlServer(HeadlessGuest(640, 400, ready_file=ready_file)).start()
    settings = PostBootConfig(parts=("dns",), nudge_after=0.2, root=str(tmp_path / "root"), resolution=(640, 400))
    env = RemoteEnv(server.url, screen_size=(640, 400), ready_timeout=2, post_boot=settings)
    try:
        with pytest.raises(ControlError, match="guest not ready after"):
            env.start()
    finally:
        env.stop()
        server.stop()
    assert not log.exists()
