"""Phrase pools: how each kind of contact writes (by the spec's ``relationship``), what each shared
activity is about, and how Michael himself writes (first person, never about himself in the third).

Pools are combined, never used whole: a message is an opener, a topic sentence and an optional tail,
each drawn from its pool and filled with the situation's facts (day, place, time, thing).
"""

# Michael's openers, by the relationship of the person he writes to ({first} = their first name).
MICHAEL_OPENERS = {
    "close_friend": ["{first}! {first_upper}!", "Jim. Jimothy.", "Buddy.", "Hey bestie.", "Okay {first}, hear me out.",
                     "{first}, you have to see this.", "Quick one for my number two.", ""],
    "loyal_subordinate": ["Dwight.", "{first}, listen carefully.", "Assistant to the regional manager:", "Dwight, focus.",
                          "Okay {first}.", "Hey.", ""],
    "ex_girlfriend": ["Hey Jan!", "Jan. Hi. Hey.", "Hi Jan, no big deal but", "Jan, totally over you, just checking:",
                      "Jan please respond.", "Hey you.", ""],
    "new_love_interest": ["Holly!!", "Hey you!", "Hollyyyy.", "Hi sunshine!", "Guess who.", "Okay so.", ""],
    "mentee": ["Ryan!", "Ry-guy!", "Hey buddy, business idea.", "Ryan, mentor here.", "Yo.", "Hey partner.", ""],
    "hr_representative": ["Toby.", "Why are you the way that you are?", "Toby, this is not an HR matter.", "Ugh. Toby.", ""],
    "office_friend": ["Hey {first}!", "{first}!", "Quick question {first}.", "You are an artist and a warrior.", "Hey hey.", ""],
    "friend": ["Darryl! My brotha!", "Yo D!", "What up dawg.", "Darryl my man.", "Sup.", ""],
    "landlord": ["Hi Arnav,", "Hello Arnav!", "Arnav, friend,", "Good evening Arnav.", ""],
    "old_buddy": ["Packer!", "Todd!", "Hey man.", "Yo Packer.", ""],
    "sister": ["Hey sis!", "Emma!", "Hi Em.", "Little sister!", ""],
}
DEFAULT_OPENERS = ["Hey {first}!", "{first}!", "Hi.", ""]

