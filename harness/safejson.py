"""Parse JSON from untrusted files with bounded cost and only values every later step can store:
size-, value-count-, depth- and integer-length-bounded, no NaN or Infinity (JSON has neither, Python writes and
reads them, database JSON columns refuse them), no lone surrogate escapes (not text, refused when
encoded). Every refusal is a JSONRefused (a ValueError) that says what is wrong; callers add the
file and line. Django-free: the bundle and task-file readers use it, and the site can too."""

import json
import math
import re
from pathlib import Path

MAX_BYTES = 64 * 1024**2  # the archive reader's per-file limit
MAX_DEPTH = 64  # arrays and objects inside each other; real result files stay below 10
MAX_INT_DIGITS = 20  # every 64-bit integer fits; longer ones cannot be stored anyway
# Values (array elements, object members, containers) in one document: each costs up to about 250
# bytes of Python objects, so 500k keep one parse within about 120 MB. Counted as commas and
# opening brackets, including those inside strings (an overcount; real result files hold a few
# thousand, the upstream task file about 8,000).
MAX_VALUES = 500_000


class JSONRefused(ValueError):
    """JSON that is not valid or not acceptable. ``problem`` says what (without the file name);
    ``line`` and ``column`` are set when the position is known (syntax errors)."""

    def __init__(self, problem: str, *, line: int | None = None, column: int | None = None):
        self.problem = problem
        self.line = line
        self.column = column
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(where + problem)


class _Refused(Exception):
    """Raised inside json.loads by a parse hook; ``token`` is the text refused, to find where."""

    def __init__(self, problem: str, token: str):
        super().__init__(problem)
        self.problem = problem
        self.token = token


def _refuse_constant(name: str):
    raise _Refused(f"{name} is not a JSON number", name)


def _make_int_parser(max_digits: int):
    def parse_int(text: str) -> int:
        digits = len(text) - text.startswith("-")
        # Checked before int(): Python itself refuses more than 4300 digits, with a ValueError.
        if digits > max_digits:
            raise _Refused(f"an integer of {digits} digits (at most {max_digits} are accepted)", text)
        return int(text)

    return parse_int


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise _Refused(f"the number {shown} is too large for a 64-bit float", text)
    return value


# A JSON string literal, matched without backtracking (possessive). An unterminated one (text that
# is not JSON) runs to the end of the text, so every quote starts a match and the scan stays linear.
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)
_SQUARE = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def nests_deeper_than(text: str, max_depth: int) -> bool:
    """Whether arrays and objects in ``text`` nest more than ``max_depth`` deep; brackets inside
    strings do not count (exact for JSON; text that is not JSON gets an answer, in linear time).
    Each round removes every innermost ``[]`` pair, so the rounds needed to empty the brackets
    are the depth; all work is in C, at most max_depth passes over the brackets (which the value
    count bounds)."""
    brackets = _STRING.sub("", text).encode("utf-8", "surrogatepass").translate(_SQUARE, _NOT_BRACKETS)
    for _ in range(max_depth):
        if not brackets:
            return False
        brackets = brackets.replace(b"[]", b"")
    return bool(brackets)


def _position(text: str, token: str) -> tuple[int | None, int | None]:
    """Line and column of ``token`` where it stands as a value (after ``[``, ``:`` or ``,``);
    (None, None) when not found that way."""
    pattern = r"(?<=[\[:,])\s*(" + re.escape(token) + r")(?=\s*[\],}])"
    match = re.search(pattern, text) or re.match(r"\s*(" + re.escape(token) + r")\s*$", text)
    if match is None:
        return None, None
    start = match.start(1)
    line = text.count("\n", 0, start) + 1
    return line, start - (text.rfind("\n", 0, start) + 1) + 1


def loads(
    data: str | bytes,
    *,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    max_int_digits: int = MAX_INT_DIGITS,
    max_values: int = MAX_VALUES,
):
    """Parse one JSON document (bytes are read as UTF-8, a byte-order mark allowed); JSONRefused
    when it is not JSON or goes beyond a bound."""
    if len(data) > max_bytes:
        raise JSONRefused(f"{len(data)} bytes of JSON (at most {max_bytes} are accepted)")
    if isinstance(data, bytes | bytearray):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JSONRefused(f"not UTF-8 text ({exc.reason} at byte {exc.start})")
    # Counted before parsing: a few bytes of JSON ("[],") become ~60 bytes of Python objects.
    values = data.count(",") + data.count("[") + data.count("{")
    if values > max_values:
        raise JSONRefused(f"about {values} values in one JSON document (at most {max_values} are accepted)")
    # Measured before parsing: the C parser nests one call per level, and a deep document would run
    # it to the recursion limit, where a finaliser the garbage collector happens to call fails too.
    # A document with few brackets cannot nest deeply: counting them is cheap, measuring is not.
    if data.count("[") + data.count("{") > max_depth and nests_deeper_than(data, max_depth):
        raise JSONRefused(f"arrays or objects nested more than {max_depth} levels deep")
    try:
        value = json.loads(
            data,
            parse_constant=_refuse_constant,
            parse_int=_make_int_parser(max_int_digits),
            parse_float=_parse_float,
        )
    except json.JSONDecodeError as exc:
        raise JSONRefused(f"not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno)
    except _Refused as exc:
        line, column = _position(data, exc.token)
        raise JSONRefused(exc.problem, line=line, column=column)
    except RecursionError:
        # Only when max_depth is set beyond what the parser can nest.
        raise JSONRefused(f"arrays or objects nested more than {max_depth} levels deep (too deep to parse)")
    if _SURROGATE_ESCAPE.search(data):
        # Pairs (escaped emoji) are fine; a lone half is not a character and cannot be stored.
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            code = ord(exc.object[exc.start])
            raise JSONRefused(f"a lone surrogate \\u{code:04x} in a string (not a character)")
    return value


def unstorable(value) -> str:
    """What in an already-parsed value (e.g. literals read from a recorded pyautogui line) should
    not be stored: a NaN or infinite float (JSON columns refuse them) or an integer beyond 64 bits
    (no integer column holds it, and it is no coordinate or count); "" when nothing."""
    pending = [value]
    while pending:  # iterative: the value's depth is not bounded here
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"the number {item} (not finite)"
        if isinstance(item, int) and not isinstance(item, bool) and item.bit_length() > 64:
            return f"an integer of {len(str(item)) if item.bit_length() < 14_000 else 'thousands of'} digits"
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list | tuple):
            pending.extend(item)
    return ""


def read_bytes(path, *, max_bytes: int | None = None) -> bytes:
    """A file's bytes, refused (JSONRefused) before reading when it is larger than ``max_bytes``
    (default MAX_BYTES)."""
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    size = Path(path).stat().st_size
    if size > max_bytes:
        raise JSONRefused(f"the file is {size} bytes (at most {max_bytes} are accepted)")
    return Path(path).read_bytes()


def load_file(path, **limits):
    """Parse the JSON file at ``path`` within the bounds of :func:`loads`."""
    return loads(read_bytes(path, max_bytes=limits.get("max_bytes")), **limits)
