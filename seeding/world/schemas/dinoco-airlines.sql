-- Dinoco Airlines (dinoco-airlines): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE passengers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, seat_preference TEXT,
  loyalty_program TEXT, loyalty_tier TEXT, miles INTEGER, member_number TEXT, provenance TEXT NOT NULL);
CREATE TABLE flights (id INTEGER PRIMARY KEY, number TEXT NOT NULL, origin TEXT NOT NULL, destination TEXT NOT NULL,
  departs_at TEXT NOT NULL, gate TEXT, provenance TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  passenger_id INTEGER REFERENCES passengers(id),
  flight_id INTEGER REFERENCES flights(id), seat TEXT, fare REAL, status TEXT NOT NULL, booked_on TEXT, provenance TEXT NOT NULL);
CREATE TABLE boarding_passes (id INTEGER PRIMARY KEY, booking_id INTEGER REFERENCES bookings(id),
  barcode TEXT NOT NULL,
  boarding_group TEXT, provenance TEXT NOT NULL);
-- Airports, schedules, fare classes, seat maps, travel credits, loyalty activity, check-in, bags, payments.
CREATE TABLE airports (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL, city TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE routes (id INTEGER PRIMARY KEY, origin TEXT NOT NULL, destination TEXT NOT NULL, miles INTEGER NOT NULL,
  minutes INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE aircraft (id INTEGER PRIMARY KEY, model TEXT NOT NULL UNIQUE, rows_first INTEGER NOT NULL,
  rows_main INTEGER NOT NULL, seats_per_row INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE flight_details (id INTEGER PRIMARY KEY, flight_id INTEGER NOT NULL UNIQUE REFERENCES flights(id),
  arrives_at TEXT NOT NULL, miles INTEGER NOT NULL, aircraft_id INTEGER REFERENCES aircraft(id), status TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE fare_classes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, cabin TEXT NOT NULL, name TEXT NOT NULL,
  refundable INTEGER NOT NULL, change_fee REAL NOT NULL, cancel_policy TEXT NOT NULL, miles_multiplier REAL NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE fares (id INTEGER PRIMARY KEY, flight_id INTEGER NOT NULL REFERENCES flights(id),
  fare_class_id INTEGER NOT NULL REFERENCES fare_classes(id), price REAL NOT NULL, seats_left INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE seats (id INTEGER PRIMARY KEY, flight_id INTEGER NOT NULL REFERENCES flights(id), seat TEXT NOT NULL,
  cabin TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE booking_details (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL UNIQUE REFERENCES bookings(id),
  fare_class_id INTEGER REFERENCES fare_classes(id), checked_in INTEGER NOT NULL, check_in_opens TEXT NOT NULL,
  miles_earned INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE travel_credits (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, amount REAL NOT NULL, balance REAL NOT NULL,
  issued_on TEXT NOT NULL, expires_on TEXT NOT NULL, source_confirmation TEXT, reason TEXT NOT NULL, status TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE loyalty_activity (id INTEGER PRIMARY KEY, passenger_id INTEGER NOT NULL REFERENCES passengers(id),
  posted_on TEXT NOT NULL, description TEXT NOT NULL, miles INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE loyalty_tiers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, qualifying_miles INTEGER NOT NULL,
  perks TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE baggage (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id), tag TEXT NOT NULL,
  kind TEXT NOT NULL, fee REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE payments (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id), paid_on TEXT NOT NULL,
  amount REAL NOT NULL, method TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE segments (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id),
  flight_id INTEGER NOT NULL REFERENCES flights(id), leg TEXT NOT NULL, seat TEXT, provenance TEXT NOT NULL);
