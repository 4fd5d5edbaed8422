"""``workspace``: SprintBoard's board (columns, story points, descriptions, labels, comments, cycles,
activity, watchers and the tasks a live board also holds) and LockedIn's network and feed (posts,
reactions, comments, invitations, messages, skills, endorsements, jobs, profile views, notifications).

Tasks beyond the spec's carry the tasks that need them in their provenance (cards in review, the open count
the released world shows).
"""

import datetime as dt

from ..persona import plain_name

# (project, title, assignee, status, due, points): cards a live board has that the spec does not list.
EXTRA_TASKS = [
    (
        "Team Morale Initiative Q2",
        "Collect Dundies nominations from each department",
        "Michael",
        "in_review",
        "2026-04-16",
        2,
    ),
    ("Team Morale Initiative Q2", "Design Dundies award certificate template", "Pam", "in_review", "2026-04-17", 3),
    ("Team Morale Initiative Q2", "Book a photographer for Dundies night", "Michael", "todo", "2026-04-24", 2),
    ("Diversity Day Planning 2026", "Schedule a follow-up diversity lunch for Q3", "Toby", "todo", "2026-07-15", 2),
    ("Movie Monday Program", "Pick the Q3 movie lineup", "Jim", "todo", "2026-07-01", 3),
    ("Movie Monday Program", "Buy a popcorn machine for conference room B", "Kevin", "todo", "2026-07-06", 1),
    ("Movie Monday Program", "Get the Q3 schedule approved by Toby", "Michael", "todo", "2026-07-15", 2),
    ("Movie Monday Program", "Draft the Threat Level Midnight 2 casting list", "Michael", "in_review", "2026-09-30", 3),
]
COLUMNS = [
    ("Todo", "todo"),
    ("In Progress", "in_progress"),
    ("Blocked", "blocked"),
    ("In Review", "in_review"),
    ("Done", "done"),
]
LABELS = [
    ("event", "#7b61ff"),
    ("venue", "#00a3bf"),
    ("catering", "#ff8b00"),
    ("hr-review", "#de350b"),
    ("content", "#36b37e"),
    ("logistics", "#6554c0"),
    ("waiting-on-others", "#97a0af"),
]
LABEL_WORDS = {
    "event": ("dundies", "diversity day", "movie", "ceremony"),
    "venue": ("chili", "room", "venue", "projector"),
    "catering": ("snack", "catering", "hangrydash", "lunch", "popcorn"),
    "hr-review": ("toby", "hr", "compliance"),
    "content": (
        "monologue",
        "powerpoint",
        "script",
        "screenplay",
        "agenda",
        "survey",
        "playlist",
        "handout",
        "casting",
    ),
    "logistics": ("order", "book", "reserve", "print", "invite", "schedule"),
    "waiting-on-others": ("approve", "review", "confirm"),
}
COMMENTS = [
    "{other}: I can take a first pass at this tomorrow.",
    "Michael: Love it. This is going to be the best one yet.",
    "{other}: Is this still on for this week?",
    "Michael: Yes. Absolutely. Probably.",
    "{other}: Left some notes on the draft.",
    "{other}: Blocked until we hear back, moving on to the next card.",
]


