"""The admin's one-click re-scoring after rubric errata: a filter finding the runs with verdicts on a
superseded rubric, and a list action on runs that carries the verdicts still holding onto the current
rubrics and queues our judge for the changed items only (thin: the work is ``rescoring``'s)."""

from django.contrib import admin, messages

from trajectories.judging import rescoring


@admin.action(description="Re-judge only the rubric items changed by errata", permissions=["change"])
def rejudge_changed_items(model_admin, request, queryset):
    for run in queryset:
        plans = rescoring.superseded_plans(run)
        if not plans:
            model_admin.message_user(request, f"{run.name}: every verdict is on the current rubrics; nothing to do")
        for plan in plans:
            try:
                carried, queued = rescoring.rejudge_changed_items(plan)
            except rescoring.RejudgeRefused as exc:
                model_admin.message_user(request, f"{run.name}: {exc}", messages.ERROR)
                continue
            model_admin.message_user(
                request,
                f"{run.name} ({plan.judge.name}): {carried} verdict(s) carried to the current rubrics, "
                f"{queued} changed item(s) on {len(plan.judge_again)} trajectory(-ies) queued for judging",
                messages.SUCCESS,
            )


class SupersededRubricFilter(admin.SimpleListFilter):
    title = "rubric"
    parameter_name = "rubric"

    def lookups(self, request, model_admin):
        return [("superseded", "judged on a superseded rubric")]

    def queryset(self, request, queryset):
        if self.value() == "superseded":
            return queryset.filter(pk__in=rescoring.runs_on_superseded_rubrics())
        return queryset


ACTIONS = [rejudge_changed_items]
