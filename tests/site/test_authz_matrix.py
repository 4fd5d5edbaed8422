"""Who gets what, over every URL the site serves: pages, admin pages and API endpoints. The URL list is
walked from the URL configuration, and every pattern must have a row in TABLE below giving the HTTP
status each role gets, so a new URL without a row fails the test with its name.

Roles: anonymous, the author of an unpublished submission, another author, staff without the specific
permission, staff holding exactly the permission a row names (and nothing else), and a superuser.
The world is built once per module (inside a transaction rolled back at the end); each role's test
runs in its own transaction, so what a POST row changes never leaks into another role's test."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.cache import cache
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLPattern, URLResolver, get_resolver, path, reverse

from leaderboard.models import App, JudgeConfig, ReportedFigure, RubricErratum, Run
from seeding.world.build import build
from tests import run_page_data
from tests.evaluation_data import PLAN
from tests.factories import make_suite
from tests.seeding.test_seeding_world import SMALL
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.accounts.tokens import create_token
from trajectories.models import HumanLabel, Judgment, StateCheckResult, Step, Submission
from trajectories.submissions.uploads import submit_archive
from trajectories.tasks import run_trajectory
from world.models import ReviewAudit, TaskReview
from world.records.loading import load_world
from world.review import services

pytestmark = pytest.mark.slow  # every URL as every role, on a world built once per module (a seeded persona world too)


def hidden_judge(w):
    """A judge with verdicts on the author's unpublished run only: its agreement page is staff-only."""
    judge, _ = JudgeConfig.objects.get_or_create(name="judge of the hidden run only", defaults={"origin": "ours"})
    trajectory = w.hidden_run.trajectories.order_by("pk").first()
    item = trajectory.task.rubric_items.filter(is_current=True).first()
    Judgment.objects.get_or_create(
        trajectory=trajectory, rubric_item=item, judge=judge, defaults={"verdict": "success"}
    )
    return judge


ROLES = ["anonymous", "author", "other_author", "staff", "staff_with", "superuser"]


# ------------------------------------------------------------------------------------- the world


class World(dict):
    __getattr__ = dict.__getitem__


@pytest.fixture(scope="module")
def small_world_build(tmp_path_factory):
    """A seeding build of the small test persona, for the World pages' rows."""
    base = tmp_path_factory.mktemp("authz-world")
    persona = base / "pat_tester.json"
    persona.write_text(json.dumps(SMALL))
    build(persona, base / "out", dt.date(2026, 4, 13))
    return base / "out"


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory, small_world_build):
    """Everything the rows point at, committed to nothing: rolled back when the module ends."""
    root = tmp_path_factory.mktemp("authz")
    media = root / "media"
    media.mkdir()
    overrides = override_settings(
        MEDIA_ROOT=media,
        MYPCBENCH_UPLOAD_TMP_DIR=root / "upload-tmp",
        MYPCBENCH_DERIVATIVES="off",
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],  # speed only
    )
    with django_db_blocker.unblock(), overrides, transaction.atomic():
        users = get_user_model().objects
        people = {
            "author": users.create_user("pam", password="pw"),
            "other_author": users.create_user("dwight", password="pw"),
            "staff": users.create_user("toby", password="pw", is_staff=True),
            "superuser": users.create_superuser("david", password="pw"),
        }
        make_suite(TASK_IDS)
        entries = good_entries(root / "upload")
        submission = submit_archive(people["author"], upload(zip_bytes(entries), "pam-run.zip"), METADATA).submission
        hidden_run = submission.run
        run, tasks = run_page_data.launch(2)
        Run.objects.filter(pk=run.pk).update(publication=Run.Publication.PUBLISHED)
        run.refresh_from_db()
        trajectory = run_page_data.trajectories(run)[0]
        run_page_data.start(trajectory)
        run_page_data.record_step(trajectory, 1)
        run_page_data.finish(trajectory, 1)
        judge = run_page_data.judge(trajectory, ["success", "failure"])
        judgment = Judgment.objects.filter(trajectory=trajectory).order_by("rubric_item__position").first()
        label = HumanLabel.objects.create(judgment=judgment, verdict="success", labeller=people["superuser"])
        check = StateCheckResult.objects.create(
            trajectory=trajectory, rubric_item=judgment.rubric_item, status="passed", command="true"
        )
        figure = ReportedFigure.objects.create(run=run, metric="success_rate", value=0.5, source="paper")
        erratum = RubricErratum.objects.create(
            task=tasks[0], version=2, rubric_id=judgment.rubric_item.rubric_id, change="reweighted", reason="audit"
        )
        token, _ = create_token(people["author"], "kept")
        revocable, _ = create_token(people["author"], "to revoke")
        bearer = {who: create_token(people[who], f"{who} api")[1] for who in people}
        persona_world = load_world(small_world_build)["world"]
        services.set_verdict(tasks[0], people["superuser"], "approved", "reads well")
        event = persona_world.events.order_by("pk").first()
        record = persona_world.records.order_by("pk").first()
        yield World(
            root=root,
            media=media,
            users=people,
            submission=submission,
            hidden_run=hidden_run,
            hidden_trajectory=hidden_run.trajectories.order_by("pk").first(),
            run=run,
            task=tasks[0],
            suite=run.suite,
            trajectory=trajectory,
            step=Step.objects.filter(trajectory=trajectory).first(),
            screenshot=Step.objects.filter(trajectory=trajectory).first().screenshot.name,
            judge=judge,
            judgment=judgment,
            label=label,
            check=check,
            figure=figure,
            erratum=erratum,
            app=App.objects.create(name="Mail", slug="mail"),
            token=token,
            revocable=revocable,
            bearer=bearer,
            group=Group.objects.create(name="reviewers"),
            run_type=ContentType.objects.get_for_model(Run),
            persona_world=persona_world,
            event=event,
            record=record,
            task_review=TaskReview.objects.get(task=tasks[0]),
            review_audit=ReviewAudit.objects.filter(task=tasks[0]).first(),
            hidden_screenshot=hidden_run.trajectories.order_by("pk")
            .first()
            .steps.exclude(screenshot="")
            .order_by("index")
            .first()
            .screenshot.name,
        )
        transaction.set_rollback(True)


