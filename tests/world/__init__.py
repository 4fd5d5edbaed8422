"""Tests of world/: the persona world loaded on the site, its pages and task review."""
