"""Post-boot setup of a MyPCBench guest, once it answers the Control API and before the first task, as
upstream's client does it (formats.md §4.4): nudge NetworkManager when the guest is slow to answer (while
waiting for it), pin DNS, force the screen resolution with xrandr, write the key of the in-VM chat bots,
pre-warm the 17 app databases with signed session cookies, checking that rows exist, and backfill the
Dinoco ``fare_paid`` column. Shared by the qemu, docker and remote backends; every part can be switched
off, and what each part did is recorded in the run's protocol (bundle.json). Everything runs in the guest
through the Control API (the nudge first tries the backend's own way), so it works the same whatever the
backend; secrets never enter the record."""

import base64
import hashlib
import hmac
import json
import os
from dataclasses import dataclass, field

from harness.apps import APPS, WEB
from harness.control.client import shell_command

PARTS = ("network_nudge", "dns", "xrandr", "chatbot_key", "prewarm", "dinoco_fare_paid")
# Run while waiting for the guest, not after it answers (see nudge_network); recorded with the others.
WAIT_PARTS = ("network_nudge",)
# Restart the guest's networking: NetworkManager's own switch where nmcli exists, else its service.
NUDGE_COMMAND = ("if command -v nmcli >/dev/null 2>&1; then nmcli networking off; sleep 1; nmcli networking on; "
                 "else systemctl restart NetworkManager; fi")  # fmt: skip
DINOCO = "dinoco-airlines"
# Where a booking's fare may already be stored, in the order tried when ``fare_paid`` is empty.
FARE_SOURCES = ("fare", "price", "total_price", "fare_amount", "amount")
SESSION_KEY = b"mypcbench-session-2026"  # upstream's fixed HMAC key for the apps' session cookies
DEFAULT_EMAIL = "michael.scott@dundermifflin.com"
CHATBOT_UNITS = ("mypcbench-buzzchat", "mypcbench-workbuzz")
# The web apps, as (name used in cookies and database files, port inside the guest).
WEB_APPS = tuple((app.internal_name, app.port) for app in APPS if app.kind == WEB)


class SetupError(ValueError):
    pass


def parse_parts(text: str) -> tuple[str, ...]:
    """``--setup`` value: "all", "none" or a comma list of PARTS."""
    text = (text or "").strip().lower()
    if text in ("", "none", "off"):
        return ()
    if text == "all":
        return PARTS
    parts = tuple(p.strip().replace("-", "_") for p in text.split(",") if p.strip())
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise SetupError(f"--setup: unknown part(s) {', '.join(unknown)} (expected all, none or a comma list of "
                         f"{', '.join(p.replace('_', '-') for p in PARTS)})")  # fmt: skip
    return parts


def session_token(email: str, app: str, key: bytes = SESSION_KEY) -> str:
    """The value of cookie ``session_<app>``: base64(payload "." HMAC-SHA256(payload) in hex)."""
    payload = json.dumps({"email": email, "app": app}, separators=(",", ":"))
    signature = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()
    return base64.b64encode(f"{payload}.{signature}".encode()).decode("ascii")


@dataclass
class PostBootConfig:
    """What to do after boot. ``root`` prefixes every guest path (the test guests run on this machine in
    tests, under a scratch folder); ``app_ports`` overrides where an app listens inside the guest."""

    parts: tuple[str, ...] = PARTS
    resolution: tuple[int, int] = (1280, 800)
    nameservers: tuple[str, ...] = ("8.8.8.8", "1.1.1.1")
    openai_api_key: str = field(default_factory=lambda: os.environ.get("OPENAI_API_KEY", ""), repr=False)
    llm_base_url: str = field(default_factory=lambda: os.environ.get("LLM_BASE_URL", ""))
    llm_model: str = field(default_factory=lambda: os.environ.get("LLM_MODEL", "gpt-5.4-mini"))
    login_email: str = field(default_factory=lambda: os.environ.get("SANDBOX_LOGIN_EMAIL", DEFAULT_EMAIL))
    sudo_password: str = field(default="password", repr=False)  # OSWorld's guest user's password
    display: str = ":0"
    xauthority: str = "/run/user/1000/gdm/Xauthority"
    root: str = "/"
    data_dir: str = "/data"
    init_path: str = "/"
    app_ports: dict = field(default_factory=dict)
    attempts: int = 3
    nudge_after: float = 60.0  # seconds without a ready guest before NetworkManager is nudged (once per boot)
    nudge_command: str = NUDGE_COMMAND
    dinoco_table: str = "bookings"
    restart_units: bool = True  # systemctl restart of the chat-bot units (off where the guest is this machine)

    def path(self, guest_path: str) -> str:
        return os.path.join(self.root, guest_path.lstrip("/")) if self.root not in ("", "/") else guest_path


