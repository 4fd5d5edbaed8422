"""Recorded sessions built by hand for the site's tests: a two-session suite file (hidden intents and
checklists) imported through import_tasks, and session folders in the format ``python -m harness session``
writes (session.json beside one ordinary result folder per user turn), with statuses, turns and
checklist verdicts chosen so Proactivity and Completeness can be worked out by hand."""

import json
from pathlib import Path

from leaderboard.catalog.task_import import import_tasks
from leaderboard.models import Suite
from tests.factories import write_task_dir

RIDE = "session_rides-s01"
LUNCH = "session_lunch-s01"
SUITE_FILE = {
    "format": "mypcbench-sessions",
    "version": 1,
    "suite": "Hand sessions",
    "suite_version": "t1",
    "persona": "michael_scott",
    "sequences": [{"id": "rides", "title": "Rides"}, {"id": "lunch", "title": "Lunch"}],
    "sessions": [
        {
            "id": RIDE,
            "sequence": "rides",
            "position": 1,
            "category": "situated_action",
            "request": "Book me a ride to the airport.",
            "intents": [
                {"id": "I1", "statement": "Book an XL ride.", "evidence": [{"kind": "spec", "path": "rides"}]},
                {"id": "I2", "statement": "Tip the driver 25 percent.", "evidence": [{"kind": "spec", "path": "tips"}]},
                {
                    "id": "I3",
                    "statement": "Pickup from the office at 4pm.",
                    "evidence": [{"kind": "spec", "path": "office"}],
                },
            ],  # fmt: skip
            "checklist": [{"id": "R1", "criterion": "An XL ride is booked"}, {"criterion": "The tip is 25%"}],
        },
        {
            "id": LUNCH,
            "sequence": "lunch",
            "position": 1,
            "category": "situated_action",
            "request": "Order me lunch.",
            "intents": [
                {"id": "I1", "statement": "Always add a dessert.", "evidence": [{"kind": "spec", "path": "food"}]},
                {"id": "I2", "statement": "No onions.", "evidence": [{"kind": "spec", "path": "allergies"}]},
            ],
            "checklist": [
                {"id": "R1", "criterion": "Lunch is ordered"},
                {"id": "R2", "criterion": "A dessert is added"},
                {"id": "R3", "criterion": "No onions"},
                {"id": "R4", "criterion": "Delivered to the office"},
            ],
        },
    ],
}
RULES_USER = {"kind": "rules", "model": "", "prompt_version": "mypc-user-rules-1"}


def import_session_suite(tmp_path: Path) -> Suite:
    path = Path(tmp_path) / "hand_sessions.json"
    path.write_text(json.dumps(SUITE_FILE))
    return import_tasks(path, suite_name="Hand sessions", suite_version="t1").suite


def write_session(parent: Path, session_id: str, turns: list[tuple[str, int, str]], intents: dict,
                  checklist: dict, *, ended_by: str = "final_response", user_simulator=None) -> Path:  # fmt: skip
    """A session folder: ``turns`` are (the user's message, how many clicks the agent made, its final
    message); each turn's folder is an ordinary result folder whose last row is DONE."""
    folder = Path(parent) / session_id
    folder.mkdir(parents=True)
    rows = []
    for number, (message, clicks, answer) in enumerate(turns, start=1):
        actions = [(n, f"pyautogui.click({100 * n}, {50 + number})") for n in range(1, clicks + 1)]
        actions.append((clicks + 1, "DONE"))
        write_task_dir(folder, f"turn_{number}", actions=actions, rubric=None, final_text=f"{answer}\n```DONE```")
        rows.append({"user": message, "agent": answer, "agent_ended_by": "done", "steps": clicks + 1,
                     "folder": f"turn_{number}"})  # fmt: skip
    record = {
        "task_id": session_id,
        "attempt": 1,
        "turns": rows,
        "ended_by": ended_by,
        "max_user_turns": len(turns) if ended_by == "turn_limit" else 10,
        "intents": intents,
        "checklist": checklist,
        "user_simulator": user_simulator if user_simulator is not None else RULES_USER,
    }
    (folder / "session.json").write_text(json.dumps(record, indent=2))
    return folder


def write_two_sessions(parent: Path) -> Path:
    """The run folder the import tests share. Ride: I1 completed at turn 1 step 2, I2 inferred at turn 2
    step 2, I3 provided at turn 3 step 4 (Proc 2/3), checklist R1 true, R2 false (Comp 1/2), 3 turns.
    Lunch: I1 provided, I2 open at the turn limit (Proc 0), checklist 1 of 4 (Comp 1/4), 2 turns.
    The run: Proc (2/3 + 0) / 2 = 1/3, Comp (1/2 + 1/4) / 2 = 3/8, turns 2.5."""
    run = Path(parent) / "hand-run"
    write_session(
        run,
        RIDE,
        [("Book me a ride to the airport.", 1, "Which tip percent should I give?"),
         ("Yes: Tip the driver 25 percent.", 1, "Booked."),
         ("Oh, and Pickup from the office at 4pm.", 0, "Pickup set for the office at 4pm.")],
        {"I1": {"status": "completed", "turn": 1, "step": 2}, "I2": {"status": "inferred", "turn": 2, "step": 2},
         "I3": {"status": "provided", "turn": 3, "step": 4}},
        {"R1": True, "R2": False},
    )  # fmt: skip
    write_session(
        run,
        LUNCH,
        [("Order me lunch.", 2, "Ordered a burger."), ("Oh, and Always add a dessert.", 1, "Added a brownie.")],
        {"I1": {"status": "provided", "turn": 2, "step": 3}, "I2": {"status": "open", "turn": None, "step": None}},
        {"R1": True, "R2": False, "R3": False, "R4": False},
        ended_by="turn_limit",
    )  # fmt: skip
    (run / "run.json").write_text(json.dumps({"agent": "scripted", "user_simulator": RULES_USER}))
    return run


def import_hand_run(tmp_path: Path, name: str = "Hand sessions run", *, publish: bool = True):
    """The two hand-built sessions imported as one run of the hand suite (published unless told)."""
    from trajectories.recording.import_results import import_results

    suite = import_session_suite(tmp_path)
    folder = write_two_sessions(Path(tmp_path) / "results")
    return import_results(folder, name, suite_slug=suite.slug, publish=publish).run
