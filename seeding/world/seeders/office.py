"""The persona's office documents under home/user/Documents, in formats LibreOffice opens.

Meeting notes (.odt, odfpy) for the spec's past meetings; a resume draft from the LockedIn profile;
the last full quarter's expense report (.xlsx with openpyxl and .ods with odfpy, the same rows); one
itinerary per trip (.odt); one boarding pass per flight (.pdf with fpdf2, its QR code made with segno
from the boarding pass's barcode in Dinoco's database). Every figure comes from the rows the other
seeders wrote. Zip-based files are rewritten with fixed entry times and the documents carry the anchor
as their date, so builds stay byte-identical.
"""

import datetime as dt
import io
import os
import re
import zipfile

import segno
from fpdf import FPDF
from odf.element import Element
from odf.opendocument import OpenDocumentSpreadsheet, OpenDocumentText
from odf.style import Style, TextProperties
from odf.table import Table, TableCell, TableRow
from odf.text import H, P
from openpyxl import Workbook
from openpyxl.styles import Font

from ..core import ZONE
from ..persona import scrub

MEETING_WORDS = ("meeting", "review", "1:1", "standup", "all-hands", "planning")
BUSINESS_CATEGORIES = ("Travel", "Dining", "Transport")


def normalize_zip(path, when: dt.datetime):
    """Rewrite a zip with every entry dated ``when`` (ODF's ``mimetype`` first and stored).

    openpyxl stamps ``dcterms:modified`` with the wall clock on save whatever the workbook says, so
    that one property is set back to ``when`` here too.
    """
    with zipfile.ZipFile(path) as src:
        entries = [(info, src.read(info.filename)) for info in src.infolist()]
    stamp_text = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    entries = [
        (
            info,
            re.sub(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)", rb"\g<1>" + stamp_text + rb"\g<2>", data),
        )
        if info.filename == "docProps/core.xml"
        else (info, data)
        for info, data in entries
    ]
    entries.sort(key=lambda e: (e[0].filename != "mimetype", 0))
    stamp = (max(when.year, 1980), when.month, when.day, when.hour, when.minute, when.second)
    with zipfile.ZipFile(path, "w") as dst:
        for info, data in entries:
            fixed = zipfile.ZipInfo(info.filename, date_time=stamp)
            fixed.compress_type = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, data)


# odfpy keeps the namespaces every document has used in one table shared by all its elements and writes
# them all into each later document, so a second build in one process wrote different .odt bytes. Each run
# starts from the table as it is before any document is made, as in a fresh process.
FRESH_NAMESPACES = dict(Element.namespaces)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_")[:60]


def _without_remarks(text: str) -> str:
    """The spec's text without its author's parenthetical remarks ("vacation (originally booked with Jan)")."""
    return re.sub(r"\s*\([^)]*\)", "", text or "").strip()


def _text_file(ctx, relative: str, title: str, lines: list[str], writer: str):
    """A plain-text twin of a document, dated like the office files."""
    target = ctx.path(relative, writer)
    target.write_text("\n".join([title, "=" * len(title), "", *lines]).rstrip() + "\n", encoding="utf-8")
    stamp = _anchor_time(ctx).replace(tzinfo=ZONE).timestamp()
    os.utime(target, (stamp, stamp))


def _odt(ctx, relative, title, paragraphs, writer):
    doc = OpenDocumentText()
    bold = Style(name="Bold", family="text")
    bold.addElement(TextProperties(fontweight="bold"))
    doc.automaticstyles.addElement(bold)
    doc.text.addElement(H(outlinelevel=1, text=title))
    for line in paragraphs:
        doc.text.addElement(P(text=line))
    target = ctx.path(relative, writer)
    doc.save(str(target))
    normalize_zip(target, _anchor_time(ctx))


def _anchor_time(ctx):
    return dt.datetime.combine(ctx.anchor, dt.time(9, 0))


