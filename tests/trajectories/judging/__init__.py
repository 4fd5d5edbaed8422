"""Tests of trajectories/judging: our judge on the site, failure modes, human labels and reliability."""
