-- eTaxi (etaxi): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE rides (id INTEGER PRIMARY KEY, ride_code TEXT NOT NULL UNIQUE, requested_at TEXT NOT NULL,
  pickup TEXT NOT NULL,
  dropoff TEXT NOT NULL, car_type TEXT NOT NULL, driver TEXT NOT NULL, fare REAL NOT NULL, tip REAL NOT NULL,
  total REAL NOT NULL, rating INTEGER, status TEXT NOT NULL, provenance TEXT NOT NULL);
-- Saved places, cards, ride options with their waits, promotions, receipts and each ride's timeline.
CREATE TABLE saved_locations (id INTEGER PRIMARY KEY, label TEXT NOT NULL, address TEXT NOT NULL, created_at TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE payment_methods (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, label TEXT NOT NULL, last4 TEXT,
  is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE car_types (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, seats INTEGER NOT NULL, base_fare REAL NOT NULL,
  per_mile REAL NOT NULL, per_minute REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE ride_options (id INTEGER PRIMARY KEY, route TEXT NOT NULL, car_type_id INTEGER NOT NULL REFERENCES car_types(id),
  price REAL NOT NULL, wait_minutes INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE drivers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, car TEXT NOT NULL, plate TEXT NOT NULL,
  rating REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE promotions (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, description TEXT NOT NULL, percent_off REAL,
  valid_to TEXT NOT NULL, used INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE receipts (id INTEGER PRIMARY KEY, ride_id INTEGER NOT NULL REFERENCES rides(id), base_fare REAL NOT NULL,
  distance_miles REAL NOT NULL, minutes INTEGER NOT NULL, fees REAL NOT NULL, tip REAL NOT NULL, total REAL NOT NULL,
  payment_method_id INTEGER REFERENCES payment_methods(id), provenance TEXT NOT NULL);
CREATE TABLE ride_events (id INTEGER PRIMARY KEY, ride_id INTEGER NOT NULL REFERENCES rides(id), happened_at TEXT NOT NULL,
  status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE scheduled_rides (id INTEGER PRIMARY KEY, pickup_at TEXT NOT NULL, pickup TEXT NOT NULL, dropoff TEXT NOT NULL,
  car_type TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
