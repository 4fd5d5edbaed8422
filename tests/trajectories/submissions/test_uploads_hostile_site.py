"""Hostile JSON in an upload, site side: metadata and side files are read
through harness.safejson, so NaN, huge numbers and lone surrogates are refused with the file named,
and nothing is stored or left behind."""

import json

import pytest

from tests.submission_data import (
    METADATA,
    files_under,
    folder_entries,
    result_folder,
    stored_counts,
    upload,
    zip_bytes,
)
from trajectories.submissions.uploads import submit_archive
from trajectories.submissions.validation import SubmissionRejected

pytestmark = pytest.mark.django_db


def refusal(author, data: bytes, metadata) -> str:
    with pytest.raises(SubmissionRejected) as caught:
        submit_archive(author, upload(data, "run.zip"), metadata)
    return "\n".join(f"{p.file}: {p.problem}" for p in caught.value.report if p.level == "error")


def assert_nothing_stored(before, media, upload_tmp):
    assert stored_counts() == before
    assert files_under(media) == []
    assert files_under(upload_tmp) == []


def test_nan_in_metadata_is_refused(tmp_path, author, isolated_media, upload_tmp):
    before = stored_counts()
    text = json.dumps(METADATA)[:-1] + ', "turn_budget": NaN}'
    message = refusal(author, zip_bytes(folder_entries(result_folder(tmp_path))), text)
    assert "metadata: " in message and "NaN" in message, message
    assert_nothing_stored(before, isolated_media, upload_tmp)


def test_lone_surrogate_in_metadata_is_refused(tmp_path, author, isolated_media, upload_tmp):
    before = stored_counts()
    text = json.dumps(METADATA)[:-1] + ', "agent": "a\\ud800b"}'
    message = refusal(author, zip_bytes(folder_entries(result_folder(tmp_path))), text)
    assert "metadata: " in message and "surrogate" in message, message
    assert_nothing_stored(before, isolated_media, upload_tmp)


@pytest.mark.parametrize(
    "body, expected",
    [
        ('{"input_tokens": NaN}', "NaN"),
        ('{"input_tokens": ' + "9" * 5000 + "}", "digits"),
        ('{"note": "\\udc00"}', "surrogate"),
    ],
)
def test_hostile_side_json_is_refused_with_its_name(tmp_path, author, isolated_media, upload_tmp, body, expected):
    before = stored_counts()
    root = result_folder(tmp_path)
    (root / "writing-a001" / "usage.json").write_text(body)
    message = refusal(author, zip_bytes(folder_entries(root)), METADATA)
    assert "writing-a001/usage.json: " in message and expected in message, message
    assert_nothing_stored(before, isolated_media, upload_tmp)
