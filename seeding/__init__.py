"""Demo content the site ships, and the persona world pipeline in ``world/`` (no Django: an import-linter
contract keeps this package free of Django and of the site's apps).

For: the command line (``__main__``: ``python -m seeding build | check | demo-apps``), the demo suite
(``demo_suite.json``), the scripted demo agent's plans (``demo_plans``, data in ``demo_plans.json``), the demo
apps filled from a built world (``demo_world_apps``, templates in ``demo_apps/``) and the recorder of the demo
runs (``record_demo``, ``python -m seeding.record_demo``; its folders are ``demo_results*/``).
May use: ``seeding.world``, the standard library; ``record_demo`` also Playwright, Pillow and
``harness.chromium``.
Exports: nothing at package level; callers import the modules (``seeding.record_demo``,
``seeding.demo_world_apps``, ``seeding.world.*``).
"""
