"""The 17 web apps: internal names, display names, hosts, and the SQLite schema of each (ours).

Every data table has a ``provenance`` column naming the spec section or event that produced the row.
``EVENT_TABLES`` says, per app, where a fanned-out event lands and which columns hold its date, amount
and confirmation code, so the checker can compare an event across apps.
"""

APPS = {
    "vaultbank": "Gringotts",
    "buzzchat": "HooliChat",
    "workbuzz": "HooliWork",
    "mail": "HooliMail",
    "calendar": "HooliCalendar",
    "dinoco-airlines": "Dinoco Airlines",
    "kwik-e-mart": "Kwik-E-Mart",
    "hoolishop": "HooliShop",
    "hangrydash": "HangryDash",
    "tablefind": "TableFind",
    "etaxi": "eTaxi",
    "cheskepdia": "Cheskepdia",
    "oddsmarket": "OddsMarket",
    "sprintboard": "SprintBoard",
    "lockedin": "LockedIn",
    "batbucks": "BatBucks",
    "speedtax": "SpeedTax",
}
# Spec aliases for the same app.
ALIASES = {"hoolicalendar": "calendar", "email": "mail"}


def canonical(app: str) -> str:
    return ALIASES.get(app, app)


def host(app: str) -> str:
    """Each app gets its own host name, so cookies stay per app (ports would share one cookie jar)."""
    return f"{app}.localhost"


def app_domain(app: str) -> str:
    """The mail domain an app's messages come from (``noreply@<app>.example``)."""
    return f"{app}.example"


def db_path(app: str) -> str:
    return f"apps/{app}.sqlite"


P = "provenance TEXT NOT NULL"

