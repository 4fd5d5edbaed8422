"""Template filters of the one leaderboard: a row's judging protocol in plain words."""

from django import template

from leaderboard.boards.board_display import protocol_label

register = template.Library()


@register.filter
def board_protocol(row) -> str:
    return "judged by the " + protocol_label(row) if row.reported else protocol_label(row)
