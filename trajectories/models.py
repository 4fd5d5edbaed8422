"""Trajectories (one attempt of one task in one run), their steps with screenshots, per-rubric
judgments, and author submissions with API tokens."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from leaderboard.models import JudgeConfig, RubricItem, Run, Task


class EndReason(models.TextChoices):
    DONE = "done", "Done"
    FAIL = "fail", "Fail"
    INFEASIBLE = "infeasible", "Infeasible"
    BUDGET = "budget", "Turn budget exhausted"
    TIMEOUT = "timeout", "Time limit"
    ERROR = "error", "Error"
    UNKNOWN = "unknown", "Unknown"


class TouchingQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """Every bulk update moves ``updated_at`` too: the scores' data version reads its maximum, so
        figures never go stale when a write path bypasses save() and its signals. Callers leave
        ``updated_at`` to this (the clock's now, as auto_now on save): a timestamp set ahead of it
        would hide later writes from that maximum."""
        kwargs.setdefault("updated_at", timezone.now())
        return super().update(**kwargs)


def published_trajectories(trajectory_ids) -> set[int]:
    """Those of these trajectories whose run is published (one query)."""
    return set(
        Trajectory.objects.filter(pk__in=set(trajectory_ids), run__publication=Run.Publication.PUBLISHED).values_list(
            "pk", flat=True
        )
    )


class StepQuerySet(TouchingQuerySet):
    def bulk_create(self, objs, *args, **kwargs):
        """New steps are stored with ``published`` as their runs say, as save() does."""
        objs = list(objs)
        published = published_trajectories({step.trajectory_id for step in objs if step._state.adding})
        for step in objs:
            if step._state.adding:
                step.published = step.trajectory_id in published
        return super().bulk_create(objs, *args, **kwargs)


class TouchedOnSave(models.Model):
    """``updated_at`` moves on every save, also one limited to some fields (``update_fields``), so the
    data versions the page and score caches read never miss a write."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        fields = kwargs.get("update_fields")
        if fields is not None and "updated_at" not in fields:
            kwargs["update_fields"] = [*fields, "updated_at"]
        super().save(*args, **kwargs)


class Trajectory(TouchedOnSave):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        INTERRUPTED = "interrupted", "Interrupted"
        ERROR = "error", "Error"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="trajectories")
    task = models.ForeignKey(Task, on_delete=models.PROTECT, related_name="trajectories")
    attempt = models.PositiveIntegerField(default=0, help_text="0 for the first attempt; repeated rollouts count up.")
    world_variant = models.PositiveIntegerField(
        default=0,
        help_text="The variant of the persona world the attempt ran on: 0 is the canonical world (the released "
        "one); results that do not say are variant 0.",
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.FINISHED)
    ended_by = models.CharField(max_length=20, choices=EndReason.choices, default=EndReason.UNKNOWN)
    n_steps = models.PositiveIntegerField(default=0, help_text="Recorded steps (actions and tool calls).")
    n_turns = models.PositiveIntegerField(default=0, help_text="Model turns (predict rounds).")
    action_counts = models.JSONField(
        default=dict,
        blank=True,
        help_text="Steps per action kind ({kind: n}, harness.actions.ACTION_KINDS; control steps not counted), "
        "kept by ingest as steps are written.",
    )
    final_answer = models.TextField(blank=True)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    input_tokens = models.BigIntegerField(null=True, blank=True)
    cached_tokens = models.BigIntegerField(null=True, blank=True)
    output_tokens = models.BigIntegerField(null=True, blank=True)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    usage = models.JSONField(default=dict, blank=True, help_text="Provider usage counters as recorded.")
    contamination = models.JSONField(
        default=dict,
        blank=True,
        help_text="The contamination scan's hits ({hits: [...], total: n}; empty when clean), "
        "kept by ingest (trajectories.recording.contamination).",
    )
    source_layout = models.CharField(max_length=30, blank=True, help_text="mypcbench, osworld, legacy-context, bundle")
    source_path = models.TextField(blank=True)
    content_hash = models.CharField(max_length=64, blank=True)
    imported_score = models.FloatField(
        null=True, blank=True, help_text="Task score (0..1) reported by the source's own judge, if any."
    )
    imported_score_judge = models.ForeignKey(
        JudgeConfig, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    session = models.JSONField(
        default=dict,
        blank=True,
        help_text="A recorded session's own facts ({ended_by, max_user_turns, user_simulator, checklist}); "
        "empty for a single-turn trajectory. Its user turns and intent statuses are rows of their own.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    objects = TouchingQuerySet.as_manager()

    class Meta:
        ordering = ["run", "task__position", "attempt"]
        verbose_name_plural = "trajectories"
        constraints = [models.UniqueConstraint(fields=["run", "task", "attempt"], name="trajectory_run_task_attempt")]

    def __str__(self):
        return f"{self.run.slug}/{self.task.task_id}#{self.attempt}"


def screenshot_path(step, filename):
    return f"screenshots/{step.trajectory.run.slug}/{step.trajectory.task.task_id}-{step.trajectory.attempt}/{filename}"


def derivative_path(step, filename):
    return f"derivatives/{filename}"


class Step(TouchedOnSave):
    """One recorded action or tool call, with the screenshot taken after it."""

    class Tool(models.TextChoices):
        COMPUTER = "computer", "computer"
        BASH = "bash", "bash"
        EDITOR = "editor", "editor"
        CONTROL = "control", "control (wait/done/fail)"
        OTHER = "other", "other"

    # No index of its own: the unique (trajectory, index) constraint serves lookups by trajectory.
    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="steps", db_index=False)
    index = models.PositiveIntegerField(help_text="1-based position in the trajectory (traj.jsonl row order).")
    turn = models.PositiveIntegerField(help_text="Model turn (upstream step_num); several steps may share one.")
    tool = models.CharField(max_length=20, choices=Tool.choices, default=Tool.COMPUTER)
    action = models.JSONField(default=dict, blank=True, help_text="Structured action, e.g. {'type': 'click', 'x':..}.")
    action_text = models.TextField(blank=True, help_text="The pyautogui line or raw action string.")
    model_text = models.TextField(blank=True)
    tool_output = models.TextField(blank=True)
    done = models.BooleanField(default=False)
    info = models.JSONField(default=dict, blank=True)
    screenshot = models.FileField(upload_to=screenshot_path, max_length=500, blank=True)
    screenshot_sha256 = models.CharField(max_length=64, blank=True)
    screenshot_width = models.PositiveIntegerField(null=True, blank=True)
    screenshot_height = models.PositiveIntegerField(null=True, blank=True)
    display_image = models.FileField(upload_to=derivative_path, max_length=500, blank=True)
    thumbnail = models.FileField(upload_to=derivative_path, max_length=500, blank=True)
    # The display picture again as AVIF (about 40% fewer bytes at the same SSIM floor): the player offers
    # it through <picture>, with display_image (WebP) for browsers that lack AVIF. Thumbnails stay WebP
    # only: at 160 px AVIF saved nothing at the same SSIM (bench/README.md).
    display_avif = models.FileField(upload_to=derivative_path, max_length=500, blank=True)
    media_error = models.CharField(max_length=300, blank=True, help_text="Why derivatives could not be made.")
    timestamp = models.DateTimeField(null=True, blank=True, help_text="When the action started.")
    # read per trajectory (its max) by the player's cache key: a step edited, its derivatives made
    updated_at = models.DateTimeField(auto_now=True)
    # Whether the step's run is published, stored on the step so a visitor's step search reads only
    # published steps (the partial index below, and one of their words on PostgreSQL: migration 0014)
    # instead of stepping over hidden runs' steps. Set on insert (save, bulk_create); kept in step with
    # publication by trajectories.recording.published_steps.
    published = models.BooleanField(default=False, editable=False)

    objects = StepQuerySet.as_manager()

    class Meta:
        ordering = ["trajectory", "index"]
        constraints = [models.UniqueConstraint(fields=["trajectory", "index"], name="step_trajectory_index")]
        # Media files are named by content hash and shared between steps: "which steps show this file" is
        # asked before a file is deleted or derivatives are made, and by the media view's permission check.
        indexes = [
            models.Index(fields=["screenshot"], name="step_screenshot_name"),
            models.Index(fields=["display_image"], name="step_display_image_name"),
            models.Index(fields=["thumbnail"], name="step_thumbnail_name"),
            models.Index(fields=["display_avif"], name="step_display_avif_name"),
            # a visitor's step search for common words walks the published steps in order and stops at the cap
            models.Index(
                fields=["trajectory", "index"], condition=models.Q(published=True), name="step_published_order"
            ),
        ]

    # Every file field a step names: the media view's access check, the sweep and deletion ask by these.
    MEDIA_FIELDS = ("screenshot", "display_image", "thumbnail", "display_avif")

    def __str__(self):
        return f"{self.trajectory} step {self.index}"

    def save(self, *args, **kwargs):
        if self._state.adding:
            self.published = bool(published_trajectories([self.trajectory_id]))
        super().save(*args, **kwargs)


class UserTurn(models.Model):
    """What the user said in a session: turn 1 is the request, later turns the simulated user's replies.
    The agent's steps after ``after_step`` (up to the next turn's) answer it."""

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="user_turns")
    number = models.PositiveIntegerField(help_text="1-based; turn 1 is the request.")
    message = models.TextField()
    after_step = models.PositiveIntegerField(help_text="Steps recorded before the user said it (0: the request).")
    agent_message = models.TextField(blank=True, help_text="What the agent said when its turn ended.")

    class Meta:
        ordering = ["trajectory", "number"]
        constraints = [models.UniqueConstraint(fields=["trajectory", "number"], name="user_turn_number")]

    def __str__(self):
        return f"{self.trajectory} user turn {self.number}"