# What a shared activity is about: Michael's lines about it ({day}, {time}, {place}, {thing} filled in).
ACTIVITY_LINES = {
    "lunch": ["I'm thinking {place} for lunch {day}.", "Lunch at {time}? I'll drive.", "Do you want half my {thing}?",
              "I saved you a seat at {place}.", "Are we doing lunch or are we doing LUNCH?"],
    "work_pranks": ["Someone put my stapler in jello. I know it was you.", "I have a prank idea involving {thing}.",
                    "Do not touch my desk {day}.", "Jell-O is not a filing system.", "I found the {thing}. Not funny. Kind of funny."],
    "movie_quotes": ["You can't handle the truth!", "I'm going to make him an offer he can't refuse.",
                     "Say hello to my little {thing}!", "Frankly my dear, I do give a damn about the {thing}.",
                     "Yippee-ki-yay, {day} is here."],
    "work": ["I need the {thing} numbers by {time}.", "Did the {thing} go out?", "Meet me in the conference room at {time}.",
             "We need to talk about {thing}.", "Who approved the {thing}?"],
    "karaoke": ["Karaoke {day}. I'm doing Islands in the Stream.", "I need a duet partner for {day}.",
                "Did you reserve the karaoke machine for {day}?", "My voice is a {thing}. Warm it up."],
    "improv_audience": ["Class show {day} at {time}. Front row please.", "Can you laugh louder this time?",
                        "I'm doing a scene about a {thing}.", "Bring a sign that says Michael Scarn."],
    "couples_therapy_aftermath": ["I've been doing a lot of work on myself.", "My therapist says I'm healing.",
                                  "I'm fine. Really. Never been better.", "I returned the {thing} you left."],
    "wine_arguments": ["About the {thing}. I think we were both right.", "That wine was not $9, it was $9.99.",
                       "I still have your corkscrew.", "I found a wine you'd hate. Buying it."],
    "movie_nights": ["Movie night {day}? I'll bring the {thing}.", "You pick the movie this time!",
                     "Popcorn or {thing}? Why not both.", "I rented a DVD. Yes a DVD."],
    "improv_jokes": ["Yes, and?", "Okay scene: we're two {thing} salesmen on a boat.", "I have a new character for {day}.",
                     "You be the {thing}, I'll be the police officer."],
    "long_phone_calls": ["Call you at {time}?", "Can we talk tonight? I have so much to tell you.",
                         "I miss your voice already.", "Phone is charged. Ready when you are."],
    "startup_brainstorming": ["Business idea: {thing}, but for dogs.", "What if we disrupted {thing}?",
                              "I wrote a business plan on a napkin at {place}.", "WUPHF 2.0. Think about it.",
                              "Investors love {thing}. I read it."],
    "social_media_help": ["How do I post a story?", "Why does my LockedIn photo look sideways?",
                          "Can you make me a hashtag for the {thing}?", "I got 3 likes. Is that viral?"],
    "mandatory_hr_meetings": ["Is the {thing} meeting mandatory?", "I will not be attending your seminar {day}.",
                              "Please stop putting {thing} flyers on my desk.", "Who complained now?"],
    "office_parties": ["Party planning {day}. I have thoughts about the {thing}.", "Cake for the {thing}? Yes?",
                       "Streamers are not optional.", "Can we get a {thing} this year?"],
    "reception_chats": ["Any messages for me?", "Did corporate call?", "Can you hold my calls till {time}?",
                        "Your {thing} drawing is beautiful. Frame it."],
    "poker_night": ["Poker {day}? I'm bringing chips. Real chips.", "I'm due for a big hand.",
                    "You owe me for the {thing}.", "Bring the good cards this time."],
    "chili_cookoff": ["Is your chili ready for {day}?", "Careful carrying the {thing}.", "Your chili is a work of art."],
    "trivia_night": ["Trivia at {place} {day}?", "What is the capital of {thing}? Asking for trivia.",
                     "We need a team name. I have twelve."],
    "investment_advice_ignored": ["Should I buy more {thing}? Don't answer.", "What's a Roth? Quick version.",
                                  "I'm diversifying into {thing}.", "Is now a good time to sell? Never mind."],
    "music_jams": ["Jam session {day}? I've been practicing my {thing}.", "I wrote a song about the {thing}.",
                   "Can I sit in on keys?"],
    "basketball": ["Pickup game {day} at {time}?", "I've been working on my jump shot.", "Shirts vs skins, we're shirts."],
    "drinks": ["Drinks at {place} {day}?", "First round's on me. Second round's on you.", "Poor Richard's at {time}?"],
    "road_trips": ["Road trip to {place}?", "I made a mix CD for the drive.", "Remember the {thing} in Harrisburg?"],
    "family": ["How's mom?", "I sent you a quote I found: believe in your {thing}.", "Happy {day}!",
               "Are you coming for the holidays?", "Did you get my package with the {thing}?"],
    "catching_up": ["How have you been?", "Long time! What's new?", "Thinking of you, {day}."],
}
THINGS = ["paper", "printer", "pretzels", "cake", "trophy", "memo", "fax", "mug", "stapler", "chili", "jello",
          "quarterly report", "parking lot", "fire drill", "copier", "vending machine", "sales call", "client"]
PLACES = ["Chili's", "Cooper's", "Alfredo's", "Poor Richard's", "the break room", "Hooters", "Benihana", "Dave & Buster's",
          "Vance Refrigeration", "the Steamtown Mall"]
MICHAEL_TAILS = ["", "", "", "That's what she said.", "You're welcome.", "Trust me.", "Boom. Roasted.",
                 "I'm not superstitious, but I am a little stitious.", "Think about it.", "Call me.", "No pressure.",
                 ":)", "Get back to me.", "I declare it."]

