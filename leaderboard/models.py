"""The benchmark catalog: suites, tasks, versioned rubric items, apps, models, judge
configurations, runs, and figures reported in publications."""

from django.conf import settings
from django.core.validators import URLValidator
from django.db import models
from django.dispatch import Signal


class BehaviouralType(models.TextChoices):
    BOUNDED_ACTION = "bounded_action", "Bounded action"
    MULTI_STEP_ORCHESTRATION = "multi_step_orchestration", "Multi-step orchestration"
    CROSS_SOURCE_RECONCILIATION = "cross_source_reconciliation", "Cross-source reconciliation"
    AGGREGATION_REPORTING = "aggregation_reporting", "Aggregation & reporting"
    PERSONAL_LOOKUP = "personal_lookup", "Personal lookup"
    PATTERN_INFERENCE = "pattern_inference", "Pattern inference"


class TypeSource(models.TextChoices):
    FILE = "file", "task-types file"
    SHIPPED = "shipped", "shipped mapping"
    DERIVED = "derived", "derived from category"


class Difficulty(models.TextChoices):
    EASY = "easy", "Easy"
    MEDIUM = "medium", "Medium"
    HARD = "hard", "Hard"


APPS_TOUCHED_BINS = ("1", "2-3", "4-6", "7+")


def apps_touched_bin(n: int) -> str:
    """The paper's apps-touched bin for a task involving ``n`` apps."""
    if n <= 1:
        return "1"
    if n <= 3:
        return "2-3"
    if n <= 6:
        return "4-6"
    return "7+"


class Suite(models.Model):
    """One version of a task set, e.g. MyPCBench ``eval-round0``."""

    name = models.CharField(max_length=100)
    version = models.CharField(max_length=100)
    slug = models.SlugField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    is_demo = models.BooleanField(default=False, help_text="Our own demo tasks, not the benchmark.")

    class Kind(models.TextChoices):
        MYPCBENCH = "mypcbench", "MyPCBench (graded by rubric)"
        OSWORLD = "osworld", "OSWorld (scored by its evaluator's result.txt)"

    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.MYPCBENCH)
    source_name = models.CharField(max_length=500, blank=True, help_text="File the suite was imported from.")
    source_hash = models.CharField(max_length=64, blank=True, help_text="sha256 of the imported file.")
    intents_revealed = models.BooleanField(
        default=False,
        help_text="Session suites: show each session's hidden intents to visitors on its task page. "
        "Maintainers always see them.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="suite_name_version")]

    def __str__(self):
        return f"{self.name} {self.version}"


class App(models.Model):
    """An application the tasks involve: one of the 17 web apps, a desktop app, or an unknown
    name kept as found in a task file."""

    class Kind(models.TextChoices):
        WEB = "web", "Web app"
        DESKTOP = "desktop", "Desktop app"
        UNKNOWN = "unknown", "Unknown"

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=100, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    port = models.PositiveIntegerField(null=True, blank=True)
    internal_name = models.CharField(max_length=100, blank=True, help_text="Service/database name in the VM.")
    analogue = models.CharField(max_length=100, blank=True)
    category = models.CharField(max_length=100, blank=True, help_text="SimilarWeb category.")
    subcategory = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Task(models.Model):
    suite = models.ForeignKey(Suite, on_delete=models.CASCADE, related_name="tasks")
    task_id = models.CharField(max_length=100, help_text="Upstream id, e.g. retrieval-f016.")
    position = models.PositiveIntegerField(default=0, help_text="Order in the source file.")
    category = models.CharField(max_length=50, help_text="Upstream internal category.")
    behavioural_type = models.CharField(max_length=40, choices=BehaviouralType.choices)
    type_source = models.CharField(max_length=10, choices=TypeSource.choices)
    instruction = models.TextField()
    bucket = models.CharField(max_length=50, blank=True, help_text="Upstream `app` field (task bucket).")
    primary_app = models.ForeignKey(App, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    apps = models.ManyToManyField(App, blank=True, related_name="tasks")
    apps_involved = models.JSONField(default=list, help_text="Names as written in the task file.")
    apps_touched = models.PositiveIntegerField(default=0)
    apps_touched_bin = models.CharField(max_length=5, blank=True)
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices, blank=True)
    rubric_rule = models.TextField(blank=True, help_text="grading.rubric_rule, kept verbatim.")
    rubric_version = models.PositiveIntegerField(default=1)
    extra = models.JSONField(default=dict, blank=True, help_text="Other upstream keys (horizon, time limit, ...).")
    content_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["suite", "position", "task_id"]
        constraints = [models.UniqueConstraint(fields=["suite", "task_id"], name="task_suite_task_id")]
        indexes = [models.Index(fields=["behavioural_type"]), models.Index(fields=["apps_touched_bin"])]

    def __str__(self):
        return self.task_id

    def current_rubric(self):
        return self.rubric_items.filter(is_current=True).order_by("position")


class RubricItem(models.Model):
    """One rubric item of one task at one rubric version. Editing a rubric creates new rows;
    old rows stay (``is_current`` False) so judgments keep pointing at what they judged."""

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="rubric_items")
    version = models.PositiveIntegerField(default=1)
    position = models.PositiveIntegerField(help_text="1-based order within the task.")
    rubric_id = models.CharField(max_length=50, help_text="Upstream id/rubric_id, else R<position>.")
    criterion = models.TextField()
    verification = models.TextField(blank=True)
    weight = models.FloatField(help_text="Weight as written (missing or <= 0 means 1.0).")
    normalised_weight = models.FloatField(help_text="Weight divided by the task's total.")
    content_hash = models.CharField(max_length=64)
    is_current = models.BooleanField(default=True)
    source_run = models.ForeignKey(
        "Run",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The imported run whose own rubric (rubric_bundle.json) this version is, when it differs "
        "from the suite's.",
    )
    state_check = models.JSONField(
        default=dict,
        blank=True,
        help_text='Optional command run on the guest when the trajectory ends: {"command", "expected", '
        '"match": "exact"|"contains"|"regex"}.',
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "version", "position"]
        constraints = [
            models.UniqueConstraint(fields=["task", "version", "position"], name="rubric_item_task_version_pos")
        ]

    def __str__(self):
        return f"{self.task.task_id} {self.rubric_id} v{self.version}"

    # What a rubric item says, as the task file, a result bundle and the harness's task spec all carry it.
    SPEC_FIELDS = ("position", "rubric_id", "criterion", "verification", "weight", "normalised_weight", "content_hash")

    @classmethod
    def spec_fields(cls, source) -> dict:
        """The fields of SPEC_FIELDS read off ``source`` (a RubricItem or the harness's RubricSpec), so
        copying an item between the database and a spec never forgets one."""
        return {name: getattr(source, name) for name in cls.SPEC_FIELDS}


