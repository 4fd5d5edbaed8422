"""Tests of trajectories/submissions: author uploads, their validation, tokens, pacing and priority."""
