"""Tests of trajectories/: recording, submissions, judging, evaluations, the player and the Celery tasks."""
