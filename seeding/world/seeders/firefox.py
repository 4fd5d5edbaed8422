"""A Firefox profile under home/user/.mozilla/firefox/<profile>: places, cookies and form history.

Schema facts (tables, columns, version numbers) follow Firefox's own: places.sqlite at schema 86 with
``url_hash`` computed the way Places does (Mozilla's golden-ratio string hash, the scheme's hash in the
upper 16 bits), cookies.sqlite at 17, formhistory.sqlite at 5. Times are PRTime (microseconds since
1970). Visits come from the spec's searches and research threads, the routine browsing pattern, the
humor pages and the apps themselves (one visit a day to most apps), filled to the paper's volume.
"""

import base64
import datetime as dt
import hashlib
import urllib.parse
from typing import Any

from ..apps import APPS, host, target
from ..core import DATETIME, WEEKDAYS, ZONE, parse_time_of_day, write_sqlite

PROFILE = "home/user/.mozilla/firefox/mypcbench.default-release"
PLACES_VERSION, COOKIES_VERSION, FORMHISTORY_VERSION = 86, 17, 5

PLACES_SCHEMA = """
CREATE TABLE moz_origins (id INTEGER PRIMARY KEY, prefix TEXT NOT NULL, host TEXT NOT NULL, frecency INTEGER NOT NULL,
  recalc_frecency INTEGER NOT NULL DEFAULT 0, alt_frecency INTEGER, recalc_alt_frecency INTEGER NOT NULL DEFAULT 0,
  block_until_ms INTEGER, block_pages_until_ms INTEGER, UNIQUE (prefix, host));
CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url LONGVARCHAR, title LONGVARCHAR, rev_host LONGVARCHAR,
  visit_count INTEGER DEFAULT 0, hidden INTEGER DEFAULT 0 NOT NULL, typed INTEGER DEFAULT 0 NOT NULL,
  frecency INTEGER DEFAULT -1 NOT NULL, last_visit_date INTEGER , guid TEXT, foreign_count INTEGER DEFAULT 0 NOT NULL,
  url_hash INTEGER DEFAULT 0 NOT NULL , description TEXT, preview_image_url TEXT, site_name TEXT,
  origin_id INTEGER REFERENCES moz_origins(id), recalc_frecency INTEGER NOT NULL DEFAULT 0, alt_frecency INTEGER,
  recalc_alt_frecency INTEGER NOT NULL DEFAULT 0);
CREATE TABLE moz_places_extra (place_id INTEGER PRIMARY KEY NOT NULL, sync_json TEXT,
  FOREIGN KEY (place_id) REFERENCES moz_places(id) ON DELETE CASCADE);
CREATE INDEX moz_places_url_hashindex ON moz_places (url_hash);
CREATE INDEX moz_places_hostindex ON moz_places (rev_host);
CREATE INDEX moz_places_visitcount ON moz_places (visit_count);
CREATE INDEX moz_places_frecencyindex ON moz_places (frecency);
CREATE INDEX moz_places_lastvisitdateindex ON moz_places (last_visit_date);
CREATE UNIQUE INDEX moz_places_guid_uniqueindex ON moz_places (guid);
CREATE INDEX moz_places_originidindex ON moz_places (origin_id);
CREATE INDEX moz_places_altfrecencyindex ON moz_places (alt_frecency);
CREATE TABLE moz_historyvisits (id INTEGER PRIMARY KEY, from_visit INTEGER, place_id INTEGER, visit_date INTEGER,
  visit_type INTEGER, session INTEGER, source INTEGER DEFAULT 0 NOT NULL, triggeringPlaceId INTEGER);
CREATE TABLE moz_historyvisits_extra (visit_id INTEGER PRIMARY KEY NOT NULL, sync_json TEXT,
  FOREIGN KEY (visit_id) REFERENCES moz_historyvisits(id) ON DELETE CASCADE);
CREATE INDEX moz_historyvisits_placedateindex ON moz_historyvisits (place_id, visit_date);
CREATE INDEX moz_historyvisits_fromindex ON moz_historyvisits (from_visit);
CREATE INDEX moz_historyvisits_dateindex ON moz_historyvisits (visit_date);
CREATE TABLE moz_inputhistory (place_id INTEGER NOT NULL, input LONGVARCHAR NOT NULL, use_count INTEGER,
  PRIMARY KEY (place_id, input));
CREATE TABLE moz_bookmarks (id INTEGER PRIMARY KEY, type INTEGER, fk INTEGER DEFAULT NULL, parent INTEGER,
  position INTEGER,
  title LONGVARCHAR, keyword_id INTEGER, folder_type TEXT, dateAdded INTEGER, lastModified INTEGER, guid TEXT,
  syncStatus INTEGER NOT NULL DEFAULT 0, syncChangeCounter INTEGER NOT NULL DEFAULT 1);
CREATE TABLE moz_bookmarks_deleted (guid TEXT PRIMARY KEY, dateRemoved INTEGER NOT NULL DEFAULT 0);
CREATE INDEX moz_bookmarks_itemindex ON moz_bookmarks (fk, type);
CREATE INDEX moz_bookmarks_parentindex ON moz_bookmarks (parent, position);
CREATE INDEX moz_bookmarks_itemlastmodifiedindex ON moz_bookmarks (fk, lastModified);
CREATE INDEX moz_bookmarks_dateaddedindex ON moz_bookmarks (dateAdded);
CREATE UNIQUE INDEX moz_bookmarks_guid_uniqueindex ON moz_bookmarks (guid);
CREATE TABLE moz_keywords (id INTEGER PRIMARY KEY AUTOINCREMENT, keyword TEXT UNIQUE, place_id INTEGER,
  post_data TEXT);
CREATE UNIQUE INDEX moz_keywords_placepostdata_uniqueindex ON moz_keywords (place_id, post_data);
CREATE TABLE moz_anno_attributes (id INTEGER PRIMARY KEY, name VARCHAR(32) UNIQUE NOT NULL);
CREATE TABLE moz_annos (id INTEGER PRIMARY KEY, place_id INTEGER NOT NULL, anno_attribute_id INTEGER,
  content LONGVARCHAR,
  flags INTEGER DEFAULT 0, expiration INTEGER DEFAULT 0, type INTEGER DEFAULT 0, dateAdded INTEGER DEFAULT 0,
  lastModified INTEGER DEFAULT 0);
CREATE UNIQUE INDEX moz_annos_placeattributeindex ON moz_annos (place_id, anno_attribute_id);
CREATE TABLE moz_items_annos (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL, anno_attribute_id INTEGER,
  content LONGVARCHAR, flags INTEGER DEFAULT 0, expiration INTEGER DEFAULT 0, type INTEGER DEFAULT 0,
  dateAdded INTEGER DEFAULT 0, lastModified INTEGER DEFAULT 0);
CREATE UNIQUE INDEX moz_items_annos_itemattributeindex ON moz_items_annos (item_id, anno_attribute_id);
CREATE TABLE moz_meta (key TEXT PRIMARY KEY, value NOT NULL) WITHOUT ROWID;
CREATE TABLE moz_places_metadata_search_queries (id INTEGER PRIMARY KEY, terms TEXT NOT NULL UNIQUE);
CREATE TABLE moz_places_metadata (id INTEGER PRIMARY KEY, place_id INTEGER NOT NULL, referrer_place_id INTEGER,
  created_at INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL DEFAULT 0,
  total_view_time INTEGER NOT NULL DEFAULT 0,
  typing_time INTEGER NOT NULL DEFAULT 0, key_presses INTEGER NOT NULL DEFAULT 0,
  scrolling_time INTEGER NOT NULL DEFAULT 0,
  scrolling_distance INTEGER NOT NULL DEFAULT 0, document_type INTEGER NOT NULL DEFAULT 0, search_query_id INTEGER,
  FOREIGN KEY (place_id) REFERENCES moz_places(id) ON DELETE CASCADE,
  FOREIGN KEY (referrer_place_id) REFERENCES moz_places(id) ON DELETE CASCADE,
  FOREIGN KEY (search_query_id) REFERENCES moz_places_metadata_search_queries(id) ON DELETE CASCADE
  CHECK(place_id != referrer_place_id));
CREATE UNIQUE INDEX moz_places_metadata_placecreated_uniqueindex ON moz_places_metadata (place_id, created_at);
CREATE INDEX moz_places_metadata_referrerindex ON moz_places_metadata (referrer_place_id);
CREATE TABLE moz_previews_tombstones (hash TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE moz_newtab_story_click (feature TEXT NOT NULL, timestamp_s INTEGER NOT NULL,
  card_format_enum INTEGER NOT NULL,
  position INTEGER NOT NULL, section_position INTEGER NOT NULL, feature_value REAL NOT NULL DEFAULT 1);
CREATE TABLE moz_newtab_story_impression (feature TEXT NOT NULL, timestamp_s INTEGER NOT NULL,
  card_format_enum INTEGER NOT NULL, position INTEGER NOT NULL, section_position INTEGER NOT NULL,
  feature_value REAL NOT NULL DEFAULT 1);
CREATE INDEX moz_newtab_story_click_newtab_click_timestampindex ON moz_newtab_story_click (timestamp_s);
CREATE INDEX moz_newtab_story_impression_newtab_impression_timestampindex ON moz_newtab_story_impression (timestamp_s);
CREATE TABLE moz_newtab_shortcuts_interaction (id INTEGER PRIMARY KEY,
  place_id INTEGER NOT NULL REFERENCES moz_places(id) ON DELETE CASCADE, event_type INTEGER NOT NULL,
  timestamp_s INTEGER NOT NULL, pinned INTEGER NOT NULL CHECK (pinned IN (0, 1)), tile_position INTEGER NOT NULL);
CREATE INDEX moz_newtab_shortcuts_interaction_timestampindex ON moz_newtab_shortcuts_interaction (timestamp_s);
CREATE INDEX moz_newtab_shortcuts_interaction_placeidindex ON moz_newtab_shortcuts_interaction (place_id);
"""

