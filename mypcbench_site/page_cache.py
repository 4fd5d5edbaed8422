"""The page cache of public figures: an anonymous visitor's page is rendered once per version of the
published data (leaderboard/scoring/public_version.py: a draft run's rows never move it) and query
string, kept gzipped, and, while results arrive faster than pages can be rebuilt (a run
being judged moves the data version several times a second), pages are built at one version per
MYPCBENCH_PAGE_REFRESH_SECONDS and the last complete page is served while one request at a time
rebuilds it; never across a change of which runs are published (a withdrawn run leaves every page at
once). A page served from the cache costs no SQL query: each process reads the data version's
aggregates at most once a second while the counter that saves move stands still (see
:func:`_anonymous_version`); a page not served from the cache reads it once, whatever the memo
holds, so its query count is the same on every load."""

import contextlib
import functools
import gzip
import logging
import re
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.utils.http import urlencode

from leaderboard.models import Run
from leaderboard.scoring import data_version, public_version

PAGE_CACHE_SECONDS = 3600
GZIP_MIN_BYTES = 1024
# How long one rebuild may hold the right to rebuild a page before another request may try.
REBUILD_LOCK_SECONDS = 60
_ACCEPTS_GZIP = re.compile(r"\bgzip\b")
logger = logging.getLogger(__name__)
_RUNS_EPOCH_KEY = "page-cache:runs-epoch"
# (data version, when it was taken, runs epoch): the version every page is built at for one refresh window
_GENERATION_KEY = "page-cache:generation"
# Held while any page is rebuilt after its answer was sent: one such rebuild at a time, site-wide.
_REBUILDING_ANY_KEY = "page-cache:rebuilding-any"
# How long one process trusts the data version it read for anonymous pages while no save or delete
# moved the signal counter (only writes that send no signal, such as bulk inserts from another
# process, can go unseen, and for at most this long, within the refresh window anyway).
VERSION_MEMO_SECONDS = 1.0
_memo: dict[str, Any] = {"at": float("-inf"), "signals": None, "version": ""}
# the same memo for pages with a version of their own (page_version): (page, args) -> (at, signals, version)
_page_memos: dict[tuple, tuple[float, object, str]] = {}
PAGE_MEMOS_MAX = 20_000


@public_version.on_save_and_delete(Run)
def _runs_changed(sender, instance, **kwargs):
    """A run visitors see, or saw until now, saved or deleted (published, withdrawn, renamed): no
    earlier page may be served again. A draft run's saves leave the pages alone."""
    if not public_version.run_change_is_public(instance):
        return
    public_version.count_up(_RUNS_EPOCH_KEY)


def _anonymous_version() -> tuple[str, int]:
    """(the version an anonymous page is built at, runs epoch), in one cache round trip and no SQL
    query when this process read the data version less than VERSION_MEMO_SECONDS ago (bounded by the
    refresh window; 0 reads it every time) and the signal counter has not moved since."""
    version, epoch, _ = _anonymous_read(fresh=False)
    return version, epoch


def _anonymous_read(*, fresh: bool) -> tuple[str, int, bool]:
    """:func:`_anonymous_version`, and whether the data version was read (not the memo's);
    ``fresh`` reads it whatever the memo holds."""
    counter_key = public_version.PUBLIC_VERSION_KEY
    found = cache.get_many([counter_key, _RUNS_EPOCH_KEY, _GENERATION_KEY])
    signals, epoch = found.get(counter_key, 0), found.get(_RUNS_EPOCH_KEY, 0)
    window = min(VERSION_MEMO_SECONDS, settings.MYPCBENCH_PAGE_REFRESH_SECONDS)
    now = time.monotonic()
    read = fresh or not (window > 0 and _memo["signals"] == signals and now - _memo["at"] < window)
    if read:
        version = public_version.published_data_version()
        _memo.update(at=now, signals=signals, version=version)
    else:
        version = _memo["version"]
    return _generation(version, epoch, found.get(_GENERATION_KEY)), epoch, read


