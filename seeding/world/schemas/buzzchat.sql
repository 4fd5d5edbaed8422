-- HooliChat (buzzchat): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, relationship TEXT,
  status_text TEXT, provenance TEXT NOT NULL);
CREATE TABLE channels (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT, provenance TEXT NOT NULL);
CREATE TABLE channel_members (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  user_id INTEGER NOT NULL REFERENCES users(id), provenance TEXT NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  sender_id INTEGER NOT NULL REFERENCES users(id), sent_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE INDEX messages_channel_time ON messages (channel_id, sent_at);
