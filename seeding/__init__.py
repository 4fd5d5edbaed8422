"""Deterministic demo content and (later) persona world seeding."""
