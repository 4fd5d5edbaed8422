"""Tests of trajectories/recording: the ingest path, result imports, media, action counts and state checks."""
