"""The site's template tags and filters ({% load leaderboard_tags %}): a run's badge
(templates/includes/provenance.html), a leaderboard row's judging protocol in plain words
(templates/leaderboard/board.html) and the task page's per-run outcomes section
(templates/leaderboard/task_detail.html)."""

from django import template

from leaderboard.analysis import model_page
from leaderboard.boards.board_display import protocol_label
from leaderboard.catalog.badges import badge_of

register = template.Library()


@register.filter
def run_badge(obj):
    return badge_of(obj)


@register.filter
def board_protocol(row) -> str:
    return "judged by the " + protocol_label(row) if row.reported else protocol_label(row)


@register.inclusion_tag("leaderboard/analysis/_task_outcomes.html", takes_context=True)
def task_outcomes_section(context, task):
    """Every visible graded run's outcome on ``task``, scored as on the leaderboard."""
    request = context.get("request")
    return {"outcomes": model_page.task_outcomes(task, getattr(request, "user", None)), "task": task}
