-- TableFind (tablefind): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, cuisine TEXT, neighborhood TEXT,
  provenance TEXT NOT NULL);
CREATE TABLE reservations (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  restaurant_id INTEGER REFERENCES restaurants(id),
  reserved_for TEXT NOT NULL, party_size INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, occasion TEXT,
  deposit REAL, provenance TEXT NOT NULL);
-- Slot inventory (free / held / booked, holds expire), reviews, waitlists, favourites and saved lists.
CREATE TABLE slots (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  starts_at TEXT NOT NULL, seats INTEGER NOT NULL, area TEXT NOT NULL, status TEXT NOT NULL, held_until TEXT,
  reservation_id INTEGER REFERENCES reservations(id), provenance TEXT NOT NULL);
CREATE TABLE restaurant_details (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL UNIQUE REFERENCES restaurants(id),
  address TEXT NOT NULL, phone TEXT, price_band TEXT NOT NULL, rating REAL NOT NULL, review_count INTEGER NOT NULL,
  max_party INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE restaurant_hours (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  weekday TEXT NOT NULL, opens TEXT NOT NULL, closes TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  author TEXT NOT NULL, rating INTEGER NOT NULL, body TEXT NOT NULL, visited_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE waitlist_entries (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  wanted_at TEXT NOT NULL, party_size INTEGER NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE favorites (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  added_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE saved_lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE saved_list_items (id INTEGER PRIMARY KEY, list_id INTEGER NOT NULL REFERENCES saved_lists(id),
  restaurant_id INTEGER NOT NULL REFERENCES restaurants(id), provenance TEXT NOT NULL);
CREATE TABLE special_requests (id INTEGER PRIMARY KEY, reservation_id INTEGER NOT NULL REFERENCES reservations(id),
  request TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE offers (id INTEGER PRIMARY KEY, restaurant_id INTEGER NOT NULL REFERENCES restaurants(id),
  title TEXT NOT NULL, weekdays TEXT NOT NULL, provenance TEXT NOT NULL);
