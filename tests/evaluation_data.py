"""A small suite and model for launching evaluations against the fake guest with the scripted agent."""

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
