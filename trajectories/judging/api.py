"""API for judge agreement with human labels: every judge with its figures per slice (overall, per
behavioural type, per primary app), as the judges' page and its CSV/JSON exports give them."""

from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema

from leaderboard.catalog.selectors import visible_runs
from trajectories.judging import agreement

router = Router(tags=["judges"])


class AgreementRowOut(Schema):
    judge: str
    judge_id: int
    judge_origin: str
    provider: str
    model: str
    prompt_version: str
    judgments: int = Field(description="Success/failure verdicts on the runs you may see, labelled or not.")
    slice_kind: str = Field(description="overall, behavioural_type or app (the task's primary app).")
    slice: str
    label: str
    labels: int = Field(description="Verdicts with a human label (the latest label counts).")
    agreed: int
    judge_success_human_success: int
    judge_success_human_failure: int
    judge_failure_human_success: int
    judge_failure_human_failure: int
    kappa: float | None = Field(description="Cohen's kappa; null when undefined (no labels, or one answer throughout).")
    kappa_low: float | None = Field(description="95% percentile bootstrap of the labelled items (2,000 resamples).")
    kappa_high: float | None
    accuracy: float | None = Field(description="Share of labelled verdicts the human agreed with (0-1).")
    accuracy_low: float | None = Field(description="95% Wilson interval.")
    accuracy_high: float | None


@router.get(
    "/judges", response=list[AgreementRowOut], url_name="judge_agreement_list", summary="Judges' agreement with people"
)
def judge_agreement_list(request):
    """Every judge configuration with verdicts on runs you may see: one row per judge and slice."""
    return agreement.export_rows(agreement.judge_agreements(visible_runs(request.user)))


@router.get(
    "/judges/{judge_id}",
    response=list[AgreementRowOut],
    url_name="judge_agreement_detail",
    summary="One judge's agreement with people",
)
def judge_agreement_detail(request, judge_id: int):
    """One judge's rows (overall, per behavioural type, per app); 404 when it judged no run you may see."""
    runs = visible_runs(request.user)
    judge = get_object_or_404(agreement.judges_with_judgments(runs), pk=judge_id)
    return agreement.export_rows(agreement.judge_agreements(runs, judge))