def _q(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def as_root(command: str, password: str) -> str:
    """``command`` run as root: directly when the server already is root, else through sudo."""
    return (f'if [ "$(id -u)" = 0 ]; then bash -c {_q(command)}; '
            f"else printf '%s\\n' {_q(password)} | sudo -S -p '' bash -c {_q(command)}; fi")  # fmt: skip


def run_post_boot(env, config: PostBootConfig, nudge: dict | None = None) -> dict:
    """Run the enabled parts on ``env`` (an Environment); returns {part: {"status", "detail"}} with status
    done, failed, skipped (nothing to do, e.g. no key), not needed or off. Never raises for a part that
    fails: the record says what went wrong, and the screen-size check that follows refuses a wrong
    resolution. ``nudge`` is what nudge_network did during the wait (None: the guest answered in time)."""
    record = {}
    for part in PARTS:
        if part not in config.parts:
            record[part] = {"status": "off"}
            continue
        if part == "network_nudge":
            record[part] = nudge or {"status": "not needed",
                                     "detail": f"the guest was ready within {config.nudge_after:g} s"}  # fmt: skip
            continue
        try:
            record[part] = globals()[f"_{part}"](env, config)
        except Exception as exc:  # a guest that stops answering mid-setup is reported by the next request
            record[part] = {"status": "failed", "detail": f"{type(exc).__name__}: {exc}"[:400]}
    return record


def nudge_network(env, config: PostBootConfig, waited: float, state: str) -> dict:
    """Upstream's nudge (formats.md §4.4): a guest not ready after ``nudge_after`` seconds often has a
    network NetworkManager did not bring up. Called once per boot while waiting. The backend's own way is
    tried first (``env.nudge_link()``: QEMU toggles the virtual network cable, which NetworkManager
    answers by reconnecting); then, when something answers at the guest's URL, NetworkManager is
    restarted through the Control API. Returns the record of the ``network_nudge`` part."""
    record = {"status": "failed", "after_seconds": round(waited, 1), "guest_was": state}
    notes = []
    try:
        link = env.nudge_link()
    except Exception as exc:  # reported; the wait goes on either way
        link = f"link toggle failed: {type(exc).__name__}: {exc}"[:300]
    if link:
        notes.append(link)
        if not link.startswith("link toggle failed"):
            record["status"] = "done"
    if state == "refused":
        notes.append("nothing listens at the guest's URL: NetworkManager cannot be restarted through it")
    else:
        try:
            done = env.client.execute(shell_command(as_root(config.nudge_command, config.sudo_password)),
                                      shell=False, timeout=60)  # fmt: skip
        except Exception as exc:
            notes.append(f"restart through the Control API failed: {type(exc).__name__}: {exc}"[:300])
        else:
            result = _result(done, "NetworkManager restarted through the Control API")
            notes.append(result["detail"])
            if result["status"] == "done":
                record["status"] = "done"
    record["detail"] = "; ".join(notes) or "no way to reach the guest's network"
    return record


def _result(done, what: str, *, secret: str = "") -> dict:
    detail = (done.output + ("\n" + done.error if done.error else "")).strip()
    if secret:
        detail = detail.replace(secret, "[key]")
    if done.ok:
        return {"status": "done", "detail": what}
    return {"status": "failed", "detail": f"{what}: exit {done.returncode}: {detail[-300:]}"}


def _dns(env, config: PostBootConfig) -> dict:
    resolv = config.path("/etc/resolv.conf")
    lines = "".join(f"nameserver {ns}\\n" for ns in config.nameservers)
    command = (f"mkdir -p {_q(os.path.dirname(resolv))}; chattr -i {_q(resolv)} 2>/dev/null; rm -f {_q(resolv)}; "
               f"printf {_q(lines)} > {_q(resolv)} && "
               f"(chattr +i {_q(resolv)} 2>/dev/null || true)")  # fmt: skip
    done = env.execute(as_root(command, config.sudo_password), shell=True)
    if done.ok:
        check = env.execute(f"cat {_q(resolv)}", shell=True)
        missing = [ns for ns in config.nameservers if f"nameserver {ns}" not in check.output]
        if missing:
            return {"status": "failed", "detail": f"{resolv} does not list {', '.join(missing)} after writing it"}
    return _result(done, f"{resolv}: " + ", ".join(config.nameservers))


def _xrandr(env, config: PostBootConfig) -> dict:
    width, height = config.resolution
    command = f"DISPLAY={config.display} XAUTHORITY={config.xauthority} xrandr -s {width}x{height}"
    done = env.execute(command, shell=True)
    result = _result(done, f"xrandr -s {width}x{height}")
    try:
        result["screen_after"] = list(env.client.screen_size())
    except Exception as exc:  # reported; the screen check that follows says what it means
        result["screen_after"] = f"unknown ({exc})"
    return result


def _chatbot_key(env, config: PostBootConfig) -> dict:
    if not config.openai_api_key:
        return {"status": "skipped", "detail": "no OPENAI_API_KEY on this machine: the in-VM chat bots get no key"}
    settings = {"OPENAI_API_KEY": config.openai_api_key, "LLM_MODEL": config.llm_model}
    if config.llm_base_url:
        settings["LLM_BASE_URL"] = config.llm_base_url
    text = "".join(f"{k}={v}\n" for k, v in settings.items())
    encoded = base64.b64encode(text.encode()).decode()
    env_file = config.path("/etc/mypcbench-env")
    steps = [f"umask 077; mkdir -p {_q(os.path.dirname(env_file))}; echo {encoded} | base64 -d > {_q(env_file)}"]
    for unit in CHATBOT_UNITS:
        dropin = config.path(f"/etc/systemd/system/{unit}.service.d")
        steps.append(f"mkdir -p {_q(dropin)}; printf '[Service]\\nEnvironmentFile={'/etc/mypcbench-env'}\\n' "
                     f"> {_q(dropin + '/llm.conf')}")  # fmt: skip
    units = " ".join(CHATBOT_UNITS)
    if config.restart_units:
        steps.append(f"if command -v systemctl >/dev/null; then systemctl daemon-reload && systemctl restart {units}; "
                     "else echo 'no systemctl: chat-bot units not restarted'; fi")  # fmt: skip
    done = env.execute(as_root("; ".join(steps), config.sudo_password), shell=True)
    result = _result(done, f"{env_file} (OPENAI_API_KEY, LLM_MODEL={config.llm_model}) for {units}",
                     secret=config.openai_api_key)  # fmt: skip
    if "no systemctl" in done.output or not config.restart_units:
        why = "off" if not config.restart_units else "no systemctl in the guest"
        result["note"] = f"chat-bot units not restarted ({why})"
    return result


PREWARM_PROGRAM = """
import json, sqlite3, sys, time, urllib.request
spec = json.loads(sys.argv[1])
report = {}
for app, port, token in spec["apps"]:
    db = spec["data_dir"].rstrip("/") + "/" + app + ".sqlite"
    last = ""
    for attempt in range(spec["attempts"]):
        if attempt:
            time.sleep(spec["pause"])
        try:
            request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, spec["init_path"]),
                                             headers={"Cookie": "session_%s=%s" % (app, token)})
            urllib.request.urlopen(request, timeout=30).read()
        except Exception as exc:
            last = "init request failed: %s" % exc
            continue
        try:
            with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as con:
                tables = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
                rows = sum(con.execute('select count(*) from "%s"' % t).fetchone()[0] for t in tables)
        except Exception as exc:
            last = "cannot read %s: %s" % (db, exc)
            continue
        if rows:
            report[app] = {"ok": True, "rows": rows, "attempts": attempt + 1}
            break
        last = "%s has no rows" % db
    else:
        report[app] = {"ok": False, "error": last}
print(json.dumps(report))
"""


def _prewarm(env, config: PostBootConfig) -> dict:
    apps = [(name, config.app_ports.get(name, port), session_token(config.login_email, name))
            for name, port in WEB_APPS]  # fmt: skip
    spec = {"apps": apps, "data_dir": config.path(config.data_dir), "init_path": config.init_path,
            "attempts": max(1, config.attempts), "pause": 2.0}  # fmt: skip
    done = env.execute(["python3", "-c", PREWARM_PROGRAM, json.dumps(spec)], shell=False)
    try:
        report = json.loads(done.output.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return _result(done, "pre-warm program gave no report") | {"status": "failed"}
    failed = {app: r["error"] for app, r in report.items() if not r.get("ok")}
    rows = {app: r["rows"] for app, r in report.items() if r.get("ok")}
    if failed:
        first = next(iter(failed.items()))
        return {"status": "failed", "detail": f"{len(failed)} of {len(report)} app databases not ready; "
                f"{first[0]}: {first[1]}", "rows": rows, "failed": failed}  # fmt: skip
    return {"status": "done", "detail": f"{len(rows)} app databases have rows", "rows": rows}


FARE_PAID_PROGRAM = """
import json, sqlite3, sys
spec = json.loads(sys.argv[1])
table = spec["table"]
try:
    con = sqlite3.connect("file:%s?mode=rw" % spec["db"], uri=True)
    with con:
        columns = [r[1] for r in con.execute('pragma table_info("%s")' % table)]
        if not columns:
            print(json.dumps({"error": "%s has no table %s" % (spec["db"], table)}))
            sys.exit(0)
        added = "fare_paid" not in columns
        if added:
            con.execute('alter table "%s" add column fare_paid real' % table)
        source = next((c for c in spec["sources"] if c in columns), None)
        filled = 0
        if source:
            filled = con.execute('update "%s" set fare_paid = "%s" where fare_paid is null' % (table, source)).rowcount
        empty = con.execute('select count(*) from "%s" where fare_paid is null' % table).fetchone()[0]
    print(json.dumps({"added": added, "source": source, "filled": filled, "empty": empty}))
except sqlite3.Error as exc:
    print(json.dumps({"error": "%s: %s" % (spec["db"], exc)}))
"""


def _dinoco_fare_paid(env, config: PostBootConfig) -> dict:
    """Dinoco databases made before the app stored what each booking was paid lack the ``fare_paid``
    column the app reads: add it and fill the empty ones from the booking's fare (FARE_SOURCES).
    Runs after pre-warming, which makes the database; running it again changes nothing."""
    db = os.path.join(config.path(config.data_dir), f"{DINOCO}.sqlite")
    spec = {"db": db, "table": config.dinoco_table, "sources": list(FARE_SOURCES)}
    done = env.execute(["python3", "-c", FARE_PAID_PROGRAM, json.dumps(spec)], shell=False)
    try:
        report = json.loads(done.output.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return _result(done, "fare_paid program gave no report") | {"status": "failed"}
    if "error" in report:
        return {"status": "failed", "detail": report["error"][:300]}
    what = (f"{db} {config.dinoco_table}.fare_paid " + ("added, " if report["added"] else "")
            + f"{report['filled']} row(s) filled from {report['source'] or 'nothing (no fare column)'}")  # fmt: skip
    result = {"status": "done", "detail": what, "filled": report["filled"], "added": report["added"]}
    if report["empty"]:
        result |= {"status": "failed", "detail": f"{what}; {report['empty']} row(s) still without fare_paid"}
    return result