class IntentStatus(models.Model):
    """A hidden intent's terminal status in a session (pi-Bench's protocol): completed unasked, inferred
    from a focused question, provided by the user, or open at the turn limit; with the user turn and
    the step count that settled it."""

    class Status(models.TextChoices):
        COMPLETED = "completed", "Completed"
        INFERRED = "inferred", "Inferred"
        PROVIDED = "provided", "Provided"
        OPEN = "open", "Open (turn limit)"

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="intent_statuses")
    intent_id = models.CharField(max_length=40)
    status = models.CharField(max_length=10, choices=Status.choices)
    turn = models.PositiveIntegerField(null=True, blank=True)
    step = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["trajectory", "id"]
        constraints = [models.UniqueConstraint(fields=["trajectory", "intent_id"], name="intent_status_key")]

    def __str__(self):
        return f"{self.trajectory} {self.intent_id}: {self.status}"


class FailureMode(models.TextChoices):
    PREMATURE_DONE = "premature_done", "Premature done"
    SKIPPED_REQUIRED_APP = "skipped_required_app", "Skipped required app"
    SURFACE_ERROR_ABANDONMENT = "surface_error_abandonment", "Surface-error abandonment"
    PARTIAL_ARTIFACT = "partial_artifact", "Partial artifact"
    HALLUCINATED_PERSONA_DATA = "hallucinated_persona_data", "Hallucinated persona data"
    OTHER = "other", "Other"


