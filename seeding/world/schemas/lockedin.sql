-- LockedIn (lockedin): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE profile (id INTEGER PRIMARY KEY, name TEXT NOT NULL, headline TEXT, about TEXT, location TEXT, provenance TEXT NOT NULL);
CREATE TABLE experience (id INTEGER PRIMARY KEY, company TEXT NOT NULL, title TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE connections (id INTEGER PRIMARY KEY, name TEXT NOT NULL, relationship TEXT, provenance TEXT NOT NULL);
