"""Judges every task folder of a result folder offline and writes upstream-compatible
rubric_judge_result.json per task, our per-item mypc_judge_result.json beside it, and scores.json."""

import argparse
import dataclasses
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from harness import safejson
from harness.judge.core import (
    DEFAULT_ATTEMPTS,
    DEFAULT_CONCURRENCY,
    ERROR,
    ItemVerdict,
    Judge,
    JudgeConfigurationError,
    WeightError,
    task_score,
)
from harness.judge.images import DEFAULT_MAX_SIDE, DEFAULT_QUALITY, FORMATS, ImagePolicy, ImageSettingError
from harness.judge.prices import PRICES_ENV, PriceFileError, price_status, price_table
from harness.judge.prompt import DEFAULT_MAX_IMAGES, PROMPT_VERSION, PROMPT_VERSIONS, TrajectoryForJudge
from harness.judge.provider_base import DEFAULT_MODELS, GOOGLE, PROVIDERS, ConfigurationError
from harness.judge.providers import make_provider
from harness.results import BundleError, find_task_dirs, read_task_dir, run_figures

BUNDLE_FILE = "rubric_bundle.json"
TASK_RESULT_FILE = "rubric_judge_result.json"
ITEMS_FILE = "mypc_judge_result.json"
SCORES_FILE = "scores.json"
PAPER_MODEL = DEFAULT_MODELS[GOOGLE]


def _write_json(path: Path, data) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)  # a crash never leaves half a file behind


def _read_json(path: Path):
    """A result file the judge wrote before (or that came with the folder): None when it is missing,
    unreadable or not acceptable JSON (bounded: a folder from elsewhere may hold anything)."""
    try:
        return safejson.load_file(path)
    except (OSError, ValueError):
        return None


def task_instruction(task_dir: Path) -> str:
    data = _read_json(task_dir / BUNDLE_FILE) or {}
    task = data.get("task") if isinstance(data, dict) else None
    return (task or {}).get("instruction") or ""


def _previous_items(task_dir: Path, settings: dict) -> dict[int, dict]:
    """Items judged before with the same judge settings and not in error: they are kept."""
    data = _read_json(task_dir / ITEMS_FILE)
    if not isinstance(data, dict) or data.get("judge") != settings:
        return {}
    return {row["position"]: row for row in data.get("items", []) if row.get("verdict") != ERROR}


def _cached_score(task_dir: Path, settings: dict) -> int | None:
    """The task's earlier score, only when this very judge configuration gave it on every item: a
    result file left by another judge (or by upstream's) is judged again, never reused."""
    existing = _read_json(task_dir / TASK_RESULT_FILE)
    ours = _read_json(task_dir / ITEMS_FILE)
    if not (isinstance(existing, dict) and isinstance(ours, dict)):
        return None
    result = existing.get("result")
    if not isinstance(result, int) or isinstance(result, bool) or not 0 <= result <= 100:
        return None
    if ours.get("judge") != settings or ours.get("complete") is not True or ours.get("score") != result:
        return None
    return result


class VariantRubrics:
    """The rubric as each world variant words it, from worlds built with ``python -m seeding build --variant K``
    (``--variant-world DIR``, one per variant): items a rubric template names (seeding/answer_keys/
    rubric_templates/) are rendered from that world's answer key, every other item is judged as written."""

    def __init__(self, worlds: list[Path]):
        import json

        self.worlds: dict[int, Path] = {}
        for world in worlds:
            manifest = json.loads((Path(world) / "manifest.json").read_text(encoding="utf-8"))
            self.worlds[int(manifest.get("variant", 0))] = Path(world)

    def words(self, task_id: str, variant: int, items: list) -> list:
        """``items`` as world variant ``variant`` words them; ValueError when that variant's world is not given."""
        from seeding.world.answer_keys import load_keys, resolve
        from seeding.world.rubric_templates import load_templates, render_items

        template = load_templates().get(task_id)
        if not variant or template is None:
            return items
        if variant not in self.worlds:
            raise ValueError(f"world variant {variant}: no --variant-world of that variant given")
        keys = load_keys()
        entry = resolve(self.worlds[variant], {task_id: keys[task_id]}, [task_id])["per_task"][task_id]
        worded = render_items(template, entry, {item.position: item.criterion for item in items})
        return [dataclasses.replace(item, criterion=worded[item.position]) for item in items]


