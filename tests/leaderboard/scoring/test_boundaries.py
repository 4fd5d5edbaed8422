"""Each threshold tried on both sides of its edge: the perfect-task rule, the tier boundary, the rate
limits (count, window edge, Retry-After rounding on a stopped clock) and every archive limit (archive
size, total extracted bytes, bytes per file, files, depth, compression ratio), with encrypted zip entries
and device files in zips and tars. Expected values are worked out by hand in each test."""

import io
import stat
import tarfile
import zipfile
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest
from django.core.cache import cache
from django.utils import timezone

from harness.results import ArchiveError, ArchiveLimits, extract_archive
from leaderboard.scoring import metrics
from tests.submission_data import tar_gz_bytes, zip_bytes
from trajectories.accounts import ratelimits
from trajectories.accounts.ratelimits import RateLimited

# ------------------------------------------------------------------------- perfect and tiers


def test_a_task_is_perfect_from_exactly_the_threshold():
    assert metrics.is_perfect(0.999) is True  # the upstream rule: score >= 0.999
    assert metrics.is_perfect(1.0) is True
    assert metrics.is_perfect(0.9989999) is False
    # 999 of 1000 equal items passed is exactly 0.999: perfect by the rule, one item fewer is not
    assert metrics.is_perfect(metrics.rubric_score([True] * 999 + [False])) is True
    assert metrics.is_perfect(metrics.rubric_score([True] * 998 + [False] * 2)) is False


def test_a_run_whose_upper_bound_just_reaches_the_leader_shares_its_tier():
    # leader (0.50, 0.70); a run whose upper bound is exactly the leader's lower bound is tied with it
    assert metrics.tied_groups([(0.50, 0.70), (0.30, 0.50)]) == [1, 1]
    assert metrics.tied_groups([(0.50, 0.70), (0.30, 0.4999)]) == [1, 2]


# ------------------------------------------------------------------------------ rate limits


@pytest.fixture
def stopped(monkeypatch):
    """Django's clock stopped at 10:00:00 UTC on a day (a clock-window edge for one-hour windows)."""
    now = datetime(2026, 5, 4, 10, 0, 0, tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: now)
    return now


def test_accepted_uploads_up_to_the_limit_pass_and_one_more_is_refused(settings, stopped):
    settings.MYPCBENCH_UPLOADS_PER_WINDOW = 3
    settings.MYPCBENCH_RATE_WINDOW_SECONDS = 3600
    two = [stopped - timedelta(minutes=50), stopped - timedelta(minutes=10)]
    ratelimits.check_uploads(object(), lambda since: two)  # 2 of 3: the third is let through
    three = [stopped - timedelta(minutes=50), *two[1:], stopped - timedelta(minutes=1)]
    with pytest.raises(RateLimited) as refused:
        ratelimits.check_uploads(object(), lambda since: three)
    # the oldest of the three leaves the window 3600 s after it was made: 10 minutes from now
    assert refused.value.resets_at == stopped + timedelta(minutes=10)
    assert refused.value.retry_after == 600


def test_the_upload_window_asks_for_exactly_the_last_window(settings, stopped):
    settings.MYPCBENCH_RATE_WINDOW_SECONDS = 3600
    asked = []
    ratelimits.check_uploads(object(), lambda since: asked.append(since) or [])
    assert asked == [stopped - timedelta(seconds=3600)]


@pytest.mark.parametrize("left, expected", [(timedelta(seconds=10), 10), (timedelta(seconds=10, milliseconds=1), 11),
                                            (timedelta(0), 1), (timedelta(seconds=-5), 1)])  # fmt: skip
def test_retry_after_rounds_up_to_whole_seconds_and_is_never_zero(stopped, left, expected):
    limited = RateLimited("uploads", 1, 3600, 1, stopped + left)
    assert limited.retry_after == expected


def test_api_calls_up_to_the_limit_pass_and_the_next_window_starts_afresh(settings, monkeypatch):
    settings.MYPCBENCH_API_CALLS_PER_WINDOW = 3
    settings.MYPCBENCH_RATE_WINDOW_SECONDS = 3600
    cache.clear()
    user = SimpleNamespace(pk=424242)
    last_second = datetime(2026, 5, 4, 10, 59, 59, tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: last_second)
    for _ in range(3):
        ratelimits.count_api_call(user)  # calls 1..3 of 3
    with pytest.raises(RateLimited) as refused:
        ratelimits.count_api_call(user)  # call 4
    assert refused.value.resets_at == datetime(2026, 5, 4, 11, 0, 0, tzinfo=UTC)
    assert refused.value.retry_after == 1
    monkeypatch.setattr(timezone, "now", lambda: datetime(2026, 5, 4, 11, 0, 0, tzinfo=UTC))
    ratelimits.count_api_call(user)  # the new clock window: counted from 1 again
    cache.clear()


# ------------------------------------------------------------------------------ archive limits


def _write(tmp_path, name: str, data: bytes):
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _extract(tmp_path, data: bytes, limits: ArchiveLimits, name="a.zip"):
    dest = tmp_path / "out"
    return extract_archive(_write(tmp_path, name, data), dest, limits), dest


