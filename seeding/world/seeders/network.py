"""``network``: LockedIn beyond the profile: connections (the persona's professional contacts and the wider
Dunder Mifflin network), posts in the persona's voice with reactions and comments, invitations, messages,
skills and endorsements, companies, jobs, profile views and notifications.
"""

import datetime as dt

from ..persona import plain_name

# People on LockedIn who are not spec contacts: (name, headline, company).
NETWORK = [
    ("David Wallace", "CFO at Dunder Mifflin", "Dunder Mifflin"),
    ("Stanley Hudson", "Senior Sales Representative at Dunder Mifflin", "Dunder Mifflin"),
    ("Phyllis Vance", "Sales Representative at Dunder Mifflin", "Dunder Mifflin"),
    ("Angela Martin", "Senior Accountant at Dunder Mifflin", "Dunder Mifflin"),
    ("Andy Bernard", "Regional Director in Charge of Sales, Dunder Mifflin Stamford", "Dunder Mifflin"),
    ("Kelly Kapoor", "Customer Service Representative at Dunder Mifflin", "Dunder Mifflin"),
    ("Bob Vance", "Owner, Vance Refrigeration", "Vance Refrigeration"),
    ("Karen Filippelli", "Regional Manager, Dunder Mifflin Utica", "Dunder Mifflin"),
    ("Charles Miner", "VP of Regional Operations, Northeast", "Dunder Mifflin"),
    ("Carol Stills", "Realtor at Scranton Realty", "Scranton Realty"),
]
CONTACT_HEADLINES = {
    "Jim Halpert": ("Sales Representative at Dunder Mifflin", "Dunder Mifflin"),
    "Dwight Schrute": ("Assistant to the Regional Manager | Beet farmer", "Dunder Mifflin"),
    "Jan Levinson": ("Founder, Serenity by Jan", "Serenity by Jan"),
    "Holly Flax": ("HR Representative at Dunder Mifflin", "Dunder Mifflin"),
    "Ryan Howard": ("Founder, WUPHF.com | Disruptor", "WUPHF.com"),
    "Toby Flenderson": ("Human Resources at Dunder Mifflin", "Dunder Mifflin"),
    "Pam Beesly": ("Office Administrator at Dunder Mifflin | Artist", "Dunder Mifflin"),
    "Kevin Malone": ("Accountant at Dunder Mifflin", "Dunder Mifflin"),
    "Oscar Martinez": ("Accountant at Dunder Mifflin", "Dunder Mifflin"),
    "Darryl Philbin": ("Warehouse Foreman at Dunder Mifflin", "Dunder Mifflin"),
}
POSTS = [
    (
        350,
        "Twelve years as Regional Manager and I still learn something every day. Mostly from myself. "
        "If you want to know how I do it, it is all in my book, Somehow I Manage.",
    ),
    (
        322,
        "Reminder that a fun run is only fun if you run it. Proud of everyone who came out for the Rabies "
        "Awareness Pro-Am Fun Run. Science thanks you.",
    ),
    (
        290,
        "Leadership tip: never let your team see you sweat. Let them see you improv. Level 3 at the Scranton "
        "Improv Academy is going great.",
    ),
    (
        261,
        "Paper is not dead. Paper is the backbone of every great business, every great love letter, and "
        "every great screenplay. Dunder Mifflin Scranton: still number one in the region.",
    ),
    (
        233,
        "Somehow I Manage, Chapter 1: 'Would I rather be feared or loved? Easy. Both. I want people to be "
        "afraid of how much they love me.' Working on Chapter 2 now.",
    ),
    (
        204,
        "Congratulations to our Scranton sales team on another record quarter. Teamwork makes the dream work, "
        "and I am the dream.",
    ),
    (
        176,
        "Threat Level Midnight sequel update: the script is coming along. Agent Michael Scarn returns. "
        "Casting calls soon. Serious inquiries only.",
    ),
    (142, "What makes a great boss? Showing up. Caring. And a mug that says it, so nobody has to wonder."),
    (
        113,
        "Just hosted our branch's first Movie Monday of the year. Productivity is about balance. "
        "Balance is about popcorn.",
    ),
    (85, "Networking is just friendship with business cards. I have 400 business cards. Let's connect."),
    (49, "The Dundies are coming. Nominations are open. Everyone is a winner, some more than others."),
    (16, "Spring is here and so is Q2. New quarter, new goals, same World's Best Boss."),
]
REACTIONS = ["like", "celebrate", "funny", "love", "insightful", "support"]
COMMENT_LINES = [
    "Congrats, Michael!",
    "Ha! Classic.",
    "Great post.",
    "Is this about me?",
    "Proud to be on this team.",
    "Can I get a signed copy?",
    "Love this energy.",
]
SKILLS = [
    "Management",
    "Sales",
    "Leadership",
    "Public Speaking",
    "Improv",
    "Team Building",
    "Customer Service",
    "Screenwriting",
    "Conflict Resolution",
    "Paper Products",
]
# What people in Michael's network post about, by the kind of work their headline names.
FEED_TOPICS = {
    "sales": [
        "Closed a new {city} account this week. Paper still sells when you show up in person.",
        "Three calls, two meetings, one signed contract. Good Tuesday.",
        "Tip for new reps: learn your client's kids' names. Then write them down.",
        "Quarter's not over until the last invoice goes out. Back to the phones.",
    ],
    "accounting": [
        "Month-end close done two days early. Reconciliations are a love language.",
        "Reminder: expense reports need receipts. Every one. Yes, even that one.",
        "Spent the morning on budget variance. The numbers always tell the story.",
    ],
    "hr": [
        "Updated our workplace conduct training this quarter. Thanks to everyone who attended.",
        "Wellness week starts Monday: stretch breaks at 10 and 3.",
        "Open door policy means the door is open. Please knock anyway.",
    ],
    "manager": [
        "Proud of the team for hitting our regional target a month early.",
        "Good leadership is mostly listening. The rest is coffee.",
        "Hiring: looking for a sales rep who likes people and paper. Message me.",
        "Visited three branches this week. Every office has its own culture, and that's a strength.",
    ],
    "founder": [
        "Big things coming. Can't say more. Stay tuned.",
        "Every no gets you closer to a yes. Pitching again next week.",
        "We just crossed 1,000 sign-ups. Thank you to everyone who believed.",
    ],
    "office": [
        "New mural in the break room is finally done. Thanks for the patience, everyone.",
        "Organized the supply closet. It will not stay this way, but it was nice for an hour.",
        "Reception tip: a bowl of candy solves about half of all office problems.",
    ],
    "other": [
        "Beautiful day in {city}. Grateful for good customers and good neighbors.",
        "Ten years in business this spring. Thank you, {city}.",
        "Community matters. Proud to support the local fun run again this year.",
    ],
}
JOBS = [  # (company, industry, city, title)
    ("Dunder Mifflin", "Paper and office supplies", "Scranton, PA", "Regional Sales Director"),
    ("Staples", "Office supplies retail", "Philadelphia, PA", "District Manager"),
    ("Sabre", "Printers", "Tallahassee, FL", "Special Projects Manager"),
    ("Prince Family Paper", "Paper distribution", "Nashua, NH", "General Manager"),
    ("Vance Refrigeration", "Refrigeration", "Scranton, PA", "Sales Manager"),
    ("Athlead", "Sports marketing", "Philadelphia, PA", "Head of Partnerships"),
    ("Scranton Improv Academy", "Performing arts education", "Scranton, PA", "Guest Instructor"),
    ("WB Mason", "Office supplies", "New York, NY", "Regional Manager"),
    ("Xerox", "Office equipment", "Chicago, IL", "Branch Manager"),
]


