"""The one way to read /media/: the rows naming a file decide who may (trajectories.recording.
media_access); anything not readable is a 404, as the pages are. How the bytes go out depends on the
deployment: a redirect to object storage (public URL or short-lived signed URL), an internal redirect
for the front server (X-Accel-Redirect under MYPCBENCH_MEDIA_ACCEL_PREFIX), or Django itself."""

import mimetypes
from typing import cast
from urllib.parse import quote

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.http import FileResponse, Http404, HttpResponse, HttpResponseRedirect
from django.views.static import serve

from trajectories.recording.media_access import clean_name, media_owners
from trajectories.recording.public_marks import marks_public, sync_public_mark

PRIVATE_CACHE = "private, no-store"


def _public_cache() -> str:
    return f"public, max-age={settings.MYPCBENCH_MEDIA_PUBLIC_MAX_AGE}"


def _deliver(request, name: str, public: bool):
    storage = default_storage
    if hasattr(storage, "direct_url"):  # object storage (mypcbench_site.storage.MediaS3Storage)
        if marks_public():  # also set when a run's publication changes (public_marks)
            sync_public_mark(name, public)
        if public:
            return HttpResponseRedirect(storage.direct_url(name, public=True))
        return HttpResponseRedirect(
            storage.direct_url(name, public=False, expire=settings.MYPCBENCH_MEDIA_SIGNED_SECONDS)
        )
    if not storage.exists(name):
        raise Http404("No such media file")
    prefix = settings.MYPCBENCH_MEDIA_ACCEL_PREFIX
    if prefix:
        response = HttpResponse(content_type=mimetypes.guess_type(name)[0] or "application/octet-stream")
        response["X-Accel-Redirect"] = prefix.rstrip("/") + "/" + quote(name)
        return response
    if not settings.SERVE_MEDIA:
        raise Http404("Media are not served by this process")
    if isinstance(storage, FileSystemStorage):
        return serve(request, name, document_root=cast(str, storage.location))  # an absolute path (str)
    return FileResponse(storage.open(name, "rb"))


def media(request, path):
    """/media/<path>: published media for anyone (cacheable), the rest for its readers only."""
    name = clean_name(path)
    owners = media_owners(name) if name else None
    if owners is None or not owners.owned:
        raise Http404("No such media file")
    if not owners.public and not owners.allows(request.user):
        raise Http404("No such media file")
    response = _deliver(request, cast(str, name), owners.public)  # owners were found for a name
    response["Cache-Control"] = _public_cache() if owners.public else PRIVATE_CACHE
    return response
