"""Operating the site: the whole-site backup and restore (`backup`: the database as fixtures and the
media files, with a manifest), run by manage.py backup and restore. Uses Django's apps registry,
fixtures and the configured storage only; exports backup, restore, media_names and BackupError."""
