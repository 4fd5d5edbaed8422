"""Bench: the trajectory player on 100-step trajectories of 1280x800 screenshots, over two image
sets reported side by side: generated (Pillow: window chrome, tables, DejaVu text, blurred noise
tiles) and REAL rendered screens (Chromium screenshots of the site's own pages in light and dark,
the seeding demo apps, a desktop over a photographic wallpaper, a photo grid and a spreadsheet;
bench/player_screens.py). Then a 500-step trajectory for stepping time.

Prints, per set:
- every byte the browser fetches to step through all 100 steps (page with its embedded payload,
  JS, CSS, each display picture, AVIF in Chromium, and every WebP thumbnail the filmstrip loads)
  against the PNG originals (target: at least 10x fewer on the real set, 6x on the generated one),
  and the same for a browser without AVIF, which <picture> gives the display WebPs (their sizes
  in place of the AVIFs');
- SSIM of each display AVIF and WebP against its original scaled to the same size (target >= 0.97);
- derivative time per screenshot (all derivatives of a step, as the worker makes them), and the
  AVIF and WebP display encodes alone on the same screenshots;
- time to the first screenshot painted, and to the next step painted after a key press once
  prefetched, against a far jump whose image was not prefetched (3 fresh pages x 5 jumps), with
  AVIF and with the WebPs only (the payload's AVIF names removed; headless Debian Chromium);
and for 500 steps: next-step time at the start and after End, and the thumbnail <img> count.

Run: MYPCBENCH_VAR_DIR=$(mktemp -d) .venv/bin/python bench/bench_player.py
"""

import io
import os
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

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
N_LONG = 500
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


def display_ssim(png: bytes, display: bytes) -> float:
    """SSIM of a display picture (AVIF or WebP) against its original scaled to the picture's size
    (what the stage shows)."""
    from trajectories.recording.media import grey, ssim

    with Image.open(io.BytesIO(display)) as shown, Image.open(io.BytesIO(png)) as original:
        reference = original.convert("RGB").resize(shown.size, Image.Resampling.LANCZOS)
        return ssim(grey(reference), grey(shown))


# ---------------------------------------------------------------- setup and serving


def build_trajectory(pngs, label):
    from harness.results import StepRecord
    from leaderboard.models import Model, Run
    from tests.factories import make_suite
    from trajectories.recording import ingest, media

    suite = make_suite([f"bench-{label}"], slug=f"bench-{label}")
    task = suite.tasks.first()
    model = Model.objects.create(name=f"Bench model {label}", slug=f"bench-model-{label}")
    run = Run.objects.create(
        name=f"Bench run {label}", slug=f"bench-run-{label}", suite=suite, model=model, publication="published"
    )
    t = ingest.start_trajectory(run, task)
    # Timed from the first step stored: finishing the trajectory makes its derivatives (the worker's task,
    # run in process here), so by the time make_trajectory_derivatives is called there is nothing left to do.
    started = time.perf_counter()
    for i, png in enumerate(pngs, start=1):
        with Image.open(io.BytesIO(png)) as im:
            w, h = im.size
        x, y = random.Random(i).randint(4, w - 4), random.Random(-i).randint(4, h - 4)
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
    t.derivative_seconds = (time.perf_counter() - started) / len(pngs)
    return t


def encode_times(pngs, n=10):
    """Seconds per screenshot for the AVIF and the WebP display encodes alone (quality search
    included), on the first ``n`` screenshots of a set, one after the other."""
    from trajectories.recording import media

    images = [Image.open(io.BytesIO(png)) for png in pngs[:n]]
    times = {}
    for label, encode in (("avif", media.encode_display_avif), ("webp", media.encode_display)):
        started = time.perf_counter()
        for image in images:
            encode(image)
        times[label] = (time.perf_counter() - started) / len(images)
    return times


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
        return "avif" if url.endswith(".avif") else "webp"
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


def without_avif(route):
    """The player page with no AVIF named in its payload: the stage and prefetches take the WebPs, as
    in a browser whose <picture> skips the AVIF source."""
    response = route.fetch()
    route.fulfill(response=response, body=re.sub(r'"image_avif":\s*"[^"]*"', '"image_avif": ""', response.text()))


def open_player(browser, url, avif=True):
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    if not avif:
        context.route(re.compile(r".*/play/$"), without_avif)
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("() => window.__playerFirstPaint !== undefined")
    page.evaluate(RECORD_KEYS)
    page.locator("body").click(position={"x": 2, "y": 2})
    return page


def step_latency(page, key):
    before = page.evaluate("() => window.__playerPainted.at")
    page.keyboard.press(key)
    page.wait_for_function("b => window.__playerPainted.at > b", arg=before)
    return page.evaluate(SINCE_KEY)