SCHEMAS = {
    "vaultbank": f"""
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, address TEXT, {P});
CREATE TABLE accounts (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), kind TEXT NOT NULL,
  name TEXT NOT NULL, network TEXT, number_last4 TEXT NOT NULL, opening_balance REAL NOT NULL, balance REAL NOT NULL,
  credit_limit REAL, {P});
CREATE TABLE transactions (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id),
  posted_date TEXT NOT NULL, description TEXT NOT NULL, merchant TEXT, category TEXT, amount REAL NOT NULL,
  balance_after REAL NOT NULL, method TEXT, reference TEXT, {P});
CREATE INDEX transactions_account_date ON transactions (account_id, posted_date);
CREATE TABLE statements (id INTEGER PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts(id),
  period_start TEXT NOT NULL, period_end TEXT NOT NULL, opening_balance REAL NOT NULL, closing_balance REAL NOT NULL,
  total_credits REAL NOT NULL, total_debits REAL NOT NULL, {P});
CREATE TABLE recurring_payments (id INTEGER PRIMARY KEY, account_id INTEGER REFERENCES accounts(id),
  name TEXT NOT NULL,
  payee TEXT, amount REAL NOT NULL, day_of_month INTEGER NOT NULL, method TEXT NOT NULL, status TEXT NOT NULL, {P});
""",
    "buzzchat": f"""
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, relationship TEXT,
  status_text TEXT, {P});
CREATE TABLE channels (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT, {P});
CREATE TABLE channel_members (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  user_id INTEGER NOT NULL REFERENCES users(id), {P});
CREATE TABLE messages (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  sender_id INTEGER NOT NULL REFERENCES users(id), sent_at TEXT NOT NULL, body TEXT NOT NULL, {P});
CREATE INDEX messages_channel_time ON messages (channel_id, sent_at);
""",
    "mail": f"""
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, {P});
CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, {P});
CREATE TABLE threads (id INTEGER PRIMARY KEY, subject TEXT NOT NULL, first_date TEXT, last_date TEXT,
  message_count INTEGER NOT NULL, {P});
CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT NOT NULL UNIQUE,
  thread_id INTEGER REFERENCES threads(id),
  in_reply_to TEXT, folder TEXT NOT NULL, from_name TEXT, from_addr TEXT NOT NULL, to_addr TEXT NOT NULL,
  subject TEXT NOT NULL, sent_at TEXT NOT NULL, body TEXT NOT NULL, is_read INTEGER NOT NULL, label TEXT,
  maildir_key TEXT NOT NULL, {P});
CREATE INDEX messages_sent ON messages (sent_at);
CREATE TABLE settings (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT, {P});
""",
    "calendar": f"""
CREATE TABLE calendars (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT, {P});
CREATE TABLE events (id INTEGER PRIMARY KEY, calendar_id INTEGER NOT NULL REFERENCES calendars(id),
  uid TEXT NOT NULL UNIQUE,
  summary TEXT NOT NULL, description TEXT, location TEXT, start_at TEXT NOT NULL, end_at TEXT NOT NULL,
  all_day INTEGER NOT NULL, rrule TEXT, reminder_minutes INTEGER, {P});
CREATE INDEX events_start ON events (start_at);
CREATE TABLE attendees (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id), name TEXT NOT NULL,
  email TEXT, {P});
CREATE TABLE settings (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT, {P});
""",
    "dinoco-airlines": f"""
CREATE TABLE passengers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, seat_preference TEXT,
  loyalty_program TEXT, loyalty_tier TEXT, miles INTEGER, {P});
CREATE TABLE flights (id INTEGER PRIMARY KEY, number TEXT NOT NULL, origin TEXT NOT NULL, destination TEXT NOT NULL,
  departs_at TEXT NOT NULL, gate TEXT, {P});
CREATE TABLE bookings (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  passenger_id INTEGER REFERENCES passengers(id),
  flight_id INTEGER REFERENCES flights(id), seat TEXT, fare REAL, status TEXT NOT NULL, booked_on TEXT, {P});
CREATE TABLE boarding_passes (id INTEGER PRIMARY KEY, booking_id INTEGER REFERENCES bookings(id),
  barcode TEXT NOT NULL,
  boarding_group TEXT, {P});
""",
    "kwik-e-mart": f"""
CREATE TABLE stores (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, {P});
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL, category TEXT, {P});
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE,
  store_id INTEGER REFERENCES stores(id),
  placed_at TEXT NOT NULL, delivery_instructions TEXT, subtotal REAL NOT NULL, tip REAL NOT NULL, total REAL NOT NULL,
  status TEXT NOT NULL, {P});
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), name TEXT NOT NULL,
  quantity INTEGER NOT NULL, price REAL NOT NULL, {P});
""",
    "hoolishop": f"""
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, category TEXT, price REAL NOT NULL, {P});
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE, placed_at TEXT NOT NULL,
  status TEXT NOT NULL,
  total REAL NOT NULL, note TEXT, {P});
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id),
  product_id INTEGER NOT NULL REFERENCES products(id), quantity INTEGER NOT NULL, price REAL NOT NULL, {P});
CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, product_id INTEGER REFERENCES products(id),
  frequency TEXT NOT NULL,
  price REAL NOT NULL, status TEXT NOT NULL, {P});
CREATE TABLE wishlist (id INTEGER PRIMARY KEY, product_id INTEGER REFERENCES products(id), note TEXT, {P});
""",
    "hangrydash": f"""
CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, cuisine TEXT, {P});
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE,
  restaurant_id INTEGER REFERENCES restaurants(id),
  placed_at TEXT NOT NULL, subtotal REAL NOT NULL, tip REAL NOT NULL, total REAL NOT NULL, status TEXT NOT NULL, {P});
CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), name TEXT NOT NULL,
  quantity INTEGER NOT NULL, price REAL NOT NULL, {P});
""",
    "tablefind": f"""
CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, cuisine TEXT, neighborhood TEXT,
  {P});
CREATE TABLE reservations (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  restaurant_id INTEGER REFERENCES restaurants(id),
  reserved_for TEXT NOT NULL, party_size INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, occasion TEXT,
  deposit REAL, {P});
""",
    "etaxi": f"""
CREATE TABLE rides (id INTEGER PRIMARY KEY, ride_code TEXT NOT NULL UNIQUE, requested_at TEXT NOT NULL,
  pickup TEXT NOT NULL,
  dropoff TEXT NOT NULL, car_type TEXT NOT NULL, driver TEXT NOT NULL, fare REAL NOT NULL, tip REAL NOT NULL,
  total REAL NOT NULL, rating INTEGER, status TEXT NOT NULL, {P});
""",
    "cheskepdia": f"""
CREATE TABLE properties (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, host TEXT, amenities TEXT,
  nightly_rate REAL, {P});
CREATE TABLE bookings (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  property_id INTEGER REFERENCES properties(id),
  check_in TEXT NOT NULL, check_out TEXT NOT NULL, nights INTEGER NOT NULL, nightly_rate REAL NOT NULL,
  total REAL NOT NULL,
  cancellation_deadline TEXT, guests INTEGER NOT NULL, status TEXT NOT NULL, {P});
""",
    "oddsmarket": f"""
CREATE TABLE account (id INTEGER PRIMARY KEY, balance REAL NOT NULL, total_invested REAL NOT NULL,
  net_pnl REAL NOT NULL, {P});
CREATE TABLE markets (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, title TEXT NOT NULL, source TEXT, {P});
CREATE TABLE positions (id INTEGER PRIMARY KEY, market_id INTEGER REFERENCES markets(id), side TEXT NOT NULL,
  shares INTEGER NOT NULL, avg_price REAL NOT NULL, note TEXT, {P});
CREATE TABLE watchlist (id INTEGER PRIMARY KEY, title TEXT NOT NULL, {P});
""",
    "sprintboard": f"""
CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL, deadline TEXT, {P});
CREATE TABLE members (id INTEGER PRIMARY KEY, project_id INTEGER REFERENCES projects(id), name TEXT NOT NULL, {P});
CREATE TABLE tasks (id INTEGER PRIMARY KEY, project_id INTEGER REFERENCES projects(id), title TEXT NOT NULL,
  assignee TEXT,
  status TEXT NOT NULL, due TEXT, estimate TEXT, {P});
""",
    "lockedin": f"""
CREATE TABLE profile (id INTEGER PRIMARY KEY, name TEXT NOT NULL, headline TEXT, about TEXT, location TEXT, {P});
CREATE TABLE experience (id INTEGER PRIMARY KEY, company TEXT NOT NULL, title TEXT NOT NULL, {P});
CREATE TABLE connections (id INTEGER PRIMARY KEY, name TEXT NOT NULL, relationship TEXT, {P});
""",
    "batbucks": f"""
CREATE TABLE account (id INTEGER PRIMARY KEY, cash_balance REAL NOT NULL, {P});
CREATE TABLE holdings (id INTEGER PRIMARY KEY, ticker TEXT NOT NULL UNIQUE, name TEXT, shares REAL NOT NULL,
  avg_cost REAL NOT NULL,
  cost_basis REAL NOT NULL, note TEXT, {P});
CREATE TABLE orders (id INTEGER PRIMARY KEY, placed_on TEXT NOT NULL, action TEXT NOT NULL, ticker TEXT NOT NULL,
  shares REAL NOT NULL, price REAL NOT NULL, total REAL NOT NULL, {P});
CREATE TABLE dividends (id INTEGER PRIMARY KEY, paid_on TEXT NOT NULL, ticker TEXT NOT NULL,
  amount REAL NOT NULL, {P});
""",
    "speedtax": f"""
CREATE TABLE returns (id INTEGER PRIMARY KEY, tax_year INTEGER NOT NULL, state_code TEXT, status TEXT NOT NULL, {P});
CREATE TABLE w2_forms (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), employer TEXT NOT NULL,
  gross_wages REAL NOT NULL, federal_withheld REAL NOT NULL, state_withheld REAL NOT NULL, pretax_401k REAL NOT NULL,
  pretax_health REAL NOT NULL, net_pay REAL NOT NULL, state TEXT, {P});
CREATE TABLE forms_1099 (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), payer TEXT NOT NULL,
  amount REAL NOT NULL, paid_via TEXT, {P});
CREATE TABLE deductions (id INTEGER PRIMARY KEY, return_id INTEGER REFERENCES returns(id), kind TEXT NOT NULL,
  description TEXT NOT NULL, amount REAL, receipt_exists INTEGER, {P});
CREATE TABLE paystubs (id INTEGER PRIMARY KEY, pay_date TEXT NOT NULL, gross REAL NOT NULL,
  federal_withholding REAL NOT NULL,
  state_withholding REAL NOT NULL, retirement_401k REAL NOT NULL, health REAL NOT NULL, net REAL NOT NULL, {P});
""",
}
SCHEMAS["workbuzz"] = (
    SCHEMAS["buzzchat"]
    + f"""
CREATE TABLE user_status (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), emoji TEXT, text TEXT, {P});
CREATE TABLE preferences (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT, {P});
"""
)

