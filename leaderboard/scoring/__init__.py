"""Scores of graded runs: per-task outcomes (`outcomes`), the version scores are cached at
(`data_version`) and the version of the published data (`public_version`), one trajectory's score
without its whole run (`one_trajectory`), bootstrap and paired statistics (`bootstrap`, `metrics`), pass^k and per-task
consistency over repeated attempts (`consistency`), cost per task and the cost-accuracy frontier
(`cost`),
the run filters that pick a scored slice (`filters`) and session scores (`sessions`: Proactivity,
Completeness, turns, Django-free). Pure functions over the stored
judgments; may use the models and the catalog."""