def meeting_notes(ctx):
    people = [c["name"] for c in ctx.persona.section("contacts", [])]
    tasks = ctx.rows("sprintboard", "tasks")
    written = 0
    for row in ctx.rows("calendar", "events"):
        summary = row["summary"]
        start = dt.datetime.strptime(row["start_at"], "%Y-%m-%d %H:%M:%S")
        if not row["provenance"].startswith("app_overrides.calendar") or start.date() > ctx.anchor:
            continue
        if not any(word in summary.lower() for word in MEETING_WORDS):
            continue
        attendees = [p for p in people if p.split()[0] in summary or p in (row["description"] or "")]
        due = sorted(
            (t for t in tasks if t["due"] and t["due"] >= start.date().isoformat()), key=lambda t: (t["due"], t["id"])
        )
        lines = [
            f"Date: {start.strftime('%A %B %d, %Y %I:%M %p')}",
            f"Location: {row['location'] or 'Dunder Mifflin Scranton'}",
            f"Attendees: {', '.join([ctx.persona.name, *attendees])}",
            "",
            f"Notes: {row['description'] or ''}",
            "",
            "Action items:",
            *[f"- {t['title']} ({t['assignee'] or 'unassigned'}, due {t['due']})" for t in due[:3]],
        ]
        name = f"home/user/Documents/Meeting_Notes/{start.date().isoformat()}_{_slug(summary)}.odt"
        _odt(ctx, name, summary, lines, row["provenance"])
        written += 1
    return written


