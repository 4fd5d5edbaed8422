"""Step search (/search/steps/ and /api/steps/search): a step is found by the words of its model text,
its action line, the text it typed and the URL it opened; the run, task, app, verdict and failure-mode
filters keep what they say; unpublished runs' steps stay hidden except from maintainers and their
author; results come a page at a time in step order with the same few queries; bad input is answered
with a message saying what was wrong. The same tests run on SQLite (substring matching) and PostgreSQL
(the full-text column of migration 0010)."""

import importlib

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.models import Run
from tests.catalog_data import build_catalog
from trajectories.models import Judgment, Step, Submission, Trajectory
from trajectories.player import step_search

pytestmark = pytest.mark.django_db


@pytest.fixture
def step_corpus():
    """The small catalog plus steps worth finding: in the published run, a trajectory of the lookup task
    (judged: one item failed, failure mode premature_done) and one of the action task (every item
    passed); in the draft run, a step nobody but maintainers and its author may find."""
    cat = build_catalog()
    traj = cat.traj
    Judgment.objects.filter(trajectory=traj, verdict="error").update(verdict="failure")
    url = "http://localhost:3016/inbox/42"
    Step.objects.bulk_create(
        [
            Step(trajectory=traj, index=3, turn=3, model_text="Replying to the invoice thread now.",
                 action_text="pyautogui.click(5, 5)"),
            Step(trajectory=traj, index=4, turn=4, action={"type": "type", "text": "Thanks for the quarterly figures"}),
            Step(trajectory=traj, index=5, turn=5, action={"type": "navigate", "url": url},
                 action_text=f"xdg-open {url}"),
        ]
    )  # fmt: skip
    passed = Trajectory.objects.create(run=cat.published, task=cat.action, n_steps=1)
    Step.objects.create(trajectory=passed, index=1, turn=1, model_text="The invoice is filed in the calendar.")
    item = cat.action.rubric_items.first()
    Judgment.objects.create(trajectory=passed, rubric_item=item, judge=cat.judge, verdict="success")
    Step.objects.create(trajectory=cat.draft_traj, index=1, turn=1, model_text="Secret invoice of the draft run.")
    cat.passed = passed
    return cat


def page(client, status=200, **params):
    response = client.get("/search/steps/", params)
    assert response.status_code == status, response.content.decode()[:500]
    return response.content.decode()


def hits(client, **params) -> list[tuple[str, int]]:
    response = client.get("/api/steps/search", params)
    assert response.status_code == 200, response.content
    return [(h["task"], h["step"]) for h in response.json()["hits"]]


@pytest.mark.parametrize(
    "words, step",
    [
        ("replying THREAD", 3),  # model text, any case
        ("quarterly figures", 4),  # typed text: only in the structured action
        ("3016 inbox", 5),  # the URL the step opened
        ("Documents", 2),  # the action line (a bash command)
    ],
)
def test_a_step_is_found_by_each_thing_it_holds(client, step_corpus, words, step):
    assert hits(client, q=words) == [("retrieval-f016", step)]
    assert f'href="/trajectories/{step_corpus.traj.pk}/play/?step={step}"' in page(client, q=words)


def test_every_word_must_be_found_and_the_hit_shows_its_app_and_the_word(client, step_corpus):
    assert hits(client, q="invoice zzzqqq") == []
    html = page(client, q="inbox")
    assert "HooliMail" in html  # the app the step's URL belongs to
    assert "<mark>invoice</mark>" in page(client, q="invoice")
    assert page(client, q="Documents").count("ls ~/") == 1  # the action line found is not shown twice
    assert "No step matches “invoice zzzqqq”" in page(client, q="invoice zzzqqq")