def _stored_zip(entries) -> bytes:
    """A zip without compression, so the archive's size is the files' sizes plus headers."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in entries:
            archive.writestr(name, data)
    return buffer.getvalue()


def test_total_extracted_bytes_at_the_cap_pass_and_one_byte_more_is_refused(tmp_path):
    limits = ArchiveLimits(max_total_bytes=3000, max_ratio=10**9)
    _extract(tmp_path, zip_bytes([("t/a.txt", b"a" * 1500), ("t/b.txt", b"b" * 1500)]), limits)
    over = zip_bytes([("t/a.txt", b"a" * 1500), ("t/b.txt", b"b" * 1501)])
    with pytest.raises(ArchiveError, match="extracts to more than 3000 bytes") as refused:
        _extract(tmp_path / "second", over, limits)
    # the limit's own words (not wrapped as an unreadable entry)
    assert (refused.value.problem, refused.value.expected) == ("extracts to more than 3000 bytes",
                                                               "at most 3000 bytes in all")  # fmt: skip
    assert list((tmp_path / "second" / "out").iterdir()) == [], "a refused archive leaves nothing"


def test_total_extracted_bytes_count_in_tars_too(tmp_path):
    limits = ArchiveLimits(max_total_bytes=3000, max_ratio=10**9)
    members = [(tarfile.TarInfo("t/a.txt"), b"a" * 1500), (tarfile.TarInfo("t/b.txt"), b"b" * 1501)]
    with pytest.raises(ArchiveError, match="extracts to more than 3000 bytes"):
        _extract(tmp_path, tar_gz_bytes(members), limits, name="a.tgz")


def test_one_file_at_the_per_file_cap_passes_and_one_byte_more_is_refused(tmp_path):
    limits = ArchiveLimits(max_file_bytes=1000, max_ratio=10**9)
    _extract(tmp_path, zip_bytes([("t/a.txt", b"a" * 1000)]), limits)
    with pytest.raises(ArchiveError, match="larger than the 1000-byte limit per file"):
        _extract(tmp_path / "second", zip_bytes([("t/a.txt", b"a" * 1001)]), limits)


def test_the_archive_size_cap_is_inclusive(tmp_path):
    data = _stored_zip([("t/a.txt", b"x" * 100)])
    _extract(tmp_path, data, ArchiveLimits(max_archive_bytes=len(data)))
    with pytest.raises(ArchiveError, match=f"the archive is {len(data)} bytes"):
        _extract(tmp_path / "second", data, ArchiveLimits(max_archive_bytes=len(data) - 1))


def test_the_entry_count_cap_is_inclusive(tmp_path):
    five = [(f"t/{i}.txt", b"x") for i in range(5)]
    _extract(tmp_path, zip_bytes(five), ArchiveLimits(max_files=5))
    with pytest.raises(ArchiveError, match="6 entries in the archive"):
        _extract(tmp_path / "second", zip_bytes(five + [("t/5.txt", b"x")]), ArchiveLimits(max_files=5))


def test_the_depth_cap_is_inclusive(tmp_path):
    # a file under 3 folders is 3 levels deep
    _extract(tmp_path, zip_bytes([("a/b/c/f.txt", b"x")]), ArchiveLimits(max_depth=3))
    with pytest.raises(ArchiveError, match="nested 4 folders deep"):
        _extract(tmp_path / "second", zip_bytes([("a/b/c/d/f.txt", b"x")]), ArchiveLimits(max_depth=3))


def test_the_compression_ratio_applies_only_above_its_floor(tmp_path):
    zeros = zip_bytes([("t/z.bin", b"\0" * 20_000)])  # compresses about 200 times
    ratio = 20_000 / len(zeros)
    assert ratio > 10
    _extract(tmp_path, zeros, ArchiveLimits(max_ratio=10, ratio_floor_bytes=20_000))  # at the floor: harmless
    with pytest.raises(ArchiveError, match="expands more than 10 times"):
        _extract(tmp_path / "second", zeros, ArchiveLimits(max_ratio=10, ratio_floor_bytes=19_999))


def _flag_encrypted(data: bytes) -> bytes:
    """Sets the 'encrypted' bit in the zip's local header and central directory entry (offsets 6
    and 8 of each record), as an encrypting zip tool writes it."""
    raw = bytearray(data)
    local = raw.index(b"PK\x03\x04")
    central = raw.index(b"PK\x01\x02")
    raw[local + 6] |= 0x01
    raw[central + 8] |= 0x01
    return bytes(raw)


def test_an_encrypted_zip_entry_is_refused_by_name(tmp_path):
    data = _flag_encrypted(_stored_zip([("t/secret.txt", b"hidden")]))
    with pytest.raises(ArchiveError) as refused:
        _extract(tmp_path, data, ArchiveLimits())
    assert (refused.value.entry, refused.value.problem) == ("t/secret.txt", "is encrypted")
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("kind", [stat.S_IFCHR, stat.S_IFBLK, stat.S_IFIFO, stat.S_IFSOCK])
def test_a_device_or_special_file_inside_a_zip_is_refused(tmp_path, kind):
    info = zipfile.ZipInfo("t/dev")
    info.external_attr = (kind | 0o644) << 16
    with pytest.raises(ArchiveError) as refused:
        _extract(tmp_path, zip_bytes([("t/ok.txt", b"x"), (info, b"")]), ArchiveLimits())
    assert (refused.value.entry, refused.value.problem) == ("t/dev", "is a device or special file")
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("kind", [tarfile.CHRTYPE, tarfile.BLKTYPE, tarfile.FIFOTYPE])
def test_a_device_or_pipe_inside_a_tar_is_refused(tmp_path, kind):
    device = tarfile.TarInfo("t/dev")
    device.type = kind
    members = [(tarfile.TarInfo("t/ok.txt"), b"x"), (device, None)]
    with pytest.raises(ArchiveError) as refused:
        _extract(tmp_path, tar_gz_bytes(members), ArchiveLimits(), name="a.tgz")
    assert (refused.value.entry, refused.value.problem) == ("t/dev", "is a device, pipe or other special file")
    assert list((tmp_path / "out").iterdir()) == []
