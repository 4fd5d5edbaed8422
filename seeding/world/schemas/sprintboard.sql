-- SprintBoard (sprintboard): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL, deadline TEXT, provenance TEXT NOT NULL);
CREATE TABLE members (id INTEGER PRIMARY KEY, project_id INTEGER REFERENCES projects(id), name TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE tasks (id INTEGER PRIMARY KEY, project_id INTEGER REFERENCES projects(id), title TEXT NOT NULL,
  assignee TEXT,
  status TEXT NOT NULL, due TEXT, estimate TEXT, points INTEGER, description TEXT, column_id INTEGER, reporter TEXT,
  created_on TEXT, parent_id INTEGER, provenance TEXT NOT NULL);
CREATE TABLE columns (id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES projects(id), name TEXT NOT NULL,
  status TEXT NOT NULL, position INTEGER NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, color TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE task_labels (id INTEGER PRIMARY KEY, task_id INTEGER NOT NULL REFERENCES tasks(id),
  label_id INTEGER NOT NULL REFERENCES labels(id), provenance TEXT NOT NULL);
CREATE TABLE comments (id INTEGER PRIMARY KEY, task_id INTEGER NOT NULL REFERENCES tasks(id), author TEXT NOT NULL,
  posted_at TEXT NOT NULL, body TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE cycles (id INTEGER PRIMARY KEY, name TEXT NOT NULL, starts_on TEXT NOT NULL, ends_on TEXT NOT NULL,
  provenance TEXT NOT NULL);
CREATE TABLE cycle_tasks (id INTEGER PRIMARY KEY, cycle_id INTEGER NOT NULL REFERENCES cycles(id),
  task_id INTEGER NOT NULL REFERENCES tasks(id), provenance TEXT NOT NULL);
CREATE TABLE activity (id INTEGER PRIMARY KEY, task_id INTEGER NOT NULL REFERENCES tasks(id), actor TEXT NOT NULL,
  happened_at TEXT NOT NULL, action TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE watchers (id INTEGER PRIMARY KEY, task_id INTEGER NOT NULL REFERENCES tasks(id), name TEXT NOT NULL,
  provenance TEXT NOT NULL);