@pytest.fixture
def room(world, db, settings, monkeypatch):
    """One role's test: the world's media folder, empty caches, and no broker (what a rerun would queue
    goes nowhere; nothing here reads it)."""
    settings.MEDIA_ROOT = world.media
    settings.MYPCBENCH_UPLOAD_TMP_DIR = world.root / "upload-tmp"
    settings.MYPCBENCH_DERIVATIVES = "off"
    monkeypatch.setattr(run_trajectory, "apply_async", lambda *args, **kwargs: None)
    cache.clear()
    return world


# --------------------------------------------------------------------------------- the table


@dataclass
class Case:
    """One request and the status each role gets (in ROLES order). ``perm``: the one permission the
    "staff_with" role holds for this row. ``bearer``: send the role's API token. ``fresh``: a client of
    its own (the request logs out)."""

    url: object  # World -> str
    expect: tuple
    perm: str | None = None
    method: str = "get"
    data: dict = field(default_factory=dict)
    bearer: bool = False
    fresh: bool = False
    note: str = ""


ANON_ADMIN = (302, 302, 302)  # anonymous, author, other author: to the admin's login page
EVERYONE = (200,) * 6
PUBLIC_PAGE = EVERYONE


def admin_model_rows(app_model: str, obj) -> dict:
    """The admin's own views of one registered model, each with the permission it needs."""
    app, model = app_model.split("_", 1)
    url = f"admin:{app_model}"

    def one(w):
        return str(obj(w).pk)

    return {
        f"{url}_changelist": [Case(lambda w: reverse(f"{url}_changelist"), (*ANON_ADMIN, 403, 200, 200),
                                   f"{app}.view_{model}")],
        f"{url}_add": [Case(lambda w: reverse(f"{url}_add"), (*ANON_ADMIN, 403, 200, 200), f"{app}.add_{model}")],
        f"{url}_history": [Case(lambda w: reverse(f"{url}_history", args=[one(w)]), (*ANON_ADMIN, 403, 200, 200),
                                f"{app}.view_{model}")],
        f"{url}_delete": [Case(lambda w: reverse(f"{url}_delete", args=[one(w)]), (*ANON_ADMIN, 403, 200, 200),
                               f"{app}.delete_{model}", note="GET: the confirmation page, nothing deleted")],
        f"{url}_change": [Case(lambda w: reverse(f"{url}_change", args=[one(w)]), (*ANON_ADMIN, 403, 200, 200),
                               f"{app}.change_{model}")],
        # the bare object address redirects to its change page (for staff) or the login page
        f"admin/{app}/{model}/<path:object_id>/": [
            Case(lambda w: f"/admin/{app}/{model}/{one(w)}/", (302,) * 6, f"{app}.change_{model}")
        ],
    }  # fmt: skip


