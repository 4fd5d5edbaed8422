"""A strict Content-Security-Policy header: trajectory text is untrusted, so pages load
scripts, styles and images only from this site; and the site's own error pages when configured."""

from django.conf import settings
from django.template.loader import render_to_string

# The vendored plotly.min.js injects one fixed <style> element when it loads (the stylesheet of
# its map library, which we never use): allowed by its hash only, so no other inline style runs.
# Recompute it when static/vendor/plotly changes (tests/browser/test_site_browser.py fails otherwise).
PLOTLY_INJECTED_STYLE = "'sha256-ji27qzEtxXZW+7dun6UwjHXJ18e6WAin1VvNtkzIE/o='"
POLICY = (
    f"default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self' {PLOTLY_INJECTED_STYLE}; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'"
)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        # Swagger UI and the admin bootstrap with inline code; public pages are strict.
        if not request.path.startswith(("/api/docs", "/admin/")):
            response.setdefault("Content-Security-Policy", POLICY)
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