def browse(browser, base, t, n_steps):
    """Step through every step of ``t`` as a reader would; returns what was fetched and the timings."""
    fetched = {}
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
    next_ms = []
    for _ in range(n_steps - 1):
        page.wait_for_timeout(120)  # let the prefetch of the next image finish, as a reader would
        next_ms.append(step_latency(page, "ArrowRight"))
    page.wait_for_timeout(500)  # lazy thumbnails still in flight are fetched bytes too
    page.context.close()
    far_ms = far_jumps(browser, f"{base}/trajectories/{t.pk}/play/", avif=True)
    far_webp_ms = far_jumps(browser, f"{base}/trajectories/{t.pk}/play/", avif=False)
    return {"fetched": fetched, "first": first, "next": next_ms, "far": far_ms, "far_webp": far_webp_ms}


def far_jumps(browser, url, avif, rounds=3):
    """Far jumps to pictures never prefetched: each round a fresh page, jumping with number keys."""
    far_ms = []
    for _ in range(rounds):
        page = open_player(browser, url, avif=avif)
        for target in (50, 90, 20, 70, 35):
            before = page.evaluate("() => window.__playerPainted.at")
            for ch in str(target):
                page.keyboard.press(ch)
            page.keyboard.press("Enter")
            page.wait_for_function("b => window.__playerPainted.at > b", arg=before)
            far_ms.append(page.evaluate(SINCE_KEY))
        page.context.close()
    return far_ms


def browse_long(browser, base, t, presses=40):
    """Next-step times on a long trajectory at its start and after End, and how many thumbnail
    <img> elements the filmstrip holds."""
    page = open_player(browser, f"{base}/trajectories/{t.pk}/play/")
    start = []
    for _ in range(presses):
        page.wait_for_timeout(60)
        start.append(step_latency(page, "ArrowRight"))
    end_ms = step_latency(page, "End")
    end = []
    for _ in range(presses):
        page.wait_for_timeout(60)
        end.append(step_latency(page, "ArrowLeft"))
    home_ms = step_latency(page, "Home")
    thumbs = page.locator("#filmstrip-track img").count()
    page.context.close()
    return {"start": start, "end": end, "end_ms": end_ms, "home_ms": home_ms, "thumbs": thumbs}


def small_png(i: int) -> bytes:
    img = Image.new("RGB", (320, 200), (240, 240, 244))
    ImageDraw.Draw(img).text((10, 10 + i % 150), f"step {i}", fill=(20, 20, 20), font=font(14))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def measure_set(pngs, t, result):
    scores, webp_scores, webp_sizes = [], [], {}
    for step, png in zip(t.steps.order_by("index"), pngs, strict=True):
        with step.display_avif.open("rb") as fh:
            scores.append(display_ssim(png, fh.read()))
        with step.display_image.open("rb") as fh:
            webp = fh.read()
        webp_scores.append(display_ssim(png, webp))
        webp_sizes[step.display_image.name] = len(webp)
    by_kind = {}
    thumbs = 0
    for url, (kind, size) in result["fetched"].items():
        if kind == "webp":
            is_thumb = urlsplit(url).path in THUMB_PATHS
            thumbs += is_thumb
            kind = "webp thumbnail" if is_thumb else "webp display"
        elif kind == "avif":
            kind = "avif display"
        by_kind[kind] = by_kind.get(kind, 0) + size
    # A browser without AVIF: <picture> gives it the display WebPs (each distinct file once) instead.
    without_avif = sum(v for k, v in by_kind.items() if k != "avif display" and k != "webp display")
    without_avif += sum(webp_sizes.values())
    unique = len(set(pngs))
    return {
        "scores": scores,
        "webp_scores": webp_scores,
        "without_avif": without_avif,
        "derivative_seconds": t.derivative_seconds,
        "encode": encode_times(pngs),
        "by_kind": by_kind,
        "png": sum(len(p) for p in pngs),
        "thumbs": thumbs,
        "unique": unique,
        **result,
    }


THUMB_PATHS: set = set()  # URL paths of thumbnails, to tell them from display images


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def p95(xs):
    return sorted(xs)[max(0, int(0.95 * len(xs)) - 1)]


def main():
    from bench import player_screens
    from trajectories.models import Trajectory

    call_command("migrate", verbosity=0)
    call_command("load_demo", verbosity=0, stdout=io.StringIO())  # the site pages we screenshot
    demo = Trajectory.objects.select_related("run", "task", "task__suite").order_by("pk").first()
    server, base = serve()
    try:
        print(f"generating {N_STEPS} Pillow screenshots of {W}x{H} ...", flush=True)
        synthetic = [screenshot(i) for i in range(N_STEPS)]
        print(f"recording {N_STEPS} real screens of {W}x{H} in Chromium ...", flush=True)
        site_paths = [
            "/",
            "/leaderboard/",
            "/runs/",
            f"/runs/{demo.run.slug}/",
            "/tasks/",
            f"/tasks/{demo.task.suite.slug}/{demo.task.task_id}/",
            f"/trajectories/{demo.pk}/",
            f"/trajectories/{demo.pk}/play/",
            "/analysis/",
            "/analysis/failures/",
            "/trajectories/",
        ]
        folder = Path(os.environ["MYPCBENCH_VAR_DIR"]) / "bench-screens"
        real = player_screens.record(player_screens.screen_list(base, site_paths, folder), N_STEPS)
        print("making derivatives and stepping through each set ...", flush=True)
        sets = {}
        long_t = None
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(**launch_options())
            for label, pngs in (("synthetic", synthetic), ("real", real)):
                t = build_trajectory(pngs, label)
                THUMB_PATHS.update(s.thumbnail.url for s in t.steps.all() if s.thumbnail)
                sets[label] = measure_set(pngs, t, browse(browser, base, t, N_STEPS))
            print(f"building a {N_LONG}-step trajectory of small screenshots ...", flush=True)
            long_t = build_trajectory([small_png(i) for i in range(N_LONG)], "long")
            long = browse_long(browser, base, long_t)
            browser.close()
    finally:
        server.shutdown()
    report(sets, long)


