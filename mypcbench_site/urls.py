"""Top-level URLs: pages of the two apps, the admin, the API and (in DEBUG/demo) media."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from django.views.static import serve

from mypcbench_site.api import api
from trajectories.submissions.views import signup


def media(request, path):
    """Screenshots and derivatives for single-host setups (a front server serves them in production).
    The folder is read per request, so a changed MEDIA_ROOT (tests, reconfigured hosts) applies."""
    return serve(request, path, document_root=settings.MEDIA_ROOT)


urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/login/", auth_views.LoginView.as_view(template_name="accounts/login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", signup, name="signup"),
    # browsers ask for /favicon.ico on pages that name none (the API docs): the site's icon
    path("favicon.ico", RedirectView.as_view(url=settings.STATIC_URL + "favicon.svg", permanent=True)),
    path("", include("leaderboard.urls")),
    path("", include("trajectories.urls")),
    path("", include("world.urls")),
]

if settings.SERVE_MEDIA:
    urlpatterns += [re_path(r"^media/(?P<path>.*)$", media)]