COOKIES_SCHEMA = """
CREATE TABLE moz_cookies (id INTEGER PRIMARY KEY, originAttributes TEXT NOT NULL DEFAULT '', name TEXT, value TEXT,
  host TEXT, path TEXT, expiry INTEGER, lastAccessed INTEGER, creationTime INTEGER, isSecure INTEGER,
  isHttpOnly INTEGER,
  inBrowserElement INTEGER DEFAULT 0, sameSite INTEGER DEFAULT 0, schemeMap INTEGER DEFAULT 0,
  isPartitionedAttributeSet INTEGER DEFAULT 0, updateTime INTEGER,
  CONSTRAINT moz_uniqueid UNIQUE (name, host, path, originAttributes));
"""

FORMHISTORY_SCHEMA = """
CREATE TABLE moz_formhistory (id INTEGER PRIMARY KEY, fieldname TEXT NOT NULL, value TEXT NOT NULL, timesUsed INTEGER,
  firstUsed INTEGER, lastUsed INTEGER, guid TEXT);
CREATE TABLE moz_deleted_formhistory (id INTEGER PRIMARY KEY, timeDeleted INTEGER, guid TEXT);
CREATE TABLE moz_sources (id INTEGER PRIMARY KEY, source TEXT NOT NULL);
CREATE TABLE moz_history_to_sources (history_id INTEGER, source_id INTEGER, PRIMARY KEY (history_id, source_id),
  FOREIGN KEY (history_id) REFERENCES moz_formhistory(id) ON DELETE CASCADE,
  FOREIGN KEY (source_id) REFERENCES moz_sources(id) ON DELETE CASCADE) WITHOUT ROWID;
CREATE INDEX moz_formhistory_index ON moz_formhistory (fieldname);
CREATE INDEX moz_formhistory_lastused_index ON moz_formhistory (lastUsed);
CREATE INDEX moz_formhistory_guid_index ON moz_formhistory (guid);
"""

