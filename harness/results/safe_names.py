"""Show untrusted names (archive entries, file paths from uploads) safely in messages: control
characters, bidirectional overrides and other invisible formatting characters are written as
escapes, so a right-to-left override cannot make ``gnp.exe`` read as ``exe.png`` and a newline
cannot forge a second message line. Django-free."""

import re
import unicodedata

# C0 and C1 controls, DEL, bidi embeddings/overrides/isolates and marks, line and paragraph
# separators, zero-width characters and the byte-order mark; lone surrogates (undecodable bytes
# read with surrogateescape) too.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb\ud800-\udfff]"
)


def _escape(char: str) -> str:
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte surrogateescape could not decode: show the byte
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text) -> str:
    """``text`` with every character that could hide or reorder what is shown written as an
    escape (``\\u202e``, ``\\x1b``); other text, including non-Latin letters, is kept as is."""
    text = str(text)
    if text.isascii() and text.isprintable():
        return text
    text = _UNSAFE.sub(lambda match: _escape(match.group()), text)
    # Anything else Unicode calls a format character (category Cf), e.g. tag characters.
    return "".join(_escape(c) if unicodedata.category(c) == "Cf" else c for c in text)
