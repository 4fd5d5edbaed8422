from django.urls import path

from world import views

app_name = "world"

urlpatterns = [
    path("world/", views.overview, name="world_overview"),
    path("world/events/", views.event_list, name="world_events"),
    path("world/events/<str:event_id>/", views.event_detail, name="world_event"),
    path("world/review/", views.review_queue, name="world_review"),
    path("world/review/<slug:suite>/<str:task_id>/", views.review_task, name="world_review_task"),
    path("world/<slug:app>/", views.app_records, name="world_app"),
    path("world/<slug:app>/<slug:kind>/<int:row_id>/", views.record_detail, name="world_record"),
]