ADMIN_MODELS = {
    "auth_group": lambda w: w.group,
    "auth_user": lambda w: w.users["author"],
    "leaderboard_suite": lambda w: w.suite,
    "leaderboard_app": lambda w: w.app,
    "leaderboard_task": lambda w: w.task,
    "leaderboard_rubricitem": lambda w: w.judgment.rubric_item,
    "leaderboard_model": lambda w: w.run.model,
    "leaderboard_judgeconfig": lambda w: w.judge,
    "leaderboard_run": lambda w: w.hidden_run,
    "leaderboard_reportedfigure": lambda w: w.figure,
    "leaderboard_rubricerratum": lambda w: w.erratum,
    "trajectories_trajectory": lambda w: w.trajectory,
    "trajectories_step": lambda w: w.step,
    "trajectories_judgment": lambda w: w.judgment,
    "trajectories_humanlabel": lambda w: w.label,
    "trajectories_statecheckresult": lambda w: w.check,
    "trajectories_apitoken": lambda w: w.token,
    "trajectories_submission": lambda w: w.submission,
    "world_world": lambda w: w.persona_world,
    "world_worldevent": lambda w: w.event,
    "world_taskreview": lambda w: w.task_review,
    "world_reviewaudit": lambda w: w.review_audit,
}

STEP_SEARCH_OWN = (400, 200, 400, 200, 200, 200)  # step search in the author's unpublished run
HIDDEN = (404, 404, 404, 200, 200, 200)  # the author's unpublished run: staff only (authors see the submission)
OWN_UPLOAD = (404, 200, 404, 200, 200, 200)  # a trajectory of it: its author plays it back before review


def sub(w):
    return [w.submission.pk]


