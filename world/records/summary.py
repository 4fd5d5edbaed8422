"""The build's SUMMARY.md as HTML: CommonMark with tables, raw HTML escaped, unsafe links refused."""

from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

_MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def summary_html(text: str):
    """Safe to put in a page: markdown-it escapes raw HTML and will not link javascript: URLs."""
    return mark_safe(_MD.render(text or ""))  # markdown-it escapes raw HTML and refuses unsafe links
