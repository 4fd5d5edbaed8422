"""HooliMail and the Maildir under home/user/Maildir: the same messages, ids and threads in both.

Messages are built with the standard library's ``email`` and ``mailbox`` (MaildirMessage for flags and
subfolder). The file names inside the Maildir are chosen by us rather than by ``mailbox.Maildir.add``,
which puts the wall clock, the host name and a counter in them: ours depend only on the message, so
two builds are byte-identical and any Maildir reader (mailbox, mutt, Thunderbird) reads them the same.
"""

import datetime as dt
import email.charset
import email.encoders
import email.header
import email.message
import email.mime.base
import email.utils
import hashlib
import mailbox
import os
import re

from ..apps import target
from ..core import DATETIME, local, stable_id
from ..persona import scrub
from ..text import attachments, letters
from . import mail_state, mail_threads

NEWSLETTERS = [
    ("Scranton Times", "news@scrantontimes.example", "Your Scranton morning briefing"),
    ("Sandals Resorts", "deals@sandals.example", "Escape to paradise: members save 30%"),
    ("IMDb", "hello@imdb.example", "What to watch this weekend"),
    ("Chili's Rewards", "rewards@chilis.example", "You've earned a free Awesome Blossom (almost)"),
    ("LockedIn", "notifications@lockedin.example", "You appeared in 3 searches this week"),
    ("Paper Trade Weekly", "editor@papertrade.example", "Paper prices are moving"),
    ("Netflix", "info@netflix.example", "New arrivals you might like"),
]
# Newsletters Michael never opens (a paper-industry digest, the morning briefing, streaming promos): they pile up
# unread in the inbox, the unsubscribe candidates of a declutter.
NEVER_OPENED = {"editor@papertrade.example", "news@scrantontimes.example", "info@netflix.example"}
# People outside the contact list who write to Michael at work (the spec names them in its documents).
CORPORATE = [{"name": "David Wallace", "email": "david.wallace@dundermifflin.com", "relationship": "boss"}]
FREQUENCY_WEIGHT = {"daily": 3.0, "weekly": 1.5, "monthly": 0.6}  # who writes most often
PERSONAL_SHARE = 0.25  # of the person-to-person mail, the share from family, friends and the landlord


# Bodies as quoted-printable UTF-8 (7-bit safe), without touching the process-wide charset registry.
BODY_CHARSET = email.charset.Charset("utf-8")
BODY_CHARSET.body_encoding = email.charset.QP


def _address(name, addr):
    return email.utils.formataddr((name, addr), charset="utf-8")


def _domain(address):
    return address.rsplit("@", 1)[-1]


def _thread_key(rec):
    return rec.get("thread") or re.sub(r"^(re|fwd?):\s*", "", rec["subject"], flags=re.I).strip().lower()


def _facts(rng, day: dt.date, ident: dict) -> dict:
    return {
        "day": (day + dt.timedelta(days=rng.randint(1, 4))).strftime("%A"),  # what is coming up
        "past_day": (day - dt.timedelta(days=rng.randint(1, 3))).strftime("%A"),  # what already happened
        "month": day.strftime("%B"),
        "time": f"{rng.choice((9, 10, 11, 1, 2, 3, 4))}:{rng.choice(('00', '30'))}",
        "place": rng.choice(["Cooper's", "Alfredo's", "Chili's", "Benihana", "the break room"]),
        "person": rng.choice(["Meredith", "Stanley", "Phyllis", "Creed", "Angela", "Kelly"]),
        "me_first": ident["name"].split()[0],
    }


