"""Running agents: the agent loop for one task (``loop``), the recorder that writes a trajectory as our
result bundle and streams its steps (``recorder``), and the command line that runs a task or a suite
against a backend with an agent (``cli``, behind ``python -m harness run``).

May use: every other harness room except the judge and the test guests (agents, backends, control,
results, tasks). Nothing in the harness uses this room; the site's evaluations do, through the names
exported here."""

from harness.run.cli import is_finished, main, run_suite
from harness.run.loop import LoopConfig, run_task
from harness.run.recorder import HARNESS_VERSION, CallbackSink, Recorder

__all__ = ["HARNESS_VERSION", "CallbackSink", "LoopConfig", "Recorder", "is_finished", "main", "run_suite", "run_task"]