class Judgment(TouchedOnSave):
    """One rubric item (at the version judged) on one trajectory by one judge configuration."""

    class Verdict(models.TextChoices):
        SUCCESS = "success", "Success"
        FAILURE = "failure", "Failure"
        ERROR = "error", "Error (not a failure)"

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="judgments")
    rubric_item = models.ForeignKey(RubricItem, on_delete=models.PROTECT, related_name="judgments")
    judge = models.ForeignKey(JudgeConfig, on_delete=models.PROTECT, related_name="judgments")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    explanation = models.TextField(blank=True)
    cited_steps = models.JSONField(default=list, blank=True, help_text="Step indices the judge relied on.")
    input_tokens = models.BigIntegerField(null=True, blank=True)
    cached_tokens = models.BigIntegerField(null=True, blank=True)
    output_tokens = models.BigIntegerField(null=True, blank=True)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    failure_mode = models.CharField(max_length=30, choices=FailureMode.choices, blank=True)
    failure_mode_overridden = models.BooleanField(default=False)
    signals = models.JSONField(default=dict, blank=True, help_text="Deterministic failure signals.")
    world_variant = models.PositiveIntegerField(
        default=0, help_text="The world variant whose rubric was judged (0: the canonical world's, as written)."
    )
    judged_criterion = models.TextField(
        blank=True, help_text="The item as the world variant words it, when that differs from the item as written."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    objects = TouchingQuerySet.as_manager()

    class Meta:
        ordering = ["trajectory", "rubric_item__position"]
        constraints = [models.UniqueConstraint(fields=["trajectory", "rubric_item", "judge"], name="judgment_key")]

    def __str__(self):
        return f"{self.trajectory} {self.rubric_item.rubric_id}: {self.verdict}"

    @property
    def is_stale(self):
        return not self.rubric_item.is_current


class JudgmentHistory(models.Model):
    """A verdict that a forced re-judging replaced: the one-judgment-per-key rule keeps the current
    verdict on Judgment, earlier ones land here so the reliability view can count flips."""

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="history")
    verdict = models.CharField(max_length=10, choices=Judgment.Verdict.choices)
    explanation = models.TextField(blank=True)
    cited_steps = models.JSONField(default=list, blank=True)
    failure_mode = models.CharField(max_length=30, choices=FailureMode.choices, blank=True)
    judged_at = models.DateTimeField(help_text="When the replaced verdict was given.")
    replaced_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["judgment", "judged_at"]
        verbose_name_plural = "judgment history"

    def __str__(self):
        return f"{self.judgment} (earlier: {self.verdict})"