def _fill(ctx, rng, need):
    """Routine mail: newsletter issues, office threads with the work contacts (composed per sender and
    topic, answered by Michael in his own words) and personal mail from the rest of the contacts."""
    ident = ctx.persona.spec["identity"]
    contacts = ctx.persona.section("contacts", [])
    domain = _domain(ident.get("email", "x@x"))
    work = [c for c in contacts if _domain(c.get("email", "")) == domain] or contacts
    personal = [c for c in contacts if c not in work and c.get("email")]
    personal += [c for c in CORPORATE if _domain(c["email"]) == domain]
    span = (ctx.anchor - ctx.start).days
    while need > 0:
        day = ctx.start + dt.timedelta(days=rng.randrange(span + 1))
        facts = _facts(rng, day, ident)
        if rng.random() < 0.5 or not work:
            name, addr, subject = rng.choice(NEWSLETTERS)
            at = dt.datetime.combine(day, dt.time(rng.randint(5, 8), rng.randint(0, 59)))
            ctx.intent(
                "mail",
                {
                    "at": at.strftime(DATETIME),
                    "from_name": name,
                    "from_addr": addr,
                    "subject": f"{subject} ({day.strftime('%b %d')})",
                    "body": letters.newsletter(rng, name, facts),
                    "folder": "INBOX",
                },
                "routines.newsletters",
            )
            need -= 1
            continue
        use_personal = bool(personal) and rng.random() < PERSONAL_SHARE
        pool = personal if use_personal else work
        person = rng.choices(pool, [FREQUENCY_WEIGHT.get(c.get("frequency"), 1.0) for c in pool])[0]
        office = not use_personal or _domain(person["email"]) == domain
        if office and day.weekday() >= 5:  # office mail goes out on weekdays
            day -= dt.timedelta(days=day.weekday() - 4)
            facts = _facts(rng, day, ident)
        composed = letters.personal_mail(rng, person.get("relationship", ""), facts) if use_personal else None
        if composed is None:
            composed = letters.work_mail(rng, person["name"], facts)
        subject, body = composed
        at = dt.datetime.combine(day, dt.time(rng.randint(8, 17), rng.randint(0, 59)))
        thread = f"{subject}|{day.isoformat()}|{person['name']}"
        provenance = f"contacts[{contacts.index(person)}]" if person in contacts else "routines.corporate_mail"
        ctx.intent(
            "mail",
            {
                "at": at.strftime(DATETIME),
                "from_name": person["name"],
                "from_addr": person["email"],
                "subject": subject,
                "body": body,
                "thread": thread,
                "folder": "INBOX",
            },
            provenance,
        )
        need -= 1
        reply = at + dt.timedelta(minutes=letters.reply_minutes(rng, person.get("relationship", "")))
        if need > 0 and rng.random() < 0.6 and reply.date() <= ctx.anchor:
            ctx.intent(
                "mail",
                {
                    "at": reply.strftime(DATETIME),
                    "from_name": ident["name"],
                    "from_addr": ident["email"],
                    "to_addr": person["email"],
                    "subject": f"Re: {subject}",
                    "body": letters.michael_reply(rng, facts, personal=use_personal),
                    "thread": thread,
                    "folder": "Sent",
                },
                "routines.work_mail",
            )
            need -= 1


EXPENSE_REASONS = {
    "client entertainment": "no client is named on the receipt",
    "team building": "team events need pre-approval from corporate",
    "business lunch": "no client or business purpose listed",
    "office morale": "party supplies come out of the party-planning budget",
    "client relations": "personal gift, not a client expense",
    "productivity tool": "electronics over $500 need IT approval",
    "office kitchen": "kitchen appliances are not reimbursable",
    "dundies": "awards are not a branch expense",
}


def _expense_lines(ctx) -> list[dict]:
    """The line items of the persona's expense report document (date | vendor | amount | category)."""
    for doc in ctx.persona.override("filesystem").get("documents", []):
        if "expense_report" in doc.get("path", "").lower() and doc.get("content"):
            lines = []
            for line in doc["content"].splitlines():
                cells = [c.strip() for c in line.split("|")]
                if len(cells) == 4 and re.match(r"\d{4}-\d{2}-\d{2}$", cells[0]):
                    lines.append({"date": cells[0], "vendor": cells[1], "amount": cells[2], "category": cells[3]})
            return lines
    return []