def report(sets, long):
    a, b = sets["synthetic"], sets["real"]
    row = "  {:<44} {:>16} {:>16}"
    print(f"\nworkload: one {N_STEPS}-step trajectory per set, {W}x{H} PNG originals, every step viewed in Chromium")
    print(row.format("", "synthetic", "real screens"))
    kinds = sorted(set(a["by_kind"]) | set(b["by_kind"]))
    for kind in kinds:
        print(row.format(f"bytes fetched: {kind}", f"{a['by_kind'].get(kind, 0):,}", f"{b['by_kind'].get(kind, 0):,}"))
    total = {k: sum(v["by_kind"].values()) for k, v in sets.items()}
    print(row.format("bytes fetched: total", f"{total['synthetic']:,}", f"{total['real']:,}"))
    print(row.format("thumbnails fetched (of 100 steps)", a["thumbs"], b["thumbs"]))
    print(row.format("PNG originals", f"{a['png']:,}", f"{b['png']:,}"))
    print(row.format("distinct screenshots (of 100)", a["unique"], b["unique"]))
    print(
        row.format(
            "ratio originals / browser (>= 6x, real >= 10x)",
            f"{a['png'] / total['synthetic']:.1f}x",
            f"{b['png'] / total['real']:.1f}x",
        )
    )
    print(row.format("bytes, a browser without AVIF (WebP)", f"{a['without_avif']:,}", f"{b['without_avif']:,}"))
    print(
        row.format(
            "ratio originals / browser without AVIF",
            f"{a['png'] / a['without_avif']:.1f}x",
            f"{b['png'] / b['without_avif']:.1f}x",
        )
    )
    for label, key in (("AVIF", "scores"), ("WebP", "webp_scores")):
        print(
            row.format(
                f"SSIM at display size, {label}: mean / min (>= 0.97)",
                f"{statistics.mean(a[key]):.4f} / {min(a[key]):.4f}",
                f"{statistics.mean(b[key]):.4f} / {min(b[key]):.4f}",
            )
        )
    print(
        row.format(
            "stored with all derivatives, per screenshot (s)",
            f"{a['derivative_seconds']:.2f}",
            f"{b['derivative_seconds']:.2f}",
        )
    )
    print(
        row.format(
            "display encode alone, AVIF / WebP (s)",
            f"{a['encode']['avif']:.2f} / {a['encode']['webp']:.2f}",
            f"{b['encode']['avif']:.2f} / {b['encode']['webp']:.2f}",
        )
    )
    print(row.format("first screenshot painted (ms)", f"{a['first']['mark']:.0f}", f"{b['first']['mark']:.0f}"))
    print(
        row.format(
            "next step, prefetched: median / p95 (ms)",
            f"{median(a['next']):.1f} / {p95(a['next']):.1f}",
            f"{median(b['next']):.1f} / {p95(b['next']):.1f}",
        )
    )
    print(row.format("far jump, not prefetched: median (ms)", f"{median(a['far']):.1f}", f"{median(b['far']):.1f}"))
    print(
        row.format("far jump, WebP only: median (ms)", f"{median(a['far_webp']):.1f}", f"{median(b['far_webp']):.1f}")
    )
    print(
        row.format(
            "ratio not-prefetched / prefetched",
            f"{median(a['far']) / median(a['next']):.1f}x",
            f"{median(b['far']) / median(b['next']):.1f}x",
        )
    )
    print(f"\n{N_LONG}-step trajectory (320x200 screenshots):")
    print(f"  next step at the start: median {median(long['start']):.1f} ms, p95 {p95(long['start']):.1f} ms")
    print(f"  previous step near the end: median {median(long['end']):.1f} ms, p95 {p95(long['end']):.1f} ms")
    print(f"  End: {long['end_ms']:.1f} ms, Home: {long['home_ms']:.1f} ms")
    print(
        f"  ratio near the end / {N_STEPS}-step trajectory: {median(long['end']) / median(b['next']):.1f}x "
        f"(next-step time does not grow with length)"
    )
    print(f"  thumbnail <img> elements in the filmstrip: {long['thumbs']} (of {N_LONG} steps)")


if __name__ == "__main__":
    main()
