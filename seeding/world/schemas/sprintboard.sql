-- SprintBoard (sprintboard): every data table has a provenance column naming the spec section or event that made the row.
CREATE TABLE projects (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, status TEXT NOT NULL, deadline TEXT, provenance TEXT NOT NULL);
CREATE TABLE members (id INTEGER PRIMARY KEY, project_id INTEGER REFERENCES projects(id), name TEXT NOT NULL, provenance TEXT NOT NULL);
CREATE TABLE tasks (id INTEGER PRIMARY KEY, project_id INTEGER REFERENCES projects(id), title TEXT NOT NULL,
  assignee TEXT,
  status TEXT NOT NULL, due TEXT, estimate TEXT, provenance TEXT NOT NULL);
