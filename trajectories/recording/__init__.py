"""Storing and reading trajectories: the one ingest path (bundles and live steps), screenshots and
their derivatives, action counts, state-check results. Uses the models, the catalog and the harness."""