class StateCheckResult(models.Model):
    """What a rubric item's state check found on the guest when the trajectory ended. A command that
    could not run is ``error`` (not run properly), never ``failed``."""

    class Status(models.TextChoices):
        PASSED = "passed", "Passed"
        FAILED = "failed", "Failed"
        ERROR = "error", "Error (could not run)"

    trajectory = models.ForeignKey(Trajectory, on_delete=models.CASCADE, related_name="state_checks")
    rubric_item = models.ForeignKey(RubricItem, on_delete=models.PROTECT, related_name="state_check_results")
    status = models.CharField(max_length=10, choices=Status.choices)
    command = models.JSONField(default=str, blank=True, help_text="The command as run (string or argv).")
    expected = models.TextField(blank=True)
    match = models.CharField(max_length=10, blank=True)
    returncode = models.IntegerField(null=True, blank=True)
    output = models.TextField(blank=True)
    error = models.TextField(blank=True)
    checked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["trajectory", "rubric_item__position"]
        constraints = [
            models.UniqueConstraint(fields=["trajectory", "rubric_item"], name="state_check_trajectory_item")
        ]

    def __str__(self):
        return f"{self.trajectory} {self.rubric_item.rubric_id}: state check {self.status}"


class HumanLabel(models.Model):
    """A maintainer's own verdict on a judged rubric item, to measure how far the judge agrees."""

    class Verdict(models.TextChoices):
        SUCCESS = "success", "Success"
        FAILURE = "failure", "Failure"

    judgment = models.ForeignKey(Judgment, on_delete=models.CASCADE, related_name="human_labels")
    verdict = models.CharField(max_length=10, choices=Verdict.choices)
    labeller = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["judgment", "created"]

    def __str__(self):
        return f"{self.judgment}: human says {self.verdict}"