def seed_network(ctx):
    spec = ctx.persona.spec
    ident = spec["identity"]
    rng = ctx.rng("network")
    for row in ctx.rows("lockedin", "experience"):
        row.update(
            title=plain_name(row["title"]),
            location=f"{ident.get('city')}, {ident.get('state')}",
            started="2005-01",
            description="Leading the Scranton branch of Dunder Mifflin Paper Company.",
        )
    ctx.add(
        "lockedin",
        "experience",
        {
            "company": ident.get("employer", ""),
            "title": "Sales Representative",
            "location": f"{ident.get('city')}, {ident.get('state')}",
            "started": "1992-06",
            "ended": "2004-12",
            "description": "Top salesman, four years running.",
        },
        "identity",
    )
    ctx.add(
        "lockedin",
        "education",
        {"school": "Scranton Central High School", "degree": "Diploma", "years": "1977-1981"},
        "identity",
    )
    # Connections: the spec's contacts a professional network would hold, then the wider network.
    existing = {c["name"] for c in ctx.rows("lockedin", "connections")}
    for index, person in enumerate(spec.get("contacts", [])):
        if person["name"] in CONTACT_HEADLINES and person["name"] not in existing:
            ctx.add(
                "lockedin",
                "connections",
                {"name": person["name"], "relationship": person.get("relationship")},
                f"contacts[{index}]",
            )
    for name, headline, company in NETWORK:
        ctx.add(
            "lockedin",
            "connections",
            {"name": name, "relationship": "professional", "headline": headline, "company": company},
            "lockedin network",
        )
    connections = ctx.rows("lockedin", "connections")
    for n, row in enumerate(connections):
        headline, company = CONTACT_HEADLINES.get(row["name"], (row.get("headline"), row.get("company")))
        row.update(
            headline=headline, company=company, connected_on=(ctx.anchor - dt.timedelta(days=400 + 97 * n)).isoformat()
        )
    _feed(ctx, rng, connections)
    _inbox_and_jobs(ctx, rng, connections)


