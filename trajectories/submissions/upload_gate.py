"""What an upload request must pass before its body is received: who sends it, whether they may
upload now, and how big the body says it is. Django spools a multipart body to temporary files as
it parses it, so these checks run on the request's headers alone (mypcbench_site.middleware calls
them for the two upload addresses) and a refused upload costs no disk and no reading. When the
shared cache holding the rate counters (or the database) does not answer, the upload is refused with a
503 and Retry-After, never a crash."""

import logging
from dataclasses import dataclass

from django.urls import reverse

from mypcbench_site.outages import SERVICE_RETRY_SECONDS, SERVICE_UNAVAILABLE
from trajectories.accounts import ratelimits
from trajectories.accounts.tokens import authenticate_token
from trajectories.models import Submission
from trajectories.submissions.uploads import upload_limits

logger = logging.getLogger(__name__)
API_UPLOAD_PATH = "/api/submissions"
# The metadata field and the multipart boundaries around the archive: far below this.
FORM_OVERHEAD_BYTES = 1024**2
UNAVAILABLE_MESSAGE = (
    "Uploads are paused for a moment: the site's cache or database is not answering. "
    "Nothing was received; please try again in a minute."
)


@dataclass
class Refusal:
    status: int
    message: str
    retry_after: int | None = None
    api: bool = False


def upload_paths() -> tuple[str, ...]:
    return API_UPLOAD_PATH, reverse("trajectories:submission_new")


def check_upload_request(request) -> Refusal | None:
    """None when the upload may be received; otherwise why not (nothing of the body read). The cache
    or database not answering (mypcbench_site.outages) is a 503 refusal with Retry-After."""
    if request.method != "POST" or request.path.rstrip("/") not in {p.rstrip("/") for p in upload_paths()}:
        return None
    api = request.path.rstrip("/") == API_UPLOAD_PATH
    try:
        return _check_upload(request, api)
    except SERVICE_UNAVAILABLE as exc:
        logger.error("upload gate: a service is not answering for %s: %s", request.path, exc)
        return Refusal(503, UNAVAILABLE_MESSAGE, SERVICE_RETRY_SECONDS, api=api)


def _check_upload(request, api: bool) -> Refusal | None:
    if api:
        header = request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        user = authenticate_token(token.strip()) if scheme.lower() == "bearer" and token.strip() else None
        if user is None:
            return Refusal(401, "Unauthorized: send your API token as 'Authorization: Bearer <token>'.", api=True)
    else:
        user = request.user
        if not user.is_authenticated:
            return Refusal(401, "Sign in to upload a submission.")
    try:
        ratelimits.check_upload_attempts(user)
        ratelimits.check_uploads(
            user,
            lambda since: (
                Submission.objects.filter(author=user, created_at__gte=since)
                .order_by("created_at")
                .values_list("created_at", flat=True)
            ),
        )
    except ratelimits.RateLimited as exc:
        return Refusal(429, str(exc), exc.retry_after, api=api)
    limit = upload_limits().max_archive_bytes
    length = request.META.get("CONTENT_LENGTH", "")
    if not str(length).isdigit():
        return Refusal(411, "The upload has no Content-Length: send the archive with its length.", api=api)
    if int(length) > limit + FORM_OVERHEAD_BYTES:
        return Refusal(
            413,
            f"The upload is {int(length):,} bytes; archives of at most {limit:,} bytes are accepted "
            "(MYPCBENCH_UPLOAD_MAX_BYTES). Nothing was received.",
            api=api,
        )
    return None
