"""Our judge on the site and how far to trust it: judging stored trajectories and runs, human labels,
judge reliability, their admin actions and pages. Uses the catalog, the queue, the judge spec and the
harness judge (scoring and recording, below it, are allowed too)."""
