"""Errors meaning a service the site stands on is not answering just now (the database restarting,
the object store unreachable), as opposed to a fault in the work itself: work that meets one is
retried later (trajectories/tasks.py), never recorded as failed; a page that meets one answers 503
(mypcbench_site/middleware.py)."""

from botocore.exceptions import ConnectionError as StoreConnectionError
from botocore.exceptions import HTTPClientError
from django.db import InterfaceError, OperationalError
from redis.exceptions import ConnectionError as CacheConnectionError
from redis.exceptions import TimeoutError as CacheTimeoutError

DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
STORAGE_UNAVAILABLE = (StoreConnectionError, HTTPClientError)
# the shared Redis cache (page cache, figures, counters, rate limits) restarting
CACHE_UNAVAILABLE = (CacheConnectionError, CacheTimeoutError)
SERVICE_UNAVAILABLE = DATABASE_UNAVAILABLE + STORAGE_UNAVAILABLE + CACHE_UNAVAILABLE
# the Retry-After a 503 for one of these carries (pages, the API, the upload gate)
SERVICE_RETRY_SECONDS = 30
MAX_RETRY_SECONDS = 60.0


def retry_countdown(retries: int) -> float:
    """Seconds before retry number ``retries + 1``: 2, 4, 8 ... up to a minute."""
    return min(MAX_RETRY_SECONDS, 2.0 * 2 ** min(retries, 10))
