from django.contrib import admin

from world.models import ReviewAudit, TaskReview, World, WorldEvent


@admin.register(World)
class WorldAdmin(admin.ModelAdmin):
    list_display = ("persona", "anchor", "source", "loaded_at")
    readonly_fields = ("persona", "anchor", "source", "manifest", "summary", "check_report", "overlay_entries")


@admin.register(WorldEvent)
class WorldEventAdmin(admin.ModelAdmin):
    list_display = ("event_id", "kind", "title", "date", "amount", "code")
    search_fields = ("event_id", "title", "code")


@admin.register(TaskReview)
class TaskReviewAdmin(admin.ModelAdmin):
    list_display = ("task", "reviewer", "verdict", "updated_at")
    list_filter = ("verdict",)


@admin.register(ReviewAudit)
class ReviewAuditAdmin(admin.ModelAdmin):
    list_display = ("task", "user", "before", "after", "task_state_after", "at")
    readonly_fields = ("task", "user", "before", "after", "task_state_before", "task_state_after", "note", "at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
