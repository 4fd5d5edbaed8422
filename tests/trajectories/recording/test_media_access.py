"""/media/ answers as the pages do: media of unpublished runs and uploaded
archives only for their author and maintainers (404 for anyone else), media of published runs for
everyone and cacheable; a file shared by several steps is public when any of its runs is published;
behind a front server the bytes go out by X-Accel-Redirect."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.files.base import ContentFile

from leaderboard.models import Run
from tests.factories import make_suite, png_bytes
from tests.services.factories import make_trajectory
from tests.submission_data import METADATA, TASK_IDS, good_entries, upload, zip_bytes
from trajectories.models import Step
from trajectories.recording import media
from trajectories.submissions.uploads import submit_archive

pytestmark = pytest.mark.django_db

WHO = ["anonymous", "author", "other", "staff"]


@pytest.fixture
def world(tmp_path, settings, isolated_media):
    settings.MYPCBENCH_UPLOAD_TMP_DIR = tmp_path / "upload-tmp"
    settings.MYPCBENCH_DERIVATIVES = "off"
    settings.MYPCBENCH_MEDIA_ACCEL_PREFIX = ""
    settings.SERVE_MEDIA = True
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # speed only
    cache.clear()
    make_suite(TASK_IDS)
    users = {
        "author": get_user_model().objects.create_user("pam", password="pw-beesly-2026"),
        "other": get_user_model().objects.create_user("dwight", password="pw-schrute-2026"),
        "staff": get_user_model().objects.create_user("michael", password="pw-scott-2026", is_staff=True),
    }
    archive = zip_bytes(good_entries(tmp_path))
    sub = submit_archive(users["author"], upload(archive, "pam-run.zip"), METADATA).submission
    step = Step.objects.filter(trajectory__run=sub.run).exclude(screenshot="").order_by("id").first()
    return {"users": users, "submission": sub, "archive": archive, "step": step}


def get_as(client, world, who, url):
    client.logout()
    if who != "anonymous":
        client.force_login(world["users"][who])
    return client.get(url)


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def stored(name: str) -> bytes:
    with media.default_storage.open(name, "rb") as fh:
        return fh.read()


@pytest.mark.parametrize("who, expected", [("anonymous", 404), ("author", 200), ("other", 404), ("staff", 200)])
def test_unpublished_screenshot_only_for_its_author_and_maintainers(client, world, who, expected):
    name = world["step"].screenshot.name
    response = get_as(client, world, who, "/media/" + name)
    assert response.status_code == expected
    if expected == 200:
        data = body(response)
        assert data == stored(name) and data.startswith(b"\x89PNG")
        assert response["Cache-Control"] == "private, no-store"


@pytest.mark.parametrize("who, expected", [("anonymous", 404), ("author", 200), ("other", 404), ("staff", 200)])
def test_uploaded_archive_only_for_its_author_and_maintainers(client, world, who, expected):
    name = world["submission"].metadata["archive_file"]
    assert name.startswith("submissions/") and name.endswith(".zip")
    response = get_as(client, world, who, "/media/" + name)
    assert response.status_code == expected
    if expected == 200:
        assert body(response) == world["archive"]
        assert response["Cache-Control"] == "private, no-store"


def test_archive_stays_private_after_publication(client, world):
    Run.objects.filter(pk=world["submission"].run_id).update(publication=Run.Publication.PUBLISHED)
    name = world["submission"].metadata["archive_file"]
    assert get_as(client, world, "anonymous", "/media/" + name).status_code == 404
    # ...while the run's screenshots are now anybody's
    assert get_as(client, world, "anonymous", "/media/" + world["step"].screenshot.name).status_code == 200


def test_derivatives_of_an_unpublished_run_are_private_too(client, world):
    step = world["step"]
    assert media.make_step_derivatives(step) == media.MADE
    for name in (step.display_image.name, step.thumbnail.name, step.display_avif.name):
        assert name.startswith("derivatives/")
        assert get_as(client, world, "anonymous", "/media/" + name).status_code == 404
        assert get_as(client, world, "author", "/media/" + name).status_code == 200


@pytest.mark.parametrize("who", WHO)
def test_published_media_are_public_and_cacheable(client, world, who, settings):
    settings.MYPCBENCH_MEDIA_PUBLIC_MAX_AGE = 3600
    trajectory = make_trajectory(1, slug="published-run", size=(64, 40))
    Run.objects.filter(pk=trajectory.run_id).update(publication=Run.Publication.PUBLISHED)
    step = trajectory.steps.get()
    response = get_as(client, world, who, "/media/" + step.screenshot.name)
    assert response.status_code == 200
    assert body(response) == stored(step.screenshot.name)
    assert response["Cache-Control"] == "public, max-age=3600"
    assert "Cookie" not in response.get("Vary", "")  # one answer for everybody: shared caches may keep it


def test_a_file_shared_with_a_published_run_is_public_and_follows_its_publication(client, world):
    # Content-addressed files are named by several steps; one published owner makes the file public.
    draft_step = world["step"]
    published = make_trajectory(1, slug="published-run", size=(64, 40))
    Run.objects.filter(pk=published.run_id).update(publication=Run.Publication.PUBLISHED)
    Step.objects.filter(trajectory=published).update(screenshot=draft_step.screenshot.name)
    url = "/media/" + draft_step.screenshot.name
    assert get_as(client, world, "anonymous", url).status_code == 200
    Run.objects.filter(pk=published.run_id).update(publication=Run.Publication.WITHDRAWN)
    assert get_as(client, world, "anonymous", url).status_code == 404
    assert get_as(client, world, "author", url).status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "screenshots/nobody/step_1.png",  # no row names it
        "orphan.png",  # a file on disk that no row names
        "../mypcbench.sqlite3",
        "screenshots/../submissions/x.zip",
        "submissions/ab/" + "ab" * 32 + ".zip",  # an archive name no submission keeps
    ],
)
def test_files_no_row_owns_are_not_found_even_for_maintainers(client, world, path, isolated_media):
    (isolated_media / "orphan.png").write_bytes(png_bytes())
    assert get_as(client, world, "staff", "/media/" + path).status_code == 404


def test_behind_a_front_server_the_bytes_go_out_by_internal_redirect(client, world, settings):
    settings.MYPCBENCH_MEDIA_ACCEL_PREFIX = "/internal-media/"
    settings.SERVE_MEDIA = False
    name = world["step"].screenshot.name
    assert get_as(client, world, "anonymous", "/media/" + name).status_code == 404
    response = get_as(client, world, "author", "/media/" + name)
    assert response.status_code == 200 and response.content == b""
    assert response["X-Accel-Redirect"] == "/internal-media/" + name
    assert response["Content-Type"] == "image/png"
    assert response["Cache-Control"] == "private, no-store"


def test_without_a_way_to_serve_media_nothing_is_streamed(client, world, settings):
    settings.SERVE_MEDIA = False
    assert get_as(client, world, "staff", "/media/" + world["step"].screenshot.name).status_code == 404


def test_a_step_saved_under_a_taken_name_is_judged_by_its_own_rows(client, world):
    # Two different files never share a row: a second save under the same wanted name gets a new name.
    step = world["step"]
    other = Step.objects.create(trajectory=step.trajectory, index=999, turn=999)
    other.screenshot.save(step.screenshot.name.rsplit("/", 1)[-1], ContentFile(png_bytes()), save=True)
    assert other.screenshot.name != step.screenshot.name
    assert get_as(client, world, "author", "/media/" + other.screenshot.name).status_code == 200


def test_an_archive_is_its_authors_in_one_query(world, django_assert_num_queries):
    from trajectories.recording.media_access import media_owners

    sub = world["submission"]
    name = sub.metadata["archive_file"]
    with django_assert_num_queries(1):  # the row named by the file's hash; its author comes with it
        owners = media_owners(name)
        assert owners.readers == frozenset({world["users"]["author"].pk})
    assert owners.owned and owners.public is False


def test_an_archive_kept_under_another_name_is_still_its_authors(world):
    from trajectories.models import Submission
    from trajectories.recording.media_access import media_owners

    sub = world["submission"]
    other = Submission.objects.create(
        author=world["users"]["other"],
        archive_name="renamed.zip",
        archive_sha256="f" * 64,
        metadata={**sub.metadata, "archive_file": f"submissions/ab/{sub.archive_sha256}-copy.zip"},
    )
    owners = media_owners(other.metadata["archive_file"])  # not named <sha256>.zip: found by the name
    assert owners.owned and owners.readers == frozenset({world["users"]["other"].pk})
    assert media_owners(f"submissions/ab/{'e' * 64}.zip").owned is False  # no row names it