# Replies in the contact's voice, by relationship: a lead and an optional second sentence.
REPLY_LEADS = {
    "close_friend": ["Ha.", "Sure.", "On it.", "Michael, it's {time}.", "Maybe.", "Can't, sorry.", "Definitely.",
                     "I'll see what I can do.", "Classic.", "Wow.", "Noted."],
    "loyal_subordinate": ["Understood.", "Affirmative.", "Yes, Michael.", "Question.", "Fact:", "I will handle it personally.",
                          "Already done.", "Identity theft is not a joke.", "Bears. Beets. Battlestar Galactica."],
    "ex_girlfriend": ["No.", "Fine.", "Michael.", "Stop.", "Don't.", "Whatever.", "Seriously?", "Ok.", "Busy."],
    "new_love_interest": ["Haha!!", "Yes!!", "Oh my gosh.", "Stop it, I'm laughing.", "You're the best!",
                          "That's what she said!", "Okay okay okay.", "Yes and!!", "Aww!"],
    "mentee": ["k", "busy", "lol", "maybe", "can't talk", "sure", "what", "later"],
    "hr_representative": ["Thanks, Michael.", "Noted.", "Please see the handbook.", "I'll log that.", "Okay.",
                          "I have to follow up on this.", "That's not appropriate."],
    "office_friend": ["Aw, thanks Michael.", "Sounds good!", "Ha, okay.", "Sure thing.", "Oh no.", "I'm in.",
                      "Let me check.", "Actually,", "Mmm, food.", "Totally."],
    "friend": ["It's 'brother', Michael.", "Okay.", "Nah.", "Sure, man.", "We'll see.", "Not how that works.", "Cool."],
    "landlord": ["Received.", "Noted, thank you.", "I will send someone.", "Rent is due on the 1st.", "Thank you, Michael."],
    "old_buddy": ["Ha! Classic.", "Dude.", "You wish.", "Packer says hi.", "LOL.", "Buy me a beer first."],
    "sister": ["Hi Mike!", "Love you, but", "Did you pay the electric bill?", "Mom says hi.", "Oh Michael.", "Thanks!"],
}
REPLY_SECONDS = {
    "close_friend": ["", "", "Pam says hi.", "Be there in five.", "I'll bring the {thing}.", "What did you do now?",
                     "Dwight's listening, by the way.", "Let's talk after lunch."],
    "loyal_subordinate": ["", "I have prepared a binder on the {thing}.", "I will be there at {time}, early.",
                          "Jim is not qualified for this.", "Permission to lead?", "Mose can help."],
    "ex_girlfriend": ["", "", "", "Don't text me after {time}.", "I have a candle order to fill.", "Ask your lawyer."],
    "new_love_interest": ["", "Bring snacks!", "I'll do the voices.", "Can't wait for {day}!",
                          "You're ridiculous and I love it.", "I made a playlist!"],
    "mentee": ["", "", "", "", "in a meeting"],
    "hr_representative": ["", "I'm documenting this conversation.", "Please come by my office at {time}.",
                          "The form is in your inbox.", "I'm just doing my job."],
    "office_friend": ["", "", "Let's do {day}.", "I brought {thing}.", "Want me to handle it?", "That's a lot, but okay."],
    "friend": ["", "", "Warehouse is slammed.", "Maybe {day}.", "Don't say 'dawg'."],
    "landlord": ["", "", "Please leave the key under the mat.", "The plumber comes {day}."],
    "old_buddy": ["", "", "Drinks {day}.", "Your boss still a stiff?"],
    "sister": ["", "Call mom this weekend.", "Don't forget the {thing}.", "Please eat a vegetable."],
}
DEFAULT_LEADS = ["Ok.", "Sure.", "Thanks!", "Sounds good."]
DEFAULT_SECONDS = ["", "Talk soon."]

# A contact starting a conversation, by relationship.
CONTACT_STARTS = {
    "close_friend": ["Did you take my {thing}?", "Lunch {day}?", "Dwight is at it again.", "Are you in the conference room?"],
    "loyal_subordinate": ["Michael, urgent matter regarding the {thing}.", "I have completed the {thing} audit.",
                          "Requesting a meeting at {time}.", "Jim has moved my desk again."],
    "ex_girlfriend": ["We need to talk about the {thing}.", "Stop posting about me.", "Did you take my candles?"],
    "new_love_interest": ["Thinking about you!", "Guess what I found at {place}!", "Movie {day}??", "Okay I have a bit."],
    "mentee": ["can u cover for me {day}", "need a favor", "do u have a minute"],
    "hr_representative": ["Michael, a quick reminder about the {thing} training.", "Can you stop by at {time}?",
                          "Please sign the form on your desk."],
    "office_friend": ["Michael, do you have a sec?", "Is the {thing} still on for {day}?", "Look what I made!",
                      "Anyone want {thing}?"],
    "friend": ["Need you to sign the {thing} order.", "Truck's late again.", "You coming to the jam {day}?"],
    "landlord": ["Michael, the inspection is {day} at {time}.", "Reminder: rent is due on the 1st.",
                 "The water will be off {day} morning."],
    "old_buddy": ["Saw this and thought of you.", "Drinks {day}?", "You still at the paper place?"],
    "sister": ["Did you call mom?", "Photos from the weekend!", "Reminder: the {thing} bill is due.",
               "Are you eating okay?"],
}
MICHAEL_FOLLOWUPS = ["Great. See you then.", "Perfect. I'll bring the {thing}.", "Okay, I'll handle it.",
                     "I knew you'd say that.", "Fine. I'll do it myself.", "Best. Day. Ever.",
                     "I'll take that as a yes.", "Noted. By me.", "Ok I'm on my way.", "Love it.",
                     "I'll call you at {time}.", "Let's circle back {day}."]

