"""The persona world pipeline: a persona spec in, a deterministic multi-app world out (no Django)."""