def judge_task_dir(
    task_dir: Path, judge: Judge, *, force: bool = False, variants: VariantRubrics | None = None
) -> dict:
    """Judge one task folder and write its result files; returns its scores.json row. With ``variants``, a
    trajectory run on a world variant is judged with that variant's rubric."""
    task_id = task_dir.name
    bundle_path = task_dir / BUNDLE_FILE
    if judge.stopped:
        return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": judge.stopped}
    if not bundle_path.is_file():
        return {"task_id": task_id, "status": "no_bundle", "score": None, "raw": None}
    cached = None if force else _cached_score(task_dir, judge.settings)
    if cached is not None:
        return {"task_id": task_id, "status": "cached", "score": cached / 100, "raw": cached}
    try:
        bundle = read_task_dir(task_dir)
    except BundleError as exc:
        return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": str(exc)}
    items = bundle.rubric or []
    if items and variants is not None:
        try:
            items = variants.words(task_id, bundle.world_variant, items)
        except (OSError, ValueError) as exc:
            return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": str(exc)}
    if not items:
        return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": "no rubric items"}
    try:
        task_score(items, [])  # a rubric without usable weights is refused before any call
    except WeightError as exc:
        return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": str(exc)}
    kept = {} if force else _previous_items(task_dir, judge.settings)
    todo = [item for item in items if item.position not in kept]
    trajectory = TrajectoryForJudge(
        key=task_id,
        instruction=task_instruction(task_dir),
        steps=bundle.steps,
        final_answer=bundle.final_answer,
        ended_by=bundle.ended_by,
    )
    fresh = {v.position: v.as_dict() for v in judge.judge(trajectory, todo)} if todo else {}
    rows = [kept.get(item.position) or fresh[item.position] for item in items]
    verdicts = [ItemVerdict(**{k: v for k, v in row.items() if k in ItemVerdict.__dataclass_fields__}) for row in rows]
    try:
        score, complete = task_score(items, verdicts)
    except WeightError as exc:
        return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": str(exc)}
    _write_json(
        task_dir / ITEMS_FILE,
        {
            "task_id": task_id,
            "judge": judge.settings,
            "score": score,
            "complete": complete,
            "n_steps": len(bundle.steps),
            "world_variant": bundle.world_variant,  # the variant whose rubric was judged
            "items": [
                {**row, "criterion": item.criterion, "weight": item.weight}
                for row, item in zip(rows, items, strict=True)
            ],
        },
    )
    if not complete:
        errors = "; ".join(f"{r['rubric_id']}: {r['error']}" for r in rows if r["verdict"] == ERROR)
        # No rubric_judge_result.json: upstream tools then count the task as not graded, and a rerun retries it.
        (task_dir / TASK_RESULT_FILE).unlink(missing_ok=True)
        return {"task_id": task_id, "status": "judge_error", "score": None, "raw": None, "error": errors[:500]}
    _write_json(task_dir / TASK_RESULT_FILE, {"bundle_path": str(bundle_path.resolve()), "result": score})
    return {"task_id": task_id, "status": "judged", "score": score / 100, "raw": score}


def scores_summary(root: Path, rows: list[dict], expected_tasks: int | None = None) -> dict:
    """scores.json by the site's rule (harness.results.run_figures): a judge error or a folder
    without a bundle is unknown, not a failure; rates are over the known tasks, with bounds that
    count the unknown ones as failures / successes; tasks of the suite with no folder
    (``expected_tasks`` minus the folders) count as failures, as on the site."""
    graded = [r["score"] for r in rows if r["score"] is not None]
    missing = max(0, (expected_tasks or 0) - len(rows))
    figures = run_figures([r["score"] for r in rows] + [0.0] * missing, graded=[True] * len(rows) + [False] * missing)
    summary = figures.as_dict()
    return {
        "result_dir": str(root),
        "tasks": len(rows) + missing,
        "graded": len(graded),
        "missing": missing,
        "no_bundle": sum(1 for r in rows if r["status"] == "no_bundle"),
        "judge_errors": sum(1 for r in rows if r["status"] == "judge_error"),
        "unknown": figures.unknown,
        "perfect": figures.perfect,
        "perfect_rate": summary["perfect_rate"],
        "perfect_rate_bounds": [summary["perfect_rate_lower"], summary["perfect_rate_upper"]],
        "avg_score": summary["avg_score"],
        "avg_score_bounds": [summary["avg_score_lower"], summary["avg_score_upper"]],
        "avg_graded": sum(graded) / len(graded) if graded else None,
        "rule": "rates over tasks with a known outcome; bounds count unknown tasks as failures / successes",
        "rows": sorted(rows, key=lambda r: r["task_id"]),
    }