# HooliWork: what each channel talks about (anyone may post) and how people lead in.
WORK_TOPICS = {
    "general": ["Fire drill at {time}. This is a drill. Probably.", "The {thing} is broken again.",
                "Whoever took the last {thing} from the fridge: we know.", "Conference room is booked at {time}.",
                "Corporate is visiting {day}. Please look busy.", "Parking lot gets repainted {day}.",
                "Building maintenance is fixing the {thing} at {time}.", "Please don't microwave fish.",
                "Reminder: badge in at the front door.", "The elevator is out until {day}."],
    "sales": ["Closed the {client} deal. Paper for a year.", "Call with {client} moved to {time}.",
              "{client} wants a quote on {n} cases of cardstock.", "Who has the {client} account now?",
              "Quarterly numbers are due {day}.", "Lost {client} to Staples. Regrouping.",
              "{client} reorder came in, {n} boxes.", "Need a second on the {client} call at {time}.",
              "Sales meeting {day} at {time}, bring your pipeline.", "Commission report is on the shared drive."],
    "party-planning-committee": ["Theme for {day}: {theme}.", "We need {n} balloons for the {occasion}.",
                                 "Who is bringing the cake for the {occasion}?", "Budget for the {occasion} is tight.",
                                 "Streamers or bunting for the {occasion}?", "Please RSVP for the {occasion} by {day}.",
                                 "Angela has vetoed {theme} again.", "Sign the card for the {occasion} at reception."],
    "random": ["Anyone watch the game last night?", "Who wants {thing} from the vending machine?",
               "There's a bird in the warehouse.", "Best pizza in Scranton: go.", "Found a {thing} in the parking lot.",
               "Is it just me or is it cold in here?", "Trivia {day} at Poor Richard's?", "Free {thing} in the break room.",
               "Who keeps changing the thermostat?", "Happy {day} everyone."],
    "warehouse": ["Truck from {client} arrives at {time}.", "Forklift is down until {day}.", "{n} pallets to load {day}.",
                  "Please don't use the baler without training.", "Inventory count {day} at {time}."],
}
WORK_LEADS = {
    "Michael Scott": ["", "", "Team!", "Okay people.", "Attention everyone.", "Listen up."],
    "Dwight Schrute": ["", "Attention.", "Fact:", "As Assistant to the Regional Manager:", "Important:"],
    "Jim Halpert": ["", "", "Hey all,", "FYI:", "So,"],
    "Pam Beesly": ["", "", "Hi everyone!", "Quick note:", "Reminder:"],
    "Ryan Howard": ["", "", "fyi", "heads up"],
    "Toby Flenderson": ["", "Hi all,", "Just a reminder,", "Per HR policy,"],
    "Darryl Philbin": ["", "", "Warehouse here.", "Heads up,"],
}
WORK_TAILS = ["", "", "", "Thanks!", "Thank you.", "Questions to me.", "ASAP please.", "No exceptions.",
              "Details to follow.", "Let me know.", ":)", "That is all."]
WORK_CLIENTS = ["Lackawanna County", "Dunmore High School", "Blue Cross", "Harper Collins", "Prince Family Paper",
                "Scranton White Pages", "Vance Refrigeration", "Stone & Kearney", "Pennsylvania Insurance",
                "Bob's Diner", "Mercy Hospital", "the Scranton Library"]
PARTY_THEMES = ["Hawaiian luau", "80s night", "casino night", "Cinco de Mayo", "Hollywood glamour", "a beach party",
                "Dundies red carpet", "a barbecue"]
OCCASIONS = ["birthday", "retirement", "Dundies", "Halloween party", "holiday party", "baby shower", "farewell lunch"]
