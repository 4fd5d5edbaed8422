"""Personal mail threads Michael answers: a friend, his sister or his mentee writes, he replies (in Sent).

Each thread names its contact, how many days before the anchor it starts, its subject and its lines in
order, alternating between the contact and Michael; replies come a few hours apart. Queued for ``mail``.
"""

import datetime as dt

from ..core import DATETIME

# (contact, days before the anchor, subject, lines: the contact's first, then Michael's, and so on)
THREADS = [
    (
        "Ryan Howard",
        66,
        "WUPHF.com - Series A Opportunity (CONFIDENTIAL)",
        [
            "Michael, I'm opening a small Series A for WUPHF.com. Friends and family first: $10,000 buys 2%. "
            "Please keep this between us.",
            "Ryan! I am honored to be family. I am in. Do I get a title? I would accept Chief Inspiration Officer.",
            "Titles come later. I'll send the agreement for you to sign.",
            "I will sign it this week. This is going to be bigger than Facebook.",
            "Great. And remember: CONFIDENTIAL. Not a word to Jan.",
            "Jan who? My lips are sealed. Like an envelope. A confidential envelope.",
        ],
    ),
    (
        "Ryan Howard",
        74,
        "Question about work",
        [
            "Quick question: do I still need to come to the Monday meeting if I'm working on my 'strategy deck'?",
            "Yes. Attendance is mandatory and so is the deck. Bring both to the meeting.",
            "Can I present the deck at the meeting then?",
            "Absolutely not. Just bring it. Fine, five minutes.",
        ],
    ),
    (
        "Ryan Howard",
        23,
        "Free tonight?",
        [
            "Free tonight? There's a launch party at a lounge in Wilkes-Barre. Very exclusive.",
            "I am always free for exclusive things. What do I wear? Is a blazer too much?",
            "No blazer. And don't tell anyone at the office, it's invite-only.",
            "My lips are sealed. I told Dwight, but only so he could drive.",
        ],
    ),
    (
        "Darryl Philbin",
        120,
        "Need advice",
        [
            "Mike, need some advice. I've got a gig offer on Saturdays, but it would mean leaving early on Fridays.",
            "Darryl, follow your dreams. Also, what instrument? Asking for the office talent show.",
        ],
    ),
    (
        "Holly Flax",
        45,
        "Weekend Plans!!",
        [
            "Weekend plans!! I found a pottery class in Clarks Summit on Saturday. Are you in?",
            "I am SO in. I will make you a mug. Not a World's Best Boss mug. A World's Best Holly mug.",
        ],
    ),
    (
        "Holly Flax",
        33,
        "Did you end up going?",
        [
            "Did you end up going to the improv showcase on Thursday? I couldn't make it.",
            "I did! I played a doctor, a ghost and a ghost doctor. Standing ovation. From me, mostly.",
        ],
    ),
    (
        "Emma Scott",
        112,
        "Happy holidays!",
        [
            "Happy holidays! The kids loved the gift. What even is a 'Dundie'?",
            "Happy holidays! A Dundie is the highest honor an employee can receive. Tell them to treasure it.",
        ],
    ),
    (
        "Emma Scott",
        88,
        "Book recommendation",
        [
            "Need a book recommendation for a long flight. Something not about management, please.",
            "Somehow I Manage. It is not finished yet, but I can send you chapter one.",
        ],
    ),
    (
        "Emma Scott",
        52,
        "Save the date!",
        [
            "Save the date! Mom's birthday dinner is on the 21st at her place. Bring a dessert, not a speech.",
            "Saved. I am bringing a cake and a very short speech. Three minutes. Four tops.",
        ],
    ),
    (
        "Kevin Malone",
        64,
        "Running late!",
        [
            "Running late! Traffic on the Casey Highway. Save me a donut. Not a plain one.",
            "Saved you a Boston cream. It is on your chair. Do not sit down fast.",
        ],
    ),
    (
        "Pam Beesly",
        96,
        "Recipe you asked for",
        [
            "Here's the recipe you asked for: my mom's lasagna. It takes about three hours, so plan ahead.",
            "Pam, thank you. Three hours is a lot. Can I do it in the George Foreman?",
        ],
    ),
    (
        "Jim Halpert",
        58,
        "Funny story",
        [
            "Funny story: Dwight tried to expense a bale of hay as 'office decor'. Accounting said no.",
            "Classic Dwight. Hay is not decor. Hay is a lifestyle.",
        ],
    ),
    (
        "Todd Packer",
        140,
        "Saw this and thought of you",
        [
            "Saw this and thought of you, Scott: a ranking of the worst regional managers in the Northeast. "
            "You're not on it. Yet.",
            "Hilarious, Packer. I am number one on a different list: World's Best Boss. There is a mug.",
        ],
    ),
]


def personal_threads(ctx) -> list[dict]:
    """Mail records of the threads, dated from the anchor (replies from Michael go to Sent)."""
    ident = ctx.persona.spec["identity"]
    people = {c["name"]: c for c in ctx.persona.section("contacts", []) if c.get("email")}
    records = []
    for name, days, subject, lines in THREADS:
        person = people.get(name)
        if person is None:
            continue
        when = dt.datetime.combine(ctx.anchor - dt.timedelta(days=days), dt.time(9, 20))
        for n, text in enumerate(lines):
            mine = n % 2 == 1
            signer = ident["name"].split()[0] if mine else name.split()[0]
            record = {
                "at": when.strftime(DATETIME),
                "subject": subject if n == 0 else f"Re: {subject}",
                "body": f"{text}\n\n{signer}\n",
                "thread": f"personal-{subject.lower()}",
                "folder": "Sent" if mine else "INBOX",
                "from_name": ident["name"] if mine else name,
                "from_addr": ident["email"] if mine else person["email"],
            }
            if mine:
                record["to_addr"] = person["email"]
            records.append(record)
            when += dt.timedelta(hours=2 + n, minutes=15 * n)
    return records