def judge_folder(
    root: Path,
    judge: Judge,
    *,
    force: bool = False,
    workers: int | None = None,
    progress=None,
    expected_tasks: int | None = None,
    variants: VariantRubrics | None = None,
) -> dict:
    """Judge every task folder under ``root`` (vm<i>/ nesting included); scores.json is rewritten
    after every task so an interrupted run leaves a true partial picture."""
    root = Path(root)
    task_dirs = find_task_dirs(root)
    rows: list[dict] = []
    lock = threading.Lock()
    workers = workers or judge.concurrency
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(judge_task_dir, d, judge, force=force, variants=variants) for d in task_dirs]
        for future in as_completed(futures):
            row = future.result()
            with lock:
                rows.append(row)
                _write_json(root / SCORES_FILE, scores_summary(root, rows, expected_tasks))
            if progress is not None:
                progress(row)
    summary = scores_summary(root, rows, expected_tasks)
    if judge.stopped:
        summary["stopped"] = judge.stopped
    _write_json(root / SCORES_FILE, summary)
    return summary


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.judge", description=__doc__)
    parser.add_argument("result_folder", type=Path)
    parser.add_argument("--provider", choices=PROVIDERS, default=GOOGLE)
    parser.add_argument("--model", help=f"judge model (default: the provider's default; Google: {PAPER_MODEL})")
    parser.add_argument("--base-url", help="API base URL (required for openai_compatible, e.g. a vLLM server)")
    parser.add_argument("--api-key", help="API key (default: the provider's environment variable)")
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="calls in flight at most")
    parser.add_argument("--max-images", type=int, default=DEFAULT_MAX_IMAGES, help="most recent screenshots; 0 = all")
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--attempts", type=int, default=DEFAULT_ATTEMPTS, help="tries per call on 5xx/timeouts")
    parser.add_argument(
        "--prompt-version",
        choices=PROMPT_VERSIONS,
        default=PROMPT_VERSION,
        help="mypc-judge-1: ours (cached prefix, JSON verdict); paper-v1: the paper's protocol (Thoughts/Status)",
    )
    parser.add_argument("--persona-summary", type=Path, help="Markdown persona summary sent to the judge")
    parser.add_argument("--image-format", choices=FORMATS, default="webp", help="how screenshots are sent")
    parser.add_argument("--image-quality", type=int, default=DEFAULT_QUALITY, help="WebP/JPEG quality 1-100")
    parser.add_argument(
        "--image-max-side", type=int, default=DEFAULT_MAX_SIDE, help="longest side in pixels; 0 keeps the size"
    )
    parser.add_argument("--force", action="store_true", help="judge again tasks that already have a result")
    parser.add_argument(
        "--variant-world",
        type=Path,
        action="append",
        default=[],
        help="a world built with python -m seeding build --variant K: trajectories run on variant K are judged "
        "with its rubric (rubric items that name a world value read from its answer key); once per variant",
    )
    parser.add_argument(
        "--expected-tasks",
        type=int,
        help="tasks in the suite: those without a folder count as failures (default: only the folders present)",
    )
    return parser


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("session", "intents"):  # a session's checklist, or its intent audit
        from harness.judge.session_cli import main as session_main

        return session_main(argv)
    args = build_parser().parse_args(argv)
    if not args.result_folder.is_dir():
        print(f"error: {args.result_folder} is not a folder (expected a result folder)", file=sys.stderr)
        return 2
    try:
        variants = VariantRubrics(args.variant_world) if args.variant_world else None
    except (OSError, ValueError) as exc:
        print(f"error: --variant-world: {exc}", file=sys.stderr)
        return 2
    try:
        provider = make_provider(
            args.provider, args.model, api_key=args.api_key, base_url=args.base_url, temperature=args.temperature
        )
    except ConfigurationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        prices, configured = price_table()
    except PriceFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    status = price_status(provider.model, configured)
    if status != "configured":
        why = "unverified shipped prices" if status == "estimated" else f"no price for {provider.model}"
        costs = "estimated" if status == "estimated" else "not computed"
        note = f"note: judge costs in {ITEMS_FILE} are {costs} ({why}); set {PRICES_ENV} to a price file"
        print(note, file=sys.stderr)
    if provider.model != PAPER_MODEL:
        print(f"note: judging with {provider.model}, not the paper's judge {PAPER_MODEL}", file=sys.stderr)
    try:
        judge = Judge(
            provider,
            max_images=args.max_images,
            concurrency=args.concurrency,
            attempts=args.attempts,
            price_table=prices,
            prompt_version=args.prompt_version,
            persona_summary=args.persona_summary,
            images=ImagePolicy(args.image_format, args.image_quality, args.image_max_side),
        )
    except (JudgeConfigurationError, ImageSettingError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    task_dirs = find_task_dirs(args.result_folder)
    if not task_dirs:
        print(f"error: {args.result_folder} holds no task folders", file=sys.stderr)
        return 2
    from tqdm import tqdm

    with tqdm(total=len(task_dirs), unit="task", desc="judging") as bar:
        summary = judge_folder(
            args.result_folder,
            judge,
            force=args.force,
            progress=lambda row: bar.update(1),
            expected_tasks=args.expected_tasks,
            variants=variants,
        )
    if judge.stopped:
        print(f"error: the judge {judge.stopped}", file=sys.stderr)
        return 1
    pct = lambda x: "n/a" if x is None else f"{100 * x:.1f}%"  # noqa: E731
    bounds = lambda b: "" if summary["unknown"] == 0 else f" (bounds {pct(b[0])} to {pct(b[1])})"  # noqa: E731
    print(
        f"{summary['tasks']} tasks: {summary['graded']} graded, {summary['judge_errors']} judge errors, "
        f"{summary['no_bundle']} without a bundle, {summary['missing']} missing; "
        f"rubric score {pct(summary['avg_score'])}{bounds(summary['avg_score_bounds'])}, "
        f"perfect {pct(summary['perfect_rate'])}{bounds(summary['perfect_rate_bounds'])}"
    )
    return 0
