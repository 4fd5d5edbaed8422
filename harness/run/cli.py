"""Command line: run one task or a whole suite against a backend with an agent, writing a result folder
the site imports unchanged. Finished tasks are skipped, so an interrupted run resumes where it stopped.

    python -m harness run --tasks PATH [--task ID ...] --backend fake|remote|local|qemu|docker
        --agent scripted|dummy [--plan FILE] --out DIR [--max-turns N]
        --agent anthropic|openai|gemini|openai_compatible [--model NAME] [--base-url URL]
        [--coordinate-type relative|absolute]   (openai_compatible: Qwen3-VL 0-999 grid or Qwen2.5-VL pixels)
        [--max-output-tokens N] [--retry-output-tokens N] [--reasoning-effort E] [--temperature T]
        [--display WxH|fit] [--dual-tool-hint on|off] [--image-drop-chunk N] [--openai-context chained|windowed]
        [--gemini-safety stop|acknowledge] [--claude-tools FILE] [--thinking off|N|adaptive|paper]
        (recorded as agent_protocol)
        --backend qemu --image QCOW2 [--kernel FILE --initrd FILE --append ARGS] [--memory 8G --cpus 4]
            [--allow-tcg] [--ready-timeout SECONDS] [--snapshot-reset]
            (python -m harness.testing builds a small guest)
        --backend docker --image TAG [--allow-tcg] [--unprivileged]
            (python -m harness.testing --docker builds a test image)
        --backend remote --url URL [--reset-command CMD | --reset-url URL]
        [--setup all|none|network-nudge,dns,xrandr,chatbot-key,prewarm,dinoco-fare-paid] [--adopt-screen-size]
        [--world-variant K | --world-variant K1,K2,...]   (a list: one attempt per variant, in OUT/attempt_<n>;
            the fake backend serves any variant, the others the canonical world 0 only)
    python -m harness session --sessions FILE [--session ID ...] --out DIR [--max-user-turns N]
        --user rules | --user anthropic|openai|google|openai_compatible [--user-model NAME] [--user-base-url URL]
        [--user-prompt-version V] [--without-earlier-sessions]   (the ablation: earlier sessions not given)
        --backend fake|remote [--url URL] --agent ... (as for run: --plan, --model, --base-url, --max-turns)
        (a session's later turns may have their own scripted plan, keyed "<session id>#<turn>")
    python -m harness guest --kind local|fake [--port 5000] [--start-url URL]
"""

import argparse
import json
import math
import sys
from datetime import datetime
from pathlib import Path

from tqdm import tqdm

from harness.agents import (
    AGENTS,
    PROVIDER_AGENTS,
    AgentError,
    PlanError,
    ScriptedAgent,
    load_plans,
    provider_agent,
)
from harness.backends import BACKENDS, BackendUnavailable, VMConfig, make_env
from harness.control import ControlError, PostBootConfig, SetupError, parse_parts
from harness.results import WORLD_VARIANT_KEY, parse_world_variants
from harness.run.loop import LoopConfig, run_task
from harness.run.recorder import Recorder
from harness.tasks import TaskFileError, load_tasks

RUN_FILE = "run.json"


class RunError(ValueError):
    pass


def is_finished(task_dir: Path) -> bool:
    """A task folder whose result.txt says the loop finished (1.0). Errored ones (0.0) are run again."""
    marker = task_dir / "result.txt"
    if not marker.is_file():
        return False
    try:
        with marker.open("rb") as fh:
            head = fh.read(65)  # a score is a few characters: a longer file is not one, and is not read
        value = float(head.decode("utf-8").strip()) if len(head) <= 64 else math.nan
        return math.isfinite(value) and value >= 1.0
    except (OSError, ValueError):
        return False


def select_tasks(tasks_path, wanted: list[str] | None):
    try:
        tasks = load_tasks(tasks_path).tasks
    except TaskFileError as exc:
        raise RunError(str(exc)) from exc
    if not wanted:
        return tasks
    by_id = {t.id: t for t in tasks}
    unknown = [w for w in wanted if w not in by_id]
    if unknown:
        raise RunError(f"--task: {', '.join(unknown)} not in {tasks_path} (it has {len(tasks)} tasks)")
    return [by_id[w] for w in wanted]


