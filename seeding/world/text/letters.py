"""Mail bodies: office threads between colleagues, Michael's first-person replies, personal mail from the
people in his life, and newsletters whose issues differ the way real issues do (one template per sender,
new stories each time).
"""

from . import voices, workplace
from .voices import THINGS
from .workplace import WORK_CLIENTS

SUPPLIES = [
    "toner",
    "printer paper",
    "sticky notes",
    "staples",
    "legal pads",
    "coffee filters",
    "pens",
    "binder clips",
    "envelopes",
    "folders",
    "paper towels",
    "K-cups",
]

WORK_SUBJECTS = {
    "numbers": [
        "Quarterly sales numbers",
        "{client} numbers for {month}",
        "Updated forecast",
        "Sales figures, revised",
    ],
    "room": ["Conference room booking", "Room conflict {day}", "Who has the conference room?"],
    "client": ["Client follow-up: {client}", "Customer complaint: {client}", "{client} reorder", "Quote for {client}"],
    "expenses": ["Expense report reminder", "Receipts for {month}", "Reimbursement question"],
    "lunch": ["Team lunch Friday?", "Lunch order for {day}", "Birthday lunch for {person}"],
    "printer": ["Printer on the fritz again", "Copier jam, third floor", "Toner order"],
    "meeting": ["Branch meeting agenda", "Agenda for {day}", "Meeting notes from {past_day}"],
    "training": ["Training schedule", "Mandatory {course} training", "Safety training sign-up"],
    "supplies": ["Office supplies order", "Out of {thing}", "Supply closet inventory"],
}
GREETINGS = {
    "Dwight Schrute": ["Michael,", "Michael:", "To the Regional Manager,"],
    "Jim Halpert": ["Hey Michael,", "Michael -", "Hi Michael,"],
    "Pam Beesly": ["Hi Michael!", "Hi Michael,", "Michael,"],
    "Toby Flenderson": ["Hi Michael,", "Michael,", "Hello Michael,"],
    "Ryan Howard": ["Michael -", "hey", "Michael,"],
    "Kevin Malone": ["Michael", "Hey Michael", "Hi Michael"],
    "Oscar Martinez": ["Michael,", "Hi Michael,", "Good morning Michael,"],
    "Darryl Philbin": ["Mike,", "Michael,", "Hey Michael,"],
    "Holly Flax": ["Hi Michael!", "Michael!", "Hey you,"],
    "David Wallace": ["Michael,", "Hi Michael,", "Michael, good morning."],
}
CONTEXT = {
    "numbers": [
        "The {month} numbers are in and we're {n}% {direction} on last quarter.",
        "{client} came in {direction} than forecast, about {n} cases.",
        "I put the updated figures in the shared drive, tab {n}.",
        "The spreadsheet is attached.",
        "Attached are the numbers by client.",
        "Corporate asked for the sales numbers broken out by client, starting with {client}.",
    ],
    "room": [
        "The conference room is double-booked {day} at {time}.",
        "I need the conference room {day} for the {client} call.",
        "Someone left {food} all over the conference room table again.",
    ],
    "client": [
        "{client} called about their last order: {n} boxes arrived damaged.",
        "{client} wants to move their delivery to {day}.",
        "{client} asked for a quote on {n} cases of cardstock.",
        "I spoke with {client} this morning and they're thinking about switching to Staples.",
    ],
    "expenses": [
        "Accounting needs your receipts for {month} by {day}.",
        "There are {n} items on your report without receipts.",
        "The {object} on your last report can't be expensed.",
        "Reimbursements go out {day} if forms are in by {time}.",
    ],
    "lunch": [
        "We're thinking {place} for lunch {day}.",
        "It's {person}'s birthday {day}, so lunch is on the branch.",
        "Please send me your lunch order by {time}.",
    ],
    "printer": [
        "The printer jams every few pages.",
        "The copier is making the noise again.",
        "We're out of toner and the {thing} order hasn't come in.",
    ],
    "meeting": [
        "Here is the agenda for {day}: {client}, the {topic}, and any other business.",
        "Notes from {past_day} are attached. Action items are at the bottom.",
        "Can we keep the meeting {day} under {n} minutes?",
    ],
    "training": [
        "The {course} training is {day} at {time} and attendance is required.",
        "Corporate needs everyone through the online module by {day}.",
        "Sign-up sheet for the {day} session is at reception.",
    ],
    "supplies": [
        "We're out of {thing} and {thing2}.",
        "The supply order goes out {day}; add anything you need.",
        "I counted {n} reams in the closet, which won't last the week.",
    ],
}
ASKS = [
    "Can you take a look?",
    "Let me know what you think.",
    "Can you sign off by {day}?",
    "Do you want me to handle it?",
    "Please confirm.",
    "Any objections?",
    "Could you reply when you get a chance?",
    "",
    "",
]
CLOSINGS = {
    "Dwight Schrute": ["- Dwight K. Schrute, Assistant Regional Manager", "Dwight", "D.K.S."],
    "Jim Halpert": ["Thanks,\nJim", "Jim", "- J"],
    "Pam Beesly": ["Thanks!\nPam", "Pam", "Thank you,\nPam"],
    "Toby Flenderson": ["Thanks,\nToby", "Best,\nToby Flenderson, HR", "Toby"],
    "Ryan Howard": ["- R", "Ryan", "sent from my phone"],
    "Kevin Malone": ["Kevin", "- Kevin", "thanks Kevin"],
    "Oscar Martinez": ["Best,\nOscar", "Oscar", "Thanks,\nOscar Martinez, Accounting"],
    "Darryl Philbin": ["Darryl", "- D", "Darryl Philbin, Warehouse"],
    "Holly Flax": ["Holly", "xo Holly", "Holly :)"],
    "David Wallace": ["David", "Thanks,\nDavid Wallace, CFO", "Best,\nDavid"],
}
# Michael replying, in the first person: an acknowledgement, a thought, a commitment, a sign-off.
REPLY_OPENERS = [
    "Got it.",
    "Thanks for this.",
    "Okay.",
    "Great question.",
    "I saw this.",
    "Love it.",
    "Hmm.",
    "Read it twice.",
    "Noted.",
    "Yes.",
]
REPLY_THOUGHTS = [
    "I think we can do better than that.",
    "This is exactly why I'm the boss.",
    "I'll be honest, I skimmed it.",
    "I have some thoughts on this.",
    "I was going to bring this up myself.",
    "Let's not make a big deal out of it.",
    "I talked to {client} about this last week.",
    "That's what she said.",
    "I'm not going to lie, this stresses me out.",
    "I trust you on this one.",
    "",
]
REPLY_COMMITS = [
    "I'll look at it {day}.",
    "Let's talk in my office at {time}.",
    "I'll look after lunch.",
    "Go ahead and handle it.",
    "I'm on it.",
    "Put it on my desk.",
    "Let's discuss at the meeting {day}.",
    "I'll call {client} myself.",
    "Don't tell Toby.",
    "Keep me posted.",
]
REPLY_SIGNS = ["Michael", "- M", "M.", "Michael Scott, Regional Manager", ""]

