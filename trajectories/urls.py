"""URLs of trajectory pages."""

from django.urls import path

from . import views

app_name = "trajectories"
urlpatterns = [
    path("trajectories/", views.trajectory_list, name="trajectory_list"),
    path("trajectories/<int:pk>/", views.trajectory_detail, name="trajectory_detail"),
]
