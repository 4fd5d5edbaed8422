"""Tests of trajectories/evaluations: evaluations launched from the site, their admin pages and run page."""
