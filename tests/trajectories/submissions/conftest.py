"""Fixtures of the submissions' tests: the upload temp folder and an author with the suite their
uploads are for (tests/submission_data.py's tasks)."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache

from tests.factories import make_suite
from tests.submission_data import TASK_IDS


@pytest.fixture
def upload_tmp(settings, tmp_path):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()  # upload attempts are counted in the cache; user ids repeat between tests
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    return settings.MYPCBENCH_UPLOAD_TMP_DIR


@pytest.fixture
def author(upload_tmp):
    """Pam, an author, and the suite of TASK_IDS her uploads are for."""
    make_suite(TASK_IDS)
    return get_user_model().objects.create_user("pam", password="pw-beesly-2026")