TABLE: dict[str, list[Case]] = {
    # ---- accounts
    "login": [Case(lambda w: reverse("login"), EVERYONE)],
    "logout": [Case(lambda w: reverse("logout"), (302,) * 6, method="post", fresh=True)],
    "signup": [Case(lambda w: reverse("signup"), (200, 302, 302, 302, 302, 302))],
    "trajectories:token_list": [Case(lambda w: reverse("trajectories:token_list"), (302, 200, 200, 200, 200, 200))],
    "trajectories:token_revoke": [
        # only the token's owner may revoke it; for anyone else it does not exist
        Case(lambda w: reverse("trajectories:token_revoke", args=[w.revocable.pk]), (302, 302, 404, 404, 404, 404),
             method="post"),
        Case(lambda w: reverse("trajectories:token_revoke", args=[w.revocable.pk]), (302, 405, 405, 405, 405, 405)),
    ],
    "favicon.ico": [Case(lambda w: "/favicon.ico", (301,) * 6)],
    "media": [
        Case(lambda w: "/media/" + w.screenshot, EVERYONE),
        # the author's unpublished upload: its author and maintainers only, as its pages
        Case(lambda w: "/media/" + w.hidden_screenshot, (404, 200, 404, 200, 200, 200)),
        Case(lambda w: "/media/screenshots/no/such/file.png", (404,) * 6),
    ],
    # ---- the persona world: public pages; task review for staff with the review permission
    "world:world_overview": [Case(lambda w: reverse("world:world_overview"), PUBLIC_PAGE)],
    "world:world_events": [Case(lambda w: reverse("world:world_events"), PUBLIC_PAGE)],
    "world:world_event": [Case(lambda w: reverse("world:world_event", args=[w.event.event_id]), PUBLIC_PAGE)],
    "world:world_app": [Case(lambda w: reverse("world:world_app", args=[w.record.app]), PUBLIC_PAGE)],
    "world:world_record": [
        Case(lambda w: reverse("world:world_record", args=[w.record.app, w.record.kind, w.record.row_id]),
             PUBLIC_PAGE)
    ],
    "world:world_review": [
        Case(lambda w: reverse("world:world_review"), (302, 403, 403, 403, 200, 200), "world.review_tasks")
    ],
    "world:world_review_task": [
        Case(lambda w: reverse("world:world_review_task", args=[w.suite.slug, w.task.task_id]),
             (302, 403, 403, 403, 200, 200), "world.review_tasks"),
        Case(lambda w: reverse("world:world_review_task", args=[w.suite.slug, w.task.task_id]),
             (302, 403, 403, 403, 302, 302), "world.review_tasks", method="post", data={"verdict": "approved"}),
    ],
    # ---- catalog and score pages
    "leaderboard:home": [Case(lambda w: reverse("leaderboard:home"), PUBLIC_PAGE)],
    "leaderboard:suite_list": [Case(lambda w: reverse("leaderboard:suite_list"), PUBLIC_PAGE)],
    "leaderboard:suite_detail": [Case(lambda w: reverse("leaderboard:suite_detail", args=[w.suite.slug]), PUBLIC_PAGE)],
    "leaderboard:suite_changelog": [
        Case(lambda w: reverse("leaderboard:suite_changelog", args=[w.suite.slug]), PUBLIC_PAGE)
    ],
    "leaderboard:task_list": [Case(lambda w: reverse("leaderboard:task_list"), PUBLIC_PAGE)],
    "leaderboard:task_changelog": [
        Case(lambda w: reverse("leaderboard:task_changelog", args=[w.suite.slug, w.task.task_id]), PUBLIC_PAGE)
    ],
    "leaderboard:task_detail": [
        Case(lambda w: reverse("leaderboard:task_detail", args=[w.suite.slug, w.task.task_id]), PUBLIC_PAGE)
    ],
    "leaderboard:run_list": [Case(lambda w: reverse("leaderboard:run_list"), PUBLIC_PAGE)],
    "leaderboard:run_detail": [
        Case(lambda w: reverse("leaderboard:run_detail", args=[w.run.slug]), PUBLIC_PAGE),
        Case(lambda w: reverse("leaderboard:run_detail", args=[w.hidden_run.slug]), HIDDEN),
    ],
    "leaderboard:board": [Case(lambda w: reverse("leaderboard:board"), PUBLIC_PAGE)],
    "leaderboard:compare": [Case(lambda w: reverse("leaderboard:compare"), PUBLIC_PAGE)],
    "leaderboard:analysis_heatmaps": [Case(lambda w: reverse("leaderboard:analysis_heatmaps"), PUBLIC_PAGE)],
    "leaderboard:analysis_taxonomy": [Case(lambda w: reverse("leaderboard:analysis_taxonomy"), PUBLIC_PAGE)],
    "leaderboard:analysis_failures": [Case(lambda w: reverse("leaderboard:analysis_failures"), PUBLIC_PAGE)],
    "leaderboard:analysis_scaling": [Case(lambda w: reverse("leaderboard:analysis_scaling"), PUBLIC_PAGE)],
    "leaderboard:analysis_sessions": [Case(lambda w: reverse("leaderboard:analysis_sessions"), PUBLIC_PAGE)],
    "leaderboard:methodology": [Case(lambda w: reverse("leaderboard:methodology"), PUBLIC_PAGE)],
    "leaderboard:search": [Case(lambda w: reverse("leaderboard:search") + "?q=run", PUBLIC_PAGE)],
    "leaderboard:submission_guide": [Case(lambda w: reverse("leaderboard:submission_guide"), PUBLIC_PAGE)],
    "leaderboard:sample_archive": [Case(lambda w: reverse("leaderboard:sample_archive"), PUBLIC_PAGE)],
    "leaderboard:model_detail": [
        Case(lambda w: reverse("leaderboard:model_detail", args=[w.run.model.slug]), PUBLIC_PAGE)
    ],
    # ---- trajectories and reliability
    "trajectories:trajectory_list": [Case(lambda w: reverse("trajectories:trajectory_list"), PUBLIC_PAGE)],
    "trajectories:trajectory_detail": [
        Case(lambda w: reverse("trajectories:trajectory_detail", args=[w.trajectory.pk]), PUBLIC_PAGE),
        Case(lambda w: reverse("trajectories:trajectory_detail", args=[w.hidden_trajectory.pk]), OWN_UPLOAD),
    ],
    "trajectories:trajectory_player": [
        Case(lambda w: reverse("trajectories:trajectory_player", args=[w.trajectory.pk]), PUBLIC_PAGE),
        Case(lambda w: reverse("trajectories:trajectory_player", args=[w.hidden_trajectory.pk]), OWN_UPLOAD),
    ],
    "trajectories:trajectory_compare": [Case(lambda w: reverse("trajectories:trajectory_compare"), PUBLIC_PAGE)],
    "trajectories:step_search": [
        Case(lambda w: reverse("trajectories:step_search") + "?q=click", PUBLIC_PAGE),
        # a run filter naming a run the visitor may not read is refused as unknown (400), never shown
        Case(lambda w: reverse("trajectories:step_search") + f"?q=click&run={w.hidden_run.slug}", STEP_SEARCH_OWN),
    ],
    "trajectories:run_reliability": [
        Case(lambda w: reverse("trajectories:run_reliability", args=[w.run.slug]), PUBLIC_PAGE),
        Case(lambda w: reverse("trajectories:run_reliability", args=[w.hidden_run.slug]), HIDDEN),
    ],
    "trajectories:suite_reliability": [
        Case(lambda w: reverse("trajectories:suite_reliability", args=[w.suite.slug]), PUBLIC_PAGE)
    ],
    "trajectories:task_reliability": [
        Case(lambda w: reverse("trajectories:task_reliability", args=[w.suite.slug, w.task.task_id]), PUBLIC_PAGE)
    ],
    "trajectories:judge_list": [Case(lambda w: reverse("trajectories:judge_list"), PUBLIC_PAGE)],
    "trajectories:judge_agreement": [
        Case(lambda w: reverse("trajectories:judge_agreement", args=[w.judge.pk]), PUBLIC_PAGE),
        Case(lambda w: reverse("trajectories:judge_agreement", args=[hidden_judge(w).pk]), HIDDEN),
    ],
    # ---- staff actions on a run's page: staff who may change runs
    "trajectories:run_cancel": [
        Case(lambda w: reverse("trajectories:run_cancel", args=[w.run.slug]), (403, 403, 403, 403, 200, 200),
             "leaderboard.change_run"),
    ],
    "trajectories:run_rerun": [
        Case(lambda w: reverse("trajectories:run_rerun", args=[w.run.slug]), (403, 403, 403, 403, 302, 302),
             "leaderboard.change_run", method="post", data={"which": "all", "reruns_seen": "0"}),
    ],
    # ---- submissions
    "trajectories:submission_list": [Case(lambda w: reverse("trajectories:submission_list"),
                                          (302, 200, 200, 200, 200, 200))],
    "trajectories:submission_new": [Case(lambda w: reverse("trajectories:submission_new"),
                                         (302, 200, 200, 200, 200, 200))],
    "trajectories:submission_detail": [
        Case(lambda w: reverse("trajectories:submission_detail", args=sub(w)), (302, 200, 404, 200, 200, 200))
    ],
    "trajectories:submission_live": [
        Case(lambda w: reverse("trajectories:submission_live", args=sub(w)), (302, 200, 404, 200, 200, 200))
    ],
    "trajectories:submission_withdraw": [
        Case(lambda w: reverse("trajectories:submission_withdraw", args=sub(w)), (302, 302, 404, 404, 404, 404),
             method="post"),
    ],
    "trajectories:submission_archive": [
        Case(lambda w: reverse("trajectories:submission_archive", args=sub(w)), (302, 302, 302, 200, 200, 200))
    ],
    # ---- the API (django-ninja)
    "api-1:openapi-json": [Case(lambda w: "/api/openapi.json", EVERYONE)],
    "api-1:openapi-view": [Case(lambda w: "/api/docs", EVERYONE)],
    "api-1:api-root": [Case(lambda w: "/api/", (404,) * 6)],
    "api-1:list_suites": [Case(lambda w: "/api/suites", EVERYONE)],
    "api-1:get_suite": [Case(lambda w: f"/api/suites/{w.suite.slug}", EVERYONE)],
    "api-1:list_errata": [Case(lambda w: f"/api/suites/{w.suite.slug}/errata", EVERYONE)],
    "api-1:list_tasks": [Case(lambda w: "/api/tasks", EVERYONE)],
    "api-1:get_task": [Case(lambda w: f"/api/tasks/{w.suite.slug}/{w.task.task_id}", EVERYONE)],
    "api-1:list_runs": [Case(lambda w: "/api/runs", EVERYONE)],
    "api-1:judge_agreement_list": [Case(lambda w: "/api/judges", EVERYONE)],
    "api-1:judge_agreement_detail": [
        Case(lambda w: f"/api/judges/{w.judge.pk}", EVERYONE),
        Case(lambda w: f"/api/judges/{hidden_judge(w).pk}", HIDDEN),
    ],
    "api-1:get_run": [
        Case(lambda w: f"/api/runs/{w.run.slug}", EVERYONE),
        Case(lambda w: f"/api/runs/{w.hidden_run.slug}", HIDDEN),
    ],
    "api-1:get_run_consistency": [
        Case(lambda w: f"/api/runs/{w.run.slug}/consistency", EVERYONE),
        Case(lambda w: f"/api/runs/{w.hidden_run.slug}/consistency", HIDDEN),
    ],
    "api-1:run_progress": [
        Case(lambda w: f"/api/runs/{w.run.slug}/progress", EVERYONE),
        Case(lambda w: f"/api/runs/{w.hidden_run.slug}/progress", HIDDEN),
    ],
    "api-1:get_trajectory": [
        Case(lambda w: f"/api/trajectories/{w.trajectory.pk}", EVERYONE),
        Case(lambda w: f"/api/trajectories/{w.hidden_trajectory.pk}", OWN_UPLOAD),
    ],
    "api-1:step_search": [
        Case(lambda w: "/api/steps/search?q=click", EVERYONE),
        Case(lambda w: f"/api/steps/search?q=click&run={w.hidden_run.slug}", STEP_SEARCH_OWN),
    ],
    "api-1:player_steps_since": [
        Case(lambda w: f"/api/trajectories/{w.trajectory.pk}/steps", EVERYONE),
        # the live poll reads published runs and staff only, not the author's own upload (a finished
        # upload's player does not poll)
        Case(lambda w: f"/api/trajectories/{w.hidden_trajectory.pk}/steps", HIDDEN),
    ],
    "api-1:list_submissions": [
        Case(lambda w: "/api/submissions", (401, 200, 200, 200, 200, 200)),
        Case(lambda w: "/api/submissions", (401, 200, 200, 200, 200, 200), bearer=True),
    ],
    "api-1:create_submission": [
        # token only (no session): a signed-in browser without a token is refused; an empty form is a 422
        Case(lambda w: "/api/submissions", (401,) * 6, method="post"),
        Case(lambda w: "/api/submissions", (401, 422, 422, 422, 422, 422), method="post", bearer=True),
    ],
    "api-1:get_submission": [
        Case(lambda w: f"/api/submissions/{w.submission.pk}", (401, 200, 404, 200, 200, 200)),
        Case(lambda w: f"/api/submissions/{w.submission.pk}", (401, 200, 404, 200, 200, 200), bearer=True),
    ],
    "api-1:get_leaderboard": [Case(lambda w: "/api/leaderboard", EVERYONE)],
    "api-1:get_heatmaps": [Case(lambda w: "/api/analysis/heatmaps", EVERYONE)],
    "api-1:get_taxonomy": [Case(lambda w: "/api/analysis/taxonomy", EVERYONE)],
    "api-1:get_scaling": [Case(lambda w: "/api/analysis/scaling", EVERYONE)],
    "api-1:get_session_analysis": [Case(lambda w: "/api/analysis/sessions", EVERYONE)],
    # ---- the admin site
    "admin:index": [Case(lambda w: reverse("admin:index"), (*ANON_ADMIN, 200, 200, 200))],
    "admin:login": [Case(lambda w: reverse("admin:login"), (200, 200, 200, 302, 302, 302))],
    "admin:logout": [Case(lambda w: reverse("admin:logout"), (302,) * 6, method="post", fresh=True)],
    "admin:password_change": [Case(lambda w: reverse("admin:password_change"), (*ANON_ADMIN, 200, 200, 200))],
    "admin:password_change_done": [
        Case(lambda w: reverse("admin:password_change_done"), (*ANON_ADMIN, 200, 200, 200))
    ],
    "admin:autocomplete": [Case(lambda w: reverse("admin:autocomplete"), (*ANON_ADMIN, 403, 403, 403))],
    "admin:jsi18n": [Case(lambda w: reverse("admin:jsi18n"), (*ANON_ADMIN, 200, 200, 200))],
    "admin:view_on_site": [
        # runs have no address of their own for the admin to send to
        Case(lambda w: reverse("admin:view_on_site", args=[w.run_type.pk, w.run.pk]), (*ANON_ADMIN, 404, 404, 404))
    ],
    "admin:app_list": [
        Case(lambda w: reverse("admin:app_list", args=["leaderboard"]), (*ANON_ADMIN, 404, 200, 200),
             "leaderboard.view_run"),
    ],
    "admin/(?P<url>.*)$": [Case(lambda w: "/admin/no-such-page/", (*ANON_ADMIN, 404, 404, 404))],
    # the admin's own pages beyond the model views: launch (add runs), rerun (change runs), labelling
    "admin:run_launch": [
        Case(lambda w: reverse("admin:run_launch"), (*ANON_ADMIN, 403, 200, 200), "leaderboard.add_run"),
    ],
    "admin:run_rerun": [
        Case(lambda w: reverse("admin:run_rerun", args=[w.run.pk]), (*ANON_ADMIN, 403, 200, 200),
             "leaderboard.change_run"),
    ],
    "admin:trajectories_judgment_label": [
        Case(lambda w: reverse("admin:trajectories_judgment_label"), (*ANON_ADMIN, 403, 200, 200),
             "trajectories.add_humanlabel"),
    ],
    "admin:auth_user_password_change": [
        Case(lambda w: reverse("admin:auth_user_password_change", args=[w.users["author"].pk]),
             (*ANON_ADMIN, 403, 200, 200), "auth.change_user"),
    ],
}  # fmt: skip
for _app_model, _obj in ADMIN_MODELS.items():
    TABLE.update(admin_model_rows(_app_model, _obj))
