"""Models of a loaded world (one at a time) and of task review."""

from django.conf import settings
from django.db import models

from leaderboard.models import Task


class World(models.Model):
    """One loaded seeding build. Loading another replaces it."""

    persona = models.CharField(max_length=200)
    anchor = models.DateField()
    source = models.CharField(max_length=500, help_text="Folder it was loaded from.")
    manifest = models.JSONField(default=dict)
    summary = models.TextField(blank=True, help_text="SUMMARY.md as written by the build.")
    check_report = models.JSONField(default=dict, blank=True, help_text="check.json of `seeding check`, if any.")
    overlay_entries = models.JSONField(default=list, blank=True, help_text="Overlay entries: tasks, path, why.")
    loaded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.persona} ({self.anchor})"


class WorldEvent(models.Model):
    """One event of the spec (a trip, a booking, a cross-app event, a planted record group) and the
    records it fanned out to across apps."""

    world = models.ForeignKey(World, on_delete=models.CASCADE, related_name="events")
    event_id = models.CharField(max_length=200, help_text="Spec path, e.g. trips[0].hotel.")
    position = models.PositiveIntegerField(default=0)
    kind = models.CharField(max_length=100)
    title = models.CharField(max_length=300)
    date = models.DateField(null=True, blank=True)
    amount = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    code = models.CharField(max_length=100, blank=True)
    apps = models.JSONField(default=list)
    tasks = models.JSONField(default=list, help_text="Task ids whose overlay entries cite this event.")
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["world", "position"]
        constraints = [models.UniqueConstraint(fields=["world", "event_id"], name="world_event_unique")]

    def __str__(self):
        return self.event_id

    @property
    def is_contradiction(self):
        return self.event_id.startswith("planted_contradictions")

    @property
    def is_dependency(self):
        return self.event_id.startswith("planted_dependencies")


class WorldRecord(models.Model):
    """One row of one app's database, indexed for search."""

    world = models.ForeignKey(World, on_delete=models.CASCADE, related_name="records")
    app = models.CharField(max_length=40, help_text="Internal app name, e.g. vaultbank.")
    kind = models.CharField(max_length=60, help_text="Table name.")
    row_id = models.BigIntegerField()
    title = models.CharField(max_length=300)
    text = models.TextField(help_text="Lower-cased text of every column, for search.")
    date = models.DateField(null=True, blank=True)
    amount = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    section = models.CharField(max_length=200, help_text="The spec section or event that produced the row.")
    event = models.ForeignKey(WorldEvent, null=True, blank=True, on_delete=models.SET_NULL, related_name="records")
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["app", "kind", "row_id"]
        indexes = [
            models.Index(fields=["world", "app", "kind"]),
            models.Index(fields=["world", "date"]),
            models.Index(fields=["world", "section"]),
        ]

    def __str__(self):
        return f"{self.app}.{self.kind}#{self.row_id}"


class ReviewState(models.TextChoices):
    UNREVIEWED = "unreviewed", "Unreviewed"
    APPROVED = "approved", "Approved"
    NEEDS_CHANGES = "needs_changes", "Needs changes"


class TaskReview(models.Model):
    """One reviewer's current verdict on one task. A task is approved only with two approvals by
    different reviewers and no request for changes."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="task_reviews")
    verdict = models.CharField(max_length=20, choices=ReviewState.choices)
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["task", "updated_at"]
        constraints = [models.UniqueConstraint(fields=["task", "reviewer"], name="task_review_one_per_reviewer")]
        permissions = [("review_tasks", "Can review tasks (approve or ask for changes)")]

    def __str__(self):
        return f"{self.task} by {self.reviewer}: {self.verdict}"


class ReviewAudit(models.Model):
    """Who changed what when: one row per change of a reviewer's verdict."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="review_audit")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    before = models.CharField(max_length=20, choices=ReviewState.choices)
    after = models.CharField(max_length=20, choices=ReviewState.choices)
    task_state_before = models.CharField(max_length=20, choices=ReviewState.choices)
    task_state_after = models.CharField(max_length=20, choices=ReviewState.choices)
    note = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-id"]

    def __str__(self):
        return f"{self.task}: {self.before} -> {self.after} by {self.user}"
