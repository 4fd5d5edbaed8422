"""Task review for maintainers: per-reviewer verdicts, the task's state from them (two approvals by
different reviewers), the audit log, and the queue grouped by primary app. Uses world.models and the
catalog's models."""
