-- HooliMail (mail): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE threads (id INTEGER PRIMARY KEY, subject TEXT NOT NULL, first_date TEXT, last_date TEXT,
  message_count INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE messages (id INTEGER PRIMARY KEY, message_id TEXT NOT NULL UNIQUE,
  thread_id INTEGER REFERENCES threads(id),
  in_reply_to TEXT, folder TEXT NOT NULL, from_name TEXT, from_addr TEXT NOT NULL, to_addr TEXT NOT NULL,
  subject TEXT NOT NULL, sent_at TEXT NOT NULL, body TEXT NOT NULL, is_read INTEGER NOT NULL, label TEXT,
  maildir_key TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE INDEX messages_sent ON messages (sent_at);
CREATE TABLE settings (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, value TEXT, provenance TEXT NOT NULL);
CREATE TABLE attachments (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  filename TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
  provenance TEXT NOT NULL);
