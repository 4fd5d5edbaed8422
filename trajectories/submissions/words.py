"""What a submission's status is called, in one vocabulary for the submission page, its live updates,
the submissions list, the admin and the API: the stored status, except that an upload our judge could
not start on is "awaiting_judge" (never "awaiting review" in one place and "waiting for our judge" in
another), each with what happens next. When our judge could not start, authors read plain words while
staff keep the operator's details (which key is missing, what to do)."""

AWAITING_JUDGE = "awaiting_judge"
AWAITING_JUDGE_STATUS = "Awaiting our judge"
AUTHOR_AWAITING_NOTE = (
    "Your upload is stored and checked, but our judge is not set up on this site right now (it could not "
    "start), so your trajectories are not judged yet and nothing happens by itself. A maintainer will queue "
    "them for our judge once it is available, or review the run as it is. There is nothing you need to do, "
    "and you can already play back each task below."
)
STAFF_AWAITING_NEXT = (
    "Nothing happens by itself: give the web and worker processes the judge's API key before queueing it again; "
    "or review it as it is (approving publishes it without scores, after a confirmation)."
)

# What happens next, as the author reads it, by status key.
NEXT = {
    "validating": "A worker is checking the archive; this page updates by itself.",
    "rejected": "Refused: the validation report or the review below says why. Nothing of it is published.",
    "judging": "Our judge is judging your trajectories; then a maintainer reviews the run.",
    AWAITING_JUDGE: AUTHOR_AWAITING_NOTE,
    "awaiting_review": "Judged. A maintainer reviews it next: they publish it, ask for changes or reject it.",
    "changes_requested": "A maintainer asked for changes (the review below says which); upload a corrected archive.",
    "published": "Published: the run is on the leaderboard.",
    "withdrawn": "Withdrawn: the run is no longer shown on the leaderboard.",
}


def status_key(status: str, judging_state: str) -> str:
    """The one status a submission is shown with (page, list, admin, API)."""
    if judging_state == AWAITING_JUDGE and status in ("awaiting_review", "judging"):
        return AWAITING_JUDGE
    return status


def status_label(status: str, status_display: str, judging_state: str) -> str:
    """The label of that status."""
    if status_key(status, judging_state) == AWAITING_JUDGE:
        return AWAITING_JUDGE_STATUS
    return status_display


def judging_note(note: str, judging_state: str, is_staff: bool) -> str:
    """The judging note as this reader should see it: staff get the operator message as it is, and
    what to do next."""
    if judging_state == AWAITING_JUDGE:
        return f"{note} {STAFF_AWAITING_NEXT}".strip() if is_staff else AUTHOR_AWAITING_NOTE
    return note


def status_words(status: str, status_display: str, judging_state: str, judging_note_text: str, is_staff: bool):
    """{"status", "status_label", "status_next"}: the one status, its label and what happens next."""
    key = status_key(status, judging_state)
    if key == AWAITING_JUDGE:
        next_step = judging_note(judging_note_text, judging_state, is_staff)
    else:
        next_step = NEXT.get(key, "")
    label = status_label(status, status_display, judging_state)
    return {"status": key, "status_label": label, "status_next": next_step}


def live_for(state: dict, is_staff: bool) -> dict:
    """The polled JSON (trajectories.submissions.live_state) reworded for this reader."""
    judging = state.get("judging") or {}
    state_, note = judging.get("state", ""), judging.get("note", "")
    words = status_words(state.get("status", ""), state.get("status_label", ""), state_, note, is_staff)
    return {
        **state,
        **words,
        "judging": {**judging, "note": judging_note(judging.get("note", ""), judging.get("state", ""), is_staff)},
    }