# Django's user admin adds users only for those who may also change them
TABLE["admin:auth_user_add"][0].perm = "auth.add_user,auth.change_user"
# the review audit is written by reviews only: nobody adds a row by hand, superusers included
TABLE["admin:world_reviewaudit_add"][0].expect = (*ANON_ADMIN, 403, 403, 403)

OPTIONAL: set[str] = set()  # rows for URLs that exist only under some settings


def url_keys(resolver=None, prefix="", namespace="") -> list[str]:
    """Every URL pattern: ``namespace:name``, or the full route when it has no name."""
    keys = []
    for pattern in (resolver or get_resolver()).url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = namespace + (f"{pattern.namespace}:" if pattern.namespace else "")
            keys += url_keys(pattern, route, inner)
        elif isinstance(pattern, URLPattern):
            keys.append(f"{namespace}{pattern.name}" if pattern.name else route)
    return keys


# ---------------------------------------------------------------------------------- the tests


def test_every_url_has_a_row_and_every_row_a_url():
    keys = set(url_keys())
    missing = sorted(keys - set(TABLE))
    assert not missing, "URLs without a row in tests/site/test_authz_matrix.py TABLE (add one per role): " + ", ".join(
        missing
    )
    stale = sorted(set(TABLE) - keys - OPTIONAL)
    assert not stale, "rows for URLs that no longer exist: " + ", ".join(stale)
    for key, cases in TABLE.items():
        for case in cases:
            assert len(case.expect) == len(ROLES), key


