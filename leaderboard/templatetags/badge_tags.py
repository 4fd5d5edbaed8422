"""The run badge filter used by templates/includes/provenance.html."""

from django import template

from leaderboard.catalog.badges import badge_of

register = template.Library()


@register.filter
def run_badge(obj):
    return badge_of(obj)
