"""The remote backend: a guest already running at a URL (reset by a command or URL of the caller's, or not
at all)."""

import subprocess
import sys

from harness.backends.base import BackendOptions, BackendUnavailable, Environment
from harness.control import ControlError


class RemoteEnv(Environment):
    """A guest already running at a URL. Nothing listening there fails fast (connection refused for
    ``refused_grace`` seconds); a guest that answers but is not ready gets ``ready_timeout``. Reset runs
    ``reset_command`` (a shell command on this machine) or POSTs ``reset_url`` when given, waits for the
    guest and repeats the post-boot setup; without either, tasks share the guest's state (warned)."""

    name = "remote"
    takes_reset_hook = True
    world_variant_refusal = "drives a guest it did not build and cannot tell it which world variant to load"

    @classmethod
    def from_options(cls, options: BackendOptions) -> "RemoteEnv":
        return cls(options.url, wait_seconds=options.wait_seconds, ready_timeout=options.ready_timeout,
                   post_boot=options.post_boot, reset_command=options.reset_command, reset_url=options.reset_url,
                   screen_size=options.screen_size, adopt_screen_size=options.adopt_screen_size)  # fmt: skip

    def __init__(self, url: str = "", *, reset_command: str = "", reset_url: str = "", refused_grace: float = 10.0,
                 warn=None, **kwargs):  # fmt: skip
        super().__init__(url, **kwargs)
        self.reset_command = reset_command
        self.reset_url = reset_url
        self.refused_grace = refused_grace
        self.warn = warn or (lambda message: print(f"warning: {message}", file=sys.stderr))
        self.shared_tasks = 0  # tasks started on a guest a previous task had used

    def start(self) -> None:
        problems = self.preflight()
        if problems:
            raise BackendUnavailable(self.name, problems)
        self.api.wait_ready(
            timeout=self.ready_timeout, interval=1.0, refused_grace=self.refused_grace, on_wait=self.while_waiting
        )
        self.after_boot()

    def reset_mode(self) -> str:
        if self.reset_command:
            return "reset command"
        if self.reset_url:
            return "reset URL"
        return "none (tasks share the remote guest's state)"

    def reset(self, task=None) -> None:
        if self._fresh:
            return
        if not (self.reset_command or self.reset_url):
            self.shared_tasks += 1
            if self.shared_tasks == 1:
                self.warn("the remote guest is not reset between tasks (no --reset-command or --reset-url): "
                          "each task starts on the screen and files the previous one left")  # fmt: skip
            self.api.wait_ready(timeout=self.ready_timeout, interval=1.0, refused_grace=self.refused_grace)
            return
        if self.reset_command:
            try:
                done = subprocess.run(self.reset_command, shell=True, capture_output=True, text=True,
                                      timeout=self.ready_timeout)  # fmt: skip
            except subprocess.TimeoutExpired:
                raise ControlError(self.url, f"--reset-command did not finish in {self.ready_timeout:g} s") from None
            if done.returncode != 0:
                detail = " ".join((done.stderr or done.stdout).split())[-300:]
                raise ControlError(self.url, f"--reset-command exited {done.returncode}: {detail}")
        else:
            try:
                answer = self.api.session.post(self.reset_url, timeout=(5, self.ready_timeout))
            except Exception as exc:
                raise ControlError(self.reset_url, f"reset URL failed: {type(exc).__name__}: {exc}") from exc
            if answer.status_code >= 300:
                raise ControlError(self.reset_url, f"reset URL answered HTTP {answer.status_code}: {answer.text[:200]}")
        self.api.wait_ready(
            timeout=self.ready_timeout, interval=1.0, refused_grace=self.refused_grace, on_wait=self.while_waiting
        )
        self.after_boot()