GOLDEN_RATIO = 0x9E3779B9


def mozilla_hash(data: bytes) -> int:
    """Mozilla's HashString: h = golden_ratio * (rotl5(h) ^ byte), 32-bit."""
    value = 0
    for byte in data:
        value = (GOLDEN_RATIO * ((((value << 5) | (value >> 27)) & 0xFFFFFFFF) ^ byte)) & 0xFFFFFFFF
    return value


def url_hash(url: str) -> int:
    """Places' url_hash: the scheme's hash in bits 32-47, the whole URL's hash in the low 32 bits."""
    scheme = url.split(":", 1)[0]
    return ((mozilla_hash(scheme.encode()) & 0xFFFF) << 32) + mozilla_hash(url[:1500].encode())


def guid(*parts) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest())[:12].decode()


def prtime(stamp: str) -> int:
    moment = dt.datetime.strptime(stamp, DATETIME).replace(tzinfo=ZONE)
    return int(moment.timestamp()) * 1_000_000


# The pages each app serves and their titles (as the app's <title> reads); history visits only these.
_SHOP = {"/": "Home", "/orders": "Your Orders", "/account": "Your Account", "/search": "Search"}
APP_PAGES: dict[str, dict[str, str]] = {
    "vaultbank": {"/": "Accounts", "/transactions": "Transactions", "/statements": "Statements"},
    "buzzchat": {"/": "Chats", "/contacts": "Contacts"},
    "workbuzz": {"/": "Channels", "/dms": "Direct messages"},
    "mail": {"/": "Inbox", "/sent": "Sent", "/drafts": "Drafts", "/search": "Search"},
    "calendar": {"/": "Week", "/month": "Month", "/day": "Day"},
    "dinoco-airlines": {"/": "Home", "/trips": "My Trips", "/account": "FlyMiles", "/search": "Search Flights"},
    "kwik-e-mart": _SHOP | {"/cart": "Cart"},
    "hoolishop": _SHOP | {"/cart": "Cart"},
    "hangrydash": _SHOP,
    "tablefind": {"/": "Home", "/reservations": "My Reservations", "/search": "Search"},
    "etaxi": {"/": "Ride", "/rides": "Your Rides", "/account": "Account"},
    "cheskepdia": {"/": "Home", "/trips": "Trips", "/search": "Search Stays"},
    "oddsmarket": {"/": "Markets", "/portfolio": "Portfolio"},
    "sprintboard": {"/": "Projects", "/my-tasks": "My Tasks"},
    "lockedin": {"/": "Feed", "/profile": "Profile", "/network": "My Network"},
    "batbucks": {"/": "Portfolio", "/orders": "Orders", "/watchlist": "Watchlist"},
    "speedtax": {"/": "Overview", "/income": "Income", "/deductions": "Deductions"},
}
# How a site's own search result page is addressed and titled, for research-thread visits to that site.
SITE_SEARCH = {
    "youtube.com": ("/results?search_query={q}", "{text} - YouTube"),
    "amazon.com": ("/s?k={q}", "Amazon.com : {text}"),
    "reddit.com": ("/search/?q={q}", "reddit.com: search results - {text}"),
    "linkedin.com": ("/search/results/all/?keywords={q}", "{text} | Search | LinkedIn"),
    "tripadvisor.com": ("/Search?q={q}", "{text} - Tripadvisor"),
    "ted.com": ("/search?q={q}", "Search | TED"),
    "irs.gov": ("/search?search={q}", "Search | Internal Revenue Service"),
}


