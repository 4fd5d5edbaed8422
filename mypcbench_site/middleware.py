"""A strict Content-Security-Policy header: trajectory text is untrusted, so pages load
scripts, styles and images only from this site."""

POLICY = (
    "default-src 'self'; img-src 'self' data: blob:; script-src 'self'; style-src 'self'; "
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
