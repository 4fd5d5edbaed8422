"""The persona world on the site: a loaded seeding build (manifest, summary, a searchable index of its
records and its cross-app events), the World pages, the world block of task pages and task review."""