def make_agent(name: str, plan: str | None, *, model: str | None = None, base_url: str | None = None,
               screenshot_window: int = 20, coordinate_type: str = "", settings: dict | None = None):  # fmt: skip
    if name not in AGENTS:
        raise RunError(f"--agent: unknown agent {name!r} (expected one of {', '.join(sorted(AGENTS))})")
    if name in PROVIDER_AGENTS:
        if plan:
            raise RunError(f"--plan: only the scripted agent plays a plan (got --agent {name})")
        try:  # a missing API key or model name stops the run here, before any task starts
            return provider_agent(name, model, base_url=base_url, screenshot_window=screenshot_window,
                                  coordinate_type=coordinate_type, **(settings or {}))  # fmt: skip
        except AgentError as exc:
            raise RunError(str(exc)) from exc
    given = [key for key, value in (settings or {}).items() if value is not None]
    if given:
        flags = ", ".join("--" + key.replace("_", "-") for key in given)
        raise RunError(f"{flags}: only provider agents take these (got --agent {name})")
    if model or base_url or coordinate_type:
        raise RunError(
            f"--model / --base-url / --coordinate-type: only provider agents call a model (got --agent {name})"
        )
    if name == "scripted":
        try:
            return ScriptedAgent(load_plans(plan) if plan else None)
        except PlanError as exc:
            raise RunError(str(exc)) from exc
    if plan:
        raise RunError(f"--plan: only the scripted agent plays a plan (got --agent {name})")
    return AGENTS[name]()


def run_suite(tasks, env, agent, out: Path, config: LoopConfig, *, meta: dict | None = None, progress=True,
              extra_sinks=()) -> dict:  # fmt: skip
    """Run ``tasks`` in order, skipping finished ones; returns counts by outcome."""
    out.mkdir(parents=True, exist_ok=True)
    counts = {"skipped": 0, "finished": 0, "errored": 0}
    if hasattr(agent, "attach"):
        agent.attach(env)  # provider agents run their shell and editor tools through the env's Control API
    bar = tqdm(tasks, desc="tasks", unit="task", disable=not progress, file=sys.stderr)
    for task in bar:
        task_dir = out / task.id
        if not task_dir.resolve().is_relative_to(out.resolve()):
            raise RunError(f"task id {task.id!r} would write outside {out}")
        if is_finished(task_dir):
            counts["skipped"] += 1
            continue
        bar.set_postfix_str(task.id)
        recorder = Recorder.to_folder(task, task_dir, meta=meta, extra_sinks=extra_sinks)
        result = run_task(task, env, agent, recorder, config)
        # Imported here: the judge package pulls in the provider SDKs, which a run rarely needs.
        from harness.judge.state_checks import record_state_checks

        record_state_checks(task, env.execute, task_dir, finished=result.status == "finished")
        counts[result.status] += 1
        counts[result.ended_by] = counts.get(result.ended_by, 0) + 1
    return counts


def attempt_folders(out: Path, variants: list[int]) -> list[tuple[Path, int]]:
    """Where each attempt is written and on which world variant: one variant runs in ``out`` itself; a
    list runs one attempt per variant in ``out/attempt_1``, ``out/attempt_2``, ... (the attempt folders
    the site's import numbers attempts by)."""
    if len(variants) == 1:
        return [(out, variants[0])]
    return [(out / f"attempt_{number}", variant) for number, variant in enumerate(variants, start=1)]