class ApiToken(models.Model):
    """An author's API token; only its hash is stored (the token is shown once)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12, help_text="First characters, to recognise the token.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.user} {self.name} ({self.prefix}…)"


class Submission(models.Model):
    """An author's upload of trajectories produced elsewhere."""

    class Status(models.TextChoices):
        VALIDATING = "validating", "Validating"
        REJECTED = "rejected", "Rejected"
        JUDGING = "judging", "Judging"
        AWAITING_REVIEW = "awaiting_review", "Awaiting review"
        CHANGES_REQUESTED = "changes_requested", "Changes requested"
        PUBLISHED = "published", "Published"
        WITHDRAWN = "withdrawn", "Withdrawn"

    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="submissions")
    run = models.OneToOneField(Run, null=True, blank=True, on_delete=models.SET_NULL, related_name="submission")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.VALIDATING)
    archive_name = models.CharField(max_length=300)
    archive_sha256 = models.CharField(max_length=64, unique=True)
    archive_size = models.BigIntegerField(default=0)
    metadata = models.JSONField(default=dict, blank=True)
    validation_report = models.JSONField(default=list, blank=True)
    review_log = models.JSONField(default=list, blank=True, help_text="Maintainer decisions: who, when, what, why.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.archive_name} by {self.author} ({self.status})"


class VmSlot(models.Model):
    """A VM slot of one worker host, leased to the trajectory running in it. The lease expires unless
    renewed, so the slots of a worker that died come back and its trajectory can be marked interrupted."""

    worker = models.CharField(max_length=200, help_text="Host name of the worker that owns the slot.")
    slot = models.PositiveIntegerField(help_text="Slot number on that host (chooses the VM's ports).")
    trajectory = models.OneToOneField(
        Trajectory, null=True, blank=True, on_delete=models.SET_NULL, related_name="vm_slot"
    )
    leased_at = models.DateTimeField(null=True, blank=True)
    renewed_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="The lease lapses here unless renewed.")
    holder = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="The process holding the lease (host|pid|process start|token), so a worker on the same host "
        "can tell that its holder died and take the slot back without waiting for the lease to lapse.",
    )

    class Meta:
        ordering = ["worker", "slot"]
        constraints = [models.UniqueConstraint(fields=["worker", "slot"], name="vmslot_worker_slot")]

    def __str__(self):
        return f"{self.worker} slot {self.slot}"


class WorkLease(models.Model):
    """Work a worker owes: one row per queued piece of work (a trajectory to run, a judge pass, a
    submission's check, derivatives), from the moment it is queued until a worker has done it. While a
    worker does it, the row names that worker and expires unless its heartbeat renews it; while it
    waits in the queue, the row expires when its message has waited too long. A sweeper on every
    worker host sends the work again once a row has expired, so a message lost with its host is not
    left to the broker's visibility timeout."""

    task = models.CharField(max_length=100, help_text="The Celery task's name.")
    key = models.CharField(max_length=200, help_text="What the work is about, e.g. the trajectory's id.")
    subject = models.BigIntegerField(help_text="The trajectory's or submission's id (first argument).")
    args = models.JSONField(default=list, help_text="The message's arguments, to send it again.")
    holder = models.CharField(max_length=200, blank=True, default="", help_text="host|pid|start|token; blank: queued.")
    expires_at = models.DateTimeField(help_text="The sweeper sends the work again after this.")
    since = models.DateTimeField(help_text="When the work was first asked for.")
    requeues = models.PositiveIntegerField(default=0, help_text="How many times the sweeper sent it again.")
    note = models.CharField(max_length=300, blank=True, default="", help_text="Why it was last sent again.")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["task", "key"], name="worklease_task_key")]
        indexes = [models.Index(fields=["expires_at"]), models.Index(fields=["task", "subject"])]

    def __str__(self):
        return f"{self.task} {self.key}"
