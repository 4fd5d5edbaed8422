"""The Content-Security-Policy header: images from this site only while media are on disk; with media
in a bucket, also from exactly the bucket's origin (and the public base URL's, a CDN), since the media
view answers screenshots with a redirect there. No store is contacted: the origins are the store's own
URLs, worked out locally."""

import pytest

from mypcbench_site.settings import s3_media_storage

pytestmark = pytest.mark.django_db


def directive(response, name: str) -> list[str]:
    policy = response.headers["Content-Security-Policy"]
    return next(d for d in policy.split(";") if d.split()[0] == name).split()[1:]


def test_media_on_disk_allow_images_from_this_site_only(client):
    assert directive(client.get("/"), "img-src") == ["'self'", "data:", "blob:"]


def test_media_in_a_bucket_behind_an_endpoint_allow_that_origin_only(client, settings):
    settings.STORAGES = {**settings.STORAGES, "default": s3_media_storage("shots", "http://127.0.0.1:9000")}
    sources = directive(client.get("/"), "img-src")
    assert sources == ["'self'", "data:", "blob:", "http://127.0.0.1:9000"]
    assert "default-src 'self';" in client.get("/").headers["Content-Security-Policy"]


def test_media_in_an_aws_bucket_and_a_cdn_allow_exactly_those_origins(client, settings, monkeypatch):
    monkeypatch.setenv("AWS_S3_REGION_NAME", "eu-west-1")
    settings.STORAGES = {**settings.STORAGES, "default": s3_media_storage("mypcbench-shots")}
    settings.MYPCBENCH_MEDIA_PUBLIC_BASE_URL = "https://media.example.org/published/"
    sources = directive(client.get("/"), "img-src")
    extra = sources[3:]
    assert len(extra) == 2 and "https://media.example.org" in extra
    bucket = next(o for o in extra if o != "https://media.example.org")
    # the bucket's own host, no wildcard and no path: nothing wider than the one origin
    assert bucket.startswith("https://mypcbench-shots.s3") and bucket.endswith(".amazonaws.com")
    assert "*" not in bucket and bucket.count("/") == 2
