"""Media in S3-compatible object storage (django-storages): page URLs stay /media/<name>, so every
read passes the permission-checking media view, which then redirects to the object's public URL
(published) or to a short-lived signed URL (unpublished, permitted readers only)."""

import logging
import os
import tempfile
from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.utils._os import safe_join
from django.utils.encoding import filepath_to_uri
from storages.backends.s3 import S3Storage
from storages.utils import clean_name

logger = logging.getLogger(__name__)
# With MYPCBENCH_S3_PUBLIC_ACCESS=policy, published objects are copied under this prefix, which the
# bucket policy (deploy/README.md, deploy/s3-public-policy.json) lets anybody read.
PUBLIC_PREFIX = "public/"


class MediaS3Storage(S3Storage):
    """S3Storage whose ``url()`` is the site's media view; ``direct_url()`` is the store's own."""

    def url(self, name, parameters=None, expire=None, http_method=None):
        return settings.MEDIA_URL + filepath_to_uri(clean_name(name))

    def path(self, name: str) -> str:
        """A local copy of the object, for code that needs a file on disk (the judge sends screenshots
        from paths): kept under <var>/s3-copies/, which may be emptied at any time. Stored names
        never change content (content-addressed, or unique per step), so a copy once made is reused."""
        local = Path(safe_join(Path(settings.VAR_DIR) / "s3-copies", clean_name(name)))  # refuses "../"
        if not local.is_file():
            local.parent.mkdir(parents=True, exist_ok=True)
            fd, partial = tempfile.mkstemp(dir=local.parent, prefix=".partial-")
            try:
                with os.fdopen(fd, "wb") as out, self.open(name, "rb") as source:
                    for chunk in iter(lambda: source.read(1024 * 1024), b""):
                        out.write(chunk)
                os.replace(partial, local)
            finally:
                if os.path.exists(partial):
                    os.unlink(partial)
        return str(local)

    def _key(self, name: str) -> str:
        return self._normalize_name(clean_name(name))

    def direct_url(self, name: str, *, public: bool, expire: int | None = None) -> str:
        """The object's own URL: plain (anyone may fetch it once it is marked public) or signed for
        ``expire`` seconds (default AWS_QUERYSTRING_EXPIRE)."""
        base = getattr(settings, "MYPCBENCH_MEDIA_PUBLIC_BASE_URL", "")
        if public and base:
            return base.rstrip("/") + "/" + filepath_to_uri(clean_name(name))
        connection = self.unsigned_connection if public else self.connection
        key = self._key(name)
        if public and settings.MYPCBENCH_S3_PUBLIC_ACCESS == "policy":
            key = PUBLIC_PREFIX + key
        return connection.meta.client.generate_presigned_url(
            "get_object",
            Params={"Bucket": self.bucket.name, "Key": key},
            ExpiresIn=expire or self.querystring_expire,
        )

    def mark_public(self, name: str, public: bool) -> bool:
        """Let anonymous readers fetch the object by its plain URL (or stop them at once): its ACL, or
        with MYPCBENCH_S3_PUBLIC_ACCESS=policy its copy under the public prefix, made or deleted. A store
        that refuses (e.g. ACLs on a bucket with ACLs disabled) is logged, not raised: the reader is
        still redirected, and the plain URL answers 403 until the setting matches the bucket."""
        client = self.connection.meta.client
        key = self._key(name)
        try:
            if settings.MYPCBENCH_S3_PUBLIC_ACCESS == "acl":
                client.put_object_acl(Bucket=self.bucket.name, Key=key, ACL="public-read" if public else "private")
            elif public:
                source = {"Bucket": self.bucket.name, "Key": key}
                client.copy_object(Bucket=self.bucket.name, Key=PUBLIC_PREFIX + key, CopySource=source)
            else:
                client.delete_object(Bucket=self.bucket.name, Key=PUBLIC_PREFIX + key)
        except (ClientError, BotoCoreError) as exc:
            logger.warning("could not mark %s %s: %s", name, "public" if public else "private", exc)
            return False
        return True
