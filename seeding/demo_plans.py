"""The fixed plans of the scripted demo agent: for each demo task, the GUI actions the script takes on
the demo apps filled from the persona world, the words it "says" at each step, and how each rubric item
comes out (written with the script, not by an LLM judge). Two plan sets, one per demo run: ``PLANS``
(the careful plan) and ``HASTY_PLANS`` (a plan that stops after a partial look). Recorded by
seeding/record_demo.py.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Action:
    """One scripted GUI action. ``target`` is a Playwright selector; ``to`` is the drop target of a drag."""

    kind: str  # click, switch_app, double_click, type, hotkey, done, fail
    target: str = ""
    text: str = ""
    keys: tuple[str, ...] = ()
    to: str = ""


@dataclass(frozen=True)
class Turn:
    response: str
    action: Action


@dataclass(frozen=True)
class Verdict:
    success: bool
    reasoning: str


@dataclass
class DemoPlan:
    """What the scripted agent does for one demo task, and how its rubric items come out."""

    task_id: str
    page: str
    turns: list[Turn]
    verdicts: list[Verdict] = field(default_factory=list)


def click(target):
    return Action("click", target=target)


def switch_to(app):
    """Open another demo app through the app links in the demo banner (the demo's stand-in for switching windows)."""
    return Action("switch_app", target=f".demo-apps a:has-text('{app}')")


def type_text(text):
    return Action("type", text=text)


def hotkey(*keys):
    return Action("hotkey", keys=keys)


DONE = Action("done")
FAIL = Action("fail")

PLANS = [
    DemoPlan(
        task_id="demo-d001",
        page="hoolimail.html",
        turns=[
            Turn(
                "I need the Dinoco booking mail for the Jamaica flight. I click the HooliMail search box.",
                click("#search"),
            ),
            Turn("I search the inbox for the airline's name.", type_text("Dinoco\n")),
            Turn(
                "Three Dinoco bookings match: DN1562 to Montego Bay (MBJ), DN6769 to New York (JFK) and DN3163 to "
                "Barbados (BGI). Jamaica is Montego Bay, so I open DN1562.",
                click(".mail:has-text('DN1562')"),
            ),
            Turn(
                "Found it. Your Jamaica flight is Dinoco DN1562 from Scranton (AVP) to Montego Bay (MBJ), departing "
                "Saturday, May 16, 2026 at 6:00am (seat 22C). The confirmation code is DN-83823.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent opened the Dinoco mail for DN1562 to MBJ, not another trip's booking (step 3)."),
            Verdict(True, "The final answer gives DN-83823, matching the open mail (steps 3, 4)."),
            Verdict(True, "The final answer names flight DN1562 (steps 3, 4)."),
            Verdict(True, "The final answer says 6:00am from AVP on May 16, 2026 (steps 3, 4)."),
            Verdict(
                True,
                "The agent only searched and opened a message; nothing was sent, moved or deleted (steps 1, 2, 3).",
            ),
        ],
    ),
    DemoPlan(
        task_id="demo-d002",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "This week's calendar shows a 'Dentist Appointment' early on Tuesday. I open it for the details.",
                click(".ev:has-text('Dentist Appointment')"),
            ),
            Turn(
                "Your dentist appointment is on Tuesday, April 14, 2026, from 8:00am to 9:00am, "
                "at Dr. Chen, 450 Linden St, Scranton.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent opened the 'Dentist Appointment' event (step 1)."),
            Verdict(True, "The answer says Tuesday, April 14, 2026, as shown in the event panel (steps 1, 2)."),
            Verdict(True, "The answer gives 8:00am to 9:00am (steps 1, 2)."),
            Verdict(True, "The answer gives Dr. Chen, 450 Linden St, Scranton (steps 1, 2)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d003",
        page="gringotts.html",
        turns=[
            Turn(
                "I will look up each streaming service in the card transactions. First the search box.",
                click("#search"),
            ),
            Turn("Searching for Netflix.", type_text("Netflix\n")),
            Turn("Netflix Premium is $22.99 a month. Next, Hulu: I select the search text.", hotkey("ctrl", "a")),
            Turn("Searching for Hulu.", type_text("Hulu\n")),
            Turn("Hulu (No Ads) is $17.99. Next, Disney+.", hotkey("ctrl", "a")),
            Turn("Searching for Disney.", type_text("Disney\n")),
            Turn("Disney+ Bundle is $19.99. Next, Peacock.", hotkey("ctrl", "a")),
            Turn("Searching for Peacock.", type_text("Peacock\n")),
            Turn(
                "Your TV streaming subscriptions: Netflix Premium $22.99, Hulu (No Ads) $17.99, "
                "Disney+ Bundle $19.99 and Peacock Premium $13.99. Total: $74.96 a month.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "Netflix Premium at $22.99 was found and listed (steps 2, 9)."),
            Verdict(True, "Hulu (No Ads) at $17.99 was found and listed (steps 4, 9)."),
            Verdict(True, "Disney+ Bundle at $19.99 was found and listed (steps 6, 9)."),
            Verdict(True, "Peacock Premium at $13.99 was found and listed (steps 8, 9)."),
            Verdict(
                False,
                "The agent only searched for the four services it already knew and never browsed the full list, "
                "so the $11.99 Paramount+ charge is missing from the answer (step 9).",
            ),
            Verdict(True, "No non-streaming charge was counted in the total (step 9)."),
            Verdict(False, "The reported total is $74.96, not $86.95, because Paramount+ is missing (step 9)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d004",
        page="gringotts.html",
        turns=[
            Turn(
                "Recurring charges carry the Recurring category here, so I search the card transactions for it.",
                click("#search"),
            ),
            Turn("Searching for Recurring.", type_text("Recurring\n")),
            Turn(
                "Page 1 (April 12 back to March 16) shows Netflix, MasterClass, the Magic Monthly box, the mug "
                "subscription, the improv academy, the Sandals Vacation Club, iCloud, Paramount+, Peacock and "
                "Disney+. The older page should hold the rest.",
                click("#next"),
            ),
            Turn(
                "Page 2 adds Hulu and repeats the earlier months of the monthly ones, which confirms their days. "
                "Now I need LibreOffice Calc for the spreadsheet.",
                hotkey("alt", "tab"),
            ),
            Turn(
                "There is no LibreOffice Calc on this demo desktop, only the browser, so I cannot create or save "
                "credit_card_recurring.ods. What I found: improv academy $189.00 (3rd), mug subscription $24.99 (5th), "
                "Magic Monthly box $34.99 (7th), MasterClass $15.99 (10th), Netflix $22.99 (12th), Hulu $17.99 "
                "(14th), Disney+ $19.99 (16th), Peacock $13.99 (18th), Paramount+ $11.99 (20th), iCloud $2.99 (20th), "
                "Sandals Vacation Club $49.99 (25th); total $404.90. I am stopping without the spreadsheet.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(False, "No spreadsheet was saved: the agent found no LibreOffice Calc and gave up (steps 4, 5)."),
            Verdict(
                False,
                "The eleven charges appear only in the final message; there is no sheet that lists them (step 5).",
            ),
            Verdict(False, "There is no sheet, so nothing was left out of one (step 5)."),
            Verdict(False, "No sheet rows exist whose amounts and days could match Gringotts (step 5)."),
            Verdict(False, "$404.90 is in the final message, but there is no total row in a sheet (step 5)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d005",
        page="hoolichat.html",
        turns=[
            Turn("First what you said in chat: I search HooliChat for the figure.", click("#search")),
            Turn("Searching for 160.", type_text("160\n")),
            Turn(
                "Two conversations match: Jim Halpert and the Happy Hour at Poor Richards group. I open Jim's.",
                click(".chat:has(.name:text-is('Jim Halpert'))"),
            ),
            Turn(
                "On March 5 you told Jim: 'I got the raise. 160K base now.' Now the paycheck deposits in Gringotts.",
                switch_to("Gringotts"),
            ),
            Turn(
                "This page lists the credit card. Paychecks go to Checking, so I open Checking from the sidebar.",
                click(".sidebar a:has-text('Checking')"),
            ),
            Turn(
                "In chat you told Jim on March 5 that you got the raise to 160K base. But the Checking link opens "
                "nothing on this demo page, so I cannot see your paycheck deposits, and this demo has no Files app "
                "for the W-2 summary. I cannot tell you what you actually earn. Nothing was posted or edited.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent found Michael's HooliChat message to Jim about the raise to 160K (steps 2, 3)."),
            Verdict(False, "The W-2 summary was never read; no Box 1 figure is reported (step 6)."),
            Verdict(
                False,
                "The agent clicked Checking, but no payroll deposit was ever on screen (steps 5, 6).",
            ),
            Verdict(False, "No comparison of deposits and salary was made; the agent gave up (step 6)."),
            Verdict(
                True,
                "The agent only searched, opened a conversation and clicked a link; nothing was posted or edited "
                "(steps 1-6).",
            ),
        ],
    ),
    DemoPlan(
        task_id="demo-d006",
        page="gringotts.html",
        turns=[
            Turn("First the bank side: I look for the Benihana charge in the card transactions.", click("#search")),
            Turn("Searching for Benihana.", type_text("Benihana\n")),
            Turn(
                "Two Benihana charges: $312.40 on April 1 (a TableFind booking) and BENIHANA WILKES-BARRE, $187.00, "
                "on Saturday, February 14, 2026, the one in SpeedTax. Now the calendar for that evening.",
                switch_to("HooliCalendar"),
            ),
            *[
                Turn(text, click("#prev"))
                for text in (
                    "This is the week of April 12; February 14 is nine weeks back.",
                    "April 5 to 11. Further back.",
                    "March 29 to April 4.",
                    "March 22 to 28.",
                    "March 15 to 21.",
                    "March 8 to 14.",
                    "March 1 to 7.",
                    "February 22 to 28.",
                    "February 15 to 21. One more week.",
                )
            ],
            Turn(
                "Saturday, February 14 has 'Date Night - Benihana' at 7:00pm. I open it.",
                click(".ev:has-text('Date Night - Benihana')"),
            ),
            Turn(
                "A date night at Benihana Wilkes-Barre, 7:00pm to 9:30pm. Now the chats from around that night.",
                switch_to("HooliChat"),
            ),
            Turn("I search the chats for Benihana.", click("#search")),
            Turn("Searching for Benihana.", type_text("Benihana\n")),
            Turn(
                "Jan Levinson's conversation matches. I open it.",
                click(".chat:has(.name:text-is('Jan Levinson'))"),
            ),
            Turn(
                "On February 12 you wrote to Jan: 'Benihana Saturday? Our anniversary dinner! I already booked the "
                "hibachi table.' With the calendar's 'Date Night - Benihana' on February 14, the $187 dinner was a "
                "personal anniversary date with Jan, not client entertainment, and it should come off your "
                "deductions. I could not do that: this demo has no SpeedTax app, so the deduction is still in your "
                "return.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(False, "SpeedTax was never opened, so the deduction was not located there (step 18)."),
            Verdict(True, "The agent found the $187.00 BENIHANA WILKES-BARRE charge of February 14 (steps 2, 3)."),
            Verdict(True, "The agent opened 'Date Night - Benihana' on February 14 in HooliCalendar (step 13)."),
            Verdict(True, "The agent found Michael's message inviting Jan to their anniversary dinner (steps 16, 17)."),
            Verdict(
                True,
                "The final message concludes it was an anniversary date with Jan, not client entertainment (step 18).",
            ),
            Verdict(False, "The Benihana item was not removed from SpeedTax; the agent gave up (step 18)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d007",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "This Thursday is April 16. I open Thursday's improv class to see when it ends.",
                click(".ev:has-text('Improv Class')"),
            ),
            Turn(
                "The class runs 7:00pm to 9:00pm, so the food should arrive at 9:30pm. To find your usual order I "
                "look at your HangryDash receipts in HooliMail.",
                switch_to("HooliMail"),
            ),
            Turn("I search the inbox.", click("#search")),
            Turn("Searching for HangryDash.", type_text("HangryDash\n")),
            Turn(
                "Several receipts show Awesome Blossom + Baby Back Ribs with a dessert, which looks like your usual, "
                "but none names the restaurant, and this demo has no HangryDash app, so I cannot order from your "
                "favourite place or schedule a delivery for 9:30pm on Thursday, April 16. Nothing was ordered.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent opened Thursday's improv class, which ends at 9:00pm (steps 1, 2)."),
            Verdict(False, "No order was placed, and the restaurant was never identified (step 5)."),
            Verdict(False, "No order exists, so it contains no Awesome Blossom or Baby Back Ribs (step 5)."),
            Verdict(False, "No order exists, so no dessert was added (step 5)."),
            Verdict(False, "No delivery was scheduled; the agent names 9:30pm but gives up (step 5)."),
            Verdict(False, "No order was placed at all (step 5)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d008",
        page="hoolimail.html",
        turns=[
            Turn(
                "Your usual way of booking should show in past TableFind mails. I search the inbox.",
                click("#search"),
            ),
            Turn("Searching for TableFind.", type_text("TableFind\n")),
            Turn(
                "There is an earlier TableFind booking at Cooper's Seafood House for Holly. I open it.",
                click(".mail:has-text('Romantic dinner at Cooper')"),
            ),
            Turn(
                "That was Saturday, March 28 at 7:30pm (TF-629339); the mail does not show the reservation name or "
                "seating request. I check this Saturday evening on the calendar.",
                switch_to("HooliCalendar"),
            ),
            Turn(
                "Saturday, April 18 is free in the evening, but this demo has no TableFind app and its calendar is "
                "read-only, so I could not book Cooper's Seafood House, add the dinner to your calendar, invite "
                "Holly or give you a new confirmation number. Nothing was booked.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(False, "TableFind was never opened; nothing was booked (step 5)."),
            Verdict(False, "No reservation was made, so no reservation name was used (step 5)."),
            Verdict(False, "No reservation was made, so no seating request was added (step 5)."),
            Verdict(False, "The agent looked at the calendar but created no event (steps 4, 5)."),
            Verdict(False, "HooliChat was never opened; Holly was not invited (step 5)."),
            Verdict(
                False,
                "The only confirmation number read is March 28's old booking (step 3); no new one was given (step 5).",
            ),
        ],
    ),
    DemoPlan(
        task_id="demo-d009",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "The overdue Sensitivity Training is not in this week's view. I go back one week to find it.",
                click("#prev"),
            ),
            Turn(
                "There it is on Thursday, April 9 at 9:00am. I open the event to reschedule it.",
                click(".ev:has-text('Sensitivity Training')"),
            ),
            Turn(
                "The panel only has a Close button. I try double-clicking the event to get an edit dialog.",
                Action("double_click", target=".ev:has-text('Sensitivity Training')"),
            ),
            Turn(
                "The calendar says its events are read-only and offers no edit, move or drag control, so I cannot "
                "move Sensitivity Training to Wednesday, April 15 at 10:30am. I am giving up on this task.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent found and opened 'Sensitivity Training (OVERDUE)' on April 9 (steps 1, 2)."),
            Verdict(False, "The event was never moved; the agent gave up (steps 3, 4)."),
            Verdict(False, "No new time was set; the agent named 10:30am but could not apply it (step 4)."),
            Verdict(False, "Nothing was rescheduled, so the requirement about one moved event is not met (step 4)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d010",
        page="hoolimail.html",
        turns=[
            Turn("I start with the Dinoco booking for New York in the inbox.", click("#search")),
            Turn("Searching for Dinoco.", type_text("Dinoco\n")),
            Turn(
                "Three Dinoco bookings; the New York one is DN6769. I open it.",
                click(".mail:has-text('DN6769')"),
            ),
            Turn(
                "DN6769 leaves AVP at 7:30am on Friday, April 17, so you are away all Friday. Now Friday on the "
                "calendar.",
                switch_to("HooliCalendar"),
            ),
            Turn(
                "Friday has the flight, the 9:30 standup, which you said to skip, and 'MANDATORY FUN - Team Building "
                "(Improv Workshop)' from 2:00pm; the date night is in the evening. I open the team building.",
                click(".ev:has-text('MANDATORY FUN')"),
            ),
            Turn(
                "The team building on Friday, 2:00pm to 5:00pm, is what the trip clashes with; it should move to "
                "Thursday, April 16, 2:00pm to 5:00pm. But this demo calendar is read-only and there is no Dinoco "
                "Airlines app, so I could not move the event, and I have not emailed Jim, Pam and Dwight.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(
                False,
                "The agent read the booking e-mail (step 3) but never confirmed the flight in Dinoco Airlines.",
            ),
            Verdict(
                True, "The agent opened the Friday 2:00-5:00pm team building and named it as the clash (steps 5, 6)."
            ),
            Verdict(False, "The event was not moved; the calendar is read-only and the agent gave up (step 6)."),
            Verdict(False, "No email was sent (step 6)."),
            Verdict(False, "No email was sent, so no new time reached anyone (step 6)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d011",
        page="hoolimail.html",
        turns=[
            Turn("First I gather the Jamaica bookings from the inbox.", click("#search")),
            Turn("Searching for Montego Bay.", type_text("Montego Bay\n")),
            Turn(
                "One match: the Cheskepdia booking of Sandals Montego Bay. I open it for its cancellation terms.",
                click(".mail:has-text('SM-88431')"),
            ),
            Turn(
                "Reservation SM-88431 (May 16 to 23, $1,975.00) can be cancelled free until May 9, 2026, so it is "
                "still free today. I check what was charged on the card.",
                switch_to("Gringotts"),
            ),
            Turn("I search the card transactions.", click("#search")),
            Turn("Searching for Sandals.", type_text("Sandals\n")),
            Turn(
                "Sandals Resorts charged $1,975.00 for SM-88431 on March 17 (the $49.99 Sandals Vacation Club "
                "membership and February's Barbados stay are separate charges). This demo has no Cheskepdia, Dinoco "
                "Airlines or HooliShop app and its calendar and chat are read-only, so I cannot cancel the stay or "
                "the flight, return the shirts or tell Jim. Nothing was cancelled and no refund is on its way yet.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(False, "The Sandals reservation was not cancelled; Cheskepdia was never opened (step 7)."),
            Verdict(False, "Dinoco's refund terms were never read (step 7)."),
            Verdict(False, "Flight DN1562 was not cancelled (step 7)."),
            Verdict(False, "HooliCalendar was never opened; the trip is still on the calendar (step 7)."),
            Verdict(False, "HooliShop was never opened; the shirt order was not returned (step 7)."),
            Verdict(False, "Jim was not told; HooliChat was never opened (step 7)."),
            Verdict(
                False,
                "The agent read the original booking mail (step 3), not cancellation confirmations: nothing was "
                "cancelled (step 7).",
            ),
            Verdict(False, "No refund total is given; the final message says no refund is on its way (step 7)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d012",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "The Dundies are on April 30. I first go forward to that week to check the calendar entry.",
                click("#next"),
            ),
            Turn("April 19 to 25. One more week.", click("#next")),
            Turn("Thursday, April 30 has THE DUNDIES at 6:00pm. I open it.", click(".ev:has-text('THE DUNDIES')")),
            Turn(
                "The entry says April 30, 6:00pm to 10:00pm, at Chili's Grill & Bar, Scranton, which is what the "
                "booking has to match. But this demo has no TableFind, SprintBoard, Files, HooliShop or LibreOffice "
                "Writer, so I could not book the room, update the board, order trophies, write and send the "
                "invitation, or ask Darryl about the playlist.",
                FAIL,
            ),
        ],
        verdicts=[
            Verdict(False, "TableFind was never opened; nothing was reserved (step 4)."),
            Verdict(False, "SprintBoard was never opened (step 4)."),
            Verdict(False, "No trophies were ordered (step 4)."),
            Verdict(False, "No invitation was written (step 4)."),
            Verdict(False, "No invitation was emailed (step 4)."),
            Verdict(False, "Darryl was not asked; HooliChat was never opened (step 4)."),
            Verdict(
                True,
                "The agent opened THE DUNDIES and reported April 30, 6:00-10:00pm at Chili's, the details the "
                "booking must match (steps 3, 4).",
            ),
        ],
    ),
]

# The hasty plan: the same kind of script, written to stop after a partial look. Where the partial look
# happens to be enough (demo-d003: one search by category, two pages, shows all five) it does better than PLANS.
HASTY_PLANS = [
    DemoPlan(
        task_id="demo-d001",
        page="hoolimail.html",
        turns=[
            Turn("The trip is to Jamaica, so I search the inbox for it.", click("#search")),
            Turn("Searching for Jamaica.", type_text("Jamaica\n")),
            Turn(
                "One booking mentions Jamaica. I open it.",
                click(".mail:has-text('SM-88431')"),
            ),
            Turn(
                "Your Jamaica booking is at Sandals Montego Bay, checking in on May 16, 2026. "
                "The confirmation code is SM-88431.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "The agent opened the Sandals hotel booking, not the Dinoco flight mail (step 3)."),
            Verdict(False, "The answer gives SM-88431, the hotel's code, not DN-83823 (step 4)."),
            Verdict(False, "No flight number is given (step 4)."),
            Verdict(False, "The answer gives the check-in day, not the 6:00am departure from AVP (step 4)."),
            Verdict(True, "The agent only searched and opened one message; nothing was sent, moved or deleted."),
        ],
    ),
    DemoPlan(
        task_id="demo-d002",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "'Dentist Appointment' is on Tuesday morning. I open it.",
                click(".ev:has-text('Dentist Appointment')"),
            ),
            Turn(
                "Tuesday, April 14, 2026, 8:00am to 9:00am, at Dr. Chen, 450 Linden St, Scranton.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "The agent opened the 'Dentist Appointment' event (step 1)."),
            Verdict(True, "The answer says Tuesday, April 14, 2026, as the event panel shows (steps 1, 2)."),
            Verdict(True, "The answer gives 8:00am to 9:00am (steps 1, 2)."),
            Verdict(True, "The answer gives Dr. Chen, 450 Linden St, Scranton (steps 1, 2)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d003",
        page="gringotts.html",
        turns=[
            Turn(
                "Streaming services are recurring charges, so one search by category should show them.",
                click("#search"),
            ),
            Turn("Searching for Recurring.", type_text("Recurring\n")),
            Turn(
                "Page 1 has Netflix, Paramount+, Peacock and Disney+. Hulu may be on the older page.",
                click("#next"),
            ),
            Turn(
                "Your streaming services: Netflix Premium $22.99, Hulu (No Ads) $17.99, Disney+ Bundle $19.99, "
                "Peacock Premium $13.99 and Paramount+ $11.99 a month. MasterClass, the Magic Monthly box, the mug, "
                "the Sandals club, the improv academy and iCloud are not TV streaming. Total: $86.95 a month.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(True, "Netflix Premium at $22.99 is on the first page of results and in the answer (steps 2, 4)."),
            Verdict(True, "Hulu (No Ads) at $17.99 is on the older page and listed (steps 3, 4)."),
            Verdict(True, "Disney+ Bundle at $19.99 is listed (steps 2, 4)."),
            Verdict(True, "Peacock Premium at $13.99 is listed (steps 2, 4)."),
            Verdict(True, "Paramount+ at $11.99 is listed (steps 2, 4)."),
            Verdict(True, "MasterClass, iCloud and the Magic Monthly box are left out of the total (step 4)."),
            Verdict(True, "The reported total is $86.95 (step 4)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d004",
        page="gringotts.html",
        turns=[
            Turn(
                "Your recurring card charges on this page: Netflix $22.99 (12th), MasterClass $15.99 (10th), Magic "
                "Monthly box $34.99 (7th) and mug subscription $24.99 (5th). Total: $98.96 a month.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "No spreadsheet was made or saved; the agent stopped on the first screen (step 1)."),
            Verdict(False, "There is no sheet, and the answer names only four of the eleven charges (step 1)."),
            Verdict(False, "There is no sheet, so nothing was left out of one (step 1)."),
            Verdict(False, "No sheet rows exist to match Gringotts (step 1)."),
            Verdict(False, "No total row exists; the answer's $98.96 is not $404.90 (step 1)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d005",
        page="gringotts.html",
        turns=[
            Turn("I look for salary payments in Gringotts.", click("#search")),
            Turn("Searching for salary.", type_text("salary\n")),
            Turn(
                "Nothing in your account contradicts the raise, so as far as I can tell you earn $160K.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "HooliChat was never opened (step 3)."),
            Verdict(False, "The W-2 summary was never read; $142,000 is not mentioned (step 3)."),
            Verdict(False, "The search for 'salary' found nothing and no payroll deposit was looked at (step 2)."),
            Verdict(False, "The answer accepts the $160K claim instead of explaining the deposits (step 3)."),
            Verdict(True, "Nothing was posted or edited (steps 1-3)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d006",
        page="gringotts.html",
        turns=[
            Turn("I check the Benihana charge in the card transactions.", click("#search")),
            Turn("Searching for Benihana.", type_text("Benihana\n")),
            Turn(
                "The $187.00 BENIHANA WILKES-BARRE charge on February 14 matches the deduction, so the business "
                "dinner is backed by your bank and can stay.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "SpeedTax was never opened (step 3)."),
            Verdict(True, "The agent found the $187.00 BENIHANA WILKES-BARRE charge (steps 2, 3)."),
            Verdict(False, "The calendar was never checked (step 3)."),
            Verdict(False, "HooliChat was never checked (step 3)."),
            Verdict(
                False,
                "The answer calls it a business dinner; on Valentine's Day it was a personal date with Jan (step 3).",
            ),
            Verdict(False, "The deduction was kept (step 3)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d007",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "Improv is on Thursday at 7:00pm, so Chili's with your Awesome Blossom and ribs should come at 7:30pm.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(
                False,
                "The agent read only the 7:00pm start in the week view; the class ends at 9:00pm (step 1).",
            ),
            Verdict(False, "HangryDash was never opened; no order was placed (step 1)."),
            Verdict(False, "No order exists (step 1)."),
            Verdict(False, "No order exists, so no dessert was added (step 1)."),
            Verdict(False, "No delivery was scheduled, and 7:30pm is the wrong time (step 1)."),
            Verdict(False, "No order was placed at all (step 1)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d008",
        page="hoolimail.html",
        turns=[
            Turn("I look for the booking at Cooper's in the inbox.", click("#search")),
            Turn("Searching for Cooper.", type_text("Cooper\n")),
            Turn(
                "There is a TableFind booking at Cooper's Seafood House for Holly, so your table is booked: the "
                "confirmation number is TF-629339.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "TableFind was never opened; nothing was booked (step 3)."),
            Verdict(False, "No reservation was made (step 3)."),
            Verdict(False, "No reservation was made, so no seating request was added (step 3)."),
            Verdict(False, "No calendar event was created (step 3)."),
            Verdict(False, "Holly was not invited (step 3)."),
            Verdict(
                False,
                "TF-629339 is the March 28 booking found by the search (step 2), not a new confirmation (step 3).",
            ),
        ],
    ),
    DemoPlan(
        task_id="demo-d009",
        page="hoolicalendar.html",
        turns=[
            Turn("The overdue training should be last week.", click("#prev")),
            Turn(
                "Sensitivity Training is on Thursday, April 9 at 9:00am. Wednesday at 9:00am is the first hour of "
                "your working day, so that is where it goes.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "The agent saw the event in the week view but never opened it (step 1)."),
            Verdict(False, "The event was not moved (step 2)."),
            Verdict(False, "9:00am is not the first free hour: it clashes with the 9:30 standup (step 2)."),
            Verdict(False, "Nothing was rescheduled (step 2)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d010",
        page="hoolicalendar.html",
        turns=[
            Turn(
                "On Friday you only have the 9:30 standup in the morning, which you said to skip, so nothing needs "
                "to move.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "The flight was never checked (step 1)."),
            Verdict(
                False,
                "The Friday 2:00pm team building is on screen (step 1), but the answer says nothing needs to move.",
            ),
            Verdict(False, "Nothing was moved (step 1)."),
            Verdict(False, "No email was sent (step 1)."),
            Verdict(False, "No email was sent (step 1)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d011",
        page="hoolimail.html",
        turns=[
            Turn("The Sandals booking must be in the inbox.", click("#search")),
            Turn("Searching for Sandals.", type_text("Sandals\n")),
            Turn("The newest Sandals mail is at the top. I open it.", click(".mail:has-text('Sandals Resorts')")),
            Turn(
                "Sandals is offering members 30% off, so your stay is flexible: cancel it and you should get the "
                "$1,975 back on your card.",
                DONE,
            ),
        ],
        verdicts=[
            Verdict(False, "The reservation was not cancelled; only a Sandals promotion was read (step 3)."),
            Verdict(False, "Dinoco's refund terms were never read (step 4)."),
            Verdict(False, "The flight was not cancelled (step 4)."),
            Verdict(False, "The calendar was not touched (step 4)."),
            Verdict(False, "The shirt order was not returned (step 4)."),
            Verdict(False, "Jim was not told (step 4)."),
            Verdict(False, "No cancellation confirmation exists to check (step 4)."),
            Verdict(False, "The total leaves out the flight and the shirts, and nothing was cancelled (step 4)."),
        ],
    ),
    DemoPlan(
        task_id="demo-d012",
        page="hoolicalendar.html",
        turns=[
            Turn("The Dundies are on April 30. I go forward.", click("#next")),
            Turn("One more week.", click("#next")),
            Turn("THE DUNDIES is on your calendar for Thursday, April 30 at 6:00pm, so the evening is set.", DONE),
        ],
        verdicts=[
            Verdict(False, "TableFind was never opened (step 3)."),
            Verdict(False, "SprintBoard was never opened (step 3)."),
            Verdict(False, "No trophies were ordered (step 3)."),
            Verdict(False, "No invitation was written (step 3)."),
            Verdict(False, "No invitation was emailed (step 3)."),
            Verdict(False, "Darryl was not asked (step 3)."),
            Verdict(
                False,
                "The agent saw the 6:00pm start in the week view (step 2) but never opened the event to check its end "
                "and place, and there is no booking to compare.",
            ),
        ],
    ),
]
