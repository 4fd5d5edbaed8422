"""Evaluations launched from the site: launch, VM slots, executing a trajectory, cancelling, the run
table, with their admin pages, API router and views. Uses recording, judging, scoring and the harness."""