PERSONAL = {
    "ex_girlfriend": {
        "subjects": ["Us", "Please read", "One more thing", "Last week", "Michael", "Re: last night"],
        "lines": [
            "I'm writing about the {object} you still have.",
            "Please stop calling the store.",
            "I need the storage unit key back by {day}.",
            "My lawyer will be in touch.",
            "I don't want to talk about Chili's.",
            "Serenity by Jan is doing very well, thank you.",
            "Please don't reply with a poem.",
        ],
        "signs": ["Jan", "- Jan", "J."],
    },
    "sister": {
        "subjects": ["Checking in", "Quick note", "Hi Mike", "Family news", "This and that", "Family stuff"],
        "lines": [
            "The kids say hi and want to know when you're visiting.",
            "Mom's birthday is {day}, please call her.",
            "Did you pay the electric bill? The notice came to mom's house.",
            "I'm attaching photos from the weekend.",
            "Please stop sending me quotes at 2am.",
            "Thanksgiving is at our place this year, bring a side.",
            "I worry about you living on Chili's.",
        ],
        "signs": ["Love, Emma", "Em", "xo Emma"],
    },
    "landlord": {
        "subjects": ["Your unit", "Building notice", "Notice from your landlord", "Your apartment"],
        "lines": [
            "The plumber will come {day} between {time} and noon.",
            "Your rent for {month} has been received.",
            "The water will be off {day} for repairs.",
            "Your lease renews on the 1st; the terms are unchanged.",
            "Please do not keep a grill in the bedroom.",
            "The smoke detectors will be tested {day}.",
        ],
        "signs": ["Regards,\nArnav Singh", "Arnav", "Thank you,\nArnav"],
    },
    "old_buddy": {
        "subjects": ["Yo", "Guess who", "Scranton, baby", "Quick one", "You around?"],
        "lines": [
            "Back in Scranton {day}, first round's on you.",
            "Remember Harrisburg? Never again. Again?",
            "My new territory is brutal.",
            "Poor Richard's {day}, no excuses.",
            "Tell Dwight I said hi. Don't.",
        ],
        "signs": ["Packer", "- TP", "Todd"],
    },
    "new_love_interest": {
        "subjects": ["Movie night!", "Improv show", "Re: this weekend", "Thinking of you", "Recipe I promised"],
        "lines": [
            "I can't stop laughing about the {object} bit.",
            "Movie night {day}? I'll bring the popcorn.",
            "The improv show is {day} at {time}, front row!",
            "I found a recipe you'll actually make.",
            "You're the funniest person I know.",
        ],
        "signs": ["Holly", "xo Holly", "Holly :)"],
    },
    "boss": {
        "subjects": ["Quick check-in", "From corporate", "Scranton branch", "Follow-up", "Next quarter"],
        "lines": [
            "Scranton's numbers were up {n}% this quarter. Good work.",
            "I'd like a short call {day} at {time}.",
            "Corporate needs the next-quarter forecast by {day}.",
            "Let's keep the branch expenses tight this quarter.",
            "Please don't call my cell after {time}.",
            "Jan's expense issues are out of my hands, Michael.",
        ],
        "signs": ["David", "Thanks,\nDavid Wallace, CFO", "Best,\nDavid"],
    },
}
MICHAEL_PERSONAL_REPLIES = [
    "Thanks for writing.",
    "Ha! Classic.",
    "I hear you.",
    "Okay, okay.",
    "You're right, as usual.",
    "I'll be there.",
    "Let's talk this weekend.",
    "Will do.",
    "Good to hear from you.",
    "I'll call you {day}.",
    "I'm working on it.",
    "That's what she said. Sorry. Habit.",
]

