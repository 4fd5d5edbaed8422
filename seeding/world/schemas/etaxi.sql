-- eTaxi (etaxi): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE rides (id INTEGER PRIMARY KEY, ride_code TEXT NOT NULL UNIQUE, requested_at TEXT NOT NULL,
  pickup TEXT NOT NULL,
  dropoff TEXT NOT NULL, car_type TEXT NOT NULL, driver TEXT NOT NULL, fare REAL NOT NULL, tip REAL NOT NULL,
  total REAL NOT NULL, rating INTEGER, status TEXT NOT NULL, provenance TEXT NOT NULL);
