"""Post-boot setup (harness/postboot.py, formats.md §4.4) run for real against our headless test guest on
this machine: every guest path goes under a scratch root, the web apps are the stand-ins of
harness/guest/apps_stub.py (which check the signed session cookie and seed their database). The test
reads back what each part touched: resolv.conf, the chat-bot key file and unit drop-ins, the databases."""

import json
import sqlite3
import subprocess

import pytest

from harness.envs import RemoteEnv
from harness.guest.apps_stub import check_token, start_app_stubs, stop_app_stubs
from harness.guest.headless import HeadlessGuest
from harness.guest.server import ControlServer
from harness.postboot import PARTS, WEB_APPS, PostBootConfig, SetupError, parse_parts, session_token

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
    with pytest.raises(SetupError, match="unknown part\\(s\\) wallpaper"):
        parse_parts("dns,wallpaper")
