-- LockedIn (lockedin): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE profile (id INTEGER PRIMARY KEY, name TEXT NOT NULL, headline TEXT, about TEXT, location TEXT, provenance TEXT NOT NULL);
CREATE TABLE experience (id INTEGER PRIMARY KEY, company TEXT NOT NULL, title TEXT NOT NULL, location TEXT, started TEXT,
  ended TEXT, description TEXT, provenance TEXT NOT NULL);
CREATE TABLE connections (id INTEGER PRIMARY KEY, name TEXT NOT NULL, relationship TEXT, headline TEXT, company TEXT,
  connected_on TEXT, provenance TEXT NOT NULL);
CREATE TABLE skills (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE endorsements (id INTEGER PRIMARY KEY, skill_id INTEGER NOT NULL REFERENCES skills(id),
  connection_id INTEGER NOT NULL REFERENCES connections(id), endorsed_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE education (id INTEGER PRIMARY KEY, school TEXT NOT NULL, degree TEXT, years TEXT, provenance TEXT NOT NULL);
CREATE TABLE posts (id INTEGER PRIMARY KEY, posted_at TEXT NOT NULL, body TEXT NOT NULL, impressions INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE reactions (id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL REFERENCES posts(id),
  connection_id INTEGER REFERENCES connections(id), kind TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE comments (id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL REFERENCES posts(id),
  connection_id INTEGER REFERENCES connections(id), commented_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE invitations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, headline TEXT, direction TEXT NOT NULL,
  sent_on TEXT NOT NULL, status TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE conversations (id INTEGER PRIMARY KEY, connection_id INTEGER NOT NULL REFERENCES connections(id),
  provenance TEXT NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, conversation_id INTEGER NOT NULL REFERENCES conversations(id),
  sender TEXT NOT NULL, sent_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE companies (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, industry TEXT, city TEXT, provenance TEXT NOT NULL);
CREATE TABLE jobs (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL REFERENCES companies(id), title TEXT NOT NULL,
  location TEXT, posted_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE saved_jobs (id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL REFERENCES jobs(id), saved_on TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE profile_views (id INTEGER PRIMARY KEY, viewer TEXT NOT NULL, viewed_on TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE notifications (id INTEGER PRIMARY KEY, sent_at TEXT NOT NULL, message TEXT NOT NULL, read INTEGER NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE feed_posts (id INTEGER PRIMARY KEY, connection_id INTEGER NOT NULL REFERENCES connections(id),
  posted_at TEXT NOT NULL, body TEXT NOT NULL, likes INTEGER NOT NULL, liked_by_me INTEGER NOT NULL, provenance TEXT NOT NULL);
