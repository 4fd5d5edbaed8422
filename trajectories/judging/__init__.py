"""Our judge on the site and how far to trust it: judging stored trajectories and runs, human labels,
judge reliability, their admin actions and pages. Uses scoring, recording, the catalog, the queue and
the harness judge."""