# app -> (table, date column, amount column or None, code column or None)
EVENT_TABLES = {
    "vaultbank": ("transactions", "posted_date", "amount", None),
    "buzzchat": ("messages", "sent_at", None, None),
    "workbuzz": ("messages", "sent_at", None, None),
    "mail": ("messages", "sent_at", None, None),
    "calendar": ("events", "start_at", None, None),
    "dinoco-airlines": ("bookings", "booked_on", "fare", "confirmation"),
    "kwik-e-mart": ("orders", "placed_at", "total", "order_number"),
    "hoolishop": ("orders", "placed_at", "total", "order_number"),
    "hangrydash": ("orders", "placed_at", "total", "order_number"),
    "tablefind": ("reservations", "reserved_for", None, "confirmation"),
    "etaxi": ("rides", "requested_at", "total", "ride_code"),
    "cheskepdia": ("bookings", "check_in", "total", "confirmation"),
}

# Figure 1 of the paper: record volumes of the seeded world. metric -> (target, where counted).
TARGETS = {
    "bank_transactions": (1812, [("vaultbank", "transactions")]),
    "emails": (2398, [("mail", "messages")]),
    "calendar_events": (679, [("calendar", "events")]),
    "chat_and_workplace_messages": (2526, [("buzzchat", "messages"), ("workbuzz", "messages")]),
    "rideshare_requests": (126, [("etaxi", "rides")]),
    "food_delivery_orders": (402, [("hangrydash", "orders")]),
    "retail_orders": (155, [("hoolishop", "orders")]),
    "grocery_orders": (29, [("kwik-e-mart", "orders")]),
    "restaurant_reservations": (32, [("tablefind", "reservations")]),
    "bookmarks": (35, [("firefox", "bookmarks")]),
    "history_visits": (10746, [("firefox", "visits")]),
}


def target(ctx, metric: str) -> int:
    """The volume a build aims at for ``metric``: the spec's ``volume`` entry, else Figure 1's."""
    volume = ctx.persona.spec.get("volume", {})
    return int(volume.get(metric, TARGETS[metric][0]))
