"""The front proxy of the topology (deploy/run-topology): nginx from deploy/nginx/mypcbench.conf.template
with a self-signed certificate made at start (never stored in the repository), in front of gunicorn on
a Unix socket, and the checks a person would make of it: plain HTTP redirects to HTTPS, pages answer
over TLS, an upload at the body limit reaches the site (a larger one is refused by nginx with 413), and
the client's address reaches the per-address sign-up limit."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from pathlib import Path

import requests
from requests.adapters import HTTPAdapter

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "nginx" / "mypcbench.conf.template"
# The topology's upload limit (MYPCBENCH_UPLOAD_MAX_BYTES), small so the check sends it quickly, and
# nginx's body limit: that plus a megabyte for the multipart form around the archive.
UPLOAD_LIMIT = 8 * 1024 * 1024
BODY_LIMIT = "9m"
SIGNUPS_PER_ADDRESS = 1
PLACEHOLDER = re.compile(r"\$\{(MYPCBENCH_[A-Z_]+)\}")


def render(values: dict[str, str]) -> str:
    """The template with its ${MYPCBENCH_*} placeholders filled (nginx's own $variables untouched),
    as the nginx image's envsubst does; a placeholder without a value is an error naming it."""
    text = TEMPLATE.read_text()
    missing = sorted(set(PLACEHOLDER.findall(text)) - set(values))
    if missing:
        raise SystemExit(f"front proxy: no value for {', '.join(missing)} (see {TEMPLATE})")
    return PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1, valid two days, made with openssl."""
    cert, key = folder / "tls.crt", folder / "tls.key"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    key.chmod(0o600)
    return cert, key


def nginx_program() -> str:
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if Path(p).exists()), None)
    if found is None:
        raise SystemExit("front proxy: nginx is not installed (Debian: apt-get install nginx-light)")
    return found


def nginx_conf(
    folder: Path, *, upstream: str, http_port: int, https_port: int, s3: tuple[int, str] | None = None
) -> Path:
    """A whole nginx.conf for nginx in ``folder``: the shipped server blocks inside, and with ``s3``
    (a port, the local S3 server's address) TLS in front of that server too, as real S3 has."""
    cert, key = self_signed(folder)
    for temp in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / temp).mkdir(exist_ok=True)
    servers = render(
        {
            "MYPCBENCH_UPSTREAM": upstream,
            "MYPCBENCH_SERVER_NAME": "localhost 127.0.0.1",
            "MYPCBENCH_HTTP_LISTEN": f"127.0.0.1:{http_port}",
            "MYPCBENCH_HTTPS_LISTEN": f"127.0.0.1:{https_port}",
            "MYPCBENCH_HTTPS_PORT": f":{https_port}",
            "MYPCBENCH_TLS_CERT": str(cert),
            "MYPCBENCH_TLS_KEY": str(key),
            "MYPCBENCH_BODY_LIMIT": BODY_LIMIT,
            "MYPCBENCH_MEDIA_DIR": str(folder / "media"),
        }
    )
    if s3 is not None:
        servers += f"""
server {{
    listen 127.0.0.1:{s3[0]} ssl;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    client_max_body_size 0;
    location / {{ proxy_pass {s3[1]}; proxy_set_header Host $http_host; }}
}}
"""
    # started as root, nginx's workers would switch to nobody, who may not reach a private state folder
    worker_user = "user root;\n" if os.geteuid() == 0 else ""
    conf = folder / "nginx.conf"
    conf.write_text(
        f"""worker_processes 1;
{worker_user}pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
daemon off;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    access_log {folder}/access.log;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
{servers}
}}
"""
    )
    return conf


def nginx_command(conf: Path) -> list[str]:
    return [nginx_program(), "-e", str(conf.parent / "error.log"), "-p", str(conf.parent), "-c", str(conf)]


class SourceAddress(HTTPAdapter):
    """Connections from a chosen loopback address (127.0.0.2, 127.0.0.3...): other "visitors"."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def visitor(address: str, cert: Path) -> requests.Session:
    session = requests.Session()
    session.verify = str(cert)
    for scheme in ("http://", "https://"):
        session.mount(scheme, SourceAddress(address))
    return session


def sign_up(session: requests.Session, base: str, username: str) -> int:
    """Sign up through the form (its CSRF token first); the status of the answer, redirects not followed."""
    # verify given on each call: a REQUESTS_CA_BUNDLE in the environment would beat the session's
    form = session.get(base + "/accounts/signup/", verify=session.verify, timeout=20)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    if form.status_code != 200 or token is None:
        return form.status_code
    password = secrets.token_urlsafe(16)
    answer = session.post(
        base + "/accounts/signup/",
        data={
            "csrfmiddlewaretoken": token.group(1),
            "username": username,
            "password1": password,
            "password2": password,
        },
        headers={"Referer": base + "/accounts/signup/"},
        allow_redirects=False,
        verify=session.verify,
        timeout=20,
    )
    if answer.status_code == 200:  # the form again: say why
        errors = re.findall(r"class=\"errorlist[^>]*>(.*?)</ul>", answer.text)[:2]
        print(f"  sign-up of {username} refused: {errors}")
    return answer.status_code


def process_tree(pid: int) -> list[int]:
    """A process and its descendants (Linux /proc)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            todo += [int(child) for child in task.read_text().split()]
    return found


def tcp_listeners(pids: list[int]) -> list[str]:
    """The TCP addresses these processes listen on (the address in hex as /proc spells it, the port)."""
    inodes = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                address, port = fields[1].split(":")
                listening.append(f"{address}:{int(port, 16)}")
    return listening


def check(*, http_port: int, https_port: int, cert: Path, socket_path: Path, tag: str, web_pid: int) -> list[str]:
    """What the front proxy must do; each line printed, each failure returned."""
    base = f"https://127.0.0.1:{https_port}"
    problems: list[str] = []
    plain = requests.get(f"http://127.0.0.1:{http_port}/leaderboard/?x=1", allow_redirects=False, timeout=10)
    want, went = f"{base}/leaderboard/?x=1", plain.headers.get("Location")
    print(f"GET http://…/leaderboard/?x=1: {plain.status_code} -> {went}")
    if plain.status_code != 301 or went != want:
        problems.append(f"plain HTTP answered {plain.status_code} to {went}, not 301 to {want}")
    page = requests.get(base + "/", verify=str(cert), timeout=20)
    print(f"GET {base}/: {page.status_code}, HSTS {page.headers.get('Strict-Transport-Security')!r}")
    if page.status_code != 200 or "max-age=" not in page.headers.get("Strict-Transport-Security", ""):
        problems.append(f"GET / over TLS answered {page.status_code} without HSTS")
    problems += check_body_limit(base, cert)
    problems += check_client_address(base, cert, tag)
    # gunicorn listens on a Unix socket only: no TCP port of it for anybody to reach around nginx
    ports = tcp_listeners(process_tree(web_pid))
    print(f"gunicorn on {socket_path}: {'yes' if socket_path.is_socket() else 'NO'}; TCP ports: {ports or 'none'}")
    if not socket_path.is_socket():
        problems.append(f"gunicorn's socket {socket_path} is missing")
    if ports:
        problems.append(f"gunicorn listens on TCP too ({ports}): reachable around the proxy")
    return problems


def check_body_limit(base: str, cert: Path) -> list[str]:
    problems = []
    archive = ("run.zip", b"\0" * UPLOAD_LIMIT, "application/zip")
    for size_name, files, want in (
        ("at the limit", {"archive": archive}, "the site"),
        ("over nginx's limit", {"archive": ("run.zip", b"\0" * (2 * UPLOAD_LIMIT), "application/zip")}, 413),
    ):
        answer = requests.post(base + "/api/submissions", files=files, verify=str(cert), timeout=60)
        from_site = answer.headers.get("Content-Type", "").startswith("application/json")
        print(f"POST /api/submissions {size_name}: {answer.status_code} ({'the site' if from_site else 'nginx'})")
        if want == "the site" and (answer.status_code == 413 or not from_site):
            problems.append(f"an upload {size_name} was answered {answer.status_code} by nginx, not by the site")
        if want == 413 and answer.status_code != 413:
            problems.append(f"an upload {size_name} answered {answer.status_code}, not nginx's 413")
    return problems


def check_client_address(base: str, cert: Path, tag: str) -> list[str]:
    """Sign-ups are limited per client address (SIGNUPS_PER_ADDRESS here): a second one from the same
    visitor is refused, one from another visitor is not, so nginx's X-Real-IP reached the limit."""
    # two loopback addresses of their own (the counters of earlier runs live on in the shared cache)
    one, two = (f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}" for _ in "12")
    first = sign_up(visitor(one, cert), base, f"probe-a-{tag}")
    again = sign_up(visitor(one, cert), base, f"probe-b-{tag}")
    other = sign_up(visitor(two, cert), base, f"probe-c-{tag}")
    print(f"sign-ups through nginx: {one} {first}, again {again}; {two} {other}")
    if (first, again, other) != (302, 429, 302):
        return [f"sign-ups from two addresses answered {first}, {again}, {other}, not 302, 429, 302"]
    return []
