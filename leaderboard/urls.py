"""URLs of catalog and score pages."""

from django.urls import path

from leaderboard.boards import views, views_analysis, views_board, views_pages
from leaderboard.catalog import search

app_name = "leaderboard"
urlpatterns = [
    path("", views.home, name="home"),
    path("suites/", views.suite_list, name="suite_list"),
    path("suites/<slug:slug>/", views.suite_detail, name="suite_detail"),
    path("suites/<slug:slug>/changelog/", views.suite_changelog, name="suite_changelog"),
    path("tasks/", views.task_list, name="task_list"),
    path("tasks/<slug:suite>/<str:task_id>/", views.task_detail, name="task_detail"),
    path("tasks/<slug:suite>/<str:task_id>/changelog/", views.task_changelog, name="task_changelog"),
    path("runs/", views.run_list, name="run_list"),
    path("runs/<slug:slug>/", views.run_detail, name="run_detail"),
    path("leaderboard/", views_board.board, name="board"),
    path("compare/", views_board.compare, name="compare"),
    path("analysis/", views_analysis.heatmaps, name="analysis_heatmaps"),
    path("analysis/failures/", views_analysis.taxonomy, name="analysis_taxonomy"),
    path("analysis/failures/judgments/", views_analysis.failures, name="analysis_failures"),
    path("analysis/scaling/", views_analysis.scaling, name="analysis_scaling"),
    path("analysis/sessions/", views_analysis.sessions, name="analysis_sessions"),
    path("methodology/", views_pages.methodology, name="methodology"),
    path("search/", search.search_page, name="search"),
    path("submit/", views_pages.submission_guide, name="submission_guide"),
    path("submit/sample.zip", views_pages.sample_archive, name="sample_archive"),
    path("models/<slug:slug>/", views_analysis.model_detail, name="model_detail"),
]
