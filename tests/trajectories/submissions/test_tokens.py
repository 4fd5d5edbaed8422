"""API tokens (trajectories/accounts/tokens.py): shown once, stored as a sha256 hash only, recognised by
prefix, revocable, and the only way to authenticate API uploads."""

import hashlib

import pytest
from django.contrib.auth import get_user_model

from trajectories.accounts.tokens import TokenError, authenticate_token, create_token, revoke_token
from trajectories.models import ApiToken

pytestmark = pytest.mark.django_db


@pytest.fixture
def pam():
    return get_user_model().objects.create_user("pam")


def test_token_is_stored_as_a_hash_only(pam):
    token, raw = create_token(pam, "cluster runner")
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.key_hash == hashlib.sha256(raw.encode()).hexdigest()
    assert raw not in {stored.name, stored.prefix, stored.key_hash}
    assert raw.startswith(stored.prefix) and len(stored.prefix) == 12 and len(raw) > 40


def test_authenticate_records_last_use_and_refuses_revoked_tokens(pam):
    token, raw = create_token(pam, "laptop")
    assert authenticate_token(raw) == pam
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert authenticate_token(raw[:-1] + ("A" if raw[-1] != "A" else "B")) is None
    assert authenticate_token("") is None and authenticate_token("Bearer " + raw) is None
    revoke_token(pam, token.pk)
    assert authenticate_token(raw) is None


def test_inactive_users_tokens_do_not_work(pam):
    _token, raw = create_token(pam, "laptop")
    pam.is_active = False
    pam.save()
    assert authenticate_token(raw) is None


def test_someone_elses_token_cannot_be_revoked(pam):
    token, _raw = create_token(pam, "laptop")
    dwight = get_user_model().objects.create_user("dwight")
    with pytest.raises(TokenError, match=f"token {token.pk}: not found among your tokens"):
        revoke_token(dwight, token.pk)
    token.refresh_from_db()
    assert token.revoked_at is None


def test_a_token_needs_a_name(pam):
    with pytest.raises(TokenError, match="name: empty"):
        create_token(pam, "   ")
