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
CREATE TABLE identities (id INTEGER PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL,
  signature TEXT NOT NULL, is_default INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE filters (id INTEGER PRIMARY KEY, match_field TEXT NOT NULL, match_value TEXT NOT NULL,
  label_id INTEGER REFERENCES labels(id), skip_inbox INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE mailing_lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL, list_unsubscribe TEXT,
  subscribed INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE contacts (id INTEGER PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL UNIQUE,
  times_contacted INTEGER NOT NULL, last_contacted TEXT, provenance TEXT NOT NULL);
CREATE TABLE contact_groups (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, provenance TEXT NOT NULL);
CREATE TABLE contact_group_members (id INTEGER PRIMARY KEY, group_id INTEGER NOT NULL REFERENCES contact_groups(id),
  contact_id INTEGER NOT NULL REFERENCES contacts(id), provenance TEXT NOT NULL);
CREATE TABLE message_recipients (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  kind TEXT NOT NULL, address TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE message_labels (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  label_id INTEGER NOT NULL REFERENCES labels(id), provenance TEXT NOT NULL);
CREATE TABLE message_flags (id INTEGER PRIMARY KEY, message_id INTEGER NOT NULL REFERENCES messages(id),
  starred INTEGER NOT NULL, important INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE drafts (id INTEGER PRIMARY KEY, to_addr TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL,
  updated_at TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE search_history (id INTEGER PRIMARY KEY, query TEXT NOT NULL, searched_at TEXT NOT NULL,
  provenance TEXT NOT NULL);
