-- Dinoco Airlines (dinoco-airlines): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE passengers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, seat_preference TEXT,
  loyalty_program TEXT, loyalty_tier TEXT, miles INTEGER, provenance TEXT NOT NULL);
CREATE TABLE flights (id INTEGER PRIMARY KEY, number TEXT NOT NULL, origin TEXT NOT NULL, destination TEXT NOT NULL,
  departs_at TEXT NOT NULL, gate TEXT, provenance TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  passenger_id INTEGER REFERENCES passengers(id),
  flight_id INTEGER REFERENCES flights(id), seat TEXT, fare REAL, status TEXT NOT NULL, booked_on TEXT, provenance TEXT NOT NULL);
CREATE TABLE boarding_passes (id INTEGER PRIMARY KEY, booking_id INTEGER REFERENCES bookings(id),
  barcode TEXT NOT NULL,
  boarding_group TEXT, provenance TEXT NOT NULL);
