"""Failure modes of failed verdicts that came without one: the rules live with the import path
(trajectories.recording.failure_signals), which every import runs; kept here for judging's callers."""

from trajectories.recording.failure_signals import classify_unclassified

__all__ = ["classify_unclassified"]
