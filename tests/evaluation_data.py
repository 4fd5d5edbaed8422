"""A small suite and model for launching evaluations against the fake guest with the scripted agent, and
the admin launch form's data."""

import json

from leaderboard.models import Model, Suite
from tests.catalog_data import add_rubric, make_task

PLAN = {
    "turns": [
        {"response": "Opening the mail app.", "actions": ["pyautogui.click(100, 200)"]},
        {"response": "Typing the reply.", "actions": ["pyautogui.write('hello')", "pyautogui.press('enter')"]},
    ],
    "final_answer": "Replied to Jan.",
}


def make_eval_suite(n_tasks: int = 2):
    suite = Suite.objects.create(name="Eval suite", version="v1", slug="eval-suite-v1")
    tasks = []
    for i in range(1, n_tasks + 1):
        task = make_task(suite, f"action-e00{i}", "bounded_action", [], position=i, instruction=f"Reply to mail {i}.")
        add_rubric(task, [1.0, 1.0])
        tasks.append(task)
    model = Model.objects.create(name="Scripted player", slug="scripted-player", family="Test")
    return suite, tasks, model


LAUNCH = "admin:run_launch"


def form_data(world, **overrides):
    """What the admin launch form posts for ``world`` (the evaluations' ``world`` fixture), with overrides."""
    data = {
        "suite": world["suite"].pk,
        "model": world["model"].pk,
        "agent_type": "scripted",
        "tool_surface": "computer+bash",
        "turn_budget": 10,
        "screenshot_window": 5,
        "backend": "fake",
        "attempts": 1,
        "plan": json.dumps(PLAN),
    }
    data.update(overrides)
    return data
