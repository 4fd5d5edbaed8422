"""URLs of trajectory pages."""

from django.urls import path

from trajectories.evaluations import views as views_runs
from trajectories.judging import views as views_reliability
from trajectories.player import trajectory_pages as views
from trajectories.player import views as views_player
from trajectories.submissions import views as views_submissions

app_name = "trajectories"
urlpatterns = [
    path("trajectories/", views.trajectory_list, name="trajectory_list"),
    path("trajectories/<int:pk>/", views.trajectory_detail, name="trajectory_detail"),
    path("trajectories/<int:pk>/play/", views_player.trajectory_player, name="trajectory_player"),
    path("trajectories/compare/", views_player.trajectory_compare, name="trajectory_compare"),
    path("runs/<slug:slug>/reliability/", views_reliability.run_reliability_page, name="run_reliability"),
    path("runs/<slug:slug>/cancel/", views_runs.run_cancel, name="run_cancel"),
    path("runs/<slug:slug>/rerun/", views_runs.run_rerun, name="run_rerun"),
    path("suites/<slug:slug>/reliability/", views_reliability.suite_reliability_page, name="suite_reliability"),
    path(
        "tasks/<slug:suite>/<str:task_id>/reliability/",
        views_reliability.task_reliability_page,
        name="task_reliability",
    ),
    path("submissions/", views_submissions.submission_list, name="submission_list"),
    path("submissions/new/", views_submissions.submission_new, name="submission_new"),
    path("submissions/<int:pk>/", views_submissions.submission_detail, name="submission_detail"),
    path("submissions/<int:pk>/progress.json", views_submissions.submission_live, name="submission_live"),
    path("submissions/<int:pk>/withdraw/", views_submissions.submission_withdraw, name="submission_withdraw"),
    path("submissions/<int:pk>/archive/", views_submissions.submission_archive, name="submission_archive"),
    path("accounts/tokens/", views_submissions.token_list, name="token_list"),
    path("accounts/tokens/<int:pk>/revoke/", views_submissions.token_revoke, name="token_revoke"),
]
