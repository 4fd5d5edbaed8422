"""The badge every published run carries wherever it is named: how far we vouch for its numbers
(verified: we ran it; re-judged: uploaded, judged by our judge; an upload our judge has not
finished is "judging" or "awaiting our judge", never re-judged; reported: published figures)."""

from __future__ import annotations

from dataclasses import dataclass

from leaderboard.models import Run

VERIFIED_KEY = "verified_by_rerun"  # Run.metadata entry set when a maintainer links a rerun
# Run.metadata entry kept by trajectories.submissions for uploaded runs: {"state": "judging" |
# "judged", "judge", "items", "judged_items", "error_items", "at"}; absent = our judge not started.
OUR_JUDGING_KEY = "our_judging"

# Every badge key, for the API's documentation and the CSS (badge-<key>).
BADGE_KEYS = ("verified", "rejudged", "judging", "awaiting-judge", "reported", "imported", "test-run", "demo")

# Agents that replay a script instead of a model, and guests that are not the benchmark's VM image:
# a harness run with either tests the pipeline and is never "verified".
TEST_AGENTS = frozenset({"dummy", "scripted"})
TEST_BACKENDS = frozenset({"fake", "local"})

# What each badge means, in the order the methodology page lists them.
BADGE_HELP = (
    (
        "verified",
        "verified",
        "A real agent rerun by our harness on the benchmark's VM image (QEMU, Docker or a "
        "guest at a URL); only our judge's verdicts are scored. An upload gets it when a maintainer links it to such "
        "a rerun.",
    ),
    (
        "rejudged",
        "re-judged",
        "Uploaded by an author and judged by our judge on every trajectory; scored only from "
        "our judge's verdicts, never the author's.",
    ),
    (
        "judging",
        "being judged",
        "An upload our judge is still judging: its figures cover only what has been judged so far.",
    ),
    ("awaiting-judge", "awaiting our judge", "An upload our judge has not judged yet: no score."),
    (
        "imported",
        "imported",
        "A result folder recorded elsewhere and imported as it was, with the judge its row names; not rerun by us.",
    ),
    (
        "reported",
        "reported",
        "Figures as published (e.g. in the paper), not recomputed: no trajectories, so no intervals.",
    ),
    (
        "test-run",
        "test run",
        "Run by our harness with a scripted or dummy agent, or on a test guest instead of the "
        "benchmark image: it checks the pipeline and says nothing about a model.",
    ),
    (
        "demo",
        "demo run",
        "A run on a demo suite (demo tasks, not the benchmark's): its tooltip says what made it, e.g. the demo's "
        "recorded browser scripts or a test of our harness; its figures say nothing about a model on the benchmark.",
    ),
)
DEMO_AGENT = "scripted-demo"  # the agent type load_demo gives the runs it records (fixed browser scripts)
ON_DEMO = "its figures are about the demo tasks and say nothing about a model on the benchmark."

NEVER_SCORED = "The author's own verdicts are never scored."
# Beside every verdict of an author's own judge (player, trajectory page): it is shown, never scored.
SELF_REPORTED_NOTE = "self-reported, not scored"


@dataclass(frozen=True)
class Badge:
    key: str  # CSS suffix and the value exports carry
    label: str
    title: str  # one sentence saying what the badge means for this run
    rerun_slug: str = ""  # verified uploads: the harness run that reproduced it

    def as_dict(self) -> dict:
        return {"key": self.key, "label": self.label, "title": self.title}


def our_judging(metadata: dict | None) -> dict:
    """How far our judge has got on an uploaded run, as recorded on the run (see OUR_JUDGING_KEY)."""
    return (metadata or {}).get(OUR_JUDGING_KEY) or {}


def rejudged(metadata: dict | None) -> bool:
    """True once our judge has answered every rubric item of the run with at least one verdict."""
    state = our_judging(metadata)
    return state.get("state") == "judged" and int(state.get("judged_items") or 0) > 0


def _judged_sentence(state: dict) -> str:
    items, judged, errors = (int(state.get(k) or 0) for k in ("items", "judged_items", "error_items"))
    text = f"our judge ({state.get('judge') or 'ours'}) judged every trajectory: {judged} of {items} rubric items"
    if errors:
        text += f", {errors} ended in an API error and are left out of the figures"
    when = (state.get("at") or "")[:10]
    return text + (f" (finished {when})." if when else ".")


