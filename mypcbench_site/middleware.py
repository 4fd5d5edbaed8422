"""A strict Content-Security-Policy header: trajectory text is untrusted, so pages load
scripts, styles and images only from this site (images also from the media bucket, when media are
in one); the site's own error pages when configured; and a plain 503 page when the database does
not answer."""

import logging
from urllib.parse import urlsplit

from django.conf import settings
from django.core.files.storage import storages
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from mypcbench_site.outages import SERVICE_RETRY_SECONDS, SERVICE_UNAVAILABLE
from trajectories.submissions.upload_gate import check_upload_request

logger = logging.getLogger(__name__)
DATABASE_RETRY_SECONDS = SERVICE_RETRY_SECONDS

# The vendored plotly.min.js injects one fixed <style> element when it loads (the stylesheet of
# its map library, which we never use): allowed by its hash only, so no other inline style runs.
# Recompute it when static/vendor/plotly changes (tests/browser/test_site_browser.py fails otherwise).
PLOTLY_INJECTED_STYLE = "'sha256-ji27qzEtxXZW+7dun6UwjHXJ18e6WAin1VvNtkzIE/o='"
POLICY_TEMPLATE = (
    "default-src 'self'; img-src 'self' data: blob:{media_origins}; script-src 'self'; "
    f"style-src 'self' {PLOTLY_INJECTED_STYLE}; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)
POLICY = POLICY_TEMPLATE.format(media_origins="")  # media on disk: images from this site only
_policy_for: tuple | None = None  # (media storage, public base URL, policy): the last one worked out


def origin(url: str) -> str:
    """scheme://host[:port] of a URL: the narrowest source a CSP can name for it."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def media_origins(storage, public_base_url: str) -> list[str]:
    """The origins the media view redirects readers to when media are in a bucket: the bucket's own
    URL (as the store itself spells it: endpoint, addressing style, region) and the public base URL
    (a CDN) if one is set. None for media on disk."""
    from mypcbench_site.storage import MediaS3Storage  # here: imported once per storage setting, not at start

    if not isinstance(storage, MediaS3Storage):
        return []
    bucket_url = storage.unsigned_connection.meta.client.generate_presigned_url(
        "get_object", Params={"Bucket": storage.bucket_name, "Key": "csp-probe"}
    )
    found = [origin(bucket_url), origin(public_base_url)]
    return [o for i, o in enumerate(found) if o and o not in found[:i]]


def content_security_policy() -> str:
    """POLICY, with images also allowed from exactly the media bucket's origin(s) when media are in
    one (screenshots reach the player by redirect there). Worked out once per storage setting."""
    global _policy_for
    storage = storages["default"]
    base = getattr(settings, "MYPCBENCH_MEDIA_PUBLIC_BASE_URL", "")
    if _policy_for is None or _policy_for[0] is not storage or _policy_for[1] != base:
        extra = "".join(f" {o}" for o in media_origins(storage, base))
        _policy_for = (storage, base, POLICY_TEMPLATE.format(media_origins=extra))
    return _policy_for[2]


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # Swagger UI and the admin bootstrap with inline code; public pages are strict.
        if not request.path.startswith(("/api/docs", "/admin/")):
            response.setdefault("Content-Security-Policy", content_security_policy())
        return response


class FriendlyErrorPagesMiddleware:
    """With DEBUG on (the demo), Django answers a missing page or a crash with its technical debug
    page. When settings.MYPCBENCH_FRIENDLY_ERRORS is on, HTML error pages outside the API and the
    admin are replaced by the site's own 400/403/404/500 pages, as production shows them; the
    traceback of a crash is still logged by Django."""

    PAGES = {400: "400.html", 403: "403.html", 404: "404.html", 500: "500.html"}

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        template = self.PAGES.get(response.status_code)
        if (
            template is None
            or not getattr(settings, "MYPCBENCH_FRIENDLY_ERRORS", False)
            or request.path.startswith(("/api/", "/admin/"))
            or getattr(response, "streaming", False)
            or "html" not in response.get("Content-Type", "")
            or getattr(response, "friendly", False)
        ):
            return response
        response.content = render_to_string(template, request=request)
        return response


class DatabaseUnavailableMiddleware:
    """A view that cannot reach the database (PostgreSQL restarting, a connection dropped, SQLite
    busy past its timeout) or the shared Redis cache (restarting) answers 503 with Retry-After and
    plain words, as JSON under /api/, instead of a traceback. The page is standalone: the usual layout
    reads the signed-in user, which needs the database. The media store not answering (an upload
    storing its screenshots) answers the same way. Django's connection health checks
    (CONN_HEALTH_CHECKS) reconnect on the next request."""

    MESSAGE = (
        "The site's database, cache or media store is not answering just now; nothing was stored half-way. "
        "Please try again in a minute."
    )

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not isinstance(exception, SERVICE_UNAVAILABLE):
            return None
        logger.error("database, cache or media store unavailable for %s: %s", request.path, exception)
        response: HttpResponse
        if request.path.startswith("/api/"):
            response = JsonResponse({"detail": self.MESSAGE}, status=503)
        else:
            response = HttpResponse(render_to_string("503.html"), status=503)
        response["Retry-After"] = str(DATABASE_RETRY_SECONDS)
        response.friendly = True  # type: ignore[attr-defined]  # a mark the error-page middleware reads
        return response


class UploadGateMiddleware:
    """Refuse an upload on its headers (sender, rate limits, declared size) before Django reads and
    spools its body (trajectories/submissions/upload_gate.py); JSON for the API, a short page for
    the form. Must come after the authentication middleware."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        refusal = check_upload_request(request)
        if refusal is None:
            return self.get_response(request)
        problems = [{"file": "", "problem": refusal.message, "level": "error"}]
        response: HttpResponse
        if refusal.api or "application/json" in request.headers.get("Accept", ""):
            response = JsonResponse({"detail": refusal.message, "problems": problems}, status=refusal.status)
        else:
            page = render_to_string("submissions/refused.html", {"message": refusal.message}, request=request)
            response = HttpResponse(page, status=refusal.status)
        if refusal.retry_after is not None:
            response["Retry-After"] = str(refusal.retry_after)
        if refusal.status == 401 and refusal.api:
            response["WWW-Authenticate"] = "Bearer"
        response.friendly = True  # type: ignore[attr-defined]  # a mark the error-page middleware reads
        return response
