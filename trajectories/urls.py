"""URLs of trajectory pages."""

from django.urls import path  # noqa: F401

app_name = "trajectories"
urlpatterns = []
