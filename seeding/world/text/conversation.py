"""Chat lines: a direct-message exchange with one contact (who starts, what about, the answer in the
contact's voice, sometimes Michael's follow-up) and a HooliWork channel post from one colleague.
"""

import datetime as dt
import re

from . import voices, workplace
from .letters import fill, join, pick


def _situation(rng, when, person: dict) -> dict:
    first = (person.get("name") or "").split()[0] if person.get("name") else "there"
    return {
        "first": first,
        "first_upper": first.upper(),
        "day": pick(rng, ["today", "tonight", "tomorrow", "this weekend", "Friday", "after work", "Thursday"]),
        "time": f"{rng.choice((11, 12, 1, 2, 3, 4, 5, 6, 7))}:{rng.choice(('00', '15', '30', '45'))}",
        "place": pick(rng, voices.PLACES),
        "thing": pick(rng, voices.THINGS),
    }


def exchange(rng, when, person: dict) -> list[tuple[bool, str]]:
    """A short DM exchange: (sent by Michael?, text) in order; two to three messages."""
    relationship = person.get("relationship", "")
    facts = _situation(rng, when, person)
    activities = [a for a in person.get("shared_activities") or [] if a in voices.ACTIVITY_LINES] or ["catching_up"]
    lines: list[tuple[bool, str]] = []
    if rng.random() < 0.3 and relationship in voices.CONTACT_STARTS:
        start = fill(rng, pick(rng, voices.CONTACT_STARTS[relationship]), facts)
        second = fill(rng, pick(rng, voices.REPLY_SECONDS.get(relationship, voices.DEFAULT_SECONDS)), facts)
        lines.append((False, join(start, second if rng.random() < 0.7 else "")))
        lines.append((True, _michael(rng, relationship, activities, facts, opener=False)))
    else:
        lines.append((True, _michael(rng, relationship, activities, facts, opener=True)))
        if relationship == "mentee" and rng.random() < 0.35:
            return lines  # left on read
        lead = fill(rng, pick(rng, voices.REPLY_LEADS.get(relationship, voices.DEFAULT_LEADS)), facts)
        second = fill(rng, pick(rng, voices.REPLY_SECONDS.get(relationship, voices.DEFAULT_SECONDS)), facts)
        extra = ""
        if not second and relationship in voices.CONTACT_STARTS and rng.random() < 0.6:
            extra = fill(rng, pick(rng, voices.CONTACT_STARTS[relationship]), facts)
        lines.append((False, join(lead, second, extra)))
    if rng.random() < 0.4:
        more = fill(rng, pick(rng, voices.ACTIVITY_LINES[pick(rng, activities)]), facts) if rng.random() < 0.5 else ""
        followup = fill(rng, pick(rng, voices.MICHAEL_FOLLOWUPS), facts)
        lines.append((True, join(followup, more, pick(rng, voices.MICHAEL_TAILS))))
    return lines


def _michael(rng, relationship, activities, facts, opener: bool) -> str:
    first = (
        fill(rng, pick(rng, voices.MICHAEL_OPENERS.get(relationship, voices.DEFAULT_OPENERS)), facts) if opener else ""
    )
    topic = fill(rng, pick(rng, voices.ACTIVITY_LINES[pick(rng, activities)]), facts)
    more = ""
    if rng.random() < 0.35:
        more = fill(rng, pick(rng, voices.ACTIVITY_LINES[pick(rng, activities)]), facts)
    return join(first, topic, more if more != topic else "", pick(rng, voices.MICHAEL_TAILS))


def work_post(rng, channel: str, sender: str, when, colleagues=()) -> str:
    """One message in a HooliWork channel, in the sender's manner."""
    facts = {
        "day": pick(rng, ["today", "tomorrow", "Friday", "Monday", "next week", "this afternoon"]),
        "time": f"{rng.choice((9, 10, 11, 1, 2, 3, 4))}:{rng.choice(('00', '30'))}",
        "client": pick(rng, workplace.WORK_CLIENTS),
        "theme": pick(rng, workplace.PARTY_THEMES),
        "occasion": pick(rng, workplace.OCCASIONS),
    }
    pool = workplace.WORK_TOPICS.get(channel) or workplace.WORK_TOPICS["general"]
    body = fill(rng, pick(rng, pool), facts)
    if rng.random() < 0.35:
        extra = fill(rng, pick(rng, pool), facts)
        body = join(body, extra if extra != body else "")
    lead = pick(rng, workplace.WORK_LEADS.get(sender, ["", "Hi all,"]))
    others = [name for name in colleagues if name != sender]
    if others and rng.random() < 0.15:  # addressed to one colleague
        lead = "@" + pick(rng, others).split()[0]
    return join(lead, body, pick(rng, workplace.WORK_TAILS))


FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'll|my|me|we|us|our)\b", re.I)


def is_narration(text: str, me_first: str) -> bool:
    """Whether a queued line is the author describing the persona (third person) rather than his message."""
    if FIRST_PERSON.search(text):
        return False
    return bool(re.search(rf"\b{re.escape(me_first)}\b", text)) or text[:1].islower() or text.startswith("Has ")


def trip_mention(rng, note: str, contact: str, trip: dict, day) -> list[tuple[bool, str]]:
    """What Michael actually wrote about a trip that the spec describes in the third person."""
    first = contact.split()[0]
    where = trip.get("destination") or trip.get("name") or "the trip"
    dates = trip.get("dates") or []
    month = (dt.date.fromisoformat(dates[0][:10]) if dates else day).strftime("%B")
    low = note.lower()
    if "not" in low and "told" in low:  # a trip kept secret: he only hints
        return [(True, f"{first}, what are you doing in {month}? No reason. Totally no reason.")]
    if "asked" in low:  # an invitation turned down, then asked again
        return [
            (True, f"{first}! Come to {where} with me. Sun, sand, and your best friend. Think about it."),
            (False, "No."),
            (True, f"Okay but what if I asked again. {first}. Come to {where}."),
        ]
    return [
        (True, f"{first}! I'm doing {trip.get('name') or where}. You would love it."),
        (False, pick(rng, ["Next time I'm coming with you!", "That sounds amazing, tell me everything!"])),
    ]


# How long a reply takes, in minutes: (weight, low, high) bands from "right away" to "days later".
REPLY_BANDS = {
    "me": [(45, 0, 4), (35, 5, 59), (17, 60, 1439), (3, 1440, 4320)],
    "mentee": [(10, 1, 30), (30, 60, 1439), (60, 1440, 7200)],
    "ex_girlfriend": [(20, 2, 59), (50, 60, 1439), (30, 1440, 4320)],
    "new_love_interest": [(70, 0, 4), (30, 5, 59)],
}
DEFAULT_BANDS = [(40, 0, 4), (40, 5, 59), (18, 60, 1439), (2, 1440, 2880)]


def reply_delay(rng, who: str) -> int:
    """Minutes before ``who`` (a relationship, or "me" for Michael) answers."""
    bands = REPLY_BANDS.get(who, DEFAULT_BANDS)
    _, low, high = rng.choices(bands, [b[0] for b in bands])[0]
    return rng.randint(low, high)