def _quarter(day: dt.date):
    """The last full calendar quarter before ``day``."""
    first = dt.date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    end = first - dt.timedelta(days=1)
    start = dt.date(end.year, 3 * ((end.month - 1) // 3) + 1, 1)
    return start, end


def expense_report(ctx):
    start, end = _quarter(ctx.anchor)
    label = f"Q{(start.month - 1) // 3 + 1}_{start.year}"
    rows = [
        (
            t["posted_date"],
            t["merchant"] or t["description"],
            t["category"],
            round(-float(t["amount"]), 2),
            t["provenance"],
        )
        for t in ctx.rows("vaultbank", "transactions")
        if start.isoformat() <= t["posted_date"] <= end.isoformat()
        and t["category"] in BUSINESS_CATEGORIES
        and t["amount"] < 0
    ]
    header = ("Date", "Merchant", "Category", "Amount (USD)", "Source record")
    total = round(sum(r[3] for r in rows), 2)
    wb = Workbook()
    ws = wb.active
    ws.title = f"Expenses {label}"
    ws.append(header)
    for cell in ws[1]:
        cell.font = Font(bold=True)
    for row in rows:
        ws.append(list(row))
    ws.append(["", "", "Total", f"=SUM(D2:D{len(rows) + 1})", ""])
    ws.column_dimensions["B"].width = 36
    fixed = _anchor_time(ctx)
    wb.properties.created = fixed
    wb.properties.modified = fixed
    wb.properties.creator = ctx.persona.name
    xlsx = ctx.path(f"home/user/Documents/Expense_Report_{label}.xlsx", "vaultbank.transactions")
    wb.save(xlsx)
    normalize_zip(xlsx, fixed)
    ods = OpenDocumentSpreadsheet()
    table = Table(name=f"Expenses {label}")
    for values in [header, *rows, ("", "", "Total", total, "")]:
        tr = TableRow()
        for value in values:
            if isinstance(value, float):
                cell = TableCell(valuetype="float", value=value)
                cell.addElement(P(text=f"{value:.2f}"))
            else:
                cell = TableCell(valuetype="string")
                cell.addElement(P(text=str(value)))
            tr.addElement(cell)
        table.addElement(tr)
    ods.spreadsheet.addElement(table)
    target = ctx.path(f"home/user/Documents/Expense_Report_{label}.ods", "vaultbank.transactions")
    ods.save(str(target))
    normalize_zip(target, fixed)
    ctx.notes["expense_report"] = {"quarter": label, "rows": len(rows), "total": total}


def itineraries_and_passes(ctx):
    flights = {row["id"]: row for row in ctx.rows("dinoco-airlines", "flights")}
    passes = {row["booking_id"]: row for row in ctx.rows("dinoco-airlines", "boarding_passes")}
    hotels: dict[str, list[dict]] = {}
    for row in ctx.rows("cheskepdia", "bookings"):
        hotels.setdefault(row["provenance"].split(".")[0], []).append(row)
    properties = {row["id"]: row for row in ctx.rows("cheskepdia", "properties")}
    bookings = {row["provenance"].split(".")[0]: row for row in ctx.rows("dinoco-airlines", "bookings")}
    rides = {
        row["provenance"].split(".")[0]: row
        for row in ctx.rows("etaxi", "rides")
        if row["provenance"].startswith("trips[")
    }
    overview: list[str] = []
    for n, trip in enumerate(ctx.persona.section("trips", [])):
        key = f"trips[{n}]"
        lines = [
            f"Purpose: {_without_remarks(trip.get('purpose', ''))}",
            f"Dates: {ctx.day(trip['dates'][0])} to {ctx.day(trip['dates'][1])}",
            "",
        ]
        booking = bookings.get(key)
        if booking:
            flight = flights[booking["flight_id"]]
            lines += [
                f"Flight: Dinoco {flight['number']} {flight['origin']} -> {flight['destination']}",
                f"Departs: {flight['departs_at']}" + (f", gate {flight['gate']}" if flight["gate"] else ""),
                f"Seat: {booking['seat']}   Confirmation: {booking['confirmation']}",
                "",
            ]
            boarding_pass(ctx, trip, booking, flight, passes[booking["id"]])
        for stay in hotels.get(key, []):
            lines += [
                f"Hotel: {properties[stay['property_id']]['name']}",
                f"Check-in {stay['check_in']}, check-out {stay['check_out']} ({stay['nights']} nights)",
                f"Confirmation: {stay['confirmation']}   Total: ${stay['total']:,.2f}",
            ]
            if stay["cancellation_deadline"]:
                lines.append(f"Free cancellation until {stay['cancellation_deadline']}")
            lines.append("")
        ride = rides.get(key)
        if ride:
            lines.append(
                f"eTaxi: {ride['pickup']} -> {ride['dropoff']} at {ride['requested_at']} ({ride['ride_code']})"
            )
        name = f"home/user/Documents/Trips/{_slug(trip['destination'])}_itinerary.odt"
        _odt(ctx, name, f"Itinerary: {trip['destination']}", lines, key)
        text_name = f"home/user/Documents/Trips/{_slug(trip['destination']).lower()}.txt"
        _text_file(ctx, text_name, f"Itinerary: {trip['destination']}", lines, key)
        overview.append(f"{ctx.day(trip['dates'][0])} to {ctx.day(trip['dates'][1])}  {trip['destination']}")
        for stay in hotels.get(key, []):
            hotel = properties[stay["property_id"]]["name"]
            overview.append(f"    {hotel} {stay['confirmation']}  ${stay['total']:,.2f}")
        if booking:
            overview.append(f"    Dinoco {flights[booking['flight_id']]['number']} {booking['confirmation']}")
    if overview:
        _text_file(ctx, "home/user/Documents/Trips/Travel_Overview.txt", "Travel overview", overview, "trips")


def project_notes(ctx):
    """One text file per SprintBoard project: its status, deadline, members and tasks as the board has them."""
    members: dict[int, list[str]] = {}
    for row in ctx.rows("sprintboard", "members"):
        members.setdefault(row["project_id"], []).append(row["name"])
    tasks: dict[int, list[dict]] = {}
    for row in ctx.rows("sprintboard", "tasks"):
        tasks.setdefault(row["project_id"], []).append(row)
    for project in ctx.rows("sprintboard", "projects"):
        lines = [
            f"Status: {project['status'].replace('_', ' ')}",
            f"Deadline: {project['deadline'] or 'none'}",
            f"Team: {', '.join(members.get(project['id'], [])) or 'just me'}",
            "",
            "Tasks:",
        ]
        for task in tasks.get(project["id"], []):
            due = f", due {task['due']}" if task["due"] else ""
            who = task["assignee"] or "unassigned"
            lines.append(f"- [{task['status'].replace('_', ' ')}] {_without_remarks(task['title'])} ({who}{due})")
        relative = f"home/user/Documents/Projects/{_slug(project['name']).lower()}.txt"
        _text_file(ctx, relative, project["name"], lines, project["provenance"])


def boarding_pass(ctx, trip, booking, flight, bp):
    pdf = FPDF(format=(210, 99))
    pdf.set_creation_date(dt.datetime.combine(ctx.anchor, dt.time(9, 0), tzinfo=dt.UTC))
    pdf.set_compression(False)
    pdf.set_title(f"Boarding pass {flight['number']} {booking['confirmation']}")
    pdf.set_producer("MyPCBench seeding")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.cell(0, 10, "DINOCO AIRLINES - BOARDING PASS", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", "", 12)
    for line in (
        f"Passenger: {ctx.persona.name.upper()}",
        f"Flight {flight['number']}   {flight['origin']} -> {flight['destination']}",
        f"Departs {flight['departs_at']}" + (f"   Gate {flight['gate']}" if flight["gate"] else ""),
        f"Seat {booking['seat']}   Group {bp['boarding_group']}",
        f"Confirmation {booking['confirmation']}",
    ):
        pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    qr = segno.make_qr(bp["barcode"], error="m")  # a full QR code: scanners read it, not every one reads Micro QR
    png = io.BytesIO()
    qr.save(png, kind="png", scale=6, border=4)  # the quiet zone the QR standard asks for
    png.seek(0)
    pdf.image(png, x=150, y=30, w=50, h=50)
    pdf.output(str(ctx.path(_pass_path(trip, flight), booking["provenance"])))


def _pass_path(trip, flight) -> str:
    """Where the pass sits: filed under Trips, except the one for a trip abroad ("Montego Bay, Jamaica"), which
    Michael has just downloaded and not yet filed (it is still in Downloads under the airline's name)."""
    place = str(trip.get("destination", "")).rpartition(",")
    country = place[2].strip()
    if place[1] and len(country) > 2:
        return f"home/user/Downloads/{_slug(country)}_Boarding_Pass_{flight['number']}.pdf"
    return f"home/user/Documents/Trips/BoardingPass_{flight['number']}_{flight['departs_at'][:10]}.pdf"


def resume_draft(ctx):
    """A resume draft from the LockedIn profile and experience rows (the same headline and roles), and its text copy."""
    profile = (ctx.rows("lockedin", "profile") or [{}])[0]
    ident = ctx.persona.spec["identity"]
    lines = [
        profile.get("headline") or ident.get("role", ""),
        f"{ident.get('address', '')}, {ident.get('city', '')} | {ident.get('email', '')} | {ident.get('phone', '')}",
        "",
        "Summary",
        profile.get("about") or ident.get("bio", ""),
        "",
        "Experience",
        *[f"- {row['title']}, {row['company']}" for row in ctx.rows("lockedin", "experience")],
    ]
    _odt(
        ctx,
        f"home/user/Documents/Resume_Draft_{_slug(ctx.persona.name)}.odt",
        ctx.persona.name,
        lines,
        "lockedin.profile",
    )
    # The plain-text copy he keeps of the resume he sent out (a Word file saved as text): the same lines, without
    # the spec author's remarks.
    _text_file(
        ctx,
        f"home/user/Documents/Resume_{_slug(ctx.persona.name)}.docx.txt",
        ctx.persona.name,
        [scrub(line, ctx.persona.remarks) for line in lines],
        "lockedin.profile",
    )


def tax_worksheet(ctx):
    """Michael's worksheet for the return still open in SpeedTax: the same W-2, 1099, home-office days and
    deductions as the return's rows, with nothing worked out yet (no refund or amount owed)."""
    open_returns = [row for row in ctx.rows("speedtax", "returns") if row["status"] != "filed"]
    if not open_returns:
        return
    ret = open_returns[0]
    mine = [row for row in ctx.rows("speedtax", "w2_forms") if row["return_id"] == ret["id"]]
    lines = [
        f"Tax year {ret['tax_year']} ({ret['state_code']}, {ret['filing_status']}): return in SpeedTax, not filed",
        "",
    ]
    lines += ["W-2"] + [
        f"  {w['employer']}: wages ${w['gross_wages']:,.2f}, federal withheld ${w['federal_withheld']:,.2f}, "
        f"state withheld ${w['state_withheld']:,.2f}"
        for w in mine
    ]
    lines += ["", "1099"] + [
        f"  {f['payer']}: ${f['amount']:,.2f}"
        for f in ctx.rows("speedtax", "forms_1099")
        if f["return_id"] == ret["id"]
    ]
    lines += ["", f"Work-from-home days (home office): {ret['home_office_days']}", "", "Deductions"]
    for row in ctx.rows("speedtax", "deductions"):
        if row["return_id"] == ret["id"] and row["amount"] is not None:
            lines.append(
                f"  {row['kind'].replace('_', ' ')}: {_without_remarks(row['description'])} ${row['amount']:,.2f}"
            )
    lines += [
        f"  charitable total on the return: ${ret['charitable_total']:,.2f}",
        "",
        "Refund / owed: not worked out yet",
    ]
    _text_file(ctx, f"home/user/Documents/Tax_{ret['tax_year']}/tax_worksheet.txt", "Tax worksheet", lines, "taxes")


def seed_office(ctx):
    Element.namespaces.clear()
    Element.namespaces.update(FRESH_NAMESPACES)
    ctx.notes["meeting_notes"] = meeting_notes(ctx)
    resume_draft(ctx)
    expense_report(ctx)
    itineraries_and_passes(ctx)
    project_notes(ctx)
    tax_worksheet(ctx)
