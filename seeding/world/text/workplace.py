"""HooliWork's phrase pools: what each channel talks about, how each colleague leads in and signs off, and
the clients, party themes and occasions the posts are about.
"""

# HooliWork: what each channel talks about (anyone may post) and how people lead in.
WORK_TOPICS = {
    "general": [
        "Fire drill at {time}. This is a drill. Probably.",
        "The {object} is broken again.",
        "Whoever took the last {food} from the fridge: we know.",
        "Conference room is booked at {time}.",
        "Corporate is visiting {day}. Please look busy.",
        "Parking lot gets repainted {day}.",
        "Building maintenance is fixing the {object} at {time}.",
        "Please don't microwave fish.",
        "Reminder: badge in at the front door.",
        "The elevator is out until {day}.",
    ],
    "sales": [
        "Closed the {client} deal. Paper for a year.",
        "Call with {client} moved to {time}.",
        "{client} wants a quote on {n} cases of cardstock.",
        "Who has the {client} account now?",
        "Quarterly numbers are due {day}.",
        "Lost {client} to Staples. Regrouping.",
        "{client} reorder came in, {n} boxes.",
        "Need a second on the {client} call at {time}.",
        "Sales meeting {day} at {time}, bring your pipeline.",
        "Commission report is on the shared drive.",
    ],
    "party-planning-committee": [
        "Theme for {day}: {theme}.",
        "We need {n} balloons for the {occasion}.",
        "Who is bringing the cake for the {occasion}?",
        "Budget for the {occasion} is tight.",
        "Streamers or bunting for the {occasion}?",
        "Please RSVP for the {occasion} by {day}.",
        "Angela has vetoed {theme} again.",
        "Sign the card for the {occasion} at reception.",
    ],
    "random": [
        "Anyone watch the game last night?",
        "Who wants {food} from the vending machine?",
        "There's a bird in the warehouse.",
        "Best pizza in Scranton: go.",
        "Found a {object} in the parking lot.",
        "Is it just me or is it cold in here?",
        "Trivia {day} at Poor Richard's?",
        "Free {food} in the break room.",
        "Who keeps changing the thermostat?",
        "Happy {day} everyone.",
    ],
    "warehouse": [
        "Truck from {client} arrives at {time}.",
        "Forklift is down until {day}.",
        "{n} pallets to load {day}.",
        "Please don't use the baler without training.",
        "Inventory count {day} at {time}.",
    ],
}
WORK_TOPICS.update(
    {
        "accounting": [
            "Expense reports are due {day}.",
            "Please attach receipts to every line.",
            "Petty cash is short by ${n} again.",
            "Invoices for {client} went out {day}.",
            "Budget review {day} at {time}.",
            "Who bought {n} boxes of {object} on the branch card?",
        ],
        "customer-service": [
            "{client} called about a late delivery.",
            "Complaint from {client}: wrong paper weight.",
            "Return request from {client}, {n} cases.",
            "{client} says thank you for the rush order.",
            "Call queue is long today, can someone cover at {time}?",
        ],
        "hr-announcements": [
            "Open enrollment closes {day}.",
            "Mandatory training {day} at {time}.",
            "Please review the updated handbook.",
            "Reminder: no space heaters under desks.",
            "Safety walkthrough {day}.",
            "Please complete your timesheet by {day}.",
        ],
        "corporate": [
            "Quarterly results call {day} at {time}.",
            "New supplier pricing starts {day}.",
            "Stamford will visit {day}.",
            "Regional numbers are posted.",
            "Policy update on travel expenses.",
        ],
        "it-help": [
            "The {object} is offline again.",
            "Password resets {day} at {time}.",
            "Wi-Fi is down in the annex.",
            "Please don't install screensavers.",
            "New laptops arrive {day}.",
        ],
        "dundies-2026": [
            "Nominations close {day}.",
            "Trophy order is {n} Dundies.",
            "Venue update coming {day}.",
            "Category ideas welcome: {topic} award?",
            "Rehearsal {day} at {time}.",
        ],
    }
)

WORK_LEADS = {
    "Michael Scott": ["", "", "Team!", "Okay people.", "Attention everyone.", "Listen up."],
    "Dwight Schrute": ["", "Attention.", "Fact:", "As Assistant to the Regional Manager:", "Important:"],
    "Jim Halpert": ["", "", "Hey all,", "FYI:", "So,"],
    "Pam Beesly": ["", "", "Hi everyone!", "Quick note:", "Reminder:"],
    "Ryan Howard": ["", "", "fyi", "heads up"],
    "Toby Flenderson": ["", "Hi all,", "Just a reminder,", "Per HR policy,"],
    "Darryl Philbin": ["", "", "Warehouse here.", "Heads up,"],
}
WORK_TAILS = [
    "",
    "",
    "",
    "Thanks!",
    "Thank you.",
    "Questions to me.",
    "ASAP please.",
    "No exceptions.",
    "Details to follow.",
    "Let me know.",
    ":)",
    "That is all.",
]
WORK_CLIENTS = [
    "Lackawanna County",
    "Dunmore High School",
    "Blue Cross",
    "Harper Collins",
    "Prince Family Paper",
    "Scranton White Pages",
    "Vance Refrigeration",
    "Stone & Kearney",
    "Pennsylvania Insurance",
    "Bob's Diner",
    "Mercy Hospital",
    "the Scranton Library",
]
PARTY_THEMES = [
    "Hawaiian luau",
    "80s night",
    "casino night",
    "Cinco de Mayo",
    "Hollywood glamour",
    "a beach party",
    "Dundies red carpet",
    "a barbecue",
]
OCCASIONS = ["birthday", "retirement", "Dundies", "Halloween party", "holiday party", "baby shower", "farewell lunch"]