def serve_guest(args) -> int:
    """Serve a guest in the foreground (for ``--backend remote`` or by hand) until Ctrl-C."""
    from harness.guest.desktop import DesktopUnavailable, LocalDesktop
    from harness.guest.fake import FakeGuest
    from harness.guest.server import BindRefused, ControlServer

    size = (args.width, args.height)
    desktop = None if args.kind == "fake" else LocalDesktop(*size, args.start_url, allow_shell=args.allow_shell)
    backend = FakeGuest(*size) if desktop is None else desktop
    try:
        server = ControlServer(backend, args.host, args.port, allow_remote=args.allow_remote)
    except (BindRefused, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        if desktop is not None:
            desktop.start()
        print(f"{args.kind} guest serving the Control API at {server.url} (Ctrl-C stops it)", file=sys.stderr)
        server.serve_forever()
    except DesktopUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()
        if desktop is not None:
            desktop.stop()
    return 0


def make_user(kind: str, model: str | None = None, base_url: str | None = None, prompt_version: str | None = None):
    """The simulated user (see harness.judge.usersim.make_user_simulator); RunError for a bad option."""
    from harness.judge.usersim import make_user_simulator

    try:
        return make_user_simulator(kind, model, base_url, prompt_version)
    except ValueError as exc:
        raise RunError(str(exc)) from exc


def run_sessions(args) -> int:
    """``python -m harness session``: play the chosen sessions and write their records."""
    from harness.run.session import GIVEN, WITHHELD, play_sessions
    from harness.tasks.sessions import SessionFileError, load_sessions, session_tasks

    try:
        if args.max_user_turns < 1:
            raise RunError(f"--max-user-turns: {args.max_user_turns} (expected at least 1)")
        if args.max_turns < 1:
            raise RunError(f"--max-turns: {args.max_turns} (expected at least 1)")
        try:
            sessions = load_sessions(args.sessions)
        except SessionFileError as exc:
            raise RunError(f"--sessions: {exc}") from exc
        chosen = sessions.sessions
        if args.session:
            known = {s.id: s for s in sessions.sessions}
            unknown = [w for w in args.session if w not in known]
            if unknown:
                raise RunError(f"--session: {', '.join(unknown)} not in {args.sessions}")
            chosen = [s for s in sessions.sessions if s.id in args.session]  # in the file's order: earlier first
        tasks = {t.id: t for t in session_tasks(sessions).tasks}
        agent = make_agent(args.agent, args.plan, model=args.model, base_url=args.base_url)
        user = make_user(args.user, args.user_model, args.user_base_url, args.user_prompt_version)
        env = make_env(args.backend, url=args.url, screen_size=(args.width, args.height))
    except (RunError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    config = LoopConfig(max_turns=args.max_turns, sleep_after=0.0 if args.backend == "fake" else 1.0)
    setting = WITHHELD if args.without_earlier_sessions else GIVEN
    meta = {"agent": agent.name, "model": agent.model, "backend": args.backend, "max_turns": args.max_turns,
            "user_simulator": user.identity, "earlier_sessions": setting}  # fmt: skip
    out = Path(args.out)
    counts: dict[str, int] = {}
    try:
        env.start()
    except (BackendUnavailable, ControlError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    try:
        if hasattr(agent, "attach"):
            agent.attach(env)
        out.mkdir(parents=True, exist_ok=True)
        run_info = {**meta, **env.protocol(), "sessions": str(args.sessions), "max_user_turns": args.max_user_turns,
                    "started_at": datetime.now().isoformat(timespec="seconds")}  # fmt: skip
        (out / RUN_FILE).write_text(json.dumps(run_info, indent=2) + "\n", encoding="utf-8")
        counts = play_sessions(chosen, tasks, env, agent, user, out, config, setting=setting,
                               max_user_turns=args.max_user_turns, meta=meta,
                               report=lambda line: print(f"error: {line}", file=sys.stderr))  # fmt: skip
    finally:
        env.stop()
    print(f"{len(chosen)} session(s): " + ", ".join(f"{k} {v}" for k, v in counts.items()), file=sys.stderr)
    return 1 if counts.get("errored") else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run tasks and write a result folder")
    run.add_argument("--tasks", required=True, help="task file or folder (upstream format)")
    run.add_argument("--task", action="append", help="task id to run (repeatable; default all)")
    run.add_argument("--backend", choices=BACKENDS, default="fake")
    run.add_argument("--url", default="", help="guest URL for --backend remote")
    run.add_argument("--start-url", default="about:blank", help="page the local desktop guest shows")
    run.add_argument("--image", default="", help="qcow2 (qemu) or image tag (docker)")
    run.add_argument("--slot", type=int, default=0)
    run.add_argument("--memory", default="8G", help="VM memory (qemu, docker)")
    run.add_argument("--cpus", type=int, default=4, help="VM CPUs (qemu, docker)")
    run.add_argument("--kernel", default="", help="qemu: boot this kernel directly (e.g. the test guest's)")
    run.add_argument("--initrd", default="", help="qemu: the directly booted kernel's initramfs")
    run.add_argument("--append", default="", help="qemu: the directly booted kernel's command line")
    run.add_argument("--allow-tcg", action="store_true", help="qemu, docker: start without KVM when it is unusable")
    run.add_argument(
        "--unprivileged",
        action="store_true",
        help="docker: run the container without --privileged (the test image needs none)",
    )
    run.add_argument("--work-dir", default="/tmp", help="qemu: folder for the slot's overlay and its logs")
    run.add_argument(
        "--snapshot-reset",
        action="store_true",
        help="qemu: reset by loading a memory snapshot taken once the guest was first ready (savevm/loadvm) "
        "instead of cold-booting a fresh overlay",
    )
    run.add_argument("--ready-timeout", type=float, default=900.0, help="seconds a VM or remote guest gets to boot")
    run.add_argument(
        "--setup",
        default="auto",
        help="post-boot setup parts: all, none, or a comma list of network-nudge,dns,xrandr,chatbot-key,prewarm,"
        "dinoco-fare-paid "
        "(default auto: all for qemu and docker, none for remote)",
    )
    run.add_argument(
        "--adopt-screen-size",
        action="store_true",
        help="run at the guest's own screen size when it differs from --width/--height (default: refuse)",
    )
    run.add_argument("--reset-command", default="", help="remote: shell command on this machine that resets the guest")
    run.add_argument("--reset-url", default="", help="remote: URL to POST to reset the guest")
    run.add_argument("--agent", choices=sorted(AGENTS), default="dummy")
    run.add_argument("--plan", help="plan file for the scripted agent")
    run.add_argument("--model", help="model name for a provider agent (default: the agent's own)")
    run.add_argument("--base-url", help="provider API URL (a proxy, a simulator, or the vLLM server)")
    run.add_argument(
        "--coordinate-type",
        choices=("relative", "absolute"),
        default="",
        help="openai_compatible: relative = Qwen3-VL's 0-999 grid (default); absolute = Qwen2.5-VL's pixels of "
        "the screenshot resized by smart_resize (sent at that size, clicks scaled back)",
    )
    # ---- provider agent settings (recorded in bundle.json as agent_protocol; unset = the agent's default)
    run.add_argument("--max-output-tokens", type=int, help="output token budget of a model reply")
    run.add_argument(
        "--retry-output-tokens",
        type=int,
        help="budget of the one retry of a reply cut off at its limit (0: no retry, the task errors)",
    )
    run.add_argument("--reasoning-effort", help="anthropic: low..max; openai: none..xhigh; gemini: thinking level; "
                     "openai_compatible: none (thinking off) or on")  # fmt: skip
    run.add_argument("--temperature", type=float, help="sampling temperature (default: each model's documented one)")
    run.add_argument("--display", help="anthropic: declared display WxH (default 1280x720, the paper's) or fit")
    run.add_argument(
        "--dual-tool-hint",
        choices=("on", "off"),
        help="the screen-or-shell hint in the prompt (default: on for openai and qwen, as the paper)",
    )
    run.add_argument("--image-drop-chunk", type=int, help="screenshots beyond the window leave this many at a time")
    run.add_argument(
        "--openai-context",
        choices=("chained", "windowed"),
        help="openai: previous_response_id (default, the paper's) or the windowed conversation resent",
    )
    run.add_argument(
        "--gemini-safety",
        choices=("stop", "acknowledge"),
        help="gemini: a call needing the user's confirmation ends the task (default) or is acknowledged",
    )
    run.add_argument("--thinking", help="anthropic: extended thinking: off (default), a token budget (at least 1024, "
                     "below --max-output-tokens), adaptive, or paper (3584, adaptive on Opus 4.7+)")  # fmt: skip
    run.add_argument("--claude-tools", help="anthropic: JSON file of model -> tool set (or $MYPCBENCH_CLAUDE_TOOLS)")
    run.add_argument("--out", required=True, help="result folder")
    run.add_argument("--max-turns", type=int, default=100)
    run.add_argument("--screenshot-window", type=int, default=20)
    run.add_argument("--sleep-after", type=float, default=None, help="seconds before each screenshot")
    run.add_argument("--timeout", type=float, default=7200.0, help="wall clock per task, seconds")
    run.add_argument("--width", type=int, default=1280)
    run.add_argument("--height", type=int, default=800)
    run.add_argument("--settle", type=float, default=None, help="seconds after reset before the first screenshot")
    run.add_argument("--no-progress", action="store_true")
    run.add_argument(
        "--world-variant",
        default="0",
        help="world variant K to run on (0, the default: the canonical world), or a list such as 0,3,7: one "
        "attempt per variant, written to OUT/attempt_1, OUT/attempt_2, ...",
    )
    session = sub.add_parser("session", help="play session tasks with a simulated user and write session records")
    session.add_argument("--sessions", required=True, help="session file (format mypcbench-sessions)")
    session.add_argument("--session", action="append", help="session id to play (repeatable; default all)")
    session.add_argument("--out", required=True, help="result folder: one folder per session")
    session.add_argument("--user", default="rules", help="rules (deterministic) or a judge provider: "
                         "anthropic, openai, google, openai_compatible")  # fmt: skip
    session.add_argument("--user-model", help="the user model (default: the provider's judge default)")
    session.add_argument("--user-base-url", help="the user model's API URL (a proxy, a simulator, vLLM)")
    session.add_argument("--user-prompt-version", help="the model user's prompt version (default: the current one)")
    session.add_argument("--max-user-turns", type=int, default=10, help="user turns before the session stops")
    session.add_argument(
        "--without-earlier-sessions",
        action="store_true",
        help="the ablation: a session is not told its earlier sessions and starts on a reset guest "
        "(recorded as earlier_sessions: withheld)",
    )
    session.add_argument("--backend", choices=("fake", "remote"), default="fake")
    session.add_argument("--url", default="", help="guest URL for --backend remote")
    session.add_argument("--agent", choices=sorted(AGENTS), default="scripted")
    session.add_argument("--plan", help="plan file for the scripted agent")
    session.add_argument("--model", help="model name for a provider agent")
    session.add_argument("--base-url", help="provider API URL for the agent")
    session.add_argument("--max-turns", type=int, default=30, help="agent model turns per user turn")
    session.add_argument("--width", type=int, default=1280)
    session.add_argument("--height", type=int, default=800)
    guest = sub.add_parser("guest", help="serve a Control API guest until interrupted")
    guest.add_argument("--kind", choices=("fake", "local"), default="local")
    guest.add_argument("--host", default="127.0.0.1")
    guest.add_argument("--port", type=int, default=5000)
    guest.add_argument("--start-url", default="about:blank", help="page the local desktop guest shows")
    guest.add_argument("--width", type=int, default=1280)
    guest.add_argument("--height", type=int, default=800)
    guest.add_argument("--allow-shell", action="store_true", help="let /execute run shell commands (local)")
    guest.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    args = parser.parse_args(argv)
    if args.command == "guest":
        return serve_guest(args)
    if args.command == "session":
        return run_sessions(args)

    try:
        if args.max_turns < 1:
            raise RunError(f"--max-turns: {args.max_turns} (expected at least 1)")
        tasks = select_tasks(args.tasks, args.task)
        variants = parse_world_variants(args.world_variant)
        settings = {"max_output_tokens": args.max_output_tokens, "retry_output_tokens": args.retry_output_tokens,
                    "reasoning_effort": args.reasoning_effort, "temperature": args.temperature,
                    "display": args.display, "image_drop_chunk": args.image_drop_chunk,
                    "dual_tool_hint": None if args.dual_tool_hint is None else args.dual_tool_hint == "on",
                    "context": args.openai_context, "safety_policy": args.gemini_safety,
                    "claude_tools": args.claude_tools, "thinking": args.thinking}  # fmt: skip
        agent = make_agent(args.agent, args.plan, model=args.model, base_url=args.base_url,
                           screenshot_window=args.screenshot_window, coordinate_type=args.coordinate_type,
                           settings=settings)  # fmt: skip
        size = (args.width, args.height)
        vm = VMConfig(image=args.image, slot=args.slot, memory=args.memory, cpus=args.cpus, kernel=args.kernel,
                      initrd=args.initrd, append=args.append, allow_tcg=args.allow_tcg,
                      privileged=not args.unprivileged, work_dir=args.work_dir,
                      snapshot_reset=args.snapshot_reset)  # fmt: skip
        setup = args.setup if args.setup != "auto" else ("all" if args.backend in ("qemu", "docker") else "none")
        post_boot = PostBootConfig(parts=parse_parts(setup))
        env = make_env(args.backend, url=args.url, screen_size=size, start_url=args.start_url, vm=vm,
                       ready_timeout=args.ready_timeout, adopt_screen_size=args.adopt_screen_size,
                       post_boot=post_boot, reset_command=args.reset_command, reset_url=args.reset_url)  # fmt: skip
        try:  # a backend that cannot serve a variant says why by name, before anything starts
            for variant in [*dict.fromkeys(variants), variants[0]]:
                env.use_world_variant(variant)
        except ValueError as exc:
            raise RunError(f"--world-variant: {exc}") from exc
    except (RunError, SetupError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    sleep_after = args.sleep_after if args.sleep_after is not None else (0.0 if args.backend == "fake" else 1.0)
    # Upstream lets a freshly reset VM settle for 5 s; the fake guest has nothing to settle.
    settle = args.settle if args.settle is not None else (0.0 if args.backend in ("fake", "local") else 5.0)
    config = LoopConfig(max_turns=args.max_turns, screenshot_window=args.screenshot_window, sleep_after=sleep_after,
                        timeout=args.timeout, settle_seconds=settle)  # fmt: skip
    out = Path(args.out)
    meta = {"agent": agent.name, "model": agent.model, "backend": args.backend, "max_turns": args.max_turns,
            "screenshot_window": args.screenshot_window, "screen_size": list(size)}  # fmt: skip
    if getattr(agent, "coordinate_type", None):
        meta["coordinate_type"] = agent.coordinate_type
    if hasattr(agent, "protocol"):
        meta["agent_protocol"] = agent.protocol()  # output budget, effort, sampling, display, window, hints
    try:
        env.start()
    except (BackendUnavailable, ControlError) as exc:  # cannot start, or started but never answered
        print(f"error: {exc}", file=sys.stderr)
        return 3
    meta.update(env.protocol())  # the guest's real screen size, the post-boot setup, how tasks are reset
    attempts = attempt_folders(out, variants)
    counts: dict[str, int] = {"skipped": 0, "finished": 0, "errored": 0}
    try:
        out.mkdir(parents=True, exist_ok=True)
        run_info = {**meta, "tasks": str(args.tasks), "world_variants": variants,
                    "started_at": datetime.now().isoformat(timespec="seconds")}  # fmt: skip
        (out / RUN_FILE).write_text(json.dumps(run_info, indent=2) + "\n", encoding="utf-8")
        for folder, variant in attempts:
            env.use_world_variant(variant)
            done = run_suite(tasks, env, agent, folder, config, meta={**meta, WORLD_VARIANT_KEY: variant},
                             progress=not args.no_progress)  # fmt: skip
            for key, value in done.items():
                counts[key] = counts.get(key, 0) + value
    except RunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        env.stop()
    print(f"{len(tasks)} task(s): " + ", ".join(f"{k} {v}" for k, v in counts.items() if v), file=sys.stderr)
    return 1 if counts["errored"] else 0
