"""The named entities of a task's text (people, places, merchants, codes, amounts, dates), as
``extract_entities`` finds them: the site's task pages list the world's records holding them.

The loose coverage figure once built on it (any match anywhere counted) is retired: whether a task is
solvable comes from its answer key (``seeding.world.answer_keys``, reported by ``python -m seeding check``).
"""

import re

from .apps import APPS

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
