"""Real rendered screens for the player bench: 1280x800 Chromium screenshots of the site's own
pages (light and dark), the seeding demo apps, and a desktop with a photographic wallpaper, a
photo viewer and a spreadsheet, cycled with different scroll offsets into N PNG screenshots."""

import io
import random
from pathlib import Path

import numpy as np
from PIL import Image

from harness.chromium import launch_options

W, H = 1280, 800
ROOT = Path(__file__).resolve().parent.parent
DEMO_APPS = ROOT / "seeding" / "demo_apps"


def photo(width: int, height: int, seed: int) -> Image.Image:
    """A photograph-like picture: 1/f noise (the spectrum of natural images) shaded as a sky over
    hills, so encoders face the fine texture real wallpapers and photos have."""
    rng = np.random.default_rng(seed)
    fy = np.fft.fftfreq(height)[:, None]
    fx = np.fft.rfftfreq(width)[None, :]
    f = np.sqrt(fx * fx + fy * fy)
    f[0, 0] = 1.0
    channels = []
    base = None
    for _ in range(3):
        spectrum = (rng.normal(size=f.shape) + 1j * rng.normal(size=f.shape)) / f**1.3
        field = np.fft.irfft2(spectrum, s=(height, width))
        field = (field - field.mean()) / field.std()
        base = field if base is None else 0.75 * base + 0.25 * field  # colours move together, as in photos
        channels.append(base)
    y = np.linspace(0, 1, height)[:, None]
    sky = np.array([90, 140, 210])[None, None, :] * (1 - y[..., None]) + np.array([200, 170, 120]) * y[..., None]
    horizon = 0.55 + 0.08 * channels[0][0:1, :]
    ground = y[..., None] > horizon[..., None]
    land = np.array([60, 90, 45]) + 22 * np.stack(channels, axis=-1)
    clouds = sky + 28 * np.stack(channels, axis=-1)
    rgb = np.where(ground, land, clouds).clip(0, 255).astype("uint8")
    return Image.fromarray(rgb)


DESKTOP = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{margin:0;width:1280px;height:800px;overflow:hidden;font:14px 'DejaVu Sans',sans-serif;
 background:url(wallpaper.jpg) center/cover}
.bar{height:28px;background:#1d1d1f;color:#eee;display:flex;justify-content:space-between;padding:0 12px;
 align-items:center;font-size:13px}
