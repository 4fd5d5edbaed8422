"""Task review for maintainers (`services`): per-reviewer verdicts, the task's state from them (two
approvals by different reviewers), the audit log, and the queue grouped by primary app. May use
world.models and the catalog's models."""
