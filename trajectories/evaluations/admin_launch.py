"""Admin pages and actions for harness evaluations: the launch form, the rerun form of one run, and
the Run list actions (rerun whole, rerun failed or errored, cancel). Thin: trajectories/evaluations/lifecycle.py
does the work."""

from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse

from harness import safejson
from harness.backends import BACKENDS
from harness.judge import PROMPT_VERSION, PROMPT_VERSIONS
from harness.judge.provider_base import PROVIDERS
from harness.results import WorldVariantError, parse_world_variants
from leaderboard.catalog.slugs import create_with_free_slug
from leaderboard.models import Model, Run, Suite, Task
from trajectories.evaluations import agent_backend, lifecycle
from trajectories.evaluations.lifecycle import LaunchRefused, LaunchSpec
from trajectories.judge_spec import JudgeSpec

BACKEND_HELP = {
    "fake": "fake guest on loopback (smoke tests, demos)",
    "remote": "a guest already running at a URL",
    "local": "our local desktop guest (Xvfb + Chromium) on the worker",
    "qemu": "the released qcow2 under QEMU, one overlay per slot",
    "docker": "the released Docker image, ports per slot",
}


# Form field -> the harness's provider_agent setting (the CLI flag names).
AGENT_SETTING_FIELDS = {
    "max_output_tokens": "max_output_tokens",
    "retry_output_tokens": "retry_output_tokens",
    "reasoning_effort": "reasoning_effort",
    "temperature": "temperature",
    "display": "display",
    "dual_tool_hint": "dual_tool_hint",
    "image_drop_chunk": "image_drop_chunk",
    "openai_context": "context",
    "gemini_safety": "safety_policy",
    "claude_tools": "claude_tools",
    "thinking": "thinking",
}


def agent_settings(data: dict) -> dict:
    """The settings filled in (blank ones are the agent's default and left out)."""
    settings = {}
    for name, key in AGENT_SETTING_FIELDS.items():
        value = data.get(name)
        if isinstance(value, str):
            value = value.strip()
        if value in (None, ""):
            continue
        settings[key] = value == "on" if name == "dual_tool_hint" else value
    return settings


# Which models each agent runs, by Model.provider: a run is named after its model, so a scripted agent
# must never run under a real model's name, nor one provider's agent under another's model. "other" is a
# provider we cannot tell: any agent that calls a model may run it.
AGENT_PROVIDERS = {
    "anthropic": {Model.Provider.ANTHROPIC},
    "openai": {Model.Provider.OPENAI},
    "gemini": {Model.Provider.GOOGLE},
    "openai_compatible": {Model.Provider.OPEN_WEIGHTS},
}
NO_MODEL_AGENTS = ("scripted", "dummy")  # agents that call no model
REAL_PROVIDERS = {p for providers in AGENT_PROVIDERS.values() for p in providers}


def no_model(agent_type: str) -> Model:
    """The model row a run of an agent that calls no model is named after ("Scripted agent (no model)")."""
    name = f"{agent_type.capitalize()} agent (no model)"
    found = Model.objects.filter(name=name).first()
    if found is not None:
        return found
    fields = {"name": name, "provider": Model.Provider.SCRIPTED}
    return create_with_free_slug(Model, name, "model", lambda slug: {**fields, "slug": slug}, reuse_by_name=True)


