"""When the database does not answer (a PostgreSQL restart, a dropped connection), pages and the API
say so with a 503, Retry-After and plain words, never a traceback. The outage is stood in for by making
every query raise what a dropped connection raises (a real restart is not done in the suite)."""

import pytest
from django.db import InterfaceError, OperationalError
from django.db.backends import utils

pytestmark = pytest.mark.django_db


def failing(exception):
    def query(*args, **kwargs):
        raise exception("server closed the connection unexpectedly")

    return query


def database_down(monkeypatch, exception=OperationalError):
    monkeypatch.setattr(utils.CursorWrapper, "execute", failing(exception))
    monkeypatch.setattr(utils.CursorDebugWrapper, "execute", failing(exception))


@pytest.mark.parametrize("exception", [OperationalError, InterfaceError])
def test_a_page_says_the_database_is_not_answering(client, monkeypatch, exception):
    database_down(monkeypatch, exception)
    response = client.get("/leaderboard/")
    assert response.status_code == 503
    assert response["Retry-After"] == "30"
    page = response.content.decode()
    assert "database is not answering" in page and "try again in a minute" in page
    assert "Traceback" not in page and "server closed the connection" not in page


def test_the_api_answers_json(client, monkeypatch):
    database_down(monkeypatch)
    response = client.get("/api/suites")
    assert response.status_code == 503
    assert response.json() == {"detail": "The site's database is not answering just now; please try again in a minute."}