def _expense_submission(ctx):
    """Michael's first submission of the expense report, under his own title, and Jan's first rejection of it
    (the report is rejected twice: this, then the REJECTED thread)."""
    jan = next((c for c in ctx.persona.section("contacts", []) if c.get("relationship") == "ex_girlfriend"), None)
    lines = _expense_lines(ctx)
    if not jan or not lines:
        return
    ident = ctx.persona.spec["identity"]
    subject = "Expense Report - Q2 Client Entertainment & Office Upgrades"
    items = "\n".join(
        f"- {line['date']}  {line['vendor']}  {line['amount']}  ({line['category'].rstrip('*')})" for line in lines
    )
    total = sum(float(line["amount"].replace("$", "").replace(",", "")) for line in lines)
    first = ctx.anchor - dt.timedelta(days=12)
    messages = [
        (
            None,
            dt.datetime.combine(first, dt.time(9, 40)),
            subject,
            f"Jan,\n\nPlease find my expense report below: client entertainment and some long-overdue office "
            f"upgrades, all for the branch.\n\n{items}\n\nTotal: ${total:,.2f}\n\nMichael\n",
        ),
        (
            jan,
            dt.datetime.combine(first + dt.timedelta(days=1), dt.time(11, 20)),
            f"Re: {subject}",
            "Michael,\n\nThese charges are from January to March, so this is your Q1 report, not Q2. And a "
            "flatscreen TV is not an office upgrade. I can't approve this as submitted.\n\nJan\n",
        ),
        (
            None,
            dt.datetime.combine(first + dt.timedelta(days=1), dt.time(13, 5)),
            f"Re: {subject}",
            "Jan,\n\nQ2 is when I am submitting it, so technically it is a Q2 report. The TV is for "
            "presentations. I will resubmit with clearer categories.\n\nMichael\n",
        ),
    ]
    for person, when, subj, body in messages:
        record = {"at": when.strftime(DATETIME), "subject": subj, "body": body, "thread": "expense-report-q2"}
        if person:
            record.update(from_name=person["name"], from_addr=person["email"], folder="INBOX")
        else:
            record.update(from_name=ident["name"], from_addr=ident["email"], to_addr=jan["email"], folder="Sent")
        ctx.intent("mail", record, "app_overrides.filesystem.documents[expense_report]")


def _expense_rejection(ctx, rng):
    """The rejection thread about the expense report: Jan's flagged line items with reasons, Michael's plea."""
    jan = next((c for c in ctx.persona.section("contacts", []) if c.get("relationship") == "ex_girlfriend"), None)
    lines = _expense_lines(ctx)
    if not jan or not lines:
        return
    ident = ctx.persona.spec["identity"]
    subject = "Your Expense Report - REJECTED"
    flagged = [
        (line, EXPENSE_REASONS[key])
        for line in lines
        if (key := line["category"].rstrip("*").lower()) in EXPENSE_REASONS
    ]
    first = ctx.anchor - dt.timedelta(days=9)
    table = "\n".join(
        f"- {line['date']}  {line['vendor']}  {line['amount']}  ({line['category'].rstrip('*')}): {reason}"
        for line, reason in flagged
    )
    provenance = "app_overrides.filesystem.documents[expense_report]"
    messages = [
        (
            jan,
            first,
            subject,
            "Michael,\n\nI've gone through your expense report and I can't approve it as submitted. "
            "I'll send the flagged items separately.\n\nJan\n",
        ),
        (
            None,
            first + dt.timedelta(hours=2),
            f"Re: {subject}",
            "Jan,\n\nI think there has been a misunderstanding. Every one of those was for the branch. "
            "Can you tell me exactly which items and why?\n\nMichael\n",
        ),
        (
            jan,
            first + dt.timedelta(days=1),
            f"Re: {subject}",
            f"Michael,\n\nThese are the flagged line items and why each was rejected:\n\n{table}\n\n"
            "Resubmit with receipts and a business purpose for each, or take them off the report.\n\nJan\n",
        ),
    ]
    for person, when, subj, body in messages:
        record = {
            "at": dt.datetime.combine(when, dt.time(10 if person else 12, 15)).strftime(DATETIME),
            "subject": subj,
            "body": body,
            "thread": "expense-report-rejected",
            "folder": "INBOX" if person else "Sent",
        }
        if person:
            record.update(from_name=person["name"], from_addr=person["email"])
        else:
            record.update(from_name=ident["name"], from_addr=ident["email"], to_addr=jan["email"])
        ctx.intent("mail", record, provenance)


def _attach(mdmsg, body: str, files, message_id: str):
    """Make ``mdmsg`` multipart/mixed: the text, then each file; the boundary depends only on the message."""
    mdmsg["Content-Type"] = f'multipart/mixed; boundary="=_mypcbench_{stable_id(message_id, length=24)}"'
    text = email.message.Message()
    text.set_payload(body, charset=BODY_CHARSET)
    parts = [text]
    for file_name, content_type, data in files:
        maintype, subtype = content_type.split("/")
        part = email.mime.base.MIMEBase(maintype, subtype)
        part.set_payload(data)
        email.encoders.encode_base64(part)
        part.add_header("Content-Disposition", "attachment", filename=file_name)
        parts.append(part)
    mdmsg.set_payload(parts)


