"""Deterministic demo content, and the persona world pipeline in world/ (python -m seeding)."""
