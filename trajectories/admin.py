"""Admin for trajectories (steps and judgments shown read-only inline), steps, judgments (with human
labelling, see admin_labelling.py), API tokens and submissions. Hashes are read-only; token keys are
never shown, only their hash."""

from typing import cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME, ActionForm
from django.db.models import Q
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from trajectories.judging import admin_labelling, labelling, our_judge
from trajectories.models import (
    ApiToken,
    HumanLabel,
    IntentStatus,
    Judgment,
    JudgmentHistory,
    StateCheckResult,
    Step,
    Submission,
    Trajectory,
    UserTurn,
)
from trajectories.recording import action_counts
from trajectories.submissions import review, words


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class StepInline(ReadOnlyInline):
    model = Step
    fields = ["index", "turn", "tool", "action_text", "done", "screenshot", "media_error"]
    readonly_fields = cast(list[str], fields)  # plain field names, all shown read-only
    ordering = ["index"]


class JudgmentInline(ReadOnlyInline):
    model = Judgment
    fields = ["rubric_item", "judge", "verdict", "failure_mode", "cited_steps", "explanation"]
    readonly_fields = cast(list[str], fields)  # plain field names, all shown read-only

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("rubric_item", "rubric_item__task", "judge")


class StateCheckInline(ReadOnlyInline):
    model = StateCheckResult
    fields = ["rubric_item", "status", "command", "expected", "match", "returncode", "output", "error"]
    readonly_fields = cast(list[str], fields)  # plain field names, all shown read-only
    show_change_link = False


class UserTurnInline(ReadOnlyInline):
    """A session's user turns, as recorded."""

    model = UserTurn
    fields = ["number", "message", "after_step", "agent_message"]
    readonly_fields = cast(list[str], fields)  # plain field names, all shown read-only
    show_change_link = False


class IntentStatusInline(ReadOnlyInline):
    """A session's hidden intents: each one's terminal status and the turn and step that settled it."""

    model = IntentStatus
    fields = ["intent_id", "status", "turn", "step"]
    readonly_fields = cast(list[str], fields)  # plain field names, all shown read-only
    show_change_link = False


@admin.register(Trajectory)
class TrajectoryAdmin(admin.ModelAdmin):
    list_display = ["__str__", "run", "task", "attempt", "status", "ended_by", "n_steps", "imported_score"]
    list_filter = ["status", "ended_by", "source_layout", "run__provenance", "run__publication"]
    search_fields = ["task__task_id", "run__name", "run__slug", "final_answer"]
    list_select_related = ["run", "task"]
    raw_id_fields = ["run", "task", "imported_score_judge"]
    readonly_fields = ["content_hash", "action_counts", "created_at", "updated_at"]
    inlines = [StepInline, UserTurnInline, IntentStatusInline, JudgmentInline, StateCheckInline]


@admin.register(Step)
class StepAdmin(admin.ModelAdmin):
    list_display = [
        "trajectory",
        "index",
        "turn",
        "tool",
        "done",
        "screenshot_width",
        "screenshot_height",
        "media_error",
    ]
    list_filter = ["tool", "done"]
    search_fields = ["trajectory__task__task_id", "trajectory__run__slug", "action_text", "model_text"]
    list_select_related = ["trajectory", "trajectory__run", "trajectory__task"]
    raw_id_fields = ["trajectory"]
    readonly_fields = ["screenshot_sha256"]

    # a step added, edited or deleted here moves its trajectory's stored action counts
    def save_model(self, request, obj, form, change):
        before = Step.objects.filter(pk=obj.pk).values_list("trajectory_id", flat=True).first() if change else None
        super().save_model(request, obj, form, change)
        action_counts.recount({obj.trajectory_id, before} - {None})

    def delete_model(self, request, obj):
        trajectory_id = obj.trajectory_id
        super().delete_model(request, obj)
        action_counts.recount([trajectory_id])

    def delete_queryset(self, request, queryset):
        trajectory_ids = set(queryset.values_list("trajectory_id", flat=True))
        super().delete_queryset(request, queryset)
        action_counts.recount(trajectory_ids)


class HumanLabelInline(admin.TabularInline):
    """Maintainers label a judged item themselves; the labeller is whoever saves it."""

    model = HumanLabel
    extra = 1
    fields = ["verdict", "note", "labeller", "created"]
    readonly_fields = ["labeller", "created"]


