-- HooliWork (workbuzz): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, phone TEXT, relationship TEXT,
  status_text TEXT, provenance TEXT NOT NULL);
CREATE TABLE channels (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT NOT NULL, created_at TEXT, provenance TEXT NOT NULL);
CREATE TABLE channel_members (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  user_id INTEGER NOT NULL REFERENCES users(id), provenance TEXT NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  sender_id INTEGER NOT NULL REFERENCES users(id), sent_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE INDEX messages_channel_time ON messages (channel_id, sent_at);

CREATE TABLE preferences (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT, provenance TEXT NOT NULL);
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
CREATE TABLE workspace (id INTEGER PRIMARY KEY, name TEXT NOT NULL, domain TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE channel_topics (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id), topic TEXT NOT NULL,
  set_by INTEGER REFERENCES users(id), set_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE message_threads (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  parent_message_id INTEGER NOT NULL REFERENCES messages(id), provenance TEXT NOT NULL);
CREATE TABLE saved_items (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id), saved_at TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE files (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  channel_id INTEGER NOT NULL REFERENCES channels(id), filename TEXT NOT NULL, size INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE reminders (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), text TEXT NOT NULL,
  remind_at TEXT NOT NULL, done INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE huddles (id INTEGER PRIMARY KEY, channel_id INTEGER NOT NULL REFERENCES channels(id),
  started_by INTEGER REFERENCES users(id), started_at TEXT NOT NULL, duration_minutes INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE huddle_participants (id INTEGER PRIMARY KEY, huddle_id INTEGER NOT NULL REFERENCES huddles(id),
  user_id INTEGER NOT NULL REFERENCES users(id), provenance TEXT NOT NULL);
CREATE TABLE user_groups (id INTEGER PRIMARY KEY, handle TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE user_group_members (id INTEGER PRIMARY KEY, group_id INTEGER NOT NULL REFERENCES user_groups(id),
  user_id INTEGER NOT NULL REFERENCES users(id), provenance TEXT NOT NULL);
CREATE TABLE custom_emoji (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, glyph TEXT NOT NULL,
  added_by INTEGER REFERENCES users(id), provenance TEXT NOT NULL);
