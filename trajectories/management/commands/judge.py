"""`manage.py judge RUN_SLUG`: judge a run's trajectories with our judge, with a progress bar."""

import time

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from harness.judge import PROMPT_VERSION, PROMPT_VERSIONS, PROVIDERS
from leaderboard.models import Run
from trajectories.judging import our_judge


class Command(BaseCommand):
    help = (
        "Judge every trajectory of a run, one call per rubric item. Only items with no judgment by this "
        "judge configuration, or an errored one, are judged unless --force."
    )

    def add_arguments(self, parser):
        parser.add_argument("run", help="the run's slug")
        parser.add_argument("--force", action="store_true", help="judge every item again")
        parser.add_argument("--provider", choices=PROVIDERS, help="default: settings.MYPCBENCH_JUDGE")
        parser.add_argument("--model", help="default: the provider's default model")
        parser.add_argument("--base-url", help="API base URL (needed for openai_compatible)")
        parser.add_argument("--concurrency", type=int, help="calls in flight at most")
        parser.add_argument("--max-images", type=int, help="most recent screenshots sent; 0 = all")
        parser.add_argument(
            "--prompt-version",
            choices=PROMPT_VERSIONS,
            help=f"judge prompt: default paper-v1 (the paper's protocol) on a suite with published figures, "
            f"else {PROMPT_VERSION} (ours)",
        )
        parser.add_argument(
            "--persona-summary",
            help="Markdown file of the persona summary sent to the judge; default: the loaded world's summary "
            "if a world is loaded; 'none': send none",
        )
        parser.add_argument(
            "--allow-missing-screenshots",
            action="store_true",
            help="grade trajectories imported without some screenshots (refused, as an error saying why, by default)",
        )
        parser.add_argument(
            "--queue", action="store_true", help='send a Celery group to the "judging" queue and follow its progress'
        )

    def handle(self, *args, **options):
        run = Run.objects.filter(slug=options["run"]).first()
        if run is None:
            raise CommandError(f"no run with slug {options['run']!r} (see the runs list in the admin)")
        spec = our_judge.JudgeSpec.from_settings(
            provider=options["provider"],
            model=options["model"],
            base_url=options["base_url"],
            concurrency=options["concurrency"],
            max_images=options["max_images"],
            prompt_version=options["prompt_version"],
            persona_summary=options["persona_summary"],
        )
        spec = our_judge.with_protocol_for(spec, run.suite_id)
        try:
            judge = our_judge.build_judge(spec)
        except our_judge.JudgingError as exc:
            raise CommandError(str(exc)) from exc
        config = our_judge.judge_config_for(judge)
        total = run.trajectories.count()
        if total == 0:
            raise CommandError(f"run {run.slug!r} has no trajectories to judge")
        self.stdout.write(f"Judging {total} trajectories of {run.slug} with {config.name}")
        if options["queue"]:
            self._follow_queue(run, spec, config, total, options["force"])
        else:
            with tqdm(total=total, unit="trajectory", desc="judging") as bar:
                totals = our_judge.judge_run_inline(
                    run,
                    judge,
                    force=options["force"],
                    progress=lambda t: bar.update(1),
                    allow_missing_screenshots=options["allow_missing_screenshots"],
                )
        progress = our_judge.judging_progress(run, config)
        usage = our_judge.run_judge_usage(run, config)
        self.stdout.write(
            f"{progress['done']}/{progress['trajectories']} trajectories fully judged; "
            f"{progress['judged_items']} items judged, {progress['error_items']} in error; "
            f"tokens in {usage['input_tokens']} (cached {usage['cached_tokens']}), out {usage['output_tokens']}; "
            f"cost {our_judge.describe_judge_cost(usage['cost_usd'], config.model)}"
        )
        if progress["error_items"]:
            self.stdout.write(self.style.WARNING("Some items ended in error (not failure); run the command again."))
        if not options["queue"]:
            for problem in totals["score_errors"]:
                self.stderr.write(f"cannot score: {problem}")
            if totals.get("stopped"):
                raise CommandError(f"the judge {totals['stopped']}; the items it did not send stay unjudged")

    def _follow_queue(self, run, spec, config, total, force):
        """Queue the group, then follow progress in the database (no result backend needed); it
        ends when every item has a verdict, errors included. Ctrl-C leaves the queued work running."""
        our_judge.judge_run(run, spec, force=force)
        with tqdm(total=total, unit="trajectory", desc="judging (queued)") as bar:
            while True:
                progress = our_judge.judging_progress(run, config)
                bar.n = progress["done"]
                bar.refresh()
                if progress["judged_items"] + progress["error_items"] >= progress["items"]:
                    break
                time.sleep(2)