def _generation(version: str, epoch: int, generation: tuple | None) -> str:
    """The version pages are built at: the data version, held for one refresh window after it was
    taken while results stream in (and at once moved on when the runs epoch changes). Every page
    rebuilt in that window is then built at the same version and shares one scoring of the runs
    (cached per version, in the shared cache) instead of scoring them again for each page at each
    new judgment: on the 30-run bench database, rebuilding each page at its own version took the
    2 CPUs while a run was judged (bench/README.md, visitors under load)."""
    window = settings.MYPCBENCH_PAGE_REFRESH_SECONDS
    if window <= 0:
        return version
    now = time.time()
    if generation is not None:
        held, taken_at, held_epoch = generation
        if held == version or (held_epoch == epoch and now - taken_at < window):
            return held
    cache.set(_GENERATION_KEY, (version, now, epoch), None)
    return version


def _own_version(prefix: str, page_version, args: tuple, kwargs: dict) -> tuple[str, int]:
    """(the page's own version, runs epoch), memoised like :func:`_anonymous_version`: a page served
    from the cache while no save moved the signal counter reads no SQL; while results stream in,
    one small query for just what the page shows."""
    version, epoch, _ = _own_read(prefix, page_version, args, kwargs, fresh=False)
    return version, epoch


def _own_read(prefix: str, page_version, args: tuple, kwargs: dict, *, fresh: bool) -> tuple[str, int, bool]:
    """:func:`_own_version`, and whether the page's version was read (not the memo's); ``fresh``
    reads it whatever the memo holds."""
    counter_key = public_version.PUBLIC_VERSION_KEY
    found = cache.get_many([counter_key, _RUNS_EPOCH_KEY])
    signals, epoch = found.get(counter_key, 0), found.get(_RUNS_EPOCH_KEY, 0)
    window = min(VERSION_MEMO_SECONDS, settings.MYPCBENCH_PAGE_REFRESH_SECONDS)
    now = time.monotonic()
    key = (prefix, args, tuple(sorted(kwargs.items())))
    memo = _page_memos.get(key)
    if not fresh and window > 0 and memo is not None and memo[1] == signals and now - memo[0] < window:
        return memo[2], epoch, False
    version = page_version(*args, **kwargs)
    if len(_page_memos) >= PAGE_MEMOS_MAX:
        _page_memos.clear()
    _page_memos[key] = (now, signals, version)
    return version, epoch, True


def _version_and_page(prefix: str, page_version, page: str, args: tuple, kwargs: dict):
    """(the version the page is built at, runs epoch, the page's cached body or None). When the page
    is not in the cache at the version the memo held, the version is read itself before the page is
    built or its last copy served, so a page not served from the cache costs the same queries on
    every load (the version read once), whether this process's memo was young or not."""

    def version_now(fresh: bool) -> tuple[str, int, bool]:
        if page_version is None:
            return _anonymous_read(fresh=fresh)
        return _own_read(prefix, page_version, args, kwargs, fresh=fresh)

    version, epoch, read = version_now(False)
    found = cache.get(f"{page}:{version}")
    if found is None and not read:
        version, epoch, _ = version_now(True)
        found = cache.get(f"{page}:{version}")
    return version, epoch, found


