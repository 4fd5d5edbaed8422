"""Tests of trajectories/player: the trajectory player and where trajectories' thumbnails are shown."""