def test_filters_keep_what_they_name(client, step_corpus):
    both = [("retrieval-f016", 3), ("action-b002", 1)]
    assert hits(client, q="invoice") == both
    assert hits(client, q="invoice", task="action-b002") == [("action-b002", 1)]
    assert hits(client, q="invoice", app="hoolicalendar") == [("action-b002", 1)]  # only the action task uses it
    assert hits(client, q="invoice", app="hoolimail") == both
    assert hits(client, q="invoice", verdict="passed") == [("action-b002", 1)]
    assert hits(client, q="invoice", verdict="failed") == [("retrieval-f016", 3)]
    assert hits(client, q="invoice", failure_mode="premature_done") == [("retrieval-f016", 3)]
    assert hits(client, q="invoice", failure_mode="partial_artifact") == []
    assert hits(client, q="invoice", run="published-run") == both
    assert hits(client, run="published-run", task="action-b002") == [("action-b002", 1)]  # filters alone


def test_unpublished_steps_are_found_only_by_maintainers_and_their_author(client, step_corpus, django_user_model):
    assert "Secret invoice" not in page(client, q="secret invoice")
    stranger = django_user_model.objects.create_user("stranger", password="pw")
    client.force_login(stranger)
    assert hits(client, q="secret invoice") == []
    assert "No run &#x27;draft-run&#x27; that you may see" in page(client, 400, q="invoice", run="draft-run")
    author = django_user_model.objects.create_user("ann", password="pw")
    Submission.objects.create(author=author, run=step_corpus.draft, archive_name="a.zip", archive_sha256="0" * 64)
    client.force_login(author)
    assert hits(client, q="secret invoice") == [("action-b002", 1)]
    assert "not published" in page(client, q="secret invoice")
    staff = django_user_model.objects.create_user("toby", password="pw", is_staff=True)
    client.force_login(staff)
    assert hits(client, q="secret invoice", run="draft-run") == [("action-b002", 1)]


def test_results_come_a_page_at_a_time_in_step_order_with_the_same_queries(client, step_corpus):
    trajectory = step_corpus.passed
    Step.objects.bulk_create(
        [Step(trajectory=trajectory, index=i, turn=i, model_text=f"pagerword number {i}") for i in range(2, 47)]
    )
    with CaptureQueriesContext(connection) as few:
        one = page(client, q="Replying")
    with CaptureQueriesContext(connection) as many:
        first = page(client, q="pagerword")
    assert len(many) == len(few), "a page of 20 hits costs what a page of one does"
    assert "45 steps match" in first and "page 1 of 3" in first
    assert "step 2</a>" in first and "step 21</a>" in first and "step 22</a>" not in first
    last = page(client, q="pagerword", page="3")
    assert "page 3 of 3" in last and "step 46</a>" in last and "step 41</a>" not in last
    assert "page 3 of 3" in page(client, q="pagerword", page="99")  # past the end: the last page
    assert 'href="?q=pagerword&page=2"' in first.replace("&amp;", "&")
    assert "1 step matches" in one
    api = client.get("/api/steps/search", {"q": "pagerword", "page": 2}).json()
    assert (api["count"], api["page"], api["pages"], len(api["hits"])) == (45, 2, 3, 20)
    assert [h["step"] for h in api["hits"]] == list(range(22, 42))


def test_more_hits_than_the_cap_say_so(client, step_corpus, monkeypatch):
    monkeypatch.setattr(step_search, "MAX_HITS", 2)
    html = page(client, q="invoice")
    assert "More than 2 steps match" not in html  # exactly two
    Step.objects.create(trajectory=step_corpus.passed, index=2, turn=2, model_text="another invoice")
    assert "More than 2 steps match; the first 2 are shown" in page(client, q="invoice")


@pytest.mark.parametrize(
    "params, message",
    [
        ({"q": "x" * 5000}, "The search is 5000 characters long; at most 200 are read"),
        ({"q": "%%% ___ ***"}, "has no letters or digits to search for"),
        ({"q": "invoice", "verdict": "maybe"}, "Verdict &#x27;maybe&#x27; is not one of: passed, failed"),
        ({"q": "invoice", "failure_mode": "bad"}, "Failure mode &#x27;bad&#x27; is not one of"),
        ({"q": "invoice", "app": "nope"}, "No app &#x27;nope&#x27;"),
        ({"q": "invoice", "page": "abc"}, "Page &#x27;abc&#x27; is not a page number"),
        ({"q": "invoice", "page": "-1"}, "is not a page number"),
        ({"q": "invoice", "page": "\u00b2"}, "is not a page number"),  # a digit int() refuses
    ],
)
def test_bad_input_is_answered_with_what_was_wrong(client, step_corpus, params, message):
    assert message in page(client, 400, **params)
    detail = client.get("/api/steps/search", params)
    assert detail.status_code == 400 and message.replace("&#x27;", "'") in detail.json()["detail"]