def _bank_alerts(ctx):
    """The bank's confirmation for every Zelle payment in the ledger, sent when it went out."""
    bank = ctx.persona.spec.get("app_overrides", {}).get("vaultbank", {}).get("bank_name") or "Gringotts"
    for row in ctx.rows("vaultbank", "transactions"):
        description = row.get("description") or ""
        if not description.startswith("Zelle to"):
            continue
        amount = abs(row["amount"])
        payee = row.get("merchant") or description[len("Zelle to ") :]
        when = dt.datetime.combine(dt.date.fromisoformat(row["posted_date"]), dt.time(7, 5))
        ctx.intent(
            "mail",
            {
                "at": when.strftime(DATETIME),
                "from_name": f"{bank} Alerts",
                "from_addr": f"alerts@{bank.lower()}.example",
                "subject": f"You sent ${amount:,.2f} to {payee} with Zelle",
                "body": (
                    f"Your Zelle payment is on its way.\n\nTo: {payee}\nAmount: ${amount:,.2f}\n"
                    f"Memo: {description}\nDate: {row['posted_date']}\n"
                    f"Reference: {row.get('reference') or row['id']}\n\n"
                    f"If you didn't make this payment, call us right away.\n"
                ),
                "folder": "INBOX",
            },
            row["provenance"],
        )


def _project_mail(ctx, rng):
    """Colleagues writing about the spec's project tasks a few days before each is due: the person the
    task names or is assigned to, else a project collaborator (the Dundies planning mail in the inbox)."""
    ident = ctx.persona.spec["identity"]
    me_first = ident["name"].split()[0]
    people = {c["name"].split()[0]: c for c in ctx.persona.section("contacts", []) if c.get("email")}
    for p_index, project in enumerate((ctx.persona.spec.get("work") or {}).get("projects") or []):
        collaborators = [n.split()[0] for n in project.get("collaborators") or [] if n.split()[0] in people]
        for t_index, task in enumerate(project.get("sprintboard_tasks") or []):
            named = [first for first in people if re.search(rf"\bwith {first}\b", task["title"])]
            assignee = task.get("assignee") if task.get("assignee") != me_first else None
            candidates = named or ([assignee] if assignee in people else []) or collaborators
            if not candidates or not task.get("due"):
                continue
            person = people[candidates[t_index % len(candidates)]]
            due = ctx.day(task["due"])
            day = due - dt.timedelta(days=rng.randint(2, 6))
            if day >= ctx.anchor:  # not due yet: asked about in the last days before today
                day = ctx.anchor - dt.timedelta(days=rng.randint(1, 10))
            subject, body = letters.project_mail(
                rng,
                person["name"],
                project["name"],
                re.sub(r"\s*\([^()]*\)", "", task["title"]).strip(),
                task.get("status", "todo"),
                due.isoformat(),
            )
            ctx.intent(
                "mail",
                {
                    "at": dt.datetime.combine(day, dt.time(rng.randint(9, 16), rng.randint(0, 59))).strftime(DATETIME),
                    "from_name": person["name"],
                    "from_addr": person["email"],
                    "subject": subject,
                    "body": body,
                    "folder": "INBOX",
                },
                f"work.projects[{p_index}].sprintboard_tasks[{t_index}]",
            )


