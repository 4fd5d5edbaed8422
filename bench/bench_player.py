"""Bench: the trajectory player on a 100-step trajectory of generated 1280x800 desktop-like
screenshots (Pillow: window chrome, sidebars, tables, DejaVu text, photos-like gradients).

Prints, side by side in one run:
- bytes the browser fetches to step through all 100 steps (page + JS + CSS + display WebP +
  thumbnails) against the PNG originals (target: at least 6x fewer);
- SSIM of each display WebP against its original at display size (numpy, 7x7 windows; target >= 0.97);
- time to the first screenshot painted, and to the next step painted after a key press once
  prefetched, against a far jump whose image was not prefetched (headless Debian Chromium).

Run: MYPCBENCH_VAR_DIR=$(mktemp -d) .venv/bin/python bench/bench_player.py
"""

import io
import os
import random
import statistics
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MYPCBENCH_VAR_DIR", tempfile.mkdtemp(prefix="bench-player-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "mypcbench_site.settings")
os.environ["MYPCBENCH_DERIVATIVES"] = "inline"
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop runs beside synchronous ORM calls

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from harness.chromium import launch_options  # noqa: E402

N_STEPS = 100
W, H = 1280, 800
FONT_DIR = Path("/usr/share/fonts/truetype/dejavu")
WORDS = (
    "invoice total Dunder Mifflin Scranton paper order reply forward calendar meeting flight Jamaica "
    "booking confirmation dentist appointment Michael Scott transaction subscription Netflix Hulu budget "
    "report quarterly sales branch manager warehouse Stanley Dwight Pam Jim Angela accounting"
).split()


def font(size, bold=False, mono=False):
    name = "DejaVuSansMono.ttf" if mono else ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    try:
        return ImageFont.truetype(str(FONT_DIR / name), size)
    except OSError:
        return ImageFont.load_default()


def sentence(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize()


def screenshot(i: int) -> bytes:
    """A desktop-like screenshot: top bar, browser chrome, app header, sidebar, a table or a mail
    list or a document, sometimes a photo-like area and a dialog; varies with ``i``."""
    rng = random.Random(i)
    accent = rng.choice([(31, 95, 191), (110, 70, 30), (30, 130, 90), (150, 40, 60), (60, 60, 140)])
    img = Image.new("RGB", (W, H), (246, 247, 249))
    d = ImageDraw.Draw(img)
    small, body, bold, mono = font(12), font(14), font(15, bold=True), font(13, mono=True)
    d.rectangle([0, 0, W, 28], fill=(40, 40, 44))
    d.text((12, 7), "Activities    Firefox Web Browser", font=small, fill=(230, 230, 230))
    d.text((W - 160, 7), f"Mon Apr 13  09:{i % 60:02d}", font=small, fill=(230, 230, 230))
    d.rectangle([0, 28, W, 76], fill=(232, 233, 236))
    d.rounded_rectangle([90, 38, W - 120, 66], radius=12, fill=(255, 255, 255), outline=(200, 200, 205))
    d.text((110, 45), f"localhost:30{rng.randint(1, 17):02d}/{rng.choice(WORDS)}/{i}", font=body, fill=(60, 60, 60))
    d.rectangle([0, 76, W, 130], fill=accent)
    d.text(
        (24, 92),
        rng.choice(["HooliMail", "Gringotts", "HooliCalendar", "SprintBoard", "HooliShop"]),
        font=font(22, bold=True),
        fill="white",
    )
    d.rectangle([0, 130, 220, H], fill=(236, 238, 242))
    for k in range(12):
        d.text((20, 150 + 30 * k), sentence(rng, 2), font=body, fill=(50, 50, 60))
    kind = i % 4
    x0, y0 = 240, 150
    if kind in (0, 1):  # a table or a mail list
        for r in range(18):
            y = y0 + r * 32
            if r % 2:
                d.rectangle([x0, y - 4, W - 20, y + 26], fill=(255, 255, 255))
            d.text((x0 + 8, y), sentence(rng, 3)[:28], font=bold if r == 0 else body, fill=(30, 30, 40))
            d.text((x0 + 330, y), sentence(rng, 6)[:52], font=body, fill=(80, 80, 90))
            d.text((W - 140, y), f"${rng.randint(1, 999)}.{rng.randint(0, 99):02d}", font=mono, fill=(30, 30, 40))
    elif kind == 2:  # a document
        d.rectangle([x0 + 60, y0, W - 80, H - 10], fill="white", outline=(210, 210, 215))
        for r in range(26):
            d.text((x0 + 100, y0 + 30 + r * 22), sentence(rng, 11)[:95], font=body, fill=(20, 20, 20))
    else:  # a photo-like card grid
        for c in range(3):
            for r in range(2):
                bx, by = x0 + c * 340, y0 + r * 310
                tile = Image.new("RGB", (320, 200))
                arr = np.random.default_rng(i * 10 + c + r).normal(128, 40, (50, 80, 3)).clip(0, 255).astype("uint8")
                tile = (
                    Image.fromarray(arr)
                    .resize((320, 200), Image.Resampling.BICUBIC)
                    .filter(ImageFilter.GaussianBlur(3))
                )
                img.paste(tile, (bx, by))
                d.text((bx, by + 210), sentence(rng, 4)[:36], font=bold, fill=(30, 30, 40))
                d.text(
                    (bx, by + 234), f"${rng.randint(10, 400)}  ★ 4.{rng.randint(0, 9)}", font=body, fill=(90, 90, 90)
                )
    if i % 7 == 3:  # a dialog
        d.rounded_rectangle([420, 260, 860, 520], radius=8, fill="white", outline=(150, 150, 160), width=2)
        d.text((444, 284), "Send this reply?", font=bold, fill=(20, 20, 20))
        d.text((444, 320), sentence(rng, 7)[:50], font=body, fill=(60, 60, 60))
        d.rounded_rectangle([740, 470, 840, 504], radius=4, fill=accent)
        d.text((770, 479), "Send", font=body, fill="white")
    out = io.BytesIO()
    img.save(out, format="PNG", optimize=True)
    return out.getvalue()


# ---------------------------------------------------------------- SSIM (numpy)


def _box(a, k=7):
    """Mean over k x k windows (valid region) with cumulative sums."""
    c = np.cumsum(np.cumsum(np.pad(a, ((1, 0), (1, 0))), axis=0), axis=1)
    return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)


