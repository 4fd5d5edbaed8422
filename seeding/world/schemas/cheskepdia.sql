-- Cheskepdia (cheskepdia): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE properties (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, host TEXT, amenities TEXT,
  nightly_rate REAL, provenance TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  property_id INTEGER REFERENCES properties(id),
  check_in TEXT NOT NULL, check_out TEXT NOT NULL, nights INTEGER NOT NULL, nightly_rate REAL NOT NULL,
  total REAL NOT NULL,
  cancellation_deadline TEXT, guests INTEGER NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
