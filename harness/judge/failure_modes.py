"""Why a rubric item failed: deterministic signals from the trajectory (ended by its own done,
apps never touched, errors before the end, a document never saved) and a rule-based reading of
the judge's explanation, combined into one failure mode."""

import re

from harness.apps import APPS, DESKTOP, normalise_app
from harness.judge.prompt import TrajectoryForJudge

PREMATURE_DONE = "premature_done"
SKIPPED_REQUIRED_APP = "skipped_required_app"
SURFACE_ERROR_ABANDONMENT = "surface_error_abandonment"
PARTIAL_ARTIFACT = "partial_artifact"
HALLUCINATED_PERSONA_DATA = "hallucinated_persona_data"
OTHER = "other"
FAILURE_MODES = (
    PREMATURE_DONE,
    SKIPPED_REQUIRED_APP,
    SURFACE_ERROR_ABANDONMENT,
    PARTIAL_ARTIFACT,
    HALLUCINATED_PERSONA_DATA,
    OTHER,
)

_ERROR = re.compile(
    r"traceback|\berror\b|command not found|no such file|permission denied|exit code [1-9]|"
    r"failed to|cannot open|could not|connection refused|not found \(404\)|\b50[0-4]\b",
    re.IGNORECASE,
)
_DOCUMENT = re.compile(r"\.(odt|ods|odp|docx?|xlsx?|pptx?|csv|txt|md)\b|soffice|libreoffice|lowriter|localc", re.I)
_SAVE = re.compile(
    r"ctrl['\"]?\s*,\s*['\"]s['\"]|ctrl\+s\b|\bsave\b|--convert-to|>\s*\S+\.(odt|ods|docx?|xlsx?|csv|txt|md)|"
    r"\bcp\b|\bmv\b|tee\b|write_text|\.save\(",
    re.IGNORECASE,
)
_OPEN = re.compile(r"ctrl['\"]?\s*,\s*['\"]o['\"]|ctrl\+o\b|soffice|libreoffice|lowriter|localc|xdg-open", re.I)


def _app_markers(name: str) -> list[str]:
    app = normalise_app(name)
    if app is None:
        return [name.casefold()]
    markers = [app.name.casefold(), *(a.casefold() for a in app.aliases)]
    if app.internal_name:
        markers.append(app.internal_name.casefold())
    if app.port:
        markers += [f":{app.port}", f"port {app.port}"]
    if app.kind == DESKTOP and app.name.startswith("LibreOffice"):
        markers += ["soffice", "libreoffice"]
    return markers


def trajectory_signals(trajectory: TrajectoryForJudge, apps_involved: list[str], *, turn_budget: int = 100) -> dict:
    """Facts about the trajectory as a whole, the same for every item of it."""
    steps = trajectory.steps
    turns = len({s.turn for s in steps})
    text_by_step = [
        " ".join([s.action_text or "", s.tool_output or "", s.model_text or "", str(s.info or "")]).casefold()
        for s in steps
    ]
    everything = " ".join(text_by_step) + " " + (trajectory.final_answer or "").casefold()
    untouched = [name for name in apps_involved if not any(marker in everything for marker in _app_markers(name))]
    # Errors seen before the last step: what the agent met and, perhaps, walked away from.
    errors_before_end = [
        n
        for n, step in enumerate(steps[:-1], start=1)
        if _ERROR.search(step.tool_output or "") or (step.info or {}).get("error")
    ]
    actions = " ".join(s.action_text or "" for s in steps)
    opened = bool(_OPEN.search(actions) or _DOCUMENT.search(actions))
    saved = bool(_SAVE.search(actions))
    return {
        "ended_by": trajectory.ended_by,
        "ended_by_done_before_budget": trajectory.ended_by == "done" and turns < turn_budget,
        "turns": turns,
        "untouched_apps": untouched,
        "errors_before_end": errors_before_end,
        "document_opened_not_saved": opened and not saved,
    }


_TEXT_RULES = [
    (
        HALLUCINATED_PERSONA_DATA,
        re.compile(
            r"hallucinat|fabricat|made[- ]up|invent|does not match|doesn't match|"
            r"incorrect (value|amount|date|name|number|total)|wrong (value|amount|date|name|number|total)|"
            r"not supported by|no evidence (for|of) (the|this)",
            re.I,
        ),
    ),
    (
        SKIPPED_REQUIRED_APP,
        re.compile(
            r"never (opened|visited|checked|used|accessed)|did not (open|visit|check|use|access|navigate)", re.I
        ),
    ),
    (
        SURFACE_ERROR_ABANDONMENT,
        re.compile(r"error (dialog|message|page)|gave up|abandon|was blocked|crash|failed to load|unable to", re.I),
    ),
    (
        PARTIAL_ARTIFACT,
        re.compile(
            r"not saved|never saved|unsaved|partial|incomplete|missing (from|in) the (file|document|report)", re.I
        ),
    ),
    (
        PREMATURE_DONE,
        re.compile(r"prematurely|declared (done|complete)|claimed|without (verifying|confirming|submitting)", re.I),
    ),
]


def classify_failure(explanation: str, signals: dict) -> str:
    """One failure mode for a failed item: the judge's words first, corroborated by the signals
    where they can be; then the signals alone; else other."""
    text = explanation or ""
    for mode, pattern in _TEXT_RULES:
        if not pattern.search(text):
            continue
        if mode == SKIPPED_REQUIRED_APP and not signals.get("untouched_apps"):
            named = [a.name for a in APPS if a.name.casefold() in text.casefold()]
            if not named:
                continue
        return mode
    lowered = text.casefold()
    if any(app.casefold() in lowered for app in signals.get("untouched_apps", [])):
        return SKIPPED_REQUIRED_APP
    if signals.get("errors_before_end"):
        return SURFACE_ERROR_ABANDONMENT
    if signals.get("document_opened_not_saved"):
        return PARTIAL_ARTIFACT
    if signals.get("ended_by_done_before_budget"):
        return PREMATURE_DONE
    return OTHER