def app_page_title(app: str, path: str) -> str:
    """The title of one of ``app``'s pages, e.g. 'Your Orders - HooliShop'."""
    return f"{APP_PAGES[app][path]} - {APPS[app]}"


def _site_search(domain: str, query: str) -> tuple[str, str]:
    """The URL and title of ``domain``'s search result page for ``query`` (Google's for google.com)."""
    if domain.removeprefix("www.").split("/")[0] == "google.com":
        return _search_url(query), f"{query} - Google Search"
    base, _, sub = domain.partition("/")
    path, title = SITE_SEARCH.get(base, ("/search?q={q}", "{text} - Search | " + base))
    if sub and base == "reddit.com":
        path = f"/{sub}/search/?q={{q}}&restrict_sr=1"
    url = "https://" + ("www." if base.count(".") == 1 else "") + base + path.format(q=urllib.parse.quote_plus(query))
    return url, title.format(text=query)


def _url(site: str) -> str:
    return (
        site
        if "://" in site
        else f"https://{'' if site.startswith('www.') or site.count('.') > 1 else 'www.'}{site}"
        + ("" if "/" in site else "/")
    )


def _search_url(query: str) -> str:
    return "https://www.google.com/search?" + urllib.parse.urlencode({"q": query})


def _title_for(url: str) -> str:
    parsed = urllib.parse.urlsplit(url)
    if parsed.hostname == "www.google.com" and parsed.path == "/search":
        return urllib.parse.parse_qs(parsed.query).get("q", [""])[0] + " - Google Search"
    if parsed.hostname and parsed.hostname.endswith(".localhost"):
        app = parsed.hostname.split(".")[0]
        return app_page_title(app, parsed.path or "/") if parsed.path in APP_PAGES.get(app, {}) else APPS[app]
    tail = parsed.path.strip("/").replace("-", " ").replace("/", " - ")
    return f"{tail.title() + ' | ' if tail else ''}{(parsed.hostname or '').removeprefix('www.')}"


