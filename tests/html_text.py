"""The visible text of a page for assertions: scripts, styles and inline SVG dropped, tags stripped,
entities unescaped, whitespace collapsed. Shared by the page tests."""

import html as htmllib
import re


def visible_text(page) -> str:
    """``page`` is a response or its HTML."""
    html = page if isinstance(page, str) else page.content.decode()
    html = re.sub(r"<(script|style|svg)[^>]*>.*?</\1>", " ", html, flags=re.S)
    return htmllib.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())