def _topic(headline: str) -> str:
    lowered = (headline or "").lower()
    for topic, words in (
        ("hr", ("human resources", "hr ")),
        ("accounting", ("account", "cfo")),
        ("founder", ("founder",)),
        ("manager", ("manager", "director", "vp", "foreman")),
        ("sales", ("sales", "representative")),
        ("office", ("administrator", "warehouse", "security")),
    ):
        if any(word in lowered for word in words):
            return topic
    return "other"


def _network_feed(ctx, rng, connections):
    """Posts from the people Michael follows over the last year, some of which he liked."""
    city = ctx.persona.spec["identity"].get("city", "town")
    posts = []
    for row in connections:
        lines = FEED_TOPICS[_topic(row.get("headline"))]
        for k in range(rng.randrange(3, 9)):
            posts.append((ctx.anchor - dt.timedelta(days=rng.randrange(1, 365)), row["id"], lines[k % len(lines)]))
    for day, cid, body in sorted(posts):
        ctx.add(
            "lockedin",
            "feed_posts",
            {
                "connection_id": cid,
                "posted_at": f"{day} {rng.randrange(7, 21):02d}:{rng.randrange(60):02d}:00",
                "body": body.format(city=city),
                "likes": rng.randrange(2, 160),
                "liked_by_me": int(rng.random() < 0.35),
            },
            "lockedin feed",
        )


def _feed(ctx, rng, connections):
    _network_feed(ctx, rng, connections)
    ids = [c["id"] for c in connections]
    for n, (ago, body) in enumerate(POSTS):
        when = ctx.anchor - dt.timedelta(days=ago)
        pid = ctx.add(
            "lockedin",
            "posts",
            {
                "posted_at": f"{when} {8 + n % 10}:{(7 * n) % 60:02d}:00",
                "body": body,
                "impressions": rng.randrange(40, 900),
            },
            "app_overrides.lockedin (LOCKEDIN_POST_COUNT)",
        )
        for cid in rng.sample(ids, rng.randrange(3, 11)):
            ctx.add(
                "lockedin",
                "reactions",
                {"post_id": pid, "connection_id": cid, "kind": rng.choice(REACTIONS)},
                "lockedin feed",
            )
        for k, cid in enumerate(rng.sample(ids, rng.randrange(0, 4))):
            ctx.add(
                "lockedin",
                "comments",
                {
                    "post_id": pid,
                    "connection_id": cid,
                    "commented_at": f"{min(ctx.anchor, when + dt.timedelta(days=k))} 1{k}:15:00",
                    "body": COMMENT_LINES[(n + k) % len(COMMENT_LINES)],
                },
                "lockedin feed",
            )
    skills = {name: ctx.add("lockedin", "skills", {"name": name}, "identity") for name in SKILLS}
    for sid in skills.values():
        for cid in rng.sample(ids, rng.randrange(1, 7)):
            ctx.add(
                "lockedin",
                "endorsements",
                {
                    "skill_id": sid,
                    "connection_id": cid,
                    "endorsed_on": (ctx.anchor - dt.timedelta(days=rng.randrange(10, 360))).isoformat(),
                },
                "lockedin network",
            )