def test_a_new_url_without_a_row_is_named():
    """What the walk sees when a pattern is added: its name, so the failure message can say it."""
    extra = type("Conf", (), {"urlpatterns": [path("new-page/", lambda r: None, name="new_page")]})
    assert url_keys(get_resolver(extra)) == ["new_page"]
    assert "new_page" not in TABLE


def _permission(dotted: str) -> Permission:
    app, codename = dotted.split(".")
    return Permission.objects.get(content_type__app_label=app, codename=codename)


class Clients:
    """One client per role; the "staff_with" role is one staff user per permission, holding only it."""

    def __init__(self, world, role):
        self.world, self.role, self.by_perm = world, role, {}
        self.client = self._login(self.user_for(None))

    @staticmethod
    def _login(user):
        client = Client()
        if user is not None:
            client.force_login(user)
        return client

    def user_for(self, case):
        if self.role != "staff_with":
            return self.world.users.get(self.role)
        if case is None:
            return None
        users = get_user_model().objects
        user, created = users.get_or_create(username=f"staff-{case.perm}", defaults={"is_staff": True})
        if created and case.perm:
            user.user_permissions.add(*[_permission(p) for p in case.perm.split(",")])
        return user

    def for_case(self, case):
        if case.fresh:
            return self._login(self.user_for(case))
        if self.role != "staff_with":
            return self.client
        if case.perm not in self.by_perm:
            self.by_perm[case.perm] = self._login(self.user_for(case))
        return self.by_perm[case.perm]


