"""Settings for several hosts: a Redis cache shared by every process when a cache URL is
given (per-process memory otherwise), and media in an S3 bucket when one is named (the filesystem
otherwise). Each case runs in a fresh process, because settings are read once per process."""

import json
import subprocess
import sys
import uuid

import pytest
import redis

from tests.site.test_settings import ROOT, clean_env

PROBE = (
    "import json, django; from django.conf import settings; django.setup(); "
    "print(json.dumps({'cache': settings.CACHES['default'], 'media': settings.STORAGES['default'], "
    "'static': settings.STORAGES['staticfiles']['BACKEND']}))"
)
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


def probe(tmp_path, **env) -> dict:
    env = {k: v for k, v in clean_env(tmp_path, **env).items() if v is not None}
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def without(*names) -> dict:
    return dict.fromkeys(names)  # None: removed from the child's environment


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_defaults_are_per_process_memory_and_the_filesystem(tmp_path):
    found = probe(tmp_path, **without("MYPCBENCH_CACHE_URL", "REDIS_URL", "MYPCBENCH_S3_BUCKET"))
    assert found["cache"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert found["media"] == {"BACKEND": "django.core.files.storage.FileSystemStorage"}


@pytest.mark.parametrize(
    "env, location",
    [
        ({"REDIS_URL": "redis://cache.internal:6379/3"}, "redis://cache.internal:6379/3"),
        ({"MYPCBENCH_CACHE_URL": "redis://figures.internal:6380/1"}, "redis://figures.internal:6380/1"),
        (
            {"REDIS_URL": "redis://cache.internal:6379/3", "MYPCBENCH_CACHE_URL": "redis://figures.internal:6380/1"},
            "redis://figures.internal:6380/1",
        ),
    ],
)
@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_cache_url_selects_djangos_redis_cache(tmp_path, env, location):
    found = probe(tmp_path, **{**without("MYPCBENCH_CACHE_URL", "REDIS_URL"), **env})
    assert found["cache"] == {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": location}


@pytest.mark.slow  # over a second of work: the full run has it, the fast lane does not
def test_a_bucket_puts_media_in_object_storage_and_leaves_static_files_alone(tmp_path):
    plain = probe(tmp_path, **without("MYPCBENCH_S3_BUCKET"))
    found = probe(tmp_path, MYPCBENCH_S3_BUCKET="site-media", AWS_S3_ENDPOINT_URL="http://127.0.0.1:9000")
    assert found["media"]["BACKEND"] == "mypcbench_site.storage.MediaS3Storage"
    options = found["media"]["OPTIONS"]
    assert (options["bucket_name"], options["endpoint_url"]) == ("site-media", "http://127.0.0.1:9000")
    assert options["addressing_style"] == "path" and options["default_acl"] is None
    assert options["file_overwrite"] is False
    assert found["static"] == plain["static"]


@pytest.mark.slow
def test_two_processes_share_the_redis_cache(tmp_path):
    try:
        redis.Redis.from_url(LOCAL_REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError:
        pytest.skip(f"no Redis server at {LOCAL_REDIS}")
    key, value = f"shared-cache-test-{uuid.uuid4().hex}", uuid.uuid4().hex
    env = {k: v for k, v in clean_env(tmp_path, MYPCBENCH_CACHE_URL=LOCAL_REDIS).items()}

    def run(code: str) -> str:
        prelude = "import django; django.setup(); from django.core.cache import cache; "
        result = subprocess.run(
            [sys.executable, "-c", prelude + code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    run(f"cache.set({key!r}, {value!r}, 60)")
    try:
        assert run(f"print(cache.get({key!r}))") == value
    finally:
        run(f"cache.delete({key!r})")
