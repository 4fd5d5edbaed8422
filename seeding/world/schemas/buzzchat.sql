-- HooliChat (buzzchat): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, relationship TEXT,
  status_text TEXT, provenance TEXT NOT NULL);
CREATE TABLE channels (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT, provenance TEXT NOT NULL);
CREATE TABLE channel_members (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  user_id INTEGER NOT NULL REFERENCES users(id), provenance TEXT NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  sender_id INTEGER NOT NULL REFERENCES users(id), sent_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE INDEX messages_channel_time ON messages (channel_id, sent_at);
CREATE TABLE reactions (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  user_id INTEGER NOT NULL REFERENCES users(id), emoji TEXT NOT NULL, reacted_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE mentions (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  user_id INTEGER NOT NULL REFERENCES users(id), provenance TEXT NOT NULL);
CREATE TABLE read_state (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  user_id INTEGER NOT NULL REFERENCES users(id), last_read_message_id INTEGER REFERENCES messages(id), last_read_at TEXT,
  provenance TEXT NOT NULL);
CREATE TABLE channel_settings (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  muted INTEGER NOT NULL, notifications TEXT NOT NULL, favorite INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE pins (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  message_id INTEGER NOT NULL REFERENCES messages(id), pinned_by INTEGER REFERENCES users(id), pinned_at TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE presence (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), status TEXT NOT NULL,
  last_seen_at TEXT, provenance TEXT NOT NULL);
CREATE TABLE message_reads (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  user_id INTEGER NOT NULL REFERENCES users(id), read_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE quoted_replies (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  quoted_message_id INTEGER NOT NULL REFERENCES messages(id), provenance TEXT NOT NULL);
CREATE TABLE attachments (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id), kind TEXT NOT NULL,
  filename TEXT NOT NULL, duration_seconds INTEGER, provenance TEXT NOT NULL);
CREATE TABLE calls (id INTEGER PRIMARY KEY, caller_id INTEGER NOT NULL REFERENCES users(id),
  callee_id INTEGER NOT NULL REFERENCES users(id), started_at TEXT NOT NULL, duration_seconds INTEGER NOT NULL,
  kind TEXT NOT NULL, missed INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE contacts (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), nickname TEXT,
  favorite INTEGER NOT NULL, birthday TEXT, provenance TEXT NOT NULL);