def _upload_judging(metadata: dict | None) -> Badge:
    """The badge of an upload without a linked rerun: only "re-judged" once our judge is done."""
    state = our_judging(metadata)
    if rejudged(metadata):
        return Badge("rejudged", "re-judged", f"Uploaded by an author; {_judged_sentence(state)} {NEVER_SCORED}")
    if state.get("state") == "judged":  # every call ended in error: nothing of ours to score
        return Badge(
            "awaiting-judge",
            "awaiting our judge",
            "Uploaded by an author; every call to our judge ended in an API error (never a failure), so it has no "
            f"score until our judge is queued again. {NEVER_SCORED}",
        )
    if state.get("state") == "judging":
        return Badge(
            "judging",
            "being judged",
            "Uploaded by an author; our judge is still judging its trajectories, so its figures cover only what "
            f"has been judged so far. {NEVER_SCORED}",
        )
    return Badge(
        "awaiting-judge",
        "awaiting our judge",
        f"Uploaded by an author; our judge has not judged it yet, so it has no score. {NEVER_SCORED}",
    )


def _demo_title(provenance: str, metadata: dict | None, agent_type: str) -> str:
    """What a run on a demo suite really is, in one sentence for its badge's tooltip."""
    if provenance == Run.Provenance.HARNESS:
        backend = ((metadata or {}).get("launch") or {}).get("backend", "") or "unknown"
        agent = agent_type or "unnamed"
        what = {
            "scripted": "the scripted agent (it replays a plan; no model is called)",
            "dummy": "the dummy agent (no model is called)",
        }.get(agent, f"the {agent} agent")
        return f"Run by our harness on the demo suite with {what} on the {backend} guest: {ON_DEMO}"
    if provenance == Run.Provenance.UPLOAD:
        return f"Uploaded by an author on the demo suite ({agent_type or 'agent not named'}): {ON_DEMO}"
    if agent_type == DEMO_AGENT:
        return (
            "Recorded for the demo on the demo suite by a scripted agent (fixed browser scripts, not a model), "
            "with verdicts written by the script."
        )
    return f"A result folder imported on the demo suite ({agent_type or 'agent not named'}): {ON_DEMO}"


def run_badge(provenance: str, metadata: dict | None = None, agent_type: str = "", demo: bool = False) -> Badge:
    """The badge of a run with this provenance and metadata (no query). ``agent_type`` and ``demo``
    (the run's suite is a demo suite) tell test and demo runs from real ones."""
    verified = (metadata or {}).get(VERIFIED_KEY) or {}
    if demo and provenance != Run.Provenance.REPORTED:
        return Badge("demo", "demo run", _demo_title(provenance, metadata, agent_type))
    if provenance == Run.Provenance.HARNESS:
        backend = ((metadata or {}).get("launch") or {}).get("backend", "")
        if agent_type in TEST_AGENTS or backend in TEST_BACKENDS:
            return Badge(
                "test-run",
                "test run",
                f"Run by our harness with the {agent_type or 'unnamed'} agent on the {backend or 'unknown'} guest: "
                "a test of the pipeline, not a model's result on the benchmark image.",
            )
        return Badge(
            "verified",
            "verified",
            f"Rerun by our harness with the {agent_type} agent on the {backend} guest: we recorded every trajectory "
            "ourselves; only our judge's verdicts are scored.",
        )
    if provenance == Run.Provenance.UPLOAD and verified.get("run"):
        judged = (
            _judged_sentence(our_judging(metadata)).replace("our judge", "Our judge", 1)
            if rejudged(metadata)
            else "Our judge has not finished judging the uploaded trajectories; their figures cover only what it "
            "has judged."
        )
        return Badge(
            "verified",
            "verified",
            f"Uploaded by an author, then rerun with our harness as {verified.get('run_name') or verified['run']} "
            f"and marked verified by {verified.get('by') or 'a maintainer'}"
            + (f" on {verified['at'][:10]}" if verified.get("at") else "")
            + f". {judged} {NEVER_SCORED}",
            rerun_slug=verified["run"],
        )
    if provenance == Run.Provenance.UPLOAD:
        return _upload_judging(metadata)
    if provenance == Run.Provenance.REPORTED:
        return Badge("reported", "reported", "Reported: figures as published, not recomputed by us.")
    return Badge(
        "imported",
        "imported",
        "Imported result folder: trajectories recorded elsewhere, not rerun by us; scored with the judge its row "
        "names.",
    )


def badge_of(obj) -> Badge:
    """The badge of a Run, or of anything already carrying one (leaderboard rows)."""
    found = getattr(obj, "badge", None)
    if isinstance(found, Badge):
        return found
    suite = getattr(obj, "suite", None)
    return run_badge(
        getattr(obj, "provenance", ""),
        getattr(obj, "metadata", None),
        agent_type=getattr(obj, "agent_type", "") or "",
        demo=bool(getattr(suite, "is_demo", False)),
    )