NEWS_ITEMS = {
    "Scranton Times": [
        "Steamtown Mall adds {n} stores",
        "Council votes on the {topic} ordinance",
        "Lackawanna River cleanup {day}",
        "Dunmore High wins again",
        "Road work on Mulberry St",
        "New pizza place opens downtown",
        "Electric City trolley gets a paint job",
        "Library expands hours",
        "Weather: {n} degrees and rain",
    ],
    "Sandals Resorts": [
        "Members save {n}% in Barbados",
        "New overwater suites",
        "Couples' spa week",
        "Butler service upgrades",
        "Last-minute Montego Bay deals",
        "Free nights for returning guests",
    ],
    "IMDb": [
        "{n} new trailers this week",
        "Top-rated comedies",
        "Streaming this weekend",
        "Box office: the weekend's winners",
        "Awards season picks",
        "Cult classics turning {n}",
    ],
    "Chili's Rewards": [
        "You're {n} points from a free appetizer",
        "Baby back ribs are back",
        "2 for $25 returns",
        "Margarita of the month",
        "Kids eat free {day}",
        "Birthday dessert is waiting",
    ],
    "LockedIn": [
        "You appeared in {n} searches",
        "{n} people viewed your profile",
        "Jobs you may be interested in",
        "Your network is hiring",
        "Congratulate a connection on a work anniversary",
        "Trending in sales",
    ],
    "Paper Trade Weekly": [
        "Pulp prices up {n}%",
        "Cardstock demand rises",
        "Recycled paper wins contracts",
        "Regional distributors consolidate",
        "Staples cuts prices again",
        "Printer ink shortage",
    ],
    "Netflix": [
        "New arrivals you might like",
        "Because you watched The Office",
        "Top {n} in the U.S. today",
        "Coming next week",
        "Continue watching",
        "A new comedy special",
    ],
}


def pick(rng, pool):
    return pool[rng.randrange(len(pool))]


def fill(rng, text, facts):
    """Fill the placeholders a phrase names from the situation's facts (the rest drawn from small pools)."""
    if "{" not in text:
        return text
    values = dict(facts)
    values.setdefault("thing", pick(rng, THINGS))
    values.setdefault("thing2", pick(rng, THINGS))
    values.setdefault("food", pick(rng, voices.FOODS))
    values.setdefault("object", pick(rng, voices.OBJECTS))
    values.setdefault("topic", pick(rng, voices.TOPICS))
    values.setdefault("occasion", pick(rng, workplace.OCCASIONS))
    values.setdefault(
        "party_item", pick(rng, ["chocolate fountain", "DJ", "magician", "photo booth", "karaoke machine"])
    )
    values.setdefault("bill", pick(rng, ["electric", "phone", "cable", "water", "credit card"]))
    values.setdefault("course", pick(rng, ["sensitivity", "forklift safety", "diversity", "ethics", "first aid"]))
    values.setdefault("client", pick(rng, WORK_CLIENTS))
    values.setdefault("n", str(rng.randint(2, 40)))
    values.setdefault("direction", pick(rng, ["up", "down", "higher", "lower"]))
    return text.format(**values)


def join(*parts):
    return " ".join(p for p in parts if p)