def seed_mail(ctx):
    rng = ctx.rng("mail")
    ident = ctx.persona.spec["identity"]
    me_addr = ident.get("email", "user@example.com")
    _expense_submission(ctx)
    _expense_rejection(ctx, rng)
    for record in mail_threads.personal_threads(ctx):
        ctx.intent("mail", record, "mail.personal_threads")
    _bank_alerts(ctx)
    _project_mail(ctx, rng)
    _fill(ctx, rng, target(ctx, "emails") - len(ctx.pending("mail")))
    signature = ctx.persona.override("mail").get("signature")
    remarks = ctx.persona.remarks  # never copied into what the user reads
    records = sorted(enumerate(ctx.pending("mail")), key=lambda x: (x[1]["at"], x[0]))
    root = ctx.out / "home/user/Maildir"
    root.parent.mkdir(parents=True, exist_ok=True)
    box = mailbox.Maildir(root, create=True)  # creates cur/new/tmp
    sent_dir = root / ".Sent"
    for sub in ("cur", "new", "tmp"):
        (sent_dir / sub).mkdir(parents=True, exist_ok=True)
    box.close()
    threads: dict[str, int] = {}
    thread_last: dict[str, str] = {}
    for order, (_, rec) in enumerate(records):
        key = _thread_key(rec)
        message_id = (
            f"<{stable_id(rec['provenance'], rec['at'], rec['subject'], str(order))}@{_domain(rec['from_addr'])}>"
        )
        if key not in threads:
            threads[key] = ctx.add(
                "mail",
                "threads",
                {
                    "subject": re.sub(r"^(re|fwd?):\s*", "", rec["subject"], flags=re.I),
                    "first_date": rec["at"],
                    "last_date": rec["at"],
                    "message_count": 0,
                },
                rec["provenance"],
            )
        thread_id = threads[key]
        thread_row = ctx.rows("mail", "threads")[thread_id - 1]
        thread_row["message_count"] += 1
        thread_row["last_date"] = rec["at"]
        in_reply_to = thread_last.get(key)
        thread_last[key] = message_id
        sent = rec.get("folder") == "Sent" or rec["from_addr"] == me_addr
        when = dt.datetime.strptime(rec["at"], DATETIME)
        unread = not sent and ((ctx.anchor - when.date()).days < 3 or rec["from_addr"] in NEVER_OPENED)
        # MaildirMessage is a classic (compat32) email.message.Message: building it directly is ~50x
        # faster than an EmailMessage copied into it, and its output is the same RFC 5322 text.
        mdmsg = mailbox.MaildirMessage()
        mdmsg["Message-ID"] = message_id
        mdmsg["Date"] = email.utils.format_datetime(local(when))
        mdmsg["From"] = _address(rec["from_name"], rec["from_addr"])
        mdmsg["To"] = _address(ident["name"], me_addr) if not sent else rec.get("to_addr") or me_addr
        mdmsg["Subject"] = (
            str(email.header.Header(rec["subject"], "utf-8")) if not rec["subject"].isascii() else rec["subject"]
        )
        if in_reply_to:
            mdmsg["In-Reply-To"] = in_reply_to
            mdmsg["References"] = in_reply_to
        body = scrub(rec["body"], remarks) + (f"\n--\n{signature}\n" if sent and signature else "")
        mdmsg["MIME-Version"] = "1.0"
        files = attachments.for_mail(rng, rec["subject"], rec["body"], when.date()) if not sent else []
        if files:
            _attach(mdmsg, body, files, message_id)
        else:
            mdmsg.set_payload(body, charset=BODY_CHARSET)
        mdmsg.set_subdir("new" if unread else "cur")
        if not unread:
            mdmsg.add_flag("S")
        name = f"{int(local(when).timestamp())}.{stable_id(message_id, length=16)}.mypcbench"
        info = mdmsg.get_info()
        folder_dir = sent_dir if sent else root
        filename = name + (f":{info}" if info else "")
        relative = os.path.relpath(folder_dir / mdmsg.get_subdir() / filename, ctx.out)
        target_path = ctx.path(relative, "mail")
        target_path.write_bytes(mdmsg.as_bytes())
        mtime = local(when).timestamp()
        os.utime(target_path, (mtime, mtime))
        label = rec.get("label")
        row_id = ctx.add(
            "mail",
            "messages",
            {
                "message_id": message_id,
                "thread_id": thread_id,
                "in_reply_to": in_reply_to,
                "folder": "Sent" if sent else "INBOX",
                "from_name": rec["from_name"],
                "from_addr": rec["from_addr"],
                "to_addr": rec.get("to_addr") or me_addr,
                "subject": rec["subject"],
                "sent_at": rec["at"],
                "body": body,
                "is_read": int(not unread),
                "label": label,
                "maildir_key": name,
            },
            rec["provenance"],
        )
        for file_name, content_type, data in files:
            ctx.add(
                "mail",
                "attachments",
                {
                    "message_id": row_id,
                    "filename": file_name,
                    "content_type": content_type,
                    "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                },
                rec["provenance"],
            )
    for name in ("INBOX", "Sent"):
        ctx.add("mail", "folders", {"name": name}, "mail")
    mail_state.seed_mail_state(ctx, {addr for _, addr, _ in NEWSLETTERS}, CORPORATE)