class LaunchForm(forms.Form):
    name = forms.CharField(required=False, max_length=200, help_text="Leave empty for model · agent · date.")
    suite = forms.ModelChoiceField(Suite.objects.order_by("is_demo", "name", "version"))
    model = forms.ModelChoiceField(
        Model.objects.order_by("name"),
        required=False,
        empty_label="— the model the agent runs —",
        help_text="It names the run, so it must be what the agent runs: a Claude model for the anthropic agent, a "
        "GPT model for openai, Gemini for gemini, an open-weights model for openai_compatible. Leave it empty for the "
        "scripted and dummy agents (they call no model; the run is named “Scripted agent (no model)”).",
    )
    agent_type = forms.ChoiceField(label="Agent", help_text="Agents the harness offers (harness/agents).")
    agent_base_url = forms.CharField(
        required=False, label="Agent base URL", help_text="openai_compatible: the vLLM server, e.g. http://gpu:8000/v1"
    )
    coordinate_type = forms.ChoiceField(
        required=False,
        label="Qwen coordinates",
        choices=[
            ("", "the agent's default (relative)"),
            ("relative", "relative: a 0-999 grid over the screenshot (Qwen3-VL)"),
            ("absolute", "absolute: pixels of the screenshot resized by smart_resize (Qwen2.5-VL)"),
        ],
        help_text="openai_compatible only: how the model gives click positions. Absolute sends the screenshot "
        "at the model's own size (1280x800 as 1260x784) and scales clicks back.",
    )
    # Provider agent settings (harness COMMON_SETTINGS, AGENT_SETTINGS); blank = the agent's documented default.
    max_output_tokens = forms.IntegerField(required=False, min_value=1, help_text="Output token budget of a reply.")
    retry_output_tokens = forms.IntegerField(
        required=False, min_value=0, help_text="Budget of the one retry of a reply cut off at its limit (0: no retry)."
    )
    reasoning_effort = forms.CharField(
        required=False,
        help_text="anthropic: low..max; openai: none..xhigh; gemini: thinking level; openai_compatible: none or on.",
    )
    temperature = forms.FloatField(required=False, help_text="Sampling temperature.")
    display = forms.CharField(required=False, help_text="anthropic only: declared display WxH (1280x720) or fit.")
    dual_tool_hint = forms.ChoiceField(
        required=False,
        choices=[("", "the agent's default"), ("on", "on"), ("off", "off")],
        help_text="The screen-or-shell hint in the prompt.",
    )
    image_drop_chunk = forms.IntegerField(
        required=False, min_value=1, help_text="Screenshots beyond the window leave this many at a time."
    )
    openai_context = forms.ChoiceField(
        required=False,
        choices=[("", "the agent's default (chained)"), ("chained", "chained"), ("windowed", "windowed")],
        help_text="openai only: previous_response_id, or the windowed conversation resent.",
    )
    gemini_safety = forms.ChoiceField(
        required=False,
        choices=[("", "the agent's default (stop)"), ("stop", "stop"), ("acknowledge", "acknowledge")],
        help_text="gemini only: a call needing the user's confirmation ends the task, or is acknowledged.",
    )
    claude_tools = forms.CharField(required=False, help_text="anthropic only: JSON file of model -> tool set.")
    thinking = forms.CharField(
        required=False,
        help_text="anthropic only: extended thinking: off (default), a token budget such as 4096, adaptive, or "
        "paper (the paper's harness setting). The output budgets must exceed the thinking budget.",
    )
    tool_surface = forms.ChoiceField(choices=Run.ToolSurface.choices, initial=Run.ToolSurface.COMPUTER_BASH)
    turn_budget = forms.IntegerField(min_value=1, initial=100)
    screenshot_window = forms.IntegerField(min_value=1, initial=20, help_text="Most recent screenshots sent.")
    backend = forms.ChoiceField(choices=[(b, f"{b}: {BACKEND_HELP.get(b, '')}") for b in BACKENDS], initial="fake")
    url = forms.CharField(
        required=False, label="Guest URL", help_text="For the remote backend, e.g. http://10.0.0.5:5000"
    )
    sleep_after = forms.FloatField(
        required=False,
        min_value=0,
        max_value=60,
        label="Seconds before each screenshot",
        help_text="Empty: 0 on the fake guest, 1 elsewhere.",
    )
    image = forms.CharField(required=False, help_text="qcow2 path (qemu) or image tag (docker).")
    setup = forms.CharField(
        required=False,
        label="Post-boot setup",
        help_text="all, none, or a comma list of dns, xrandr, chatbot-key, prewarm. Empty: all on qemu and docker, "
        "none elsewhere.",
    )
    snapshot_reset = forms.BooleanField(
        required=False, help_text="qemu only: reset by loading a memory snapshot instead of a cold boot."
    )
    judge_provider = forms.ChoiceField(
        required=False,
        choices=[("", "settings (judges at the end only if MYPCBENCH_JUDGE_ON_FINISH)")] + [(p, p) for p in PROVIDERS],
        help_text="A provider here judges each trajectory as soon as it ends.",
    )
    judge_model = forms.CharField(required=False, help_text="Empty: the provider's default model.")
    judge_base_url = forms.CharField(required=False, label="Judge base URL", help_text="openai_compatible only.")
    judge_prompt_version = forms.ChoiceField(
        required=False,
        label="Judge prompt",
        choices=[("", f"settings (default: paper-v1 on a suite with published figures, else {PROMPT_VERSION})")]
        + [(v, v) for v in PROMPT_VERSIONS],
        help_text="paper-v1 judges with the paper's protocol. Each call failing with a 5xx or a timeout is tried "
        "up to the judge's attempts; rate limits (429) wait within their own time budget.",
    )
    tasks = forms.ModelMultipleChoiceField(
        Task.objects.select_related("suite").order_by("suite__name", "position"),
        required=False,
        widget=forms.SelectMultiple(attrs={"size": 12}),
        help_text="None selected: every task of the suite.",
    )
    attempts = forms.IntegerField(min_value=1, initial=1, label="Attempts per task")
    world_variants = forms.CharField(
        initial="0",
        required=False,
        label="World variant",
        max_length=500,
        help_text="The variant of the persona world to run on: 0 (or blank) is the canonical world (the released image "
        "holds only that one); a list such as 0,3,7 gives one variant per attempt. Only the fake guest serves "
        "other variants yet.",
    )
    plan = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "cols": 80}),
        help_text='Scripted agent only: a plan as JSON ({"turns": [...], "final_answer": "..."}).',
    )

    FIELDSETS = [
        (
            "Agent",
            [
                "name",
                "suite",
                "model",
                "agent_type",
                "agent_base_url",
                "coordinate_type",
                "tool_surface",
                "turn_budget",
                "screenshot_window",
                "plan",
            ],
        ),
        ("Agent settings (provider agents; blank = the agent's documented default)", list(AGENT_SETTING_FIELDS)),
        ("Environment", ["backend", "url", "image", "sleep_after", "setup", "snapshot_reset"]),
        ("Judge", ["judge_provider", "judge_model", "judge_base_url", "judge_prompt_version"]),
        ("Tasks", ["tasks", "attempts", "world_variants"]),
    ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # no agent and no model preselected: each names the run, so the maintainer picks both
        cast(forms.ChoiceField, self.fields["agent_type"]).choices = [("", "— choose the agent —")] + [
            (name, name) for name in agent_backend.agent_choices()
        ]
        tasks_field = cast(forms.ModelMultipleChoiceField, self.fields["tasks"])
        # a label for this form's field only (Django's documented way: replace it on the field)
        tasks_field.label_from_instance = lambda task: f"{task.suite.slug} · {task.task_id}"  # type: ignore[method-assign, assignment]
        # the usual case: one real suite, preselected (one whose tasks are imported: others cannot run anything)
        queryset = cast("QuerySet[Suite]", cast(forms.ModelChoiceField, self.fields["suite"]).queryset)  # set above
        first = queryset.filter(tasks__isnull=False).distinct().first() or queryset.first()
        if first is not None and not self.is_bound:
            self.initial.setdefault("suite", first.pk)

    def clean(self):
        """The model must be what the agent runs (the run is named after it) and the scripted agent needs
        its plan: refused with the reason on the field, never launched under a misleading name."""
        data = cast(dict[str, Any], super().clean())  # Form.clean returns cleaned_data
        agent, model = data.get("agent_type"), data.get("model")
        if not agent:
            return data
        if agent in NO_MODEL_AGENTS:
            if model is not None and model.provider in REAL_PROVIDERS:
                self.add_error(
                    "model",
                    f"the {agent} agent calls no model, so its run must not be named after {model.name} "
                    f"({model.get_provider_display()}): leave the model empty (the run is named “{agent.capitalize()} "
                    "agent (no model)”), or pick a model whose provider is “Scripted (no model)”",
                )
            if agent == "scripted" and "plan" not in self.errors and not data.get("plan"):
                self.add_error(
                    "plan",
                    "the scripted agent replays a plan and none was given: paste one as JSON "
                    '({"turns": [...], "final_answer": "..."}), or pick an agent that runs a model',
                )
        elif agent in AGENT_PROVIDERS:
            expected = AGENT_PROVIDERS[agent]
            names = " or ".join(sorted(Model.Provider(p).label for p in expected))
            if model is None:
                self.add_error("model", f"choose the model the {agent} agent runs (a {names} model)")
            elif model.provider not in expected | {Model.Provider.OTHER}:
                self.add_error(
                    "model",
                    f"{model.name} is a {model.get_provider_display()} model: the {agent} agent runs {names} models "
                    "(pick one of those, or the agent that runs this model)",
                )
        return data

    def clean_world_variants(self):
        try:
            return parse_world_variants(self.cleaned_data["world_variants"] or "0", flag="world variant")
        except WorldVariantError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_plan(self):
        text = self.cleaned_data["plan"].strip()
        if not text:
            return None
        try:
            return safejson.loads(text)
        except safejson.JSONRefused as exc:
            raise forms.ValidationError(str(exc)) from exc  # "line 1, column 2: not valid JSON: ..."

    def spec(self) -> LaunchSpec:
        data = self.cleaned_data
        judge = None
        if data["judge_provider"]:
            judge = JudgeSpec.from_settings(
                provider=data["judge_provider"],
                model=data["judge_model"],
                base_url=data["judge_base_url"],
                prompt_version=data["judge_prompt_version"],
            )
            # An explicit choice does not inherit a model chosen for another provider in settings.
            judge.model, judge.base_url = data["judge_model"], data["judge_base_url"]
        return LaunchSpec(
            suite=data["suite"],
            model=data["model"] or no_model(data["agent_type"]),
            agent_type=data["agent_type"],
            tool_surface=data["tool_surface"],
            turn_budget=data["turn_budget"],
            screenshot_window=data["screenshot_window"],
            backend=data["backend"],
            url=data["url"].strip(),
            image=data["image"].strip(),
            judge=judge,
            tasks=list(data["tasks"]),
            attempts=data["attempts"],
            plan=data["plan"],
            name=data["name"].strip(),
            sleep_after=data["sleep_after"],
            agent_base_url=data["agent_base_url"].strip(),
            coordinate_type=data["coordinate_type"],
            agent_settings=agent_settings(data),
            setup=data["setup"].strip(),
            snapshot_reset=data["snapshot_reset"],
            world_variants=data["world_variants"],
        )


class RerunForm(forms.Form):
    which = forms.ChoiceField(choices=list(lifecycle.RERUN_CHOICES.items()), widget=forms.RadioSelect, initial="failed")
    task = forms.ModelChoiceField(Task.objects.none(), required=False, help_text="For “one task”.")

    def __init__(self, run: Run, *args, **kwargs):
        super().__init__(*args, **kwargs)
        task_field = cast(forms.ModelChoiceField, self.fields["task"])
        task_field.queryset = Task.objects.filter(trajectories__run=run).distinct().order_by("position")

    def clean(self):
        data = cast(dict[str, Any], super().clean())  # Form.clean returns cleaned_data
        if data.get("which") == "task" and not data.get("task"):
            self.add_error("task", "choose the task to rerun")
        return data


def launch_view(model_admin, request):
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    form = LaunchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            run = lifecycle.launch_run(form.spec(), request.user)
        except LaunchRefused as exc:
            for problem in ["Nothing was queued:", *exc.problems]:
                form.add_error(None, problem)
        else:
            count = run.trajectories.count()
            messages.success(request, f"Launched {run.name}: {count} trajector{'y' if count == 1 else 'ies'} queued.")
            return redirect(reverse("leaderboard:run_detail", args=[run.slug]))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Launch an evaluation",
        "opts": model_admin.model._meta,
        "form": form,
        "fieldsets": [(title, [form[name] for name in names]) for title, names in LaunchForm.FIELDSETS],
    }
    return TemplateResponse(request, "admin/leaderboard/run/launch.html", context)


