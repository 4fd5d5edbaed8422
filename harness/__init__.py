"""The Django-free harness core, one room per concern (each room's ``__init__`` says what it is for, what it
may use and what it exports; the import-linter contracts in pyproject.toml hold the direction):

``run`` (the agent loop, the recorder, ``python -m harness``) uses ``judge`` (``python -m harness.judge``) and
``testing`` (the QEMU and Docker test guests), which use ``agents`` and ``backends`` (one module per
backend), which use ``guest`` (the Control API servers), which uses ``control`` (the Control API client and
post-boot setup), which uses ``results`` (result folders, archives, the scoring rule), which uses
``actions`` (the action model and provider translation) and ``tasks`` (task files). ``safejson``, ``apps``
and ``chromium`` at the root are shared by every room. Imports nothing from Django."""