def _bearer_for(world, role, case):
    if not case.bearer or role == "anonymous":
        return {}
    key = world.bearer.get(role)
    if key is None:  # staff_with: a token of its own
        user = get_user_model().objects.get(username=f"staff-{case.perm}")
        key = create_token(user, "staff api")[1]
    return {"HTTP_AUTHORIZATION": f"Bearer {key}"}


@pytest.mark.parametrize("role", ROLES)
def test_each_role_gets_what_its_row_says(room, role):
    clients = Clients(room, role)
    column = ROLES.index(role)
    wrong = []
    ordered = sorted(TABLE.items(), key=lambda kv: any(c.method != "get" for c in kv[1]))  # changes last
    for key, cases in ordered:
        for case in cases:
            client = clients.for_case(case)
            url = case.url(room)
            send = client.post if case.method == "post" else client.get
            response = send(url, case.data, **_bearer_for(room, role, case))
            if response.status_code != case.expect[column]:
                wrong.append(
                    f"{key} {case.method.upper()} {url}: {response.status_code}, row says {case.expect[column]}"
                )
    assert not wrong, f"{role}:\n" + "\n".join(wrong)


# ------------------------------------------------ admin actions: staff without the specific permission


def staff_holding(*perms) -> Client:
    """A signed-in staff client holding exactly ``perms``."""
    user = get_user_model().objects.create_user("staff-" + "-".join(perms), password="pw", is_staff=True)
    user.user_permissions.add(*[_permission(p) for p in perms])
    client = Client()
    client.force_login(user)
    return client