def _research_visits(ctx, rng, patterns) -> list:
    """Each research thread's searches and site pages, on random days of its timespan."""
    visits: list[tuple[str, str, str | None, int, str]] = []
    for n, thread in enumerate(patterns.get("research_threads", [])):
        start, end = ctx.day(thread["timespan"][0]), ctx.day(thread["timespan"][1])
        span = max((end - start).days, 0)
        prov = f"browsing_patterns.research_threads[{n}]"
        for query in thread.get("searches", []):
            day = start + dt.timedelta(days=rng.randint(0, span))
            visits.append(
                (
                    f"{day.isoformat()} {rng.randint(8, 23):02d}:{rng.randint(0, 59):02d}:00",
                    _search_url(query),
                    None,
                    2,
                    prov,
                )
            )
        queries = thread.get("searches") or [thread["topic"]]
        for site in thread.get("sites", []):
            for page in range(int(site.get("pages", 1))):
                day = start + dt.timedelta(days=rng.randint(0, span))
                # the site's own search for one of the thread's searches (a real page with its real title)
                url, title = _site_search(site["domain"], queries[page % len(queries)])
                shown: str | None = title
                if site.get("repeat_product") and page % 3 == 0:
                    url, shown = _url(site["domain"]).rstrip("/") + site["repeat_product"], None
                visits.append(
                    (f"{day.isoformat()} {rng.randint(8, 23):02d}:{rng.randint(0, 59):02d}:00", url, shown, 1, prov)
                )
    return visits


def _humor_visits(ctx, rng, patterns) -> list:
    """Each humor page, visited every third day back from its last visit."""
    visits = []
    for n, humor in enumerate(patterns.get("humor_searches", [])):
        last = ctx.day(humor["last_visit"]) if humor.get("last_visit") else ctx.anchor
        for k in range(int(humor.get("visits", 1))):
            day = max(last - dt.timedelta(days=k * 3), ctx.start)
            visits.append(
                (
                    f"{day.isoformat()} {rng.randint(18, 23):02d}:{rng.randint(0, 59):02d}:00",
                    humor["url"],
                    None if humor["url"].startswith("https://www.google.com/search?") else humor.get("title"),
                    1,
                    f"browsing_patterns.humor_searches[{n}]",
                )
            )
    return visits