def anonymous_page_cache(prefix: str, page_version=None):
    """Cache a page's finished bytes for anonymous visitors per data version and query string
    (nothing in them depends on who asks); staff pages, which show drafts and carry a CSRF token
    in the header, are rendered each time. The view is called as ``view(request, version, ...)``
    so it scores with the version the key was built from. Any change a visitor could see (a
    published run's judgments and trajectories, tasks, rubrics, runs published or withdrawn,
    figures, judges, models) moves public_version.published_data_version() and so misses every key;
    a draft run's rows (an upload being stored, a draft being judged) leave every key as it was.
    A page that shows one thing (one trajectory) passes ``page_version(*args, **kwargs)``, the
    version of just what it shows, read instead of the data version: other writes leave it cached.

    Pages of the data version are built at a version held for ``settings.MYPCBENCH_PAGE_REFRESH_SECONDS``
    after it was taken (0: none, every change shows at once; :func:`_generation`), so every page
    rebuilt in one window shares one scoring of the runs; a page of its own version is served until
    it is that old. When the version has moved on, the first visitor still gets the last complete
    page, and the process that served it rebuilds the page once the response is sent (while another
    request is rebuilding it, the last page is served too); so under a stream of judgments no visitor
    waits for a rebuild, and each page is rebuilt at most once per window.
    An earlier page is never served once any run was saved or deleted since it was built (a run
    withdrawn must leave the pages at once, not after the window).

    Anonymous pages are also kept gzipped, compressed once, and sent so to browsers that accept
    it (an analysis page shrinks about 7x). Compression is safe here against BREACH-style attacks
    because these pages hold no secret: no CSRF token, no session data, nothing per visitor. Staff
    pages, which do carry a CSRF token, are never compressed (and there is no site-wide
    GZipMiddleware for that reason)."""

    def wrap(view):
        @functools.wraps(view)
        def cached(request, *args, **kwargs):
            if request.user.is_authenticated:
                return view(request, data_version.data_version(), *args, **kwargs)
            page = f"{prefix}:{request.path}:{urlencode(sorted(request.GET.items()))}"
            latest_key, lock_key = f"{page}:latest", f"{page}:rebuilding"
            version, epoch, found = _version_and_page(prefix, page_version, page, args, kwargs)
            page_key = f"{page}:{version}"
            if found is not None:
                return _anonymous_response(request, *found)
            latest = cache.get(latest_key)
            if latest is not None and latest[1] != epoch:
                latest = None  # built before a run changed: rebuilt now, whatever the window

            def build():
                """Render the page for ``version`` and keep it: (the view's response, the cached body)."""
                # every page of the data version built at this version shares its scorings
                with data_version.scored_at(version) if page_version is None else contextlib.nullcontext():
                    response = view(request, version, *args, **kwargs)
                if response.status_code != 200:
                    return response, None
                headers = {k: v for k, v in response.items() if k in ("Content-Type", "Content-Disposition")}
                content = response.content
                compressed = gzip.compress(content, mtime=0) if len(content) >= GZIP_MIN_BYTES else None
                body = (content, compressed, headers)
                cache.set_many({page_key: body, latest_key: (time.time(), epoch, body)}, PAGE_CACHE_SECONDS)
                return response, body

            if latest is None:
                response, body = build()
                return response if body is None else _anonymous_response(request, *body)
            stale: tuple[bytes, bytes | None, dict]  # (content, compressed, headers), as build() stores it
            built_at, _, stale = latest
            window = settings.MYPCBENCH_PAGE_REFRESH_SECONDS
            # A page of the data version is stale here only once the version it is built at moved on,
            # which happens at most once a refresh window; a page of its own version checks its age.
            young = page_version is not None and time.time() - built_at < window
            if young or not cache.add(lock_key, 1, REBUILD_LOCK_SECONDS):
                return _anonymous_response(request, *stale)
            if window > 0:
                # This visitor gets the last complete page at once; this process rebuilds it after
                # sending it, so no visitor waits for a rebuild while results stream in. One page is
                # rebuilt at a time across the site: when the version moves, every page goes stale
                # at once, and rebuilding them all at once took every web process for seconds.
                if not cache.add(_REBUILDING_ANY_KEY, 1, REBUILD_LOCK_SECONDS):
                    cache.delete(lock_key)  # the next visitor past this one tries again
                    return _anonymous_response(request, *stale)

                def rebuild_after_sending():
                    try:
                        build()
                    except Exception:
                        logger.exception("rebuilding the cached page %s failed", page)
                    finally:
                        cache.delete_many([lock_key, _REBUILDING_ANY_KEY])

                return _anonymous_response(request, *stale, after=rebuild_after_sending)
            try:
                response, body = build()
                return response if body is None else _anonymous_response(request, *body)
            finally:
                cache.delete(lock_key)

        return cached

    return wrap


class _ThenRebuild(HttpResponse):
    """A response that runs ``after`` once the server has sent it (WSGI servers call ``close()``
    after the last byte), before the request-finished signal closes the database connection."""

    def __init__(self, *args, after, **kwargs):
        super().__init__(*args, **kwargs)
        self._after = after

    def close(self):
        after, self._after = self._after, None
        try:
            if after is not None:
                after()
        finally:
            super().close()


def _anonymous_response(request, content: bytes, compressed: bytes | None, headers: dict, after=None) -> HttpResponse:
    make = HttpResponse if after is None else functools.partial(_ThenRebuild, after=after)
    if compressed is None:
        return make(content, headers=headers)
    # a fresh response: Vary set directly (patch_vary_headers parses it, a cost on every hit)
    if _ACCEPTS_GZIP.search(request.headers.get("Accept-Encoding", "")):
        return make(compressed, headers={**headers, "Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return make(content, headers={**headers, "Vary": "Accept-Encoding"})
