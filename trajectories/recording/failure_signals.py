"""Failure modes for failed verdicts that came without one (imported result folders and archives, the
demo's scripted verdicts): classified from the deterministic signals of the trajectory (ended early by
its own done, a named app never touched, errors met before the end, a document never saved) and the
judge's explanation, by the same rules our judge uses; no language model is asked. Every import calls
it (trajectories.recording.import_results), so each caller gets classified verdicts."""

from harness.judge.failure_modes import classify_failure, trajectory_signals
from harness.judge.prompt import TrajectoryForJudge
from harness.results import StepRecord
from trajectories.models import Judgment, Trajectory


def trajectory_for_judge(trajectory: Trajectory, screenshot_of=lambda step: None) -> TrajectoryForJudge:
    """The stored trajectory as the judge and the signal rules read it: its steps in order with their
    text and outcome, each with the screenshot file ``screenshot_of(step)`` gives (none for the signal
    rules, which need no image), and a session's user turns."""
    steps = [
        StepRecord(
            index=step.index,
            turn=step.turn,
            tool=step.tool,
            action=step.action,
            action_text=step.action_text,
            model_text=step.model_text,
            tool_output=step.tool_output,
            done=step.done,
            info=step.info,
            screenshot=screenshot_of(step),
        )
        for step in trajectory.steps.order_by("index")
    ]
    return TrajectoryForJudge(
        key=f"trajectory-{trajectory.pk}",
        instruction=trajectory.task.instruction,
        steps=steps,
        final_answer=trajectory.final_answer,
        ended_by=trajectory.ended_by,
        # a session's user turns, where they were said (turn 1 is the request, which the history leaves out)
        user_turns=[(t.after_step, t.message) for t in trajectory.user_turns.order_by("number")],
    )


def classify_unclassified(trajectories) -> int:
    """Give every failed judgment of these trajectories that has no failure mode (and no
    maintainer's override) the mode its signals point to; returns how many were classified."""
    classified = 0
    for trajectory in Trajectory.objects.filter(pk__in=[t.pk for t in trajectories]).select_related("task", "run"):
        failed = list(
            Judgment.objects.filter(
                trajectory=trajectory, verdict=Judgment.Verdict.FAILURE, failure_mode="", failure_mode_overridden=False
            )
        )
        if not failed:
            continue
        facts = trajectory_signals(
            trajectory_for_judge(trajectory),
            trajectory.task.apps_involved or [],
            turn_budget=trajectory.run.turn_budget,
        )
        for judgment in failed:
            judgment.failure_mode = classify_failure(judgment.explanation, facts)
            judgment.signals = {**(judgment.signals or {}), **facts}
        Judgment.objects.bulk_update(failed, ["failure_mode", "signals"])
        classified += len(failed)
    return classified
