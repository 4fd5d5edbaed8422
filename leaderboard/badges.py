"""The badge every published run carries wherever it is named: how far we vouch for its numbers
(verified: we ran it; re-judged: uploaded, judged by our judge; reported: published figures)."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.models import Run

VERIFIED_KEY = "verified_by_rerun"  # Run.metadata entry set when a maintainer links a rerun


@dataclass(frozen=True)
class Badge:
    key: str  # CSS suffix and the value exports carry
    label: str
    title: str  # one sentence saying what the badge means for this run
    rerun_slug: str = ""  # verified uploads: the harness run that reproduced it


def run_badge(provenance: str, metadata: dict | None = None) -> Badge:
    """The badge of a run with this provenance and metadata (no query)."""
    verified = (metadata or {}).get(VERIFIED_KEY) or {}
    if provenance == Run.Provenance.HARNESS:
        return Badge("verified", "verified", "Run by our harness: trajectories recorded and judged by us.")
    if provenance == Run.Provenance.UPLOAD and verified.get("run"):
        return Badge(
            "verified",
            "verified",
            f"Uploaded by an author, then rerun with our harness as {verified.get('run_name') or verified['run']} "
            "and marked verified by a maintainer; judged by our judge.",
            rerun_slug=verified["run"],
        )
    if provenance == Run.Provenance.UPLOAD:
        return Badge(
            "rejudged",
            "re-judged",
            "Uploaded by an author, judged by our judge; the author's own verdicts are never scored.",
        )
    if provenance == Run.Provenance.REPORTED:
        return Badge("reported", "reported", "Reported: figures as published, not recomputed by us.")
    return Badge("imported", "imported", "Imported result folder: trajectories recorded elsewhere.")


def badge_of(obj) -> Badge:
    """The badge of a Run, or of anything already carrying one (leaderboard rows)."""
    found = getattr(obj, "badge", None)
    if isinstance(found, Badge):
        return found
    return run_badge(getattr(obj, "provenance", ""), getattr(obj, "metadata", None))
