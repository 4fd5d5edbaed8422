"""URLs of catalog and score pages."""

from django.urls import path

from . import views

app_name = "leaderboard"
urlpatterns = [
    path("", views.home, name="home"),
    path("suites/", views.suite_list, name="suite_list"),
    path("suites/<slug:slug>/", views.suite_detail, name="suite_detail"),
    path("tasks/", views.task_list, name="task_list"),
    path("tasks/<slug:suite>/<str:task_id>/", views.task_detail, name="task_detail"),
    path("runs/", views.run_list, name="run_list"),
    path("runs/<slug:slug>/", views.run_detail, name="run_detail"),
]
