"""The admin's one-click re-scoring after rubric errata: a list action on runs that carries the verdicts
still holding onto the current rubrics and queues our judge for the changed items only (thin: the
work is ``rescoring``'s)."""

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


ACTIONS = [rejudge_changed_items]