def _routine_visits(ctx, rng, patterns) -> list:
    """The routine sites on their days at their time, then five app visits a day."""
    routine = []
    for n, pattern in enumerate(patterns.get("routine_browsing", [])):
        hour, minute = parse_time_of_day(pattern.get("time") or "", (12, 0))
        days = (
            WEEKDAYS[:5]
            if pattern.get("pattern") == "weekday"
            else WEEKDAYS[5:]
            if pattern.get("pattern") == "weekend"
            else WEEKDAYS
        )
        for day in ctx.days():
            if WEEKDAYS[day.weekday()] in days:
                for site in pattern.get("sites", []):
                    routine.append(
                        (
                            f"{day.isoformat()} {hour:02d}:{(minute + rng.randint(0, 20)) % 60:02d}:"
                            f"{rng.randint(0, 59):02d}",
                            _url(site),
                            None,
                            1,
                            f"browsing_patterns.routine_browsing[{n}]",
                        )
                    )
    for day in ctx.days():
        for app in rng.sample(list(APPS), 5):
            routine.append(
                (
                    f"{day.isoformat()} {rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
                    f"http://{host(app)}/",
                    None,
                    2,
                    "app_overrides",
                )
            )
    return routine


def seed_firefox(ctx):
    rng = ctx.rng("firefox")
    patterns = ctx.persona.section("browsing_patterns", {})
    # (stamp, url, title or None, visit_type, provenance)
    visits = [(rec["at"], _search_url(rec["search"]), None, 2, rec["provenance"]) for rec in ctx.pending("visit")]
    visits += _research_visits(ctx, rng, patterns)
    visits += _humor_visits(ctx, rng, patterns)
    routine = _routine_visits(ctx, rng, patterns)
    need = target(ctx, "history_visits") - len(visits)
    if len(routine) > need:
        routine = [routine[i] for i in sorted(rng.sample(range(len(routine)), max(need, 0)))]
    visits += routine
    apps = list(APPS)
    while len(visits) < target(ctx, "history_visits"):
        day = ctx.start + dt.timedelta(days=rng.randrange((ctx.anchor - ctx.start).days + 1))
        app = rng.choice(apps)
        visits.append(
            (
                f"{day.isoformat()} {rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
                f"http://{host(app)}{rng.choice(sorted(APP_PAGES[app]))}",
                None,
                1,
                "app_overrides",
            )
        )
    visits.sort(key=lambda v: (v[0], v[1]))
    write_profile(ctx, visits)


