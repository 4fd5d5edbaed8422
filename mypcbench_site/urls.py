"""Top-level URLs: pages of the two apps, the admin, the API and media (through a permission check)."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from mypcbench_site.api import api
from mypcbench_site.media import media
from trajectories.accounts.views import LoginView, ThrottledAdminAuthenticationForm, signup

admin.site.login_form = ThrottledAdminAuthenticationForm  # failed log-ins throttled there too

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("accounts/login/", LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", signup, name="signup"),
    # browsers ask for /favicon.ico on pages that name none (the API docs): the site's icon
    path("favicon.ico", RedirectView.as_view(url=settings.STATIC_URL + "favicon.svg", permanent=True)),
    path("", include("leaderboard.urls")),
    path("", include("trajectories.urls")),
    # Always routed: who may read a file is decided per request (mypcbench_site/media.py).
    re_path(r"^media/(?P<path>.*)$", media, name="media"),
    path("", include("world.urls")),
]
