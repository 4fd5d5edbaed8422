"""Scores of graded runs: per-task outcomes, bootstrap and paired statistics, the run filters that
pick a scored slice. Pure functions over the stored judgments; uses the models and the catalog."""
