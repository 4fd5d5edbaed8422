"""Trajectories, steps, screenshots and judgments; the one ingest path; media derivatives."""