class RubricErratum(models.Model):
    """One rubric item changed by an erratum: a new rubric version of a task, item by item, with why
    (``reason``) and where the fix comes from (``source_url``). One row per changed item, so the
    changelog lists items and the re-judge finds what a run must have judged again without diffing
    versions; the reason and source repeat across the items of one version."""

    class Change(models.TextChoices):
        ADDED = "added", "added"
        REMOVED = "removed", "removed"
        REWORDED = "reworded", "reworded"  # criterion, verification or state check changed: judged again
        REWEIGHTED = "reweighted", "reweighted"  # weight only: the verdict stands, the score moves

    task = models.ForeignKey(Task, on_delete=models.CASCADE, related_name="errata")
    version = models.PositiveIntegerField(help_text="The rubric version this erratum made.")
    rubric_id = models.CharField(max_length=50)
    change = models.CharField(max_length=12, choices=Change.choices)
    old_item = models.ForeignKey(RubricItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    new_item = models.ForeignKey(RubricItem, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    reason = models.TextField(blank=True, help_text="Why the rubric changed, in plain words.")
    source_url = models.CharField(
        max_length=500,
        blank=True,
        validators=[URLValidator(schemes=["http", "https"])],
        help_text="Where the fix is written up: an http(s) link (optional).",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["task", "-version", "rubric_id"]
        verbose_name_plural = "rubric errata"
        indexes = [models.Index(fields=["task", "version"])]

    def __str__(self):
        return f"{self.task.task_id} v{self.version}: {self.rubric_id} {self.change}"


class Model(models.Model):
    """A model under evaluation (an agent's underlying LLM)."""

    class Provider(models.TextChoices):
        ANTHROPIC = "anthropic", "Anthropic"
        OPENAI = "openai", "OpenAI"
        GOOGLE = "google", "Google"
        OPEN_WEIGHTS = "openai_compatible", "OpenAI-compatible (open weights)"
        SCRIPTED = "scripted", "Scripted (no model)"
        OTHER = "other", "Other"

    name = models.CharField(max_length=100, unique=True, help_text="Display name, e.g. Claude Opus 4.6.")
    slug = models.SlugField(max_length=100, unique=True)
    provider = models.CharField(max_length=20, choices=Provider.choices, default=Provider.OTHER)
    family = models.CharField(max_length=50, blank=True)
    open_weights = models.BooleanField(default=False)
    api_model = models.CharField(max_length=100, blank=True, help_text="Model id sent to the provider API.")

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class JudgeConfig(models.Model):
    """Who produced a set of judgments: our judge with a provider/model/prompt version, or a
    source's own judge whose results were imported (labelled as such)."""

    class Origin(models.TextChoices):
        OURS = "ours", "Our judge"
        IMPORTED = "imported", "Imported with the results"
        SELF_REPORTED = "self_reported", "Self-reported by the author"

    name = models.CharField(max_length=200, unique=True)
    origin = models.CharField(max_length=20, choices=Origin.choices)
    provider = models.CharField(max_length=30, blank=True)
    model = models.CharField(max_length=100, blank=True)
    temperature = models.FloatField(null=True, blank=True)
    max_images = models.PositiveIntegerField(null=True, blank=True)
    prompt_version = models.CharField(max_length=50, blank=True)
    settings = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "judge configuration"

    def __str__(self):
        return self.name


# Sent (sender=Run, run_ids=[...]) after a bulk update set runs' publication: save() sends post_save,
# a queryset's update() sends nothing, so rows kept in step with publication listen to both.
publication_updated = Signal()


class RunQuerySet(models.QuerySet):
    def update(self, **kwargs):
        """A bulk update; one setting ``publication`` says which runs it reached (publication_updated)."""
        if "publication" not in kwargs:
            return super().update(**kwargs)
        run_ids = list(self.values_list("pk", flat=True))
        updated = super().update(**kwargs)
        publication_updated.send(sender=Run, run_ids=run_ids)
        return updated


class Run(models.Model):
    """One evaluation of one agent configuration over a suite."""

    class Provenance(models.TextChoices):
        HARNESS = "harness", "Run by our harness"
        UPLOAD = "upload", "Uploaded by an author"
        IMPORTED = "imported", "Imported result folder"
        REPORTED = "reported", "Reported (published figures)"

    class Publication(models.TextChoices):
        DRAFT = "draft", "Draft"
        PUBLISHED = "published", "Published"
        WITHDRAWN = "withdrawn", "Withdrawn"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"
        ERROR = "error", "Error"

    class ToolSurface(models.TextChoices):
        COMPUTER = "computer", "computer"
        COMPUTER_BASH = "computer+bash", "computer + bash"
        NATIVE = "native", "native agent"
        SCRIPTED = "scripted", "scripted"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    suite = models.ForeignKey(Suite, on_delete=models.PROTECT, related_name="runs")
    model = models.ForeignKey(Model, on_delete=models.PROTECT, related_name="runs")
    agent_type = models.CharField(max_length=50, blank=True)
    tool_surface = models.CharField(max_length=20, choices=ToolSurface.choices, default=ToolSurface.COMPUTER_BASH)
    turn_budget = models.PositiveIntegerField(default=100)
    attempts_per_task = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Declared attempts per task: the grid scored (an attempt without a trajectory counts as a "
        "failure). Empty: the number of distinct attempt numbers the run's trajectories use.",
    )
    screenshot_window = models.PositiveIntegerField(default=20)
    image_tag = models.CharField(max_length=100, blank=True)
    harness_version = models.CharField(max_length=50, blank=True)
    judge_config = models.ForeignKey(
        JudgeConfig,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="runs",
        help_text="Judge whose verdicts score this run by default.",
    )
    provenance = models.CharField(max_length=20, choices=Provenance.choices)
    publication = models.CharField(max_length=20, choices=Publication.choices, default=Publication.DRAFT)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.FINISHED)
    parent = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reruns",
        help_text="The run this one reruns (reruns are new runs, never overwrites).",
    )
    launched_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    source = models.TextField(blank=True, help_text="Where the data came from (path, citation, archive).")
    source_hash = models.CharField(max_length=64, blank=True)
    notes = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.name

    @property
    def is_reported(self):
        return self.provenance == self.Provenance.REPORTED

    @property
    def public_source(self) -> str:
        """The source as visitors see it: a local path (what import_results records) shows only its
        last folder name, so pages do not publish the server's file layout; citations show whole."""
        text = self.source.strip()
        if text.startswith("/") and "\n" not in text:
            return text.rstrip("/").rsplit("/", 1)[-1] or text
        return text


class ReportedFigure(models.Model):
    """A number published for a run (paper tables). Shown beside graded runs, never mixed
    into computed statistics."""

    class Metric(models.TextChoices):
        PERFECT = "perfect", "Perfect %"
        RUBRIC = "rubric", "Rubric %"
        AVG_STEPS = "avg_steps", "Average steps"
        TRAJ_EFF = "traj_eff", "Trajectory efficiency"
        FAILURE_COUNT = "failure_count", "Failed rubric items"
        BASH_SHARE = "bash_share", "Bash share of actions %"

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="reported_figures")
    metric = models.CharField(max_length=20, choices=Metric.choices)
    slice_kind = models.CharField(
        max_length=30, default="overall", help_text="overall, task_type, apps_touched, failure_mode"
    )
    slice_value = models.CharField(max_length=60, blank=True)
    value = models.FloatField()
    source = models.CharField(max_length=300)

    class Meta:
        ordering = ["run", "metric", "slice_kind", "slice_value"]
        constraints = [
            models.UniqueConstraint(fields=["run", "metric", "slice_kind", "slice_value"], name="reported_figure_key")
        ]

    def __str__(self):
        return f"{self.run} {self.metric} {self.slice_kind}:{self.slice_value} = {self.value}"
