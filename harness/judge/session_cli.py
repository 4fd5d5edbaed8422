"""``python -m harness.judge session FOLDER``: judge each recorded session's checklist over the whole
session; ``python -m harness.judge intents FOLDER --sessions FILE``: re-derive each session's intent
statuses offline and report their agreement with the live ones (per intent, per live status, overall).
FOLDER is a session folder (it holds session.json) or a run folder holding session folders."""

import argparse
import sys

from harness.judge.core import Judge, JudgeConfigurationError
from harness.judge.prompt import DEFAULT_MAX_IMAGES, PROMPT_VERSION, PROMPT_VERSIONS
from harness.judge.provider_base import GOOGLE, PROVIDERS, ConfigurationError, ProviderError
from harness.judge.providers import make_provider
from harness.judge.sessions import agreement, judge_session, rederive_intents, session_folders
from harness.judge.usersim import UserAnswerError, make_user_simulator
from harness.results import SessionFolderError
from harness.tasks.sessions import SessionFileError, load_sessions


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.judge", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    judge = sub.add_parser("session", help="judge each session's checklist over the whole session")
    judge.add_argument("folder", help="a session folder or a run folder of sessions")
    judge.add_argument("--provider", choices=PROVIDERS, default=GOOGLE)
    judge.add_argument("--model", help="judge model (default: the provider's default)")
    judge.add_argument("--base-url", help="API base URL (a proxy, a simulator, a vLLM server)")
    judge.add_argument("--api-key", help="API key (default: the provider's environment variable)")
    judge.add_argument("--prompt-version", choices=PROMPT_VERSIONS, default=PROMPT_VERSION)
    judge.add_argument("--max-images", type=int, default=DEFAULT_MAX_IMAGES, help="most recent screenshots; 0 = all")
    audit = sub.add_parser("intents", help="re-derive the intent statuses offline and report the agreement")
    audit.add_argument("folder", help="a session folder or a run folder of sessions")
    audit.add_argument("--sessions", required=True, help="the session file the sessions were played from")
    audit.add_argument("--user", default="rules", help="rules or a judge provider (as python -m harness session)")
    audit.add_argument("--user-model", help="the user model (default: the provider's judge default)")
    audit.add_argument("--user-base-url", help="the user model's API URL")
    audit.add_argument("--user-prompt-version", help="the user prompt version (default: the current one)")
    return parser


def main(argv) -> int:
    args = build_parser().parse_args(argv)
    folders = session_folders(args.folder)
    if not folders:
        print(f"error: {args.folder} holds no session (no session.json in it or its sub-folders)", file=sys.stderr)
        return 2
    return judge_sessions(args, folders) if args.command == "session" else audit_intents(args, folders)


def judge_sessions(args, folders) -> int:
    try:
        provider = make_provider(args.provider, args.model, api_key=args.api_key, base_url=args.base_url)
        judge = Judge(provider, prompt_version=args.prompt_version, max_images=args.max_images)
    except (ConfigurationError, JudgeConfigurationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    failed = 0
    for folder in folders:
        try:
            checklist = judge_session(folder, judge)
        except SessionFolderError as exc:
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        judged = [v for v in checklist.values() if v is not None]
        comp = f"{sum(judged)}/{len(judged)}" if judged else "n/a"
        marks = " ".join(f"{k}={'?' if v is None else 'yes' if v else 'no'}" for k, v in checklist.items())
        print(f"{folder.name}: {marks} (Completeness {comp})")
    return 1 if failed else 0


def audit_intents(args, folders) -> int:
    try:
        sessions = {s.id: s for s in load_sessions(args.sessions).sessions}
        user = make_user_simulator(args.user, args.user_model, args.user_base_url, args.user_prompt_version)
    except (SessionFileError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    audits, failed = [], 0
    for folder in folders:
        session = sessions.get(folder.name)
        try:
            if session is None:
                raise SessionFolderError(f"{folder}: no session {folder.name!r} in {args.sessions}")
            audit = rederive_intents(folder, session, user)
        except (SessionFolderError, UserAnswerError, ProviderError) as exc:  # this session cannot be audited
            print(f"error: {exc}", file=sys.stderr)
            failed += 1
            continue
        audits.append(audit)
        rows = ", ".join(f"{k} {v['live']}/{v['offline']}" for k, v in audit["intents"].items())
        print(f"{folder.name}: live/offline {rows}; agreement {audit['agreement']:.2f}")
    if audits:
        total = agreement(audits)
        by_status = ", ".join(f"{k} {v:.2f}" for k, v in total["by_live_status"].items())
        print(f"{len(audits)} session(s), {total['intents']} intents: agreement {total['agreement']:.2f} "
              f"(by live status: {by_status})")  # fmt: skip
    return 1 if failed else 0
