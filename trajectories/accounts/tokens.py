"""Authors' API tokens: created and shown once, stored only as a sha256 hash, listed by prefix,
revoked, and checked on each API call (per-author call limits: trajectories.accounts.ratelimits)."""

import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from trajectories.models import ApiToken

TOKEN_PREFIX = "mpcb_"
PREFIX_LENGTH = 12  # what pages show to recognise a token; far too short to guess the rest


class TokenError(ValueError):
    """A token request that was refused (empty name, unknown token)."""


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def create_token(user, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``; the raw token is returned once and never stored."""
    name = (name or "").strip()
    if not name:
        raise TokenError("name: empty (expected a name to recognise the token by, e.g. 'cluster runner')")
    if len(name) > 100:
        raise TokenError(f"name: {len(name)} characters (expected at most 100)")
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=raw[:PREFIX_LENGTH], key_hash=hash_token(raw))
    return token, raw


def active_tokens(user):
    return ApiToken.objects.filter(user=user, revoked_at__isnull=True).order_by("-created_at")


def user_tokens(user):
    return ApiToken.objects.filter(user=user).order_by("revoked_at", "-created_at")


def revoke_token(user, token_id: int) -> ApiToken:
    """Revoke one of ``user``'s own tokens (someone else's token is "not found", not "forbidden")."""
    token = ApiToken.objects.filter(user=user, pk=token_id).first()
    if token is None:
        raise TokenError(f"token {token_id}: not found among your tokens")
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def authenticate_token(raw: str):
    """The active user owning ``raw``, or None; records when the token was last used."""
    if not raw or not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_hash=hash_token(raw), revoked_at__isnull=True, user__is_active=True)
        .first()
    )
    if token is None:
        return None
    with transaction.atomic():
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token.user