def rerun_view(model_admin, request, object_id):
    run = get_object_or_404(Run, pk=object_id)
    if not model_admin.has_change_permission(request, run):
        raise PermissionDenied
    form = RerunForm(run, request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            new = lifecycle.rerun(run, form.cleaned_data["which"], task=form.cleaned_data["task"], user=request.user)
        except LaunchRefused as exc:
            for problem in ["Nothing was queued:", *exc.problems]:
                form.add_error(None, problem)
        else:
            messages.success(request, f"Rerun queued as a new run: {new.name}.")
            return redirect(reverse("leaderboard:run_detail", args=[new.slug]))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Rerun {run.name}",
        "opts": model_admin.model._meta,
        "run": run,
        "form": form,
        "progress": lifecycle.progress(run),
    }
    return TemplateResponse(request, "admin/leaderboard/run/rerun.html", context)


def _each_run(model_admin, request, queryset, do, done: str):
    for run in queryset:
        try:
            result = do(run)
        except LaunchRefused as exc:
            model_admin.message_user(request, f"{run.name}: " + "; ".join(exc.problems), messages.ERROR)
        else:
            model_admin.message_user(request, done.format(run=run, result=result), messages.SUCCESS)


def _confirmed_reruns(model_admin, request, queryset, which: str, action: str):
    """A rerun list action asks first, as cancelling from the run page does: a page naming each run and
    what would be queued; confirmed, each run is rerun once (``reruns_seen`` per run: a second click
    on the same confirmation queues nothing more)."""
    if request.POST.get("confirm_rerun") != "yes":
        runs = [(run, lifecycle.rerun_pairs(run, which), run.reruns.count()) for run in queryset]
        context = {
            **model_admin.admin_site.each_context(request),
            "title": f"Rerun {lifecycle.RERUN_CHOICES[which]}?",
            "opts": model_admin.model._meta,
            "runs": runs,
            "which_label": lifecycle.RERUN_CHOICES[which],
            "action": action,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/leaderboard/run/rerun_confirm.html", context)

    def do(run):
        seen = request.POST.get(f"reruns_seen_{run.pk}", "")
        return lifecycle.rerun(run, which, user=request.user, reruns_seen=int(seen) if seen.isdigit() else None)

    _each_run(model_admin, request, queryset, do, "{run.name}: rerun queued as {result.name}")
    return None


@admin.action(description="Rerun the whole run (as a new run)…", permissions=["change"])
def rerun_whole(model_admin, request, queryset):
    return _confirmed_reruns(model_admin, request, queryset, "all", "rerun_whole")


@admin.action(description="Rerun failed or errored trajectories (as a new run)…", permissions=["change"])
def rerun_failed(model_admin, request, queryset):
    return _confirmed_reruns(model_admin, request, queryset, "failed", "rerun_failed")


@admin.action(description="Cancel (queued trajectories are dropped, running ones stop)", permissions=["change"])
def cancel_runs(model_admin, request, queryset):
    _each_run(model_admin, request, queryset, lambda r: lifecycle.cancel(r, request.user),
              "{run.name}: cancelled ({result} queued trajectories dropped)")  # fmt: skip


ACTIONS = [rerun_whole, rerun_failed, cancel_runs]