def ssim(x: np.ndarray, y: np.ndarray) -> float:
    """Mean SSIM of two greyscale images (0..255), 7x7 uniform windows, sample covariance."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    k, n = 7, 49
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = _box(x), _box(y)
    cov = n / (n - 1)
    vx = cov * (_box(x * x) - mx * mx)
    vy = cov * (_box(y * y) - my * my)
    vxy = cov * (_box(x * y) - mx * my)
    s = ((2 * mx * my + c1) * (2 * vxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    del k
    return float(s.mean())


def grey(data: bytes, size=None) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as im:
        im = im.convert("L")
        if size and im.size != size:
            im = im.resize(size, Image.Resampling.LANCZOS)
        return np.asarray(im)


# ---------------------------------------------------------------- setup and serving


def build_trajectory(pngs):
    from harness.bundle import StepRecord
    from leaderboard.models import Model, Run
    from tests.factories import make_suite
    from trajectories import ingest, media

    suite = make_suite([f"bench-{os.getpid()}"], slug=f"bench-{os.getpid()}")
    task = suite.tasks.first()
    model = Model.objects.create(name="Bench model", slug=f"bench-model-{os.getpid()}")
    run = Run.objects.create(
        name="Bench run", slug=f"bench-run-{os.getpid()}", suite=suite, model=model, publication="published"
    )
    t = ingest.start_trajectory(run, task)
    for i, png in enumerate(pngs, start=1):
        x, y = random.Random(i).randint(40, W - 40), random.Random(-i).randint(140, H - 40)
        ingest.add_step(
            t,
            StepRecord(
                index=i,
                turn=i,
                tool="computer",
                action={"type": "click", "x": x, "y": y},
                action_text=f"pyautogui.click({x}, {y})",
                model_text=f"Step {i}: I click the next thing.",
            ),
            png,
            screenshot_name=f"step_{i}.png",
        )
    ingest.finish_trajectory(t, ended_by="done", final_answer="Done.")
    media.make_trajectory_derivatives(t.pk)
    return t


def serve():
    from socketserver import ThreadingMixIn
    from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

    from django.core.wsgi import get_wsgi_application

    class Threaded(ThreadingMixIn, WSGIServer):
        daemon_threads = True

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args):
            pass

    server = make_server("127.0.0.1", 0, get_wsgi_application(), server_class=Threaded, handler_class=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def classify(url: str) -> str:
    if "/derivatives/" in url:
        return "webp"
    if url.endswith(".js"):
        return "js"
    if url.endswith(".css"):
        return "css"
    if "/media/screenshots/" in url:
        return "png original"
    if url.endswith((".svg", ".ico")):
        return "icon"
    return "page"


# Key presses are timed from the event's own timestamp, inside the page.
RECORD_KEYS = (
    "() => { window.__keyAt = []; document.addEventListener('keydown', e => window.__keyAt.push(e.timeStamp), true); }"
)
SINCE_KEY = "() => window.__playerPainted.at - window.__keyAt[window.__keyAt.length - 1]"


def browse(base, t):
    from playwright.sync_api import sync_playwright

    fetched = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options())
        page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()

        def on_finished(request):
            try:
                size = request.sizes()["responseBodySize"]
            except Exception:
                size = 0
            fetched[request.url] = (classify(request.url), size)

        page.on("requestfinished", on_finished)
        page.goto(f"{base}/trajectories/{t.pk}/play/")
        page.wait_for_function("() => window.__playerFirstPaint !== undefined")
        first = page.evaluate(
            "() => ({mark: performance.getEntriesByName('player-first-screenshot')[0].startTime,"
            " fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime})"
        )
        page.evaluate(RECORD_KEYS)
        page.locator("body").click(position={"x": 2, "y": 2})

        def step_latency(key):
            before = page.evaluate("() => window.__playerPainted.at")
            page.keyboard.press(key)
            page.wait_for_function("b => window.__playerPainted.at > b", arg=before)
            return page.evaluate(SINCE_KEY)

        next_ms, far_ms = [], []
        for _ in range(N_STEPS - 1):
            page.wait_for_timeout(120)  # let the prefetch of the next image finish, as a reader would
            next_ms.append(step_latency("ArrowRight"))
        # Far jumps to images that were never prefetched: a fresh page, jump with number keys.
        page2 = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
        page2.goto(f"{base}/trajectories/{t.pk}/play/")
        page2.wait_for_function("() => window.__playerFirstPaint !== undefined")
        page2.evaluate(RECORD_KEYS)
        page2.locator("body").click(position={"x": 2, "y": 2})
        for target in (50, 90, 20, 70, 35):
            before = page2.evaluate("() => window.__playerPainted.at")
            for ch in str(target):
                page2.keyboard.press(ch)
            page2.keyboard.press("Enter")
            page2.wait_for_function("b => window.__playerPainted.at > b", arg=before)
            far_ms.append(page2.evaluate(SINCE_KEY))
        browser.close()
    return fetched, first, next_ms, far_ms


def main():
    call_command("migrate", verbosity=0)
    print(f"generating {N_STEPS} screenshots of {W}x{H} ...", flush=True)
    pngs = [screenshot(i) for i in range(N_STEPS)]
    t = build_trajectory(pngs)
    steps = list(t.steps.order_by("index"))

    scores = []
    for step, png in zip(steps, pngs, strict=True):
        with step.display_image.open("rb") as fh:
            webp = fh.read()
        with Image.open(io.BytesIO(webp)) as im:
            size = im.size
        scores.append(ssim(grey(png, size), grey(webp)))

    server, base = serve()
    try:
        fetched, first, next_ms, far_ms = browse(base, t)
    finally:
        server.shutdown()

    by_kind = {}
    for kind, size in fetched.values():
        by_kind[kind] = by_kind.get(kind, 0) + size
    browser_bytes = sum(by_kind.values())
    png_bytes = sum(len(p) for p in pngs)
    print(f"\nworkload: one trajectory, {N_STEPS} steps, {W}x{H} PNG originals, stepped through every step in Chromium")
    print("bytes fetched by the browser:")
    for kind in sorted(by_kind):
        print(f"  {kind:<14} {by_kind[kind]:>12,}")
    print(f"  {'total':<14} {browser_bytes:>12,}")
    print(f"PNG originals   {png_bytes:>12,}  ({png_bytes / N_STEPS / 1024:.0f} KiB per screenshot)")
    print(f"ratio originals / browser: {png_bytes / browser_bytes:.1f}x fewer bytes   (target >= 6x)")
    print(
        f"SSIM display WebP vs original at display size: mean {statistics.mean(scores):.4f}, "
        f"min {min(scores):.4f}   (target >= 0.97)"
    )
    print(
        f"first screenshot painted: {first['mark']:.0f} ms after navigation start "
        f"(first contentful paint {first['fcp'] or 0:.0f} ms)"
    )
    med_next, med_far = statistics.median(next_ms), statistics.median(far_ms)
    p95 = sorted(next_ms)[int(0.95 * len(next_ms)) - 1]
    print(
        f"next step painted after a key press, prefetched: median {med_next:.1f} ms, p95 {p95:.1f} ms "
        f"({len(next_ms)} presses)"
    )
    print(f"far jump to a step not prefetched:               median {med_far:.1f} ms ({len(far_ms)} jumps)")
    print(f"ratio not-prefetched / prefetched: {med_far / med_next:.1f}x")


if __name__ == "__main__":
    main()
