"""The submissions API: authors upload an archive with run metadata (token auth) and read back
their submission's status and validation report. Thin callers of trajectories.submissions."""

from datetime import datetime

from django.http import Http404, HttpResponse
from django.urls import reverse
from ninja import Field, File, Form, Router, Schema, Status
from ninja.files import UploadedFile
from ninja.security import HttpBearer, SessionAuth

from trajectories.accounts.ratelimits import RateLimited, count_api_call
from trajectories.accounts.tokens import authenticate_token
from trajectories.models import Submission
from trajectories.submissions import review, uploads, validation

router = Router(tags=["submissions"])


def rate_limited_response(request, exc: RateLimited, api) -> HttpResponse:
    """429 naming the limit and when it resets, with Retry-After (registered on the api for
    refusals raised while authenticating)."""
    response = api.create_response(
        request, {"detail": str(exc), "problems": [{"file": "", "problem": str(exc), "level": "error"}]}, status=429
    )
    response["Retry-After"] = str(exc.retry_after)
    return response


def _rate_limited(user):
    count_api_call(user)  # raises RateLimited, answered by rate_limited_response
    return user


class TokenAuth(HttpBearer):
    """``Authorization: Bearer mpcb_...`` with a token from the account's API tokens page."""

    def authenticate(self, request, token):
        user = authenticate_token(token)
        return _rate_limited(user) if user is not None else None


class RateLimitedSession(SessionAuth):
    def authenticate(self, request, key):
        user = super().authenticate(request, key)
        return _rate_limited(user) if user is not None else None


class ProblemOut(Schema):
    file: str
    problem: str
    level: str


class SubmissionOut(Schema):
    id: int
    url: str
    status: str = Field(
        description="validating, rejected, judging, awaiting_judge (stored and checked, but our judge could not "
        "start on this site: nothing happens until a maintainer queues it), awaiting_review, changes_requested, "
        "published or withdrawn; the submission page shows the same status"
    )
    status_label: str = Field(description="The status as the submission page names it")
    status_next: str = Field(description="What happens next, in words")
    archive_name: str
    archive_sha256: str
    archive_size: int
    created_at: datetime
    run: str | None
    provenance: str | None
    publication: str | None
    metadata: dict
    judging: dict
    validation_report: list[ProblemOut]
    review_log: list[dict]


class RefusedOut(Schema):
    detail: str
    problems: list[ProblemOut]


def _out(request, sub: Submission) -> dict:
    sub = review.sync_judging_status(sub)
    run = sub.run
    return {
        "id": sub.pk,
        "url": request.build_absolute_uri(reverse("trajectories:submission_detail", args=[sub.pk])),
        **review.shown_status(sub, bool(getattr(request.auth, "is_staff", False))),
        "archive_name": sub.archive_name,
        "archive_sha256": sub.archive_sha256,
        "archive_size": sub.archive_size,
        "created_at": sub.created_at,
        "run": run.slug if run else None,
        "provenance": run.provenance if run else None,
        "publication": run.publication if run else None,
        "metadata": {k: v for k, v in (sub.metadata or {}).items() if k not in ("judging", "archive_file")},
        "judging": {**review.judging_state(sub), "progress": review.judging_progress(sub)},
        "validation_report": sub.validation_report,
        "review_log": sub.review_log,
    }


@router.post(
    "/submissions",
    auth=TokenAuth(),
    response={
        200: SubmissionOut,
        201: SubmissionOut,
        202: SubmissionOut,
        409: RefusedOut,
        422: RefusedOut,
        429: RefusedOut,
    },
    summary="Upload an archive of task folders with run metadata",
    description=(
        "Multipart form: `archive` (a .zip or .tar.gz holding one or many task folders in the upstream "
        "MyPCBench, OSWorld or bundle layout) and `metadata` (JSON: suite, model, agent, tool_surface, "
        "turn_budget, harness_version, image_version, notes, links). 201 when accepted, 200 when the same "
        "archive was already submitted with no metadata or the same metadata (its submission, unchanged), 409 when "
        "it was already submitted with other metadata (each field that differs is named; nothing is stored or "
        "changed) or from another account, 422 with every problem found when refused (nothing is stored), 429 "
        "over a per-author limit on accepted uploads, upload attempts (accepted or refused, repeats too) or "
        "API calls (the message names the limit and when it resets; "
        "Retry-After gives the seconds to wait). Where workers check uploads (MYPCBENCH_UPLOAD_VALIDATION="
        "worker), the answer is 202 with status `validating` once the archive is received and its metadata "
        "checked: poll the submission's `GET` until the status changes (`rejected` with every problem in "
        "`validation_report`, or on to judging and review)."
    ),
)
def create_submission(request, response: HttpResponse, archive: File[UploadedFile], metadata: Form[str] = "{}"):
    try:
        result = uploads.take_upload(request.auth, archive, metadata)
    except validation.SubmissionRejected as exc:
        if exc.retry_after is not None:
            response["Retry-After"] = str(exc.retry_after)
        return Status(exc.status_code, {"detail": str(exc), "problems": exc.report_dicts})
    if not result.created:
        return Status(200, _out(request, result.submission))
    return Status(
        202 if result.submission.status == Submission.Status.VALIDATING else 201, _out(request, result.submission)
    )


@router.get(
    "/submissions",
    auth=[TokenAuth(), RateLimitedSession()],
    response=list[SubmissionOut],
    summary="Your submissions (all of them for maintainers)",
)
def list_submissions(request):
    return [_out(request, s) for s in review.visible_submissions(request.auth)[:200]]


@router.get(
    "/submissions/{submission_id}",
    auth=[TokenAuth(), RateLimitedSession()],
    response=SubmissionOut,
    summary="One submission: status, validation report, review log",
)
def get_submission(request, submission_id: int):
    sub = review.visible_submissions(request.auth).filter(pk=submission_id).first()
    if sub is None:
        raise Http404(f"No submission {submission_id}")
    return _out(request, sub)