@pytest.mark.parametrize(
    "query", ["invoice' --", "'invoice'", "invoice & | ! :* <->", "\u202e invoice", "invoice\x00", "(invoice"]
)
def test_odd_characters_are_just_word_breaks(client, step_corpus, query):
    assert ("action-b002", 1) in hits(client, q=query)
    assert "<script>alert('owned')</script>" not in page(client, q="click")


def test_filters_with_control_characters_find_nothing_instead_of_failing(client, step_corpus):
    assert hits(client, q="invoice", task="action-b002\x00") == [("action-b002", 1)]
    assert hits(client, q="invoice", task="\x00\x07nothing") == []


def test_long_sentences_use_their_first_words(client, step_corpus):
    html = page(client, q="replying to the invoice thread now pyautogui click zebra")  # zebra is the 9th
    assert f"Only the first {step_search.MAX_WORDS} words are searched for" in html
    assert "step 3</a>" in html


def test_the_search_page_explains_itself_and_the_site_search_links_to_it(client, step_corpus):
    html = page(client)
    assert "<h1>Search steps</h1>" in html and 'for="step-q"' in html and 'for="step-mode"' in html
    assert "Each step found opens the player at that step" in html
    assert 'href="/search/steps/?q=invoice"' in client.get("/search/", {"q": "invoice"}).content.decode()


def test_the_migration_indexes_the_expression_the_search_reads():
    migration = importlib.import_module("trajectories.migrations.0010_step_search_document")
    assert migration.DOCUMENT == step_search.STEP_DOCUMENT_SQL
    assert (migration.COLUMN, migration.INDEX) == (step_search.DOCUMENT_COLUMN, step_search.INDEX_NAME)
    published = importlib.import_module("trajectories.migrations.0014_step_published")
    assert published.PUBLISHED_DOCUMENTS == step_search.PUBLISHED_INDEX_NAME


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the full-text column exists on PostgreSQL only")
def test_postgresql_fills_the_document_and_its_index_answers(step_corpus):
    where = f"FROM trajectories_step WHERE {step_search.DOCUMENT_COLUMN} @@ plainto_tsquery('simple', %s)"
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN SELECT id {where}", ["invoice"])
        plan = "\n".join(row[0] for row in cursor.fetchall())
        cursor.execute(f"SELECT index {where}", ["3016"])
        assert [row[0] for row in cursor.fetchall()] == [5]
    assert step_search.INDEX_NAME in plan
    Step.objects.filter(trajectory=step_corpus.traj, index=5).update(
        action={"type": "navigate", "url": "http://x/y"}, action_text="xdg-open http://x/y"
    )
    assert step_search.search_steps(None, {"q": "3016"}).count == 0  # the column follows updates
    assert Run.objects.filter(publication="published").count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the published steps' indexes are planned on PostgreSQL")
def test_a_visitors_search_reads_published_steps_through_their_own_indexes(step_corpus):
    with CaptureQueriesContext(connection) as queries:
        assert step_search.search_steps(None, {"q": "invoice"}).count == 2  # the draft run's is hidden
    (keys_sql,) = [q["sql"] for q in queries if '"published"' in q["sql"] and "LIMIT 1001" in q["sql"]]
    assert [q["sql"] for q in queries].index(keys_sql) > [q["sql"] for q in queries].index(
        "SET LOCAL enable_seqscan = off"
    )
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN " + keys_sql)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert step_search.PUBLISHED_INDEX_NAME in plan or "step_published_order" in plan, plan
    assert "Seq Scan on trajectories_step" not in plan, plan
