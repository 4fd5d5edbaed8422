"""Human labelling in the admin: bulk actions on the Judgment changelist (agree, disagree, success,
failure, with an optional note), a "Human label" changelist filter (unlabelled, labelled, disagrees),
and the labelling page that shows unlabelled verdicts one card each so a batch is labelled in one go.
The writes are trajectories.labelling.record_labels; this module only wires them to the admin."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import PermissionDenied
from django.db.models import F, Q
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import urlencode

from trajectories.judging import labelling

can_label = labelling.can_label


class LabelNoteForm(ActionForm):
    note = forms.CharField(required=False, max_length=2000, label="Note (for human label actions)")


class HumanLabelFilter(admin.SimpleListFilter):
    """Judgments by their latest human label (the queryset is annotated with it as ``latest_label``)."""

    title = "human label"
    parameter_name = "human_label"

    def lookups(self, request, model_admin):
        return [
            ("none", "Unlabelled"),
            ("any", "Labelled"),
            ("disagrees", "Labelled, disagrees with the judge"),
        ]

    def queryset(self, request, queryset):
        if self.value() == "none":
            return queryset.filter(latest_label__isnull=True)
        if self.value() == "any":
            return queryset.filter(latest_label__isnull=False)
        if self.value() == "disagrees":
            return queryset.filter(latest_label__isnull=False).filter(~Q(latest_label=F("verdict")))
        return queryset


def _label(modeladmin, request, queryset, choice: str):
    outcome = labelling.record_labels(
        dict.fromkeys(queryset.values_list("pk", flat=True), choice), request.user, note=request.POST.get("note", "")
    )
    modeladmin.message_user(request, outcome.summary(), messages.SUCCESS if outcome.recorded else messages.INFO)
    for reason in outcome.skipped[:20]:
        modeladmin.message_user(request, f"Not labelled: {reason}", messages.WARNING)


@admin.action(description="Human label: the judge is right (agree)", permissions=["label"])
def label_agree(modeladmin, request, queryset):
    _label(modeladmin, request, queryset, labelling.AGREE)


@admin.action(description="Human label: the judge is wrong (disagree)", permissions=["label"])
def label_disagree(modeladmin, request, queryset):
    _label(modeladmin, request, queryset, labelling.DISAGREE)


@admin.action(description="Human label: success (the item was met)", permissions=["label"])
def label_success(modeladmin, request, queryset):
    _label(modeladmin, request, queryset, labelling.SUCCESS)


@admin.action(description="Human label: failure (the item was not met)", permissions=["label"])
def label_failure(modeladmin, request, queryset):
    _label(modeladmin, request, queryset, labelling.FAILURE)


ACTIONS = [label_agree, label_disagree, label_success, label_failure]


def label_view(model_admin, request):
    """GET: the next batch of unlabelled verdicts matching the filters. POST: record the choices made
    (cards left on "skip" stay in the queue) and come back to the same filters for the next batch."""
    if not labelling.can_label(request.user):
        raise PermissionDenied
    filters = labelling.QueueFilters.from_query(request.GET)
    here = reverse("admin:trajectories_judgment_label") + "?" + urlencode(filters.as_query())
    if request.method == "POST":
        choices, notes = {}, {}
        for name, value in request.POST.items():
            if name.startswith("label-") and value in labelling.CHOICES:
                try:
                    pk = int(name.removeprefix("label-"))
                except ValueError:
                    continue
                choices[pk] = value
                notes[pk] = request.POST.get(f"note-{pk}", "").strip()[:2000]
        if not choices:
            messages.info(request, "Nothing labelled: every card was left on skip.")
            return redirect(here)
        outcome = labelling.record_labels(choices, request.user, notes=notes)
        messages.success(request, outcome.summary())
        for reason in outcome.skipped[:20]:
            messages.warning(request, f"Not labelled: {reason}")
        return redirect(here)
    queue = labelling.label_queue(filters)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Label verdicts",
        "opts": model_admin.model._meta,
        "queue": queue,
        "filters": filters,
        "verdict_choices": [("failure", "Failures"), ("success", "Successes"), ("any", "Both")],
        "order_choices": list(labelling.QUEUE_ORDERS.items()),
    }
    return TemplateResponse(request, "admin/trajectories/judgment/label.html", context)
