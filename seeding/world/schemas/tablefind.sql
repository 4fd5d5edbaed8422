-- TableFind (tablefind): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE restaurants (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT, cuisine TEXT, neighborhood TEXT,
  provenance TEXT NOT NULL);
CREATE TABLE reservations (id INTEGER PRIMARY KEY, confirmation TEXT NOT NULL UNIQUE,
  restaurant_id INTEGER REFERENCES restaurants(id),
  reserved_for TEXT NOT NULL, party_size INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, occasion TEXT,
  deposit REAL, provenance TEXT NOT NULL);
