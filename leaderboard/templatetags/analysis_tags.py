"""Template tags of the analysis pages: the task page's per-run outcomes section."""

from django import template

from leaderboard.analysis import model_page

register = template.Library()


@register.inclusion_tag("leaderboard/analysis/_task_outcomes.html", takes_context=True)
def task_outcomes_section(context, task):
    """Every visible graded run's outcome on ``task``, scored as on the leaderboard."""
    request = context.get("request")
    return {"outcomes": model_page.task_outcomes(task, getattr(request, "user", None)), "task": task}
