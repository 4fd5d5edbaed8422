"""Running agents: the agent loop for one task (``loop``), the recorder that writes a trajectory as our
result bundle and streams its steps (``recorder``), and the command line that runs a task or a suite
against a backend with an agent (``cli``, behind ``python -m harness run``), and a session played with a
simulated user over several user turns (``session``, behind ``python -m harness session``).

May use: every other harness room except the judge and the test guests (agents, backends, control,
results, tasks). Nothing in the harness uses this room; the site's evaluations do, through the names
exported here."""

from harness.run.cli import is_finished, main, run_suite
from harness.run.loop import LoopConfig, run_task
from harness.run.recorder import HARNESS_VERSION, CallbackSink, Recorder
from harness.run.session import SessionResult, run_session

__all__ = [
    "HARNESS_VERSION",
    "CallbackSink",
    "LoopConfig",
    "Recorder",
    "SessionResult",
    "is_finished",
    "main",
    "run_session",
    "run_suite",
    "run_task",
]