def _board(ctx):
    rng = ctx.rng("workspace.board")
    projects = {p["name"]: p for p in ctx.rows("sprintboard", "projects")}
    members: dict[int, list[str]] = {}
    for m in ctx.rows("sprintboard", "members"):
        members.setdefault(m["project_id"], []).append(m["name"])
    for project, title, assignee, status, due, points in EXTRA_TASKS:
        if project in projects:
            ctx.add(
                "sprintboard",
                "tasks",
                {
                    "project_id": projects[project]["id"],
                    "title": title,
                    "assignee": assignee,
                    "status": status,
                    "due": ctx.day(due).isoformat(),
                    "estimate": str(points),
                },
                "sprintboard board (tasks cua_only-f017, hard_app-f026; SPRINTBOARD_OPEN_TASKS)",
            )
    columns = {}
    for project in projects.values():
        for position, (name, status) in enumerate(COLUMNS):
            columns[(project["id"], status)] = ctx.add(
                "sprintboard",
                "columns",
                {"project_id": project["id"], "name": name, "status": status, "position": position},
                "work.projects",
            )
    labels = {
        name: ctx.add("sprintboard", "labels", {"name": name, "color": color}, "work.projects")
        for name, color in LABELS
    }
    tasks = ctx.rows("sprintboard", "tasks")
    for n, task in enumerate(tasks):
        due_day = dt.date.fromisoformat(task["due"]) if task.get("due") else ctx.anchor
        created = min(ctx.anchor, due_day) - dt.timedelta(days=12 + rng.randrange(30))
        team = members.get(task["project_id"], ["Michael Scott"])
        task.update(
            points=int(task["estimate"]) if task.get("estimate") else 1 + rng.randrange(5),
            description=f"{task['title']}. Owner: {task.get('assignee') or 'unassigned'}; due {due_day:%b %d}.",
            column_id=columns[(task["project_id"], task["status"])],
            reporter="Michael Scott",
            created_on=created.isoformat(),
        )
        lowered = task["title"].lower()
        for label, words in LABEL_WORDS.items():
            if any(word in lowered for word in words):
                ctx.add(
                    "sprintboard", "task_labels", {"task_id": task["id"], "label_id": labels[label]}, "work.projects"
                )
        ctx.add(
            "sprintboard",
            "activity",
            {
                "task_id": task["id"],
                "actor": "Michael Scott",
                "happened_at": f"{created} 10:{n % 60:02d}:00",
                "action": "created",
            },
            "work.projects",
        )
        if task["status"] != "todo":
            moved = min(ctx.anchor, created + dt.timedelta(days=3 + rng.randrange(8)))
            ctx.add(
                "sprintboard",
                "activity",
                {
                    "task_id": task["id"],
                    "actor": task.get("assignee") or "Michael",
                    "happened_at": f"{moved} 14:{n % 60:02d}:00",
                    "action": f"moved to {dict((s, c) for c, s in COLUMNS)[task['status']]}",
                },
                "work.projects",
            )
        for name in team:
            ctx.add("sprintboard", "watchers", {"task_id": task["id"], "name": name}, "work.projects")
        others = [m.split()[0] for m in team if not m.startswith("Michael")] or ["Dwight"]
        for k in range(rng.randrange(1, 4)):
            when = min(ctx.anchor, created + dt.timedelta(days=1 + 2 * k))
            text = COMMENTS[(n + k) % len(COMMENTS)].format(other=others[(n + k) % len(others)])
            author, body = text.split(": ", 1)
            ctx.add(
                "sprintboard",
                "comments",
                {"task_id": task["id"], "author": author, "posted_at": f"{when} 1{k}:2{n % 10}:00", "body": body},
                "work.projects",
            )
    # Past two-week cycles, each holding the cards that were moving then.
    monday = ctx.anchor - dt.timedelta(days=ctx.anchor.weekday())
    for k in range(6, 0, -1):
        starts = monday - dt.timedelta(days=14 * k)
        cid = ctx.add(
            "sprintboard",
            "cycles",
            {
                "name": f"Sprint {7 - k}",
                "starts_on": starts.isoformat(),
                "ends_on": (starts + dt.timedelta(days=13)).isoformat(),
            },
            "work.projects",
        )
        for task in tasks:
            if (
                task["created_on"] <= (starts + dt.timedelta(days=13)).isoformat()
                and task["status"] in ("done", "in_progress", "in_review")
                and k <= 2
            ):
                ctx.add("sprintboard", "cycle_tasks", {"cycle_id": cid, "task_id": task["id"]}, "work.projects")


def _briefs(ctx):
    """A one-page brief per project in ~/Documents/Projects, the context Michael keeps beside each board."""
    spec = ctx.persona.spec
    tasks = ctx.rows("sprintboard", "tasks")
    for p, project in enumerate(spec.get("work", {}).get("projects", [])):
        row = next(r for r in ctx.rows("sprintboard", "projects") if r["name"] == project["name"])
        cards = [t for t in tasks if t["project_id"] == row["id"]]
        lines = [
            f"{project['name'].upper()} - PROJECT BRIEF",
            "=" * (len(project["name"]) + 16),
            "",
            f"Owner: {spec['identity']['name']}",
            f"Team: {', '.join(project.get('collaborators', []))}",
            f"Deadline: {row['deadline']}",
            f"Status: {row['status'].replace('_', ' ')}",
            "",
            "WHERE THINGS STAND",
        ]
        for card in cards:
            due = f", due {card['due']}" if card.get("due") else ""
            lines.append(
                f"- [{card['status'].replace('_', ' ')}] {card['title']} ({card.get('assignee') or 'unassigned'}{due})"
            )
        ideas = project.get("browser_history", [])
        if ideas:
            lines += ["", "IDEAS TO LOOK INTO"] + [f"- {plain_name(idea)}" for idea in ideas]
        docs = project.get("documents", [])
        if docs:
            lines += ["", "FILES"] + [f"- {doc}" for doc in docs]
        name = project["name"].replace(" ", "_")
        ctx.path(f"home/user/Documents/Projects/{name}_Brief.txt", f"work.projects[{p}]").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )


def seed_workspace(ctx):
    _board(ctx)
    _briefs(ctx)
