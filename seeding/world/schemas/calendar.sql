-- HooliCalendar (calendar): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE calendars (id INTEGER PRIMARY KEY, name TEXT NOT NULL, color TEXT, provenance TEXT NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY, calendar_id INTEGER NOT NULL REFERENCES calendars(id),
  uid TEXT NOT NULL UNIQUE,
  summary TEXT NOT NULL, description TEXT, location TEXT, start_at TEXT NOT NULL, end_at TEXT NOT NULL,
  all_day INTEGER NOT NULL, rrule TEXT, reminder_minutes INTEGER, color TEXT, visibility TEXT, provenance TEXT NOT NULL);
CREATE INDEX events_start ON events (start_at);
CREATE TABLE attendees (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id), name TEXT NOT NULL,
  email TEXT, response TEXT, organizer INTEGER, provenance TEXT NOT NULL);
CREATE TABLE settings (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT, provenance TEXT NOT NULL);
CREATE TABLE reminders (id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL REFERENCES events(id), method TEXT NOT NULL,
  minutes_before INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE colors (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, hex TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE working_hours (id INTEGER PRIMARY KEY, weekday TEXT NOT NULL, starts TEXT NOT NULL, ends TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, name TEXT NOT NULL, url TEXT NOT NULL, color TEXT, provenance TEXT NOT NULL);
