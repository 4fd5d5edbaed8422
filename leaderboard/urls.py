"""URLs of catalog and score pages."""

from django.urls import path

from . import views

app_name = "leaderboard"
urlpatterns = [
    path("", views.home, name="home"),
]
