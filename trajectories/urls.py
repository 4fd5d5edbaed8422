"""URLs of trajectory pages."""

from django.urls import path

from trajectories.accounts.views import token_list, token_revoke
from trajectories.evaluations.views import run_cancel, run_rerun
from trajectories.judging.views import (
    judge_agreement_page,
    judge_list_page,
    run_reliability_page,
    suite_reliability_page,
    task_reliability_page,
)
from trajectories.player.trajectory_pages import trajectory_detail, trajectory_list
from trajectories.player.views import step_search_page, trajectory_compare, trajectory_player
from trajectories.submissions.views import (
    submission_archive,
    submission_detail,
    submission_list,
    submission_live,
    submission_new,
    submission_withdraw,
)

app_name = "trajectories"
urlpatterns = [
    path("trajectories/", trajectory_list, name="trajectory_list"),
    path("trajectories/<int:pk>/", trajectory_detail, name="trajectory_detail"),
    path("trajectories/<int:pk>/play/", trajectory_player, name="trajectory_player"),
    path("trajectories/compare/", trajectory_compare, name="trajectory_compare"),
    path("judges/", judge_list_page, name="judge_list"),
    path("judges/<int:pk>/", judge_agreement_page, name="judge_agreement"),
    path("search/steps/", step_search_page, name="step_search"),
    path("runs/<slug:slug>/reliability/", run_reliability_page, name="run_reliability"),
    path("runs/<slug:slug>/cancel/", run_cancel, name="run_cancel"),
    path("runs/<slug:slug>/rerun/", run_rerun, name="run_rerun"),
    path("suites/<slug:slug>/reliability/", suite_reliability_page, name="suite_reliability"),
    path(
        "tasks/<slug:suite>/<str:task_id>/reliability/",
        task_reliability_page,
        name="task_reliability",
    ),
    path("submissions/", submission_list, name="submission_list"),
    path("submissions/new/", submission_new, name="submission_new"),
    path("submissions/<int:pk>/", submission_detail, name="submission_detail"),
    path("submissions/<int:pk>/progress.json", submission_live, name="submission_live"),
    path("submissions/<int:pk>/withdraw/", submission_withdraw, name="submission_withdraw"),
    path("submissions/<int:pk>/archive/", submission_archive, name="submission_archive"),
    path("accounts/tokens/", token_list, name="token_list"),
    path("accounts/tokens/<int:pk>/revoke/", token_revoke, name="token_revoke"),
]
