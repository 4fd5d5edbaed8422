"""Task pages say how each run did on the task: perfect attempts of those graded, the mean rubric
score, best first, with each attempt one click from the player; drafts only for maintainers."""

import re

import pytest

pytestmark = pytest.mark.django_db


def rate_rows(html: str) -> list[str]:
    section = html.split('<section id="solve-rates">', 1)[1].split("</section>", 1)[0]
    rows = re.findall(r"<tbody>.*?</tbody>", section, flags=re.S)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", rows, flags=re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", row).split()) for row in rows]


def test_each_run_on_the_task_best_first(client, board):
    # t2: run B [S, S] is perfect; run A [S, F] scores 50 (hand-computed from the fixture's verdicts)
    rows = rate_rows(client.get("/tasks/board-suite/t2/").content.decode())
    assert "1 of 1 graded attempt" in rows[0] and "100.0%" in rows[0]
    assert "0 of 1 graded attempt" in rows[1] and "50.0%" in rows[1]
    assert len(rows) == 2, "the draft run C is not shown to visitors"


def test_attempts_link_to_the_player(client, board):
    html = client.get("/tasks/board-suite/t2/").content.decode()
    section = html.split('<section id="solve-rates">', 1)[1].split("</section>", 1)[0]
    for t in board.b.trajectories.filter(task__task_id="t2"):
        assert f'href="/trajectories/{t.pk}/play/"' in section


def test_an_unjudged_run_says_so(client, board, django_user_model):
    staff = django_user_model.objects.create_user("toby", password="pw", is_staff=True)
    client.force_login(staff)
    rows = rate_rows(client.get("/tasks/board-suite/t1/").content.decode())
    assert any("not judged yet" in r for r in rows), rows  # run C's running trajectory
    assert "not judged yet" in rows[-1], "runs with nothing graded come last"
