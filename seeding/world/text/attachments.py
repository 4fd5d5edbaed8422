"""Files people attach: the spreadsheet a colleague says is attached, the meeting notes, the photos from
the weekend. ``for_mail`` reads what a message says and returns the files it must carry (name, type,
bytes), built from the message's own facts so the attachment agrees with the text.
"""

import datetime as dt
import io
import re

from PIL import Image, ImageDraw

from .workplace import WORK_CLIENTS

ATTACHING = re.compile(r"\b(attached|attaching|see attachment)\b", re.I)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:40] or "file"


def _sales_csv(rng, day: dt.date) -> bytes:
    rows = ["client,cases,amount_usd,change_vs_last_quarter"]
    for client in rng.sample(WORK_CLIENTS, k=6):
        cases = rng.randint(20, 400)
        rows.append(f'"{client}",{cases},{cases * rng.randint(28, 45)}.00,{rng.randint(-12, 15)}%')
    return ("\n".join(rows) + "\n").encode()


def _notes(rng, day: dt.date, subject: str) -> bytes:
    items = rng.sample(
        [
            "Quarterly targets",
            "Printer replacement",
            "Party budget",
            "Client complaints",
            "Parking",
            "Safety training",
            "Supply order",
            "Dundies planning",
            "Warehouse schedule",
            "Expense reports",
        ],
        k=4,
    )
    lines = [f"{subject}", f"Date: {day.isoformat()}", "", "Discussed:"]
    lines += [f"- {item}" for item in items[:3]]
    lines += ["", "Action items:", f"- Follow up on {items[3].lower()} by {(day + dt.timedelta(days=7)).isoformat()}"]
    return ("\n".join(lines) + "\n").encode()


def _photo(rng, caption: str) -> bytes:
    """A small snapshot (a sky, a lawn, a horizon): deterministic pixels, a real PNG any viewer opens."""
    sky = (rng.randint(90, 170), rng.randint(150, 210), 235)
    ground = (rng.randint(40, 110), rng.randint(110, 170), rng.randint(40, 90))
    image = Image.new("RGB", (160, 120), sky)
    draw = ImageDraw.Draw(image)
    horizon = rng.randint(55, 85)
    draw.rectangle([0, horizon, 160, 120], fill=ground)
    draw.ellipse([120, 10, 145, 35], fill=(250, 220, 90))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()


def for_mail(rng, subject: str, body: str, day: dt.date) -> list[tuple[str, str, bytes]]:
    """(filename, content type, bytes) for each file the message says it carries."""
    if not ATTACHING.search(body):
        return []
    low = (subject + " " + body).lower()
    if "photo" in low:
        return [
            (f"IMG_{day.strftime('%Y%m%d')}_{number:02d}.png", "image/png", _photo(rng, subject))
            for number in range(1, rng.randint(2, 3) + 1)
        ]
    if any(word in low for word in ("numbers", "figures", "spreadsheet", "forecast")):
        return [(f"{_slug(subject)}_{day.isoformat()}.csv", "text/csv", _sales_csv(rng, day))]
    return [(f"{_slug(subject)}.txt", "text/plain", _notes(rng, day, subject))]
