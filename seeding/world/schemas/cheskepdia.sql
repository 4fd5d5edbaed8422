-- Cheskepdia (cheskepdia): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE properties (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, host TEXT, amenities TEXT,
  nightly_rate REAL, provenance TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  property_id INTEGER REFERENCES properties(id),
  check_in TEXT NOT NULL, check_out TEXT NOT NULL, nights INTEGER NOT NULL, nightly_rate REAL NOT NULL,
  total REAL NOT NULL,
  cancellation_deadline TEXT, guests INTEGER NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
-- Property detail, nightly availability, reviews, saved trips, host messages, payments and price breakdowns.
CREATE TABLE property_details (id INTEGER PRIMARY KEY, property_id INTEGER NOT NULL UNIQUE REFERENCES properties(id),
  kind TEXT NOT NULL, address TEXT, bedrooms INTEGER NOT NULL, max_guests INTEGER NOT NULL, rating REAL NOT NULL,
  review_count INTEGER NOT NULL, cancellation_policy TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE property_amenities (id INTEGER PRIMARY KEY, property_id INTEGER NOT NULL REFERENCES properties(id),
  amenity TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE photos (id INTEGER PRIMARY KEY, property_id INTEGER NOT NULL REFERENCES properties(id), caption TEXT NOT NULL,
  position INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE availability (id INTEGER PRIMARY KEY, property_id INTEGER NOT NULL REFERENCES properties(id),
  night TEXT NOT NULL, available INTEGER NOT NULL, rate REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, property_id INTEGER NOT NULL REFERENCES properties(id), author TEXT NOT NULL,
  rating INTEGER NOT NULL, body TEXT NOT NULL, stayed_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE saved_trips (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE saved_trip_items (id INTEGER PRIMARY KEY, trip_id INTEGER NOT NULL REFERENCES saved_trips(id),
  property_id INTEGER NOT NULL REFERENCES properties(id), provenance TEXT NOT NULL);
CREATE TABLE host_messages (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id),
  sender TEXT NOT NULL, sent_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE price_breakdowns (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id),
  line TEXT NOT NULL, amount REAL NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE payments (id INTEGER PRIMARY KEY, booking_id INTEGER NOT NULL REFERENCES bookings(id), paid_on TEXT NOT NULL,
  amount REAL NOT NULL, method TEXT NOT NULL, provenance TEXT NOT NULL);