.dock{position:absolute;left:0;top:28px;bottom:0;width:64px;background:rgba(20,20,20,.7)}
.dock i{display:block;width:44px;height:44px;margin:10px;border-radius:10px;
 background:linear-gradient(135deg,#e66,#a3c)}
.dock i:nth-child(2n){background:linear-gradient(135deg,#3a8,#2ad)}
.dock i:nth-child(3n){background:linear-gradient(135deg,#fc3,#f70)}
.win{position:absolute;background:#fff;border-radius:8px;box-shadow:0 10px 40px rgba(0,0,0,.5);overflow:hidden}
.win .t{background:#e8e8e8;padding:6px 10px;font-weight:bold;font-size:13px}
.term{background:#2b0f24;color:#e8e8e8;font:13px 'DejaVu Sans Mono',monospace;padding:8px;white-space:pre}
.files{display:grid;grid-template-columns:repeat(5,1fr);gap:12px;padding:14px}
.files div{text-align:center;font-size:12px}.files b{display:block;height:48px;margin:0 auto 4px;width:40px;
 background:#6a9fd8;border-radius:4px}
</style></head><body><div class="bar"><span>Activities &nbsp; Files</span><span>Mon Apr 13 09:41</span>
<span>&#9881; &#128266; &#128267;</span></div><div class="dock">DOCK</div>WINDOWS</body></html>"""

PHOTO_VIEWER = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{margin:0;background:#222;color:#ddd;font:14px 'DejaVu Sans',sans-serif}
.top{height:44px;background:#333;display:flex;align-items:center;padding:0 16px;gap:20px}
.grid{display:grid;grid-template-columns:repeat(4,1fr);gap:8px;padding:8px}
.grid img{width:100%;height:170px;object-fit:cover;display:block}
.grid span{font-size:12px;color:#aaa}
</style></head><body><div class="top"><b>Photos</b><span>Jamaica trip 2025 &middot; 48 items</span></div>
<div class="grid">CELLS</div></body></html>"""

SHEET = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body{margin:0;font:13px 'DejaVu Sans',sans-serif;background:#fff}
.menu{background:#f0f0f0;padding:6px 10px;border-bottom:1px solid #ccc}
.tools{background:#f7f7f7;height:34px;border-bottom:1px solid #ccc}
table{border-collapse:collapse}td,th{border:1px solid #d4d4d4;padding:2px 6px;height:18px;min-width:84px}
th{background:#eee;font-weight:normal;color:#444}td.n{text-align:right}
</style></head><body><div class="menu">File Edit View Insert Format Styles Sheet Data Tools Window Help</div>
<div class="tools"></div><table>ROWS</table></body></html>"""

WORDS = (
    "invoice paper order Scranton branch sales quarterly Dunder Mifflin Stanley Dwight Pam Jim Angela "
    "Kevin Oscar budget travel Jamaica flight dentist Netflix subscription"
).split()


def write_synthetic_pages(folder: Path) -> list[str]:
    """A desktop over a photo wallpaper (with windows), a photo grid and a spreadsheet, as local
    HTML files Chromium renders; returns their file:// URLs."""
    folder.mkdir(parents=True, exist_ok=True)
    photo(W, H, 1).save(folder / "wallpaper.jpg", quality=92)
    for k in range(8):
        photo(480, 320, 10 + k).save(folder / f"photo{k}.jpg", quality=90)
    rng = random.Random(7)
    term = "\n".join(
        f"michael@pc:~$ {rng.choice(['ls -l', 'cat notes.txt', 'grep -r invoice Documents', 'df -h'])}\n"
        + " ".join(rng.choice(WORDS) for _ in range(8))
        for _ in range(10)
    )
    files = "".join(f"<div><b></b>{rng.choice(WORDS)}_{k}.ods</div>" for k in range(15))
    variants = {
        "desktop-empty.html": "",
        "desktop-terminal.html": f'<div class="win" style="left:180px;top:90px;width:720px;height:420px">'
        f'<div class="t">Terminal</div><div class="term">{term}</div></div>',
        "desktop-files.html": '<div class="win" style="left:260px;top:140px;width:760px;height:460px">'
        f'<div class="t">Documents</div><div class="files">{files}</div></div>',
    }
    urls = []
    for name, windows in variants.items():
        html = DESKTOP.replace("DOCK", "<i></i>" * 9).replace("WINDOWS", windows)
        (folder / name).write_text(html)
        urls.append((folder / name).as_uri())
    cells = "".join(f'<div><img src="photo{k % 8}.jpg" alt=""><span>IMG_{2040 + k}.jpg</span></div>' for k in range(16))
    (folder / "photos.html").write_text(PHOTO_VIEWER.replace("CELLS", cells))
    urls.append((folder / "photos.html").as_uri())
    head = "<tr><th></th>" + "".join(f"<th>{chr(65 + c)}</th>" for c in range(12)) + "</tr>"
    rows = head + "".join(
        f"<tr><th>{r + 1}</th>"
        + "".join(
            f'<td class="n">{rng.randint(0, 99999) / 100:.2f}</td>' if c % 3 else f"<td>{rng.choice(WORDS)}</td>"
            for c in range(12)
        )
        + "</tr>"
        for r in range(60)
    )
    (folder / "sheet.html").write_text(SHEET.replace("ROWS", rows))
    urls.append((folder / "sheet.html").as_uri())
    return urls


def screen_list(base: str, site_paths: list[str], folder: Path) -> list[tuple[str, str]]:
    """(url, colour scheme) pairs: the site's pages in light and dark, the demo apps, the desktop pages."""
    screens = [(base + p, "light") for p in site_paths] + [(base + p, "dark") for p in site_paths[::2]]
    screens += [((DEMO_APPS / name).as_uri(), "light") for name in sorted(p.name for p in DEMO_APPS.glob("*.html"))]
    screens += [(url, "light") for url in write_synthetic_pages(folder)]
    return screens


POINTER = """([x, y]) => {
  let p = document.getElementById('bench-pointer');
  if (!p) {
    p = document.createElement('div');
    p.id = 'bench-pointer';
    p.style.cssText = 'position:fixed;z-index:2147483647;width:0;height:0;pointer-events:none;' +
      'border-left:9px solid #111;border-right:9px solid transparent;border-bottom:18px solid transparent;' +
      'filter:drop-shadow(0 0 1px #fff)';
    document.body.appendChild(p);
  }
  p.style.left = x + 'px';
  p.style.top = y + 'px';
}"""


def record(screens: list[tuple[str, str]], n: int) -> list[bytes]:
    """``n`` PNG screenshots cycling through ``screens``, each pass scrolled further down, as an
    agent moving through its apps would see them."""
    from playwright.sync_api import sync_playwright

    shots = []
    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options())
        pages = {}
        for scheme in ("light", "dark"):
            context = browser.new_context(viewport={"width": W, "height": H}, color_scheme=scheme)
            pages[scheme] = context.new_page()
        for i in range(n):
            url, scheme = screens[i % len(screens)]
            page = pages[scheme]
            if page.url != url:
                page.goto(url, wait_until="load")
            page.evaluate("y => window.scrollTo(0, y)", (i // len(screens)) * 260)
            # A mouse pointer, as desktop screenshots have: it also keeps every screenshot unique, so
            # content-addressed derivatives cannot make repeated screens look cheaper than they are.
            page.evaluate(POINTER, [(i * 397) % (W - 20), (i * 211) % (H - 24)])
            page.wait_for_timeout(30)
            data = page.screenshot(type="png")
            with Image.open(io.BytesIO(data)) as im:
                assert im.size == (W, H), im.size
            shots.append(data)
        browser.close()
    return shots
