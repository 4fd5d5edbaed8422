"""Task coverage of a built world: the named entities of each task (people, places, merchants, codes,
amounts, dates), as ``extract_entities`` finds them, looked up in the world's text and numbers (``World``).

``coverage(root, tasks_path, shift_days)`` is the report ``python -m seeding check --tasks`` writes to
``coverage.json``; the site's task pages use ``extract_entities`` too.
"""

import datetime as dt
import json
import re
import urllib.parse
from pathlib import Path

from .apps import APPS, db_path
from .core import BINARY_DOCUMENTS, read_only
from .seeders.firefox import PROFILE

# Capitalised words that name no entity: function words, UI verbs, app and office vocabulary.
GENERIC = set(
    """
agent the a an i if it in on for and or to of my me is this that then when what which who how do does did be
use using make find check book also any all each every no not please can could would should after before with
from at by as so but one two three libreoffice calc writer impress files file firefox terminal documents
desktop downloads pdf csv monday tuesday wednesday thursday friday saturday sunday january february march
april may june july august september october november december today tomorrow yesterday economy business total
report summary note notes email emails draft vm ui api id ids url eod usd faq ok yes new next last first
second dm dms q1 q2 q3 q4 am pm gui xlsx docx odt ods txt md json michael scott open pull send throw order
compose reorder continue save scope alternate states opens invitation document type spreadsheet suite meta
maildir png sku fyi ooo pto qbr pnl english percent change go-tos primebadge cancel reply forward archive
delete create add remove update review confirm list show tell give write read look search select click set
move copy schedule plan
mondays tuesdays wednesdays thursdays fridays saturdays sundays upcoming weekly monthly daily
""".split()
)
CONTRACTIONS = re.compile(r"^(i|you|we|they|he|she|it|that|there)'(m|ve|d|ll|re|s)$", re.I)
APP_WORDS = {w.lower() for name in APPS.values() for w in name.split()} | {"hooli"}
MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        1,
    )
}
WORD = r"[A-Z][A-Za-z0-9'&.\-]*[A-Za-z0-9]"
PHRASE = re.compile(rf"\b{WORD}(?:\s+(?:of|the|&|de|at)?\s*{WORD})*")
HYPHENATED = re.compile(r"\b[\w']+(?:-[\w']+)+\b")
CODE = re.compile(r"\b[A-Z]{2,4}-\d{3,6}\b|\b[A-Z]{2}\d{3,4}\b|\b[A-Z]{3}\b")
MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)(\s?[kK])?")
ISO_DATE = re.compile(r"\b(20\d\d-\d\d-\d\d)\b")
MONTH_DAY = re.compile(r"\b(" + "|".join(m.title() for m in MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b")


def _norm(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'").lower()


def extract_entities(text: str) -> dict:
    """Named entities of a task text: names/places/merchants, codes, amounts, dates."""
    text = text.replace("\u2019", "'")
    found: dict[str, set] = {"names": set(), "codes": set(), "amounts": set(), "dates": set()}
    for match in CODE.finditer(text):
        token = match.group(0)
        if token.lower() not in GENERIC and token.lower() not in APP_WORDS:
            found["codes"].add(token)
    for match in MONEY.finditer(text):
        value = float(match.group(1).replace(",", "")) * (1000 if match.group(2) else 1)
        found["amounts"].add(round(value, 2))
    for match in ISO_DATE.finditer(text):
        found["dates"].add(match.group(1))
    for match in MONTH_DAY.finditer(text):
        found["dates"].add(f"{MONTHS[match.group(1).lower()]:02d}-{int(match.group(2)):02d}")
    # Hyphenated compounds ("AVP-to-JFK", "Dundies-planning") are descriptions, not names: break there.
    prose = HYPHENATED.sub(lambda m: m.group(0) if CODE.fullmatch(m.group(0)) else " | ", text)
    for sentence in re.split(r"(?<=[.!?:;])\s+|\n|\(|\)|\"|,|\|", prose):
        for match in PHRASE.finditer(sentence):
            words = [w for w in match.group(0).split() if not CONTRACTIONS.match(w)]
            # Drop a sentence-initial capital unless the phrase has more proper words after it.
            if match.start() == len(sentence) - len(sentence.lstrip()) and len(words) == 1:
                continue
            while words and (
                words[0].lower().removesuffix("'s") in GENERIC or words[0].lower().removesuffix("'s") in APP_WORDS
            ):
                words = words[1:]
            while words and (
                words[-1].lower() in GENERIC
                or words[-1].lower() in APP_WORDS
                or words[-1].lower() in ("of", "the", "and", "&", "at")
            ):
                words = words[:-1]
            phrase = " ".join(words).strip("'.")
            if len(phrase) < 3 or phrase.isupper() and len(phrase) <= 4:
                continue
            if all(w.lower() in GENERIC or w.lower() in APP_WORDS for w in words):
                continue
            found["names"].add(phrase.removesuffix("'s"))
    return found


def _app_values(root: Path, texts: list, numbers: set):
    """Every text and number in the apps' databases."""
    for app in APPS:
        con = read_only(root / db_path(app))
        for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            for row in con.execute(f"SELECT * FROM {table}"):
                for value in row:
                    if isinstance(value, str):
                        texts.append(value)
                    elif isinstance(value, (int, float)):
                        numbers.add(round(float(value), 2))


def _file_texts(root: Path) -> list[str]:
    """The text files under home/user and every file's name (mail and the Firefox profile are read elsewhere)."""
    texts = []
    for path in sorted((root / "home/user").rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and "/Maildir/" not in rel and "/.mozilla/" not in rel:
            if path.suffix not in BINARY_DOCUMENTS:  # office files restate the app rows they come from
                texts.append(path.read_text(errors="replace"))
            texts.append(path.stem.replace("_", " "))  # "Motivational_Quotes_Collection.txt" names a document
    return texts


def _authoring_dates(dates: set, shift_days: int) -> set:
    """World dates moved back by the build's shift, as YYYY-MM-DD and MM-DD."""
    shift = dt.timedelta(days=shift_days)
    result = set()
    for value in dates:
        try:
            day = dt.date.fromisoformat(value) - shift
        except ValueError:
            continue
        result.add(day.isoformat())
        result.add(day.isoformat()[5:])
    return result


class World:
    """Text, numbers and dates of the built world, for coverage lookups."""

    def __init__(self, root: Path, shift_days: int):
        texts: list[str] = []
        numbers: set[float] = set()
        _app_values(root, texts, numbers)
        texts += _file_texts(root)
        places = read_only(root / PROFILE / "places.sqlite")
        for url, title in places.execute("SELECT url, title FROM moz_places"):
            texts.append(urllib.parse.unquote_plus(url))
            texts.append(title or "")
        # SUMMARY.md is left out on purpose: it restates the spec, and coverage is about the seeded apps and files.
        self.blob = _norm("\n".join(texts))
        for match in re.finditer(r"\$?(\d[\d,]*\.\d{2}|\d[\d,]*)", self.blob):
            try:
                numbers.add(round(float(match.group(1).replace(",", "")), 2))
            except ValueError:
                pass
        self.numbers = numbers
        # Tasks speak in the spec's authoring-time dates: move world dates back by the build's shift.
        self.dates = _authoring_dates({m.group(1) for m in ISO_DATE.finditer(self.blob)}, shift_days)

    def has_name(self, name):
        """The phrase, or two adjacent entities run together ("Greenwich Hotel NYC")."""
        if _norm(name) in self.blob:
            return True
        words = name.split()
        return any(
            _norm(" ".join(words[:i])) in self.blob and _norm(" ".join(words[i:])) in self.blob
            for i in range(1, len(words))
        )

    def has_code(self, code):
        return _norm(code) in self.blob

    def has_amount(self, value):
        return round(value, 2) in self.numbers

    def has_date(self, value):
        return value in self.dates


def coverage(root: Path, tasks_path: Path, shift_days: int) -> dict:
    tasks = json.loads(Path(tasks_path).read_text())
    world = World(root, shift_days)
    # Names a task asks the agent to create (a new watchlist, a new document title) are not world facts;
    # the overlay lists them per task, and they are reported apart from the misses.
    manifest = json.loads((root / "manifest.json").read_text())
    ignored: dict[str, set[str]] = {}
    for entry in manifest.get("coverage_ignore", []):
        for task_id in entry["tasks"]:
            ignored.setdefault(task_id, set()).add(entry["entity"])
    by_task, entities, found = [], 0, 0
    for task in tasks:
        text = (
            task.get("instruction", "")
            + "\n"
            + "\n".join(r.get("criterion", "") for r in task.get("grading", {}).get("rubrics", []))
        )
        ents = extract_entities(text)
        missing = []
        checks = [(n, world.has_name) for n in sorted(ents["names"])] + [
            (c, world.has_code) for c in sorted(ents["codes"])
        ]
        checks += [(a, world.has_amount) for a in sorted(ents["amounts"])] + [
            (d, world.has_date) for d in sorted(ents["dates"])
        ]
        label = lambda v: f"${v:,.2f}" if isinstance(v, float) else str(v)  # noqa: E731
        skipped = [label(v) for v, _ in checks if label(v) in ignored.get(task["id"], ())]
        checks = [(v, t) for v, t in checks if label(v) not in ignored.get(task["id"], ())]
        for value, test in checks:
            entities += 1
            if test(value):
                found += 1
            else:
                missing.append(label(value))
        by_task.append({"id": task["id"], "entities": len(checks), "missing": missing, "agent_created": skipped})
    full = sum(1 for t in by_task if not t["missing"])
    return {
        "tasks": len(by_task),
        "tasks_fully_covered": full,
        "task_rate": full / len(by_task) if by_task else 0.0,
        "entities": entities,
        "entities_found": found,
        "entity_rate": found / entities if entities else 0.0,
        "agent_created": sum(len(t["agent_created"]) for t in by_task),
        "by_task": by_task,
    }
