"""Admin for the catalog: suites, apps, tasks with their rubric, models, judge configurations,
runs and reported figures. Hashes are read-only: they are computed, never typed."""

from django.contrib import admin
from django.urls import path

from leaderboard.catalog import sessions
from leaderboard.models import App, JudgeConfig, Model, ReportedFigure, RubricErratum, RubricItem, Run, Suite, Task
from trajectories.evaluations import admin_launch
from trajectories.judging import admin_rescoring


@admin.register(Suite)
class SuiteAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "slug", "is_demo", "intents_revealed", "source_name", "updated_at"]
    list_filter = ["is_demo", "intents_revealed"]
    search_fields = ["name", "version", "slug", "source_name"]
    readonly_fields = ["source_hash", "created_at", "updated_at"]
    prepopulated_fields = {"slug": ["name", "version"]}
    actions = ["reveal_intents", "hide_intents"]

    @admin.action(description="Reveal the sessions' hidden intents to visitors")
    def reveal_intents(self, request, queryset):
        changed = sessions.set_intents_revealed(queryset, True)
        self.message_user(request, f"Hidden intents now shown to visitors in {changed} suite(s).")

    @admin.action(description="Hide the sessions' hidden intents from visitors again")
    def hide_intents(self, request, queryset):
        changed = sessions.set_intents_revealed(queryset, False)
        self.message_user(request, f"Hidden intents hidden from visitors again in {changed} suite(s).")


@admin.register(App)
class AppAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "port", "analogue", "category", "subcategory"]
    list_filter = ["kind", "category"]
    search_fields = ["name", "slug", "internal_name", "analogue"]
    prepopulated_fields = {"slug": ["name"]}


class RubricItemInline(admin.TabularInline):
    model = RubricItem
    extra = 0
    fields = [
        "version",
        "position",
        "rubric_id",
        "criterion",
        "verification",
        "weight",
        "normalised_weight",
        "is_current",
    ]
    readonly_fields = ["content_hash"]
    ordering = ["-is_current", "version", "position"]
    show_change_link = True


@admin.register(Task)
class TaskAdmin(admin.ModelAdmin):
    list_display = [
        "task_id",
        "suite",
        "behavioural_type",
        "type_source",
        "category",
        "difficulty",
        "apps_touched",
        "rubric_version",
    ]
    list_filter = ["suite", "behavioural_type", "type_source", "difficulty", "apps_touched_bin", "category"]
    search_fields = ["task_id", "instruction", "category", "bucket"]
    list_select_related = ["suite"]
    readonly_fields = ["content_hash", "created_at", "updated_at"]
    filter_horizontal = ["apps"]
    inlines = [RubricItemInline]


@admin.register(RubricItem)
class RubricItemAdmin(admin.ModelAdmin):
    list_display = ["task", "rubric_id", "version", "position", "weight", "normalised_weight", "is_current"]
    list_filter = ["is_current", "task__suite"]
    search_fields = ["task__task_id", "rubric_id", "criterion", "verification"]
    list_select_related = ["task"]
    raw_id_fields = ["task"]
    readonly_fields = ["content_hash", "created_at"]


@admin.register(Model)
class ModelAdmin(admin.ModelAdmin):
    list_display = ["name", "provider", "family", "open_weights", "api_model"]
    list_filter = ["provider", "family", "open_weights"]
    search_fields = ["name", "slug", "api_model"]
    prepopulated_fields = {"slug": ["name"]}


@admin.register(JudgeConfig)
class JudgeConfigAdmin(admin.ModelAdmin):
    list_display = ["name", "origin", "provider", "model", "prompt_version", "temperature", "max_images"]
    list_filter = ["origin", "provider"]
    search_fields = ["name", "model", "prompt_version"]


class ReportedFigureInline(admin.TabularInline):
    model = ReportedFigure
    extra = 0
    fields = ["metric", "slice_kind", "slice_value", "value", "source"]


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ["name", "model", "suite", "provenance", "publication", "status", "tool_surface", "created_at"]
    list_filter = [
        "provenance",
        "publication",
        "status",
        "tool_surface",
        "suite",
        "model__family",
        admin_rescoring.SupersededRubricFilter,
    ]
    search_fields = ["name", "slug", "model__name", "source", "notes"]
    list_select_related = ["model", "suite"]
    raw_id_fields = ["parent", "launched_by"]
    readonly_fields = ["source_hash", "created_at"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [ReportedFigureInline]
    actions = [*admin_launch.ACTIONS, *admin_rescoring.ACTIONS]

    def get_urls(self):
        # Launch and rerun pages of harness evaluations (trajectories/evaluations/admin_launch.py).
        own = [
            path("launch/", self.admin_site.admin_view(lambda r: admin_launch.launch_view(self, r)), name="run_launch"),
            path(
                "<path:object_id>/rerun/",
                self.admin_site.admin_view(lambda r, object_id: admin_launch.rerun_view(self, r, object_id)),
                name="run_rerun",
            ),
        ]
        return own + super().get_urls()


@admin.register(ReportedFigure)
class ReportedFigureAdmin(admin.ModelAdmin):
    list_display = ["run", "metric", "slice_kind", "slice_value", "value", "source"]
    list_filter = ["metric", "slice_kind", "run__provenance"]
    search_fields = ["run__name", "run__model__name", "slice_value", "source"]
    list_select_related = ["run"]
    raw_id_fields = ["run"]


@admin.register(RubricErratum)
class RubricErratumAdmin(admin.ModelAdmin):
    list_display = ["task", "version", "rubric_id", "change", "reason", "source_url", "created_at"]
    list_filter = ["change", "task__suite"]
    search_fields = ["task__task_id", "rubric_id", "reason"]
    list_select_related = ["task"]
    raw_id_fields = ["task", "old_item", "new_item"]
