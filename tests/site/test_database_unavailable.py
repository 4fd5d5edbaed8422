"""When the database or the shared cache does not answer (a PostgreSQL or Redis restart, a dropped
connection), pages and the API say so with a 503, Retry-After and plain words, never a traceback. The
database outage is stood in for by making every query raise what a dropped connection raises, the cache
outage by a Redis address nothing listens on (real restarts are in bench/bench_faults.py)."""

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
    assert "database, cache or media store is not answering" in page and "try again in a minute" in page
    assert "Traceback" not in page and "server closed the connection" not in page


def test_the_api_answers_json(client, monkeypatch):
    database_down(monkeypatch)
    response = client.get("/api/suites")
    assert response.status_code == 503
    assert response.json() == {
        "detail": "The site's database, cache or media store is not answering just now; nothing was stored "
        "half-way. Please try again in a minute."
    }


def test_a_cache_that_does_not_answer_gives_the_same_503(client, settings):
    """The shared Redis cache restarting: a real Redis client pointed at a port nothing listens on."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again: nothing listens there
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": f"redis://127.0.0.1:{port}/0"}
    }
    response = client.get("/leaderboard/")
    assert response.status_code == 503 and response["Retry-After"] == "30"
    assert "database, cache or media store is not answering" in response.content.decode()
    api = client.get("/api/suites/nope")  # a 404 that reads nothing from the cache still answers
    assert api.status_code == 404 and api["Content-Type"].startswith("application/json")
