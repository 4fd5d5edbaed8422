"""The persona world pipeline: a persona spec in, a deterministic multi-app world out (no Django).

For: reading a spec and our overlay (``persona``), the build context and reproducible writers (``core``),
the 17 apps (``apps``: names, hosts, schemas, where events land, volume targets), fanning one event record
out to each app it names (``fanout``: ``WRITERS``, one writer per app), the seeders (``seeders/``, one module
each, registry in its ``__init__``), running them (``build``), validating a build and measuring it
against the goals (``check``: readers, answer keys via ``answer_keys``, the released world's facts,
invariants, volume), and the named entities of a task's text (``coverage``).
May use: the standard library and icalendar; the seeders also the office libraries (odfpy, openpyxl,
fpdf2, segno). Never the demo modules of ``seeding`` or Django.
Exports (what callers outside use): ``build.build``, ``check.check``, ``check.render_figures``,
``answer_keys.KEYS_DIR``, ``coverage.extract_entities``,
``apps.APPS``, ``apps.db_path``, ``persona.load_persona``, ``persona.PersonaError``, ``persona.PERSONAS_DIR``.

Adding an app: its schema (and its ``EVENT_TABLES`` / ``TARGETS`` entries) in ``apps``, and a writer in
``fanout.WRITERS`` if events reach it. Adding a seeder: one module in ``seeders/`` and one entry in
``seeders.SEEDERS``.
"""