class JudgmentHistoryInline(ReadOnlyInline):
    model = JudgmentHistory
    fields = ["verdict", "judged_at", "replaced_at", "failure_mode", "explanation"]
    readonly_fields = cast(list[str], fields)  # plain field names, all shown read-only
    show_change_link = False


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = [
        "trajectory",
        "rubric_item",
        "judge",
        "verdict",
        "human_label",
        "failure_mode",
        "failure_mode_overridden",
        "judge_cost",
        "created_at",
    ]
    list_filter = [
        "verdict",
        admin_labelling.HumanLabelFilter,
        "failure_mode",
        "failure_mode_overridden",
        "judge",
        "rubric_item__is_current",
    ]
    search_fields = ["trajectory__task__task_id", "trajectory__run__slug", "rubric_item__rubric_id", "explanation"]
    list_select_related = [
        "trajectory",
        "trajectory__run",
        "trajectory__task",
        "rubric_item",
        "rubric_item__task",
        "judge",
    ]
    raw_id_fields = ["trajectory", "rubric_item", "judge"]
    # the cost is the judge's, priced from a table: shown with what it is, never typed in
    exclude = ["cost_usd"]
    readonly_fields = ["judge_cost_in_full", "created_at"]
    inlines = [HumanLabelInline, JudgmentHistoryInline]
    # Bulk human labels and the labelling page: trajectories/judging/admin_labelling.py.
    actions = admin_labelling.ACTIONS
    action_form = admin_labelling.LabelNoteForm

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(latest_label=labelling.latest_label())

    @admin.display(description="Human label", ordering="latest_label")
    def human_label(self, obj):
        return obj.latest_label or "—"

    @admin.display(description="Judge cost (USD)", ordering="cost_usd")
    def judge_cost(self, obj):
        short, full = our_judge.judge_cost_cell(obj.cost_usd, obj.judge.model)
        return format_html('<span title="{}">{}</span>', full, short)

    @admin.display(description="Judge cost (USD)")
    def judge_cost_in_full(self, obj):
        return our_judge.judge_cost_cell(obj.cost_usd, obj.judge.model)[1] if obj.pk else "—"

    def has_label_permission(self, request):
        return admin_labelling.can_label(request.user)

    def get_urls(self):
        label = self.admin_site.admin_view(lambda request: admin_labelling.label_view(self, request))
        return [path("label/", label, name="trajectories_judgment_label"), *super().get_urls()]

    def save_formset(self, request, form, formset, change):
        if formset.model is HumanLabel:
            for label in formset.save(commit=False):
                if label.labeller_id is None:
                    label.labeller = request.user
                label.save()
            for gone in formset.deleted_objects:
                gone.delete()
            return
        super().save_formset(request, form, formset, change)

    def save_model(self, request, obj, form, change):
        # A maintainer's choice of failure mode is marked, so re-judging keeps it.
        if change and "failure_mode" in form.changed_data:
            obj.failure_mode_overridden = bool(obj.failure_mode)
        super().save_model(request, obj, form, change)


@admin.register(HumanLabel)
class HumanLabelAdmin(admin.ModelAdmin):
    list_display = ["judgment", "verdict", "labeller", "created"]
    list_filter = ["verdict"]
    search_fields = ["judgment__trajectory__task__task_id", "judgment__trajectory__run__slug", "note"]
    list_select_related = [
        "judgment__trajectory__run",
        "judgment__trajectory__task",
        "judgment__rubric_item",
        "labeller",
    ]
    raw_id_fields = ["judgment"]
    readonly_fields = ["labeller", "created"]

    def save_model(self, request, obj, form, change):
        if obj.labeller_id is None:
            obj.labeller = request.user
        super().save_model(request, obj, form, change)


