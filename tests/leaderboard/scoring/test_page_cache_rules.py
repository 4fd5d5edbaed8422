"""The page cache's clocks and answers at their edges: the version every page of a refresh window is
built at (held for a window of exactly one second too, moved on at the window's end), each process's
memo of the data version and of a page's own version (read again once the signal counter moves, or
at exactly the memo's age; bounded in size), a save that changes which runs are published leaving
every page of its own version at once, and the cached page's answer (its bytes and type whether
small or gzipped, and a Vary of exactly Accept-Encoding). Written from the surviving mutants of
``mypcbench_site/page_cache.py`` (bench/README.md, mutation testing)."""

import pytest
from django.core.cache import cache
from django.test import RequestFactory

from leaderboard.scoring import public_version
from mypcbench_site import page_cache

NOW = 1_800_000_000.0


@pytest.fixture(autouse=True)
def fresh(monkeypatch):
    cache.clear()
    monkeypatch.setattr(page_cache, "_memo", {"at": float("-inf"), "signals": None, "version": ""})
    monkeypatch.setattr(page_cache, "_page_memos", {})


@pytest.fixture
def clock(monkeypatch):
    """Both of the page cache's clocks, set by the test."""
    now = {"t": NOW}
    monkeypatch.setattr(page_cache.time, "time", lambda: now["t"])
    monkeypatch.setattr(page_cache.time, "monotonic", lambda: now["t"])
    return now


@pytest.mark.parametrize("window", [1, 10])
def test_the_version_of_a_window_is_held_until_exactly_its_end(settings, clock, window):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = window
    assert page_cache._generation("v1", 0, None) == "v1"
    held = cache.get(page_cache._GENERATION_KEY)
    clock["t"] += window - 0.5
    assert page_cache._generation("v2", 0, held) == "v1", "within the window: the version it began with"
    clock["t"] = NOW + window
    assert page_cache._generation("v2", 0, held) == "v2", "at the window's end: the newest"
    assert cache.get(page_cache._GENERATION_KEY) == ("v2", NOW + window, 0)


def test_without_a_window_every_page_is_built_at_the_newest_version(settings, clock):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 0
    assert page_cache._generation("v2", 0, ("v1", NOW, 0)) == "v2"


def test_a_process_reads_the_data_version_again_at_exactly_the_memos_age(settings, clock, monkeypatch):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    reads = []
    monkeypatch.setattr(public_version, "published_data_version", lambda: reads.append(clock["t"]) or "v1")
    assert page_cache._anonymous_version() == ("v1", 0)
    clock["t"] += page_cache.VERSION_MEMO_SECONDS - 0.01
    page_cache._anonymous_version()
    assert reads == [NOW], "within the memo's age, no query"
    clock["t"] = NOW + page_cache.VERSION_MEMO_SECONDS
    page_cache._anonymous_version()
    assert reads == [NOW, NOW + page_cache.VERSION_MEMO_SECONDS], "at exactly its age, read again"
    public_version.bump()
    page_cache._anonymous_version()
    assert len(reads) == 3, "a save moved the counter: read again"


def test_a_pages_own_version_is_read_again_when_a_save_moves_the_counter_or_the_memo_is_old(settings, clock):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    read = []

    def version_of(pk):
        read.append(pk)
        return f"v{pk}.{len(read)}"

    assert page_cache._own_version("player", version_of, (7,), {}) == ("v7.1", 0)
    assert page_cache._own_version("player", version_of, (7,), {})[0] == "v7.1"
    public_version.bump()  # a save of something visitors see
    assert page_cache._own_version("player", version_of, (7,), {})[0] == "v7.2"
    clock["t"] = NOW + page_cache.VERSION_MEMO_SECONDS
    assert page_cache._own_version("player", version_of, (7,), {})[0] == "v7.3"
    public_version.count_up(page_cache._RUNS_EPOCH_KEY)  # a run published or withdrawn
    assert page_cache._own_version("player", version_of, (7,), {})[1] == 1, "the runs epoch is reported"


def test_the_memo_of_pages_with_their_own_version_never_holds_more_than_its_bound(settings, monkeypatch):
    settings.MYPCBENCH_PAGE_REFRESH_SECONDS = 10
    monkeypatch.setattr(page_cache, "PAGE_MEMOS_MAX", 3)
    sizes = []
    for pk in range(8):
        page_cache._own_version("player", str, (pk,), {})
        sizes.append(len(page_cache._page_memos))
    assert max(sizes) == 3 and sizes[:4] == [1, 2, 3, 1]


@pytest.mark.parametrize("gzip_ok", [True, False])
def test_a_cached_page_is_sent_with_its_bytes_its_type_and_a_vary_of_accept_encoding(gzip_ok):
    headers = {"Accept-Encoding": "gzip, br"} if gzip_ok else {}
    request = RequestFactory().get("/", headers=headers)
    small = page_cache._anonymous_response(request, b"<p>small</p>", None, {"Content-Type": "text/html"})
    assert (small.content, small["Content-Type"]) == (b"<p>small</p>", "text/html")
    big = page_cache._anonymous_response(request, b"plain" * 300, b"squeezed", {"Content-Type": "text/csv"})
    assert big["Vary"] == "Accept-Encoding" and big["Content-Type"] == "text/csv"
    if gzip_ok:
        assert (big.content, big["Content-Encoding"]) == (b"squeezed", "gzip")
    else:
        assert big.content == b"plain" * 300 and not big.has_header("Content-Encoding")
