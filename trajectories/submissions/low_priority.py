"""Uploads are validated and stored at a lower CPU priority than page views: the web process hands the
work to a thread of its own whose nice value is raised (Linux keeps one per thread) and waits for it,
so visitors browsing while an archive is decoded keep their response times (bench/bench_load.py,
upload scenario). MYPCBENCH_UPLOAD_NICE sets how much lower (0: in the request's own thread). A worker
(``idle``) may also be held to a share of one CPU, MYPCBENCH_UPLOAD_CPU_SHARE (harness/results/pacing.py)."""

import os
import threading

from django.conf import settings
from django.db import connections

from harness.results import cpu_share


def at_low_priority(work, *args, idle: bool = False, **kwargs):
    """``work(*args, **kwargs)`` in a thread niced by MYPCBENCH_UPLOAD_NICE, waited for; its result
    or its exception, as if called here. The thread's database connection is closed when it ends
    (a thread's own transaction: the caller must not be inside one that the work needs to see).
    ``idle``: lower still, Linux's idle scheduling class (the thread runs only on CPU time nothing
    else wants), and at most MYPCBENCH_UPLOAD_CPU_SHARE of one CPU: for a worker, where nobody waits
    on the answer."""
    nice = settings.MYPCBENCH_UPLOAD_NICE
    share = settings.MYPCBENCH_UPLOAD_CPU_SHARE if idle else 1.0
    if nice <= 0 or not hasattr(os, "setpriority"):
        with cpu_share(share):
            return work(*args, **kwargs)
    outcome = {}

    def run():
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), nice)  # this thread only (Linux)
            if idle and hasattr(os, "SCHED_IDLE"):
                os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass  # not allowed here: the work still runs, at the usual priority
        try:
            with cpu_share(share):
                outcome["value"] = work(*args, **kwargs)
        except BaseException as exc:  # handed to the caller's thread
            outcome["error"] = exc
        finally:
            connections.close_all()

    thread = threading.Thread(target=run, name="upload-at-low-priority", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]
