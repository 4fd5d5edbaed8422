"""URLs of trajectory pages."""

from django.urls import path

from . import views, views_player

app_name = "trajectories"
urlpatterns = [
    path("trajectories/", views.trajectory_list, name="trajectory_list"),
    path("trajectories/<int:pk>/", views.trajectory_detail, name="trajectory_detail"),
    path("trajectories/<int:pk>/play/", views_player.trajectory_player, name="trajectory_player"),
    path("trajectories/compare/", views_player.trajectory_compare, name="trajectory_compare"),
]