@admin.register(StateCheckResult)
class StateCheckResultAdmin(admin.ModelAdmin):
    list_display = ["trajectory", "rubric_item", "status", "returncode", "checked_at"]
    list_filter = ["status"]
    search_fields = ["trajectory__task__task_id", "trajectory__run__slug", "rubric_item__rubric_id"]
    list_select_related = ["trajectory__run", "trajectory__task", "rubric_item__task"]
    raw_id_fields = ["trajectory", "rubric_item"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["user", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["user__username", "name", "prefix"]
    raw_id_fields = ["user"]
    readonly_fields = ["prefix", "key_hash", "created_at", "last_used_at"]


class ReviewReasonForm(ActionForm):
    reason = forms.CharField(required=False, label="Reason (for reject / request changes)", max_length=2000)
    rerun = forms.CharField(required=False, label="Rerun slug (for mark verified)", max_length=200)


def _review(modeladmin, request, queryset, action: str, done: str):
    reason = request.POST.get("reason", "")
    changed = 0
    for submission in queryset:
        try:
            review.decide(submission, request.user, action, reason)
        except review.ReviewError as exc:
            modeladmin.message_user(request, f"Submission {submission.pk}: {exc}", messages.ERROR)
        else:
            changed += 1
    if changed:
        modeladmin.message_user(request, f"{changed} submission(s) {done}.", messages.SUCCESS)


class ShownStatusFilter(admin.SimpleListFilter):
    """By status as the submission page and the API name it: "Awaiting our judge" apart from "Awaiting
    review" (trajectories.submissions.words)."""

    title = "status"
    parameter_name = "status"

    def lookups(self, request, model_admin):
        choices = list(Submission.Status.choices)
        at = next(i for i, (value, _label) in enumerate(choices) if value == Submission.Status.AWAITING_REVIEW)
        return [*choices[:at], (words.AWAITING_JUDGE, words.AWAITING_JUDGE_STATUS), *choices[at:]]

    def queryset(self, request, queryset):
        value = self.value()
        if not value:
            return queryset
        waiting = Q(
            status__in=[Submission.Status.AWAITING_REVIEW, Submission.Status.JUDGING],
            metadata__judging__state=words.AWAITING_JUDGE,
        )
        if value == words.AWAITING_JUDGE:
            return queryset.filter(waiting)
        return queryset.filter(status=value).exclude(waiting)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["archive_name", "author", "shown_status", "run", "archive_size", "created_at"]
    list_filter = [ShownStatusFilter]
    search_fields = ["archive_name", "author__username", "archive_sha256"]
    list_select_related = ["author", "run"]
    raw_id_fields = ["author", "run"]
    readonly_fields = [
        "archive_sha256",
        "archive_size",
        "created_at",
        "updated_at",
        "shown_status",
        "status_next",
        "judging",
        "report",
        "decisions",
        "original_archive",
    ]
    exclude = ["review_log", "validation_report", "status"]  # shown as shown_status: one vocabulary
    action_form = ReviewReasonForm
    actions = ["approve", "reject", "request_changes", "queue_judging", "mark_verified"]

    @admin.display(description="Status", ordering="status")
    def shown_status(self, obj):
        """The status as the submission page and the API name it (an upload our judge could not start
        on is "Awaiting our judge", not "Awaiting review")."""
        return review.shown_status(obj, True)["status_label"]

    @admin.display(description="What happens next")
    def status_next(self, obj):
        return review.shown_status(obj, True)["status_next"] if obj.pk else "—"

    @admin.display(description="Judging")
    def judging(self, obj):
        state = review.judging_state(obj)
        return f"{state.get('state', 'not asked')}: {state.get('note', '')}" if state else "not asked yet"

    @admin.display(description="Validation report")
    def report(self, obj):
        rows = obj.validation_report or []
        if not rows:
            return "—"
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "", "<li><strong>{}</strong> {}: {}</li>", ((p["level"], p["file"], p["problem"]) for p in rows)
            ),
        )

    @admin.display(description="Review log")
    def decisions(self, obj):
        rows = obj.review_log or []
        if not rows:
            return "no decisions yet"
        return format_html(
            "<ol>{}</ol>",
            format_html_join(
                "",
                "<li>{} {} {} ({} → {}) {}</li>",
                ((e["at"], e["by"], e.get("label", e["action"]), e["from"], e["to"], e["reason"]) for e in rows),
            ),
        )

    @admin.action(description="Approve: publish the run", permissions=["change"])
    def approve(self, request, queryset):
        """Publish; a run our judge has not judged all of is published only after a confirmation page
        saying it will show without scores (or with figures over part of it)."""
        unjudged = [(sub, review.unjudged_warning(sub)) for sub in queryset.select_related("run")]
        unjudged = [(sub, warning) for sub, warning in unjudged if warning]
        if unjudged and request.POST.get("publish_unjudged") != "yes":
            context = {
                **self.admin_site.each_context(request),
                "title": "Publish runs our judge has not judged?",
                "opts": self.model._meta,
                "unjudged": unjudged,
                "queryset": queryset,
                "action_checkbox_name": ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(request, "admin/trajectories/submission/approve_unjudged.html", context)
        _review(self, request, queryset, "approve", "approved and published")
        if unjudged:
            self.message_user(
                request,
                f"{len(unjudged)} of them published before our judge judged them all: shown without scores "
                "until it does (queue our judge from this list).",
                messages.WARNING,
            )

    @admin.action(description="Reject (give a reason)", permissions=["change"])
    def reject(self, request, queryset):
        _review(self, request, queryset, "reject", "rejected")

    @admin.action(description="Request changes (give a reason)", permissions=["change"])
    def request_changes(self, request, queryset):
        _review(self, request, queryset, "request_changes", "sent back for changes")

    @admin.display(description="Original archive")
    def original_archive(self, obj):
        if not (obj.metadata or {}).get("archive_file"):
            return "not kept"
        return format_html(
            '<a href="{}">Download {}</a>',
            reverse("trajectories:submission_archive", args=[obj.pk]),
            obj.archive_name,
        )

    @admin.action(description="Mark verified by rerun (give the rerun's slug)", permissions=["change"])
    def mark_verified(self, request, queryset):
        for submission in queryset:
            try:
                review.mark_verified_by_rerun(submission, request.user, request.POST.get("rerun", ""))
            except review.ReviewError as exc:
                self.message_user(request, f"Submission {submission.pk}: {exc}", messages.ERROR)
            else:
                self.message_user(request, f"Submission {submission.pk}: marked verified.", messages.SUCCESS)

    @admin.action(description="Queue for our judge", permissions=["change"])
    def queue_judging(self, request, queryset):
        for submission in queryset:
            # the submission was just listed, so queue_judging finds it
            state = review.judging_state(cast(Submission, review.queue_judging(submission.pk)))
            self.message_user(request, f"Submission {submission.pk}: {state.get('note', '')}", messages.INFO)
