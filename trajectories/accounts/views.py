"""Pages of an account: sign up, log in (throttled, on the site and in the admin) and the author's
API tokens. Thin callers of trajectories.accounts.tokens and trajectories.accounts.ratelimits."""

from typing import TYPE_CHECKING, Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.forms.utils import ErrorDict
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from trajectories.accounts import ratelimits, tokens


def client_address(request) -> str:
    """The client's address for per-address limits: REMOTE_ADDR, or the header a trusted proxy
    sets when settings.MYPCBENCH_CLIENT_ADDRESS_HEADER names one (e.g. "HTTP_X_REAL_IP")."""
    header = getattr(settings, "MYPCBENCH_CLIENT_ADDRESS_HEADER", "")
    address = request.META.get(header, "") if header else ""
    return (address.split(",")[0].strip() or request.META.get("REMOTE_ADDR", ""))[:100]


def _limited(response, exc: ratelimits.RateLimited):
    response["Retry-After"] = str(exc.retry_after)
    return response


def signup(request):
    if request.user.is_authenticated:
        return redirect("trajectories:submission_list")
    form: UserCreationForm[Any] = UserCreationForm(request.POST or None)
    if request.method == "POST":
        try:
            ratelimits.check_signup(client_address(request))
        except ratelimits.RateLimited as exc:  # refused before the form (and its password hashing)
            form = UserCreationForm()  # unbound, the message shown as the form's own error
            # BaseForm's private error dict, set so add_error works on an unbound form
            form.cleaned_data, form._errors = {}, ErrorDict()  # type: ignore[attr-defined]
            form.add_error(None, f"Sign-up refused: {exc}")
            return _limited(render(request, "accounts/signup.html", {"form": form}, status=429), exc)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        ratelimits.record_signup(client_address(request))
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}. Create an API token or upload a submission.")
        return redirect("trajectories:submission_list")
    return render(request, "accounts/signup.html", {"form": form})


if TYPE_CHECKING:  # the forms it is mixed into (request, data, clean)
    _LoginForm = AuthenticationForm
else:
    _LoginForm = object


class ThrottledLogin(_LoginForm):
    """Log-in forms that refuse, before checking the password, an account or a client address with
    too many failed log-ins (trajectories.accounts.ratelimits.check_login), and count failures."""

    limited: ratelimits.RateLimited | None = None

    def clean(self):
        address = client_address(self.request) if self.request is not None else ""
        username = str(self.data.get("username", ""))
        try:
            ratelimits.check_login(address, username)
        except ratelimits.RateLimited as exc:
            self.limited = exc
            raise forms.ValidationError(f"Log-in refused: {exc}", code="rate_limited") from exc
        try:
            return super().clean()
        except forms.ValidationError as exc:
            if getattr(exc, "code", None) == "invalid_login":
                ratelimits.record_login_failure(address, username)
            raise


class ThrottledAuthenticationForm(ThrottledLogin, AuthenticationForm):
    pass


class ThrottledAdminAuthenticationForm(ThrottledLogin, AdminAuthenticationForm):
    pass


class LoginView(auth_views.LoginView):
    """The site's log-in page; a throttled log-in answers 429 with Retry-After."""

    template_name = "accounts/login.html"
    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.limited is not None:
            response.status_code = 429
            _limited(response, form.limited)
        return response


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="To recognise it later, e.g. “cluster runner”.")


@never_cache  # the page that shows a new token must not be kept by any cache
@login_required
def token_list(request):
    form = TokenForm(request.POST or None)
    new_token = None
    if request.method == "POST" and form.is_valid():
        try:
            _token, new_token = tokens.create_token(request.user, form.cleaned_data["name"])
        except tokens.TokenError as exc:
            form.add_error("name", str(exc))
        else:
            form = TokenForm()
    return render(
        request,
        "accounts/tokens.html",
        {"form": form, "new_token": new_token, "tokens": tokens.user_tokens(request.user)},
    )


@login_required
@require_POST
def token_revoke(request, pk: int):
    try:
        token = tokens.revoke_token(request.user, pk)
    except tokens.TokenError:
        raise Http404("No such token among yours")
    messages.success(request, f"Token “{token.name}” ({token.prefix}…) is revoked; it no longer works.")
    return redirect("trajectories:token_list")