def write_profile(ctx, visits):
    origins: dict[tuple, dict[str, Any]] = {}
    places: dict[str, dict[str, Any]] = {}
    history: list[dict] = []
    for stamp, url, title, vtype, _prov in visits:
        parts = urllib.parse.urlsplit(url)
        prefix, hostname = f"{parts.scheme}://", parts.hostname or ""
        if (prefix, hostname) not in origins:
            origins[(prefix, hostname)] = {"id": len(origins) + 1, "prefix": prefix, "host": hostname, "frecency": 0}
        origin = origins[(prefix, hostname)]
        if url not in places:
            places[url] = {
                "id": len(places) + 1,
                "url": url,
                "title": title or _title_for(url),
                "rev_host": hostname[::-1] + ".",
                "visit_count": 0,
                "hidden": 0,
                "typed": 0,
                "frecency": 0,
                "last_visit_date": None,
                "guid": guid("place", url),
                "foreign_count": 0,
                "url_hash": url_hash(url),
                "origin_id": origin["id"],
                "site_name": None,
            }
        place = places[url]
        when = prtime(stamp)
        place["visit_count"] += 1
        place["typed"] = 1 if vtype == 2 else place["typed"]
        place["last_visit_date"] = max(place["last_visit_date"] or 0, when)
        place["frecency"] = place["visit_count"] * 100
        origin["frecency"] += 100
        history.append(
            {
                "id": len(history) + 1,
                "from_visit": 0,
                "place_id": place["id"],
                "visit_date": when,
                "visit_type": vtype,
                "session": 0,
                "source": 0,
            }
        )
    bookmarks = _bookmarks(ctx, places, origins)
    places_rows = list(places.values())
    profile = ctx.out / PROFILE
    write_sqlite(
        profile / "places.sqlite",
        PLACES_SCHEMA,
        {
            "moz_origins": list(origins.values()),
            "moz_places": places_rows,
            "moz_historyvisits": history,
            "moz_bookmarks": bookmarks,
        },
        PLACES_VERSION,
    )
    ctx.files[f"{PROFILE}/places.sqlite"] = "firefox"
    anchor_us = prtime(ctx.anchor.isoformat() + " 08:00:00")
    cookies = []
    for n, app in enumerate(APPS):
        cookies.append(
            {
                "id": n + 1,
                "originAttributes": "",
                "name": "sessionid",
                "value": guid("session", ctx.persona.slug, app) + guid("cookie", app),
                "host": host(app),
                "path": "/",
                "expiry": int(anchor_us / 1_000_000) + 365 * 86400,
                "lastAccessed": anchor_us,
                "creationTime": anchor_us,
                "isSecure": 0,
                "isHttpOnly": 1,
                "inBrowserElement": 0,
                "sameSite": 1,
                "schemeMap": 1,
                "isPartitionedAttributeSet": 0,
                "updateTime": anchor_us,
            }
        )
    write_sqlite(profile / "cookies.sqlite", COOKIES_SCHEMA, {"moz_cookies": cookies}, COOKIES_VERSION)
    ctx.files[f"{PROFILE}/cookies.sqlite"] = "firefox"
    searches: dict[str, dict[str, int]] = {}
    for stamp, url, *_ in visits:
        if url.startswith("https://www.google.com/search?"):
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["q"][0]
            entry = searches.setdefault(query, {"first": prtime(stamp), "last": prtime(stamp), "count": 0})
            entry["count"] += 1
            entry["last"] = prtime(stamp)
    form = [
        {
            "id": i + 1,
            "fieldname": "searchbar-history",
            "value": q,
            "timesUsed": e["count"],
            "firstUsed": e["first"],
            "lastUsed": e["last"],
            "guid": guid("form", q),
        }
        for i, (q, e) in enumerate(sorted(searches.items()))
    ]
    ident = ctx.persona.spec["identity"]
    for field in ("name", "email", "phone", "address"):
        if ident.get(field):
            form.append(
                {
                    "id": len(form) + 1,
                    "fieldname": field,
                    "value": str(ident[field]),
                    "timesUsed": 3,
                    "firstUsed": anchor_us,
                    "lastUsed": anchor_us,
                    "guid": guid("form", field),
                }
            )
    write_sqlite(profile / "formhistory.sqlite", FORMHISTORY_SCHEMA, {"moz_formhistory": form}, FORMHISTORY_VERSION)
    ctx.files[f"{PROFILE}/formhistory.sqlite"] = "firefox"
    (profile / "times.json").write_text(f'{{"created": {anchor_us // 1000}, "firstUse": null}}\n')
    ini = ctx.out / "home/user/.mozilla/firefox/profiles.ini"
    ini.write_text(
        "[Profile0]\nName=default-release\nIsRelative=1\nPath=mypcbench.default-release\nDefault=1\n\n[General]\nStartWithLastProfile=1\nVersion=2\n"
    )
    # Firefox's tables have no room for provenance, so the build records it per source in the manifest.
    sources: dict[str, int] = {}
    for *_, prov in visits:
        sources[prov] = sources.get(prov, 0) + 1
    ctx.notes["firefox_visit_provenance"] = dict(sorted(sources.items()))
    ctx.notes["firefox_counts"] = {
        "visits": len(history),
        "places": len(places_rows),
        "bookmarks": sum(1 for b in bookmarks if b["type"] == 1),
        "cookies": len(cookies),
        "formhistory": len(form),
    }


