"""``build``: run every seeder in order for one persona and write the manifest; ``metrics`` for counts.

The manifest lists every file with its sha256 and size, every app's record counts, and the paper's
volume targets beside what was built. It holds no wall-clock time, so two builds with the same anchor
and variant produce the same manifest. A variant other than 0 is named in the manifest (``variant``); the
canonical world's manifest has no such key, so it is byte-identical to builds made before variants existed.
"""

import datetime as dt
import shutil
from pathlib import Path

from .apps import TARGETS
from .core import Context, sha256_file, write_json
from .persona import load_persona
from .seeders import ordered

MANIFEST = "manifest.json"
EVENTS = "events.json"


def metrics(counts: dict, persona_spec: dict) -> dict:
    """metric -> {target, built, ratio} from per-app table counts."""
    volume = persona_spec.get("volume", {})
    result = {}
    for metric, (default, places) in TARGETS.items():
        built = sum(counts.get(app, {}).get(table, 0) for app, table in places)
        goal = int(volume.get(metric, default))
        result[metric] = {"target": goal, "built": built, "ratio": round(built / goal, 3) if goal else None}
    return result


def build(
    persona_path, out, anchor: dt.date | None = None, overlay=None, log=None, name=None, variant: int = 0
) -> dict:
    """Build the persona's world at ``anchor`` into ``out``: world variant ``variant`` (0 is the canonical one)."""
    persona = load_persona(persona_path, overlay, name=name)
    anchor = anchor or dt.date.today()
    out = Path(out)
    ctx = Context(persona, anchor, out, variant)  # refuses a bad variant before anything is removed
    if out.exists():
        if not (out / MANIFEST).exists() and any(out.iterdir()):
            raise FileExistsError(f"{out} exists, is not empty and holds no {MANIFEST}: refusing to overwrite it")
        shutil.rmtree(out)
    out.mkdir(parents=True)
    timings = []
    for seeder in ordered():
        started = dt.datetime.now()
        try:
            seeder.run(ctx)
        except Exception as exc:
            raise RuntimeError(f"seeder {seeder.id!r} failed: {exc}") from exc
        timings.append((seeder.id, (dt.datetime.now() - started).total_seconds()))
        if log:
            log(f"  {seeder.id:<22} {timings[-1][1]:6.2f}s")
    write_json(out / EVENTS, [e.as_json() for e in ctx.events])
    counts = dict(ctx.notes.get("counts", {}))
    counts["firefox"] = ctx.notes.get("firefox_counts", {})
    files = {}
    for path in sorted(p for p in out.rglob("*") if p.is_file() and p.name != MANIFEST):
        rel = path.relative_to(out).as_posix()
        files[rel] = {"sha256": sha256_file(path), "bytes": path.stat().st_size}
    manifest = {
        "persona": persona.name,
        "persona_file": persona.source,
        "overlay_file": persona.overlay_source,
        "overlay_entries": len(persona.overlay_entries),
        "anchor": anchor.isoformat(),
        **({"variant": variant} if variant else {}),
        "reference_date": persona.reference_date,
        "shift_days": ctx.shift.days,
        "window": [ctx.start.isoformat(), ctx.end.isoformat()],
        "seeders": [s.id for s in ordered()],
        "events": len(ctx.events),
        "counts": counts,
        "volume": metrics(counts, persona.spec),
        "files": files,
        "coverage_ignore": persona.coverage_ignore,
        "firefox_visit_provenance": ctx.notes.get("firefox_visit_provenance", {}),
    }
    write_json(out / MANIFEST, manifest)
    manifest["_timings"] = timings
    return manifest