def work_mail(rng, sender: str, facts: dict) -> tuple[str, str]:
    """(subject, body) of an office mail from ``sender`` to Michael."""
    kind = pick(rng, sorted(WORK_SUBJECTS))
    # One client and one office item per mail, so the subject and the body talk about the same thing.
    facts = dict(facts, client=pick(rng, WORK_CLIENTS), thing=pick(rng, SUPPLIES), thing2=pick(rng, SUPPLIES))
    subject = fill(rng, pick(rng, WORK_SUBJECTS[kind]), facts)
    greeting = pick(rng, GREETINGS.get(sender, ["Hi Michael,"]))
    context = [fill(rng, c, facts) for c in rng.sample(CONTEXT[kind], k=min(len(CONTEXT[kind]), rng.choice((1, 2))))]
    ask = fill(rng, pick(rng, ASKS), facts)
    closing = pick(rng, CLOSINGS.get(sender, [sender.split()[0]]))
    return subject, f"{greeting}\n\n{join(*context, ask)}\n\n{closing}\n"


def michael_reply(rng, facts: dict, personal: bool = False) -> str:
    """Michael answering, in his own voice and the first person: two to four sentences and a sign-off."""
    if personal:
        sentences = [fill(rng, s, facts) for s in rng.sample(MICHAEL_PERSONAL_REPLIES, k=rng.choice((2, 3)))]
    else:
        sentences = [
            pick(rng, REPLY_OPENERS),
            fill(rng, pick(rng, REPLY_THOUGHTS), facts),
            fill(rng, pick(rng, REPLY_COMMITS), facts),
        ]
    sign = pick(rng, REPLY_SIGNS)
    return join(*sentences) + (f"\n\n{sign}\n" if sign else "\n")


def personal_mail(rng, relationship: str, facts: dict) -> tuple[str, str] | None:
    """(subject, body) of a personal mail from a contact of this relationship, or None if none is written."""
    voice = PERSONAL.get(relationship)
    if not voice:
        return None
    subject = fill(rng, pick(rng, voice["subjects"]), facts)
    lines = [fill(rng, s, facts) for s in rng.sample(voice["lines"], k=rng.choice((2, 3)))]
    first = facts.get("me_first", "Michael")
    greeting = pick(rng, [f"Hi {first},", f"{first},", f"Hey {first},"])
    return subject, f"{greeting}\n\n{join(*lines)}\n\n{pick(rng, voice['signs'])}\n"


def newsletter(rng, sender: str, facts: dict) -> str:
    """One issue: the sender's fixed frame around this issue's stories."""
    items = NEWS_ITEMS.get(sender) or ["This week's news"]
    stories = [fill(rng, s, facts) for s in rng.sample(items, k=min(3, len(items)))]
    listing = "\n".join(f"* {s}" for s in stories)
    footer = "Read more on our site.\n\nView in browser | Unsubscribe | Update preferences"
    return f"{sender}: this issue\n\n{listing}\n\n{footer}\n"


TASK_STATUS = {
    "done": ["That one is done.", "Checked it off this morning.", "Finished, for the record."],
    "in_progress": ["How is it coming along?", "Where are we on this?", "Are we still on track?"],
    "blocked": ["We're stuck on this one.", "This is blocked until we hear back.", "Still no answer on this."],
    "todo": ["Nobody has picked this up yet.", "This hasn't been started.", "Who is taking this one?"],
}


def project_mail(rng, sender: str, project: str, task: str, status: str, due: str) -> tuple[str, str]:
    """(subject, body) of a colleague's note about one project task, in the sender's manner."""
    subject = f"{project}: {task}"
    greeting = pick(rng, GREETINGS.get(sender, ["Hi Michael,"]))
    sentences = [
        f'About "{task}" (due {due}).',
        pick(rng, TASK_STATUS.get(status, TASK_STATUS["todo"])),
        pick(rng, ["Let me know if you need a hand.", "Can we talk at lunch?", "I can take it if you want.", ""]),
    ]
    closing = pick(rng, CLOSINGS.get(sender, [sender.split()[0]]))
    return subject, f"{greeting}\n\n{join(*sentences)}\n\n{closing}\n"


# How long Michael takes to answer a mail, by who wrote it, in minutes: (weight, low, high) bands.
MAIL_REPLY_BANDS = {
    "new_love_interest": [(80, 2, 30), (20, 31, 240)],
    "boss": [(70, 3, 45), (30, 46, 240)],
    "close_friend": [(60, 5, 60), (40, 61, 600)],
    "hr_representative": [(20, 240, 1439), (80, 1440, 7200)],
    "landlord": [(40, 600, 1439), (60, 1440, 5760)],
    "ex_girlfriend": [(50, 10, 120), (50, 1440, 4320)],
}
DEFAULT_MAIL_REPLY = [(50, 10, 180), (35, 181, 1439), (15, 1440, 4320)]


def reply_minutes(rng, relationship: str) -> int:
    bands = MAIL_REPLY_BANDS.get(relationship, DEFAULT_MAIL_REPLY)
    _, low, high = rng.choices(bands, [b[0] for b in bands])[0]
    return rng.randint(low, high)