ROOTS = [
    ("root________", 0, ""),
    ("menu________", 1, "menu"),
    ("toolbar_____", 1, "toolbar"),
    ("tags________", 1, "tags"),
    ("unfiled_____", 1, "unfiled"),
    ("mobile______", 1, "mobile"),
]


def _bookmarks(ctx, places, origins):
    stamp = prtime(ctx.start.isoformat() + " 09:00:00")
    rows = []
    for n, (gid, parent, root_title) in enumerate(ROOTS):
        rows.append(
            {
                "id": n + 1,
                "type": 2,
                "fk": None,
                "parent": parent,
                "position": max(n - 1, 0),
                "title": root_title,
                "dateAdded": stamp,
                "lastModified": stamp,
                "guid": gid,
                "syncStatus": 1,
                "syncChangeCounter": 1,
            }
        )
    wanted: list[tuple[str, str | None, int]] = [(f"http://{host(app)}/", name, 3) for app, name in APPS.items()]
    patterns = ctx.persona.section("browsing_patterns", {})
    for pattern in patterns.get("routine_browsing", []):
        wanted += [(_url(site), None, 2) for site in pattern.get("sites", [])]
    wanted += [(h["url"], h.get("title"), 2) for h in patterns.get("humor_searches", [])]
    for thread in patterns.get("research_threads", []):
        wanted += [
            ("https://" + ("www." if s["domain"].count(".") == 1 else "") + s["domain"] + "/", None, 5)
            for s in thread.get("sites", [])
        ]
    seen: set[str] = set()
    chosen: list[tuple[str, str | None, int]] = []
    for url, title, parent in wanted:
        if url not in seen:
            seen.add(url)
            chosen.append((url, title, parent))
    # Not enough favourite sites in the spec: bookmark the most visited other pages.
    for place in sorted(places.values(), key=lambda p: (-p["visit_count"], p["url"])):
        if len(chosen) >= target(ctx, "bookmarks"):
            break
        if place["url"] not in seen and "/search?" not in place["url"]:
            seen.add(place["url"])
            chosen.append((place["url"], None, 2))
    for app in APPS:
        for path in sorted(APP_PAGES[app]):
            url = f"http://{host(app)}{path}"
            if len(chosen) < target(ctx, "bookmarks") and url not in seen:
                seen.add(url)
                chosen.append((url, app_page_title(app, path), 5))
    chosen = chosen[: target(ctx, "bookmarks")]
    positions: dict[int, int] = {}
    for url, title, parent in chosen:
        if url not in places:
            parts = urllib.parse.urlsplit(url)
            key = (f"{parts.scheme}://", parts.hostname)
            if key not in origins:
                origins[key] = {"id": len(origins) + 1, "prefix": key[0], "host": key[1], "frecency": 0}
            places[url] = {
                "id": len(places) + 1,
                "url": url,
                "title": title or _title_for(url),
                "rev_host": (parts.hostname or "")[::-1] + ".",
                "visit_count": 0,
                "hidden": 0,
                "typed": 0,
                "frecency": 0,
                "last_visit_date": None,
                "guid": guid("place", url),
                "foreign_count": 0,
                "url_hash": url_hash(url),
                "origin_id": origins[key]["id"],
                "site_name": None,
            }
        place = places[url]
        place["foreign_count"] += 1
        position = positions.get(parent, 0)
        positions[parent] = position + 1
        rows.append(
            {
                "id": len(rows) + 1,
                "type": 1,
                "fk": place["id"],
                "parent": parent,
                "position": position,
                "title": title or place["title"],
                "dateAdded": stamp,
                "lastModified": stamp,
                "guid": guid("bookmark", url),
                "syncStatus": 1,
                "syncChangeCounter": 1,
            }
        )
    return rows