def _inbox_and_jobs(ctx, rng, connections):
    ident = ctx.persona.spec["identity"]
    for n, (name, headline, direction, status) in enumerate(
        [
            ("Gabe Lewis", "Coordinating Director of Emerging Regions, Sabre", "received", "pending"),
            ("Nellie Bertram", "Special Projects Manager", "received", "pending"),
            ("Robert California", "CEO, Sabre", "sent", "pending"),
            ("Deangelo Vickers", "Regional Manager", "received", "accepted"),
            ("Hank Tate", "Security, Scranton Business Park", "received", "ignored"),
            ("Danny Cordray", "Traveling Salesman", "sent", "pending"),
        ]
    ):
        ctx.add(
            "lockedin",
            "invitations",
            {
                "name": name,
                "headline": headline,
                "direction": direction,
                "sent_on": (ctx.anchor - dt.timedelta(days=5 + 11 * n)).isoformat(),
                "status": status,
            },
            "lockedin network",
        )
    threads = {
        "Ryan Howard": [
            "Michael, quick favor: can you endorse me for Disruption?",
            "Done! Can you endorse me for Improv?",
            "Sure. Also, want to invest in WUPHF 2.0?",
            "Let me think about it. Yes.",
        ],
        "David Wallace": [
            "Saw your post about the record quarter. Nice work, Michael.",
            "Thank you David! Let's do lunch sometime.",
            "Let's keep it to the quarterly review for now.",
        ],
        "Karen Filippelli": [
            "Utica is hiring a sales lead if you know anyone.",
            "I know everyone. I'll send some names.",
        ],
        "Bob Vance": [
            "Vance Refrigeration is sponsoring the fun run again this year.",
            "Bob Vance, Vance Refrigeration. You are a gentleman.",
        ],
        "Jan Levinson": ["Please take me off the Serenity by Jan mailing list you added me to.", "Sorry. Done."],
    }
    by_name = {c["name"]: c["id"] for c in connections}
    for t, (name, lines) in enumerate(threads.items()):
        if name not in by_name:
            continue
        conv = ctx.add("lockedin", "conversations", {"connection_id": by_name[name]}, "lockedin network")
        for k, body in enumerate(lines):
            when = ctx.anchor - dt.timedelta(days=20 + 23 * t - k)
            sender = name if k % 2 == 0 else ident["name"]
            ctx.add(
                "lockedin",
                "messages",
                {"conversation_id": conv, "sender": sender, "sent_at": f"{when} 12:3{k}:00", "body": body},
                "lockedin network",
            )
    companies = {}
    for n, (company, industry, city, title) in enumerate(JOBS):
        if company not in companies:
            companies[company] = ctx.add(
                "lockedin", "companies", {"name": company, "industry": industry, "city": city}, "lockedin jobs"
            )
        jid = ctx.add(
            "lockedin",
            "jobs",
            {
                "company_id": companies[company],
                "title": title,
                "location": city,
                "posted_on": (ctx.anchor - dt.timedelta(days=3 + 6 * n)).isoformat(),
            },
            "lockedin jobs",
        )
        if n in (1, 5, 6):
            ctx.add(
                "lockedin",
                "saved_jobs",
                {"job_id": jid, "saved_on": (ctx.anchor - dt.timedelta(days=2 + 5 * n)).isoformat()},
                "lockedin jobs",
            )
    viewers = [c["name"] for c in connections] + [
        "Someone at Sabre",
        "Someone at Staples",
        "A recruiter in Philadelphia",
    ]
    for _ in range(45):
        ctx.add(
            "lockedin",
            "profile_views",
            {
                "viewer": rng.choice(viewers),
                "viewed_on": (ctx.anchor - dt.timedelta(days=rng.randrange(0, 90))).isoformat(),
            },
            "lockedin analytics",
        )
    for k, reaction in enumerate(ctx.rows("lockedin", "reactions")[-30:]):
        post = ctx.rows("lockedin", "posts")[reaction["post_id"] - 1]
        who = connections[reaction["connection_id"] - 1]["name"]
        ctx.add(
            "lockedin",
            "notifications",
            {"sent_at": post["posted_at"], "message": f"{who} reacted to your post", "read": int(k < 24)},
            "lockedin feed",
        )
