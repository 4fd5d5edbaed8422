"""Pages for authors: upload a submission (with progress), their submissions and each one's
validation report, judging progress and review. Thin callers of the services (sign-up, log-in and
API tokens: trajectories.accounts.views)."""

from typing import cast

from django import forms
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.db.models import Count
from django.http import FileResponse, Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from leaderboard.models import Run, Suite
from trajectories.models import Submission
from trajectories.recording import contamination
from trajectories.submissions import review, uploads, validation, words
from trajectories.submissions.validation import MAX_TURN_BUDGET


class SubmissionForm(forms.Form):
    archive = forms.FileField(help_text="A .zip or .tar.gz holding one or many task folders.")
    suite = forms.ChoiceField()
    model = forms.CharField(max_length=100, help_text="The model's display name, e.g. “Claude Opus 4.6”.")
    agent = forms.CharField(max_length=50, required=False, help_text="Agent type, e.g. claude-cua.")
    tool_surface = forms.ChoiceField(choices=Run.ToolSurface.choices, initial=Run.ToolSurface.COMPUTER_BASH)
    turn_budget = forms.IntegerField(min_value=1, max_value=MAX_TURN_BUDGET, initial=100)
    harness_version = forms.CharField(max_length=50, required=False)
    image_version = forms.CharField(max_length=100, required=False, label="VM image version")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False, max_length=5000)
    links = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}), required=False, help_text="One http(s) address per line."
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # suites with tasks first (an upload to a suite without tasks cannot match any task id),
        # and the first of them preselected
        suites = sorted(
            Suite.objects.annotate(n_tasks=Count("tasks")).order_by("is_demo", "slug"), key=lambda s: not s.n_tasks
        )
        cast(forms.ChoiceField, self.fields["suite"]).choices = [
            (s.slug, f"{s.name} {s.version}" + ("" if s.n_tasks else " (no tasks on this site yet)")) for s in suites
        ]
        if suites and not self.is_bound:
            self.initial.setdefault("suite", suites[0].slug)

    def metadata(self) -> dict:
        data = {k: v for k, v in self.cleaned_data.items() if k != "archive"}
        data["links"] = [line.strip() for line in (data.get("links") or "").splitlines() if line.strip()]
        return data


def _wants_json(request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


@login_required
def submission_new(request):
    form = SubmissionForm(request.POST or None, request.FILES or None)
    problems, retry_after = [], None
    if request.method == "POST":
        if form.is_valid():
            try:
                result = uploads.take_upload(request.user, form.cleaned_data["archive"], form.metadata())
            except validation.SubmissionRejected as exc:
                problems = exc.report_dicts
                status, retry_after = exc.status_code, exc.retry_after
            else:
                url = reverse("trajectories:submission_detail", args=[result.submission.pk])
                if not result.created:
                    messages.info(request, "This archive was already submitted; here is that submission.")
                if _wants_json(request):
                    return JsonResponse({"redirect": url, "created": result.created})
                return redirect(url)
        else:
            status = 400
            problems = [
                {"file": "form", "problem": f"{name}: {' '.join(cast(list[str], errs))}", "level": "error"}
                for name, errs in form.errors.items()
            ]
        response: HttpResponse
        if _wants_json(request):
            response = JsonResponse({"problems": problems}, status=status)
        else:  # the form again with the problems listed; a rate limit keeps its 429
            context = {"form": form, "problems": problems}
            response = render(request, "submissions/new.html", context, status=429 if status == 429 else 200)
        if status == 429:
            response["Retry-After"] = str(retry_after)
        return response
    return render(request, "submissions/new.html", {"form": form, "problems": problems})


@login_required
def submission_list(request):
    rows = list(review.visible_submissions(request.user).order_by("-created_at"))
    for sub in rows:  # the status as the submission's page and the API name it
        sub.shown = review.shown_status(sub, request.user.is_staff)
    return render(request, "submissions/list.html", {"submissions": rows})


def _visible_or_404(user, pk: int):
    sub = review.visible_submissions(user).filter(pk=pk).first()
    if sub is None:
        raise Http404("No such submission among those you can see")
    return sub


@login_required
def submission_detail(request, pk: int):
    sub = review.sync_judging_status(_visible_or_404(request.user, pk))
    report = sub.validation_report or []
    judge_progress = review.judging_progress(sub)
    flags, flags_total = contamination.flags_of_run(sub.run_id) if sub.run_id else ([], 0)
    return render(
        request,
        "submissions/detail.html",
        {
            "flags": flags,  # shown with links to their steps, so left out of the warnings below
            "flags_total": flags_total,
            "shown": review.shown_status(sub, request.user.is_staff),  # as the API and the list name it
            "submission": sub,
            "run": sub.run,
            "errors": [p for p in report if p.get("level") == "error"],
            "warnings": [
                p
                for p in report
                if p.get("level") == "warning" and not (flags and p.get("problem", "").startswith("contamination:"))
            ],
            "notes": [p for p in report if p.get("level") == "note"],
            "judging": review.judging_state(sub),
            "judging_note": review.judging_note(sub, judge_progress),
            "progress": review.submission_progress(sub),
            "judge_progress": judge_progress,
            "live": review.is_live(sub),
            "is_author": sub.author_id == request.user.pk,
            "can_withdraw": sub.author_id == request.user.pk
            and sub.status not in (sub.Status.WITHDRAWN, sub.Status.VALIDATING),
        },
    )


@never_cache
@login_required
def submission_live(request, pk: int):
    """The submission page's progress as JSON, polled while it is validating or judging; seen by
    exactly who sees the page (the author and staff; 404 for anyone else)."""
    sub = review.sync_judging_status(_visible_or_404(request.user, pk))
    return JsonResponse(words.live_for(review.live_state(sub), request.user.is_staff))


@staff_member_required
def submission_archive(request, pk: int):
    """The original archive as uploaded, for maintainers."""
    sub = Submission.objects.filter(pk=pk).first()
    name = (sub.metadata or {}).get("archive_file") if sub else None
    if not name or not default_storage.exists(name):
        raise Http404("No kept archive for this submission")
    # a name was found, so the submission was
    return FileResponse(
        default_storage.open(name, "rb"), as_attachment=True, filename=cast(Submission, sub).archive_name
    )


@login_required
@require_POST
def submission_withdraw(request, pk: int):
    sub = review.visible_submissions(request.user).filter(pk=pk, author=request.user).first()
    if sub is None:
        raise Http404("No such submission among yours")
    try:
        review.decide(sub, request.user, "withdraw", request.POST.get("reason", ""))
    except review.ReviewError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Withdrawn: the run is no longer shown on the leaderboard.")
    return redirect("trajectories:submission_detail", pk=pk)