def _action(client, model: str, action: str, pks, **extra):
    data = {"action": action, "_selected_action": [str(pk) for pk in pks], **extra}  # as the changelist posts it
    return client.post(reverse(f"admin:{model}_changelist"), data)


@pytest.mark.parametrize("perms, approved", [(("trajectories.view_submission",), False),
                                             (("trajectories.view_submission", "trajectories.change_submission"),
                                              True)])  # fmt: skip
def test_approving_a_submission_needs_the_permission_to_change_submissions(room, perms, approved):
    # (confirmed: our judge has not judged this upload, so the admin asks before it shows without scores)
    response = _action(
        staff_holding(*perms), "trajectories_submission", "approve", [room.submission.pk], publish_unjudged="yes"
    )
    assert response.status_code == (302 if approved else 200)  # refused: the list again, the action not offered
    submission = Submission.objects.select_related("run").get(pk=room.submission.pk)
    assert (submission.status == "published") is approved
    assert (submission.run.publication == Run.Publication.PUBLISHED) is approved


@pytest.mark.parametrize("action", ["approve", "reject", "request_changes"])
@pytest.mark.parametrize("who", ["author", "other_author"])
def test_authors_cannot_post_review_actions(room, action, who):
    client = Client()
    client.force_login(room.users[who])
    response = _action(client, "trajectories_submission", action, [room.submission.pk], reason="because")
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
    assert Submission.objects.get(pk=room.submission.pk).status == room.submission.status


@pytest.mark.parametrize("perms, allowed", [(("leaderboard.view_run",), False),
                                            (("leaderboard.view_run", "leaderboard.change_run"), True)])  # fmt: skip
def test_run_actions_need_the_permission_to_change_runs(room, perms, allowed):
    client = staff_holding(*perms)
    _action(client, "leaderboard_run", "rerun_whole", [room.run.pk], confirm_rerun="yes")
    assert Run.objects.filter(parent=room.run).exists() is allowed
    _action(client, "leaderboard_run", "cancel_runs", [room.run.pk])
    assert (Run.objects.get(pk=room.run.pk).status == "cancelled") is allowed


@pytest.mark.parametrize("perms, allowed", [(("leaderboard.view_run", "leaderboard.change_run"), False),
                                            (("leaderboard.add_run",), True)])  # fmt: skip
def test_the_launch_form_needs_the_permission_to_add_runs(room, perms, allowed):
    form = {"suite": room.suite.pk, "model": room.run.model.pk, "agent_type": "scripted",
            "tool_surface": "computer+bash", "turn_budget": 10, "screenshot_window": 5, "backend": "fake",
            "attempts": 1, "plan": json.dumps(PLAN)}  # fmt: skip
    before = Run.objects.count()
    response = staff_holding(*perms).post(reverse("admin:run_launch"), form)
    assert response.status_code == (302 if allowed else 403), response.content.decode()[:1000]
    assert Run.objects.count() == before + (1 if allowed else 0)


@pytest.mark.parametrize("perms, allowed", [(("leaderboard.view_run",), False),
                                            (("leaderboard.change_run",), True)])  # fmt: skip
def test_the_admin_rerun_form_needs_the_permission_to_change_runs(room, perms, allowed):
    response = staff_holding(*perms).post(reverse("admin:run_rerun", args=[room.run.pk]), {"which": "all"})
    assert response.status_code == (302 if allowed else 403)
    assert Run.objects.filter(parent=room.run).exists() is allowed


LABELLER = ("trajectories.view_judgment", "trajectories.add_humanlabel")


@pytest.mark.parametrize("perms, allowed", [(("trajectories.view_judgment",), False), (LABELLER, True)])
def test_labelling_needs_the_permission_to_add_human_labels(room, perms, allowed):
    unlabelled = Judgment.objects.filter(trajectory=room.trajectory).exclude(pk=room.judgment.pk).get()
    client = staff_holding(*perms)
    _action(client, "trajectories_judgment", "label_agree", [unlabelled.pk])
    assert HumanLabel.objects.filter(judgment=unlabelled).exists() is allowed
    response = client.post(reverse("admin:trajectories_judgment_label"), {f"label-{unlabelled.pk}": "disagree"})
    assert response.status_code == (302 if allowed else 403)
    assert HumanLabel.objects.filter(judgment=unlabelled).count() == (2 if allowed else 0)
