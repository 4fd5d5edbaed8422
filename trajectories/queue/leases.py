"""Work leases: every piece of queued work (a trajectory to run, a judge pass, a submission's check,
derivatives) has a WorkLease row from the moment it is queued until a worker has done it, so work is
never lost quietly with a lost host, whatever the broker.

- Queued (no holder): the row expires when its message has waited MYPCBENCH_QUEUE_PATIENCE_SECONDS,
  doubled at each resend (a long backlog costs a few extra messages, not one per sweep).
- Held: the worker doing it names itself (host|pid|process start|token) and its heartbeat renews the
  row every quarter of MYPCBENCH_WORK_LEASE_SECONDS; a dead holder's row expires within one lease, or
  at once when the holder was a process on this host that is gone.
- Done: the row is deleted.

``sweep`` sends the work of every expired row again (a compare-and-set on the row, so two sweepers
never both send it); the tasks are idempotent, so a resent message whose work was done meanwhile does
nothing. Each worker process runs the sweeper in a thread (``Sweeper``)."""

import hashlib
import json
import logging
import os
import socket
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.db.models import Q
from django.utils import timezone

from trajectories.models import WorkLease

logger = logging.getLogger(__name__)

# The tasks whose messages are tracked (the names of trajectories.queue; not imported, to avoid a cycle).
TRACKED = (
    "trajectories.tasks.run_trajectory",
    "trajectories.tasks.judge_trajectory_task",
    "trajectories.tasks.validate_submission",
    "trajectories.tasks.make_derivatives",
)


def lease_seconds() -> float:
    return float(getattr(settings, "MYPCBENCH_WORK_LEASE_SECONDS", 60))


def patience_seconds() -> float:
    return float(getattr(settings, "MYPCBENCH_QUEUE_PATIENCE_SECONDS", 120))


# ---------------------------------------------------------------- holders (processes holding a lease)

# Holders used by code running in this process right now.
HELD: set[str] = set()


def process_start(pid: int) -> str | None:
    """The process's start time in clock ticks since boot ('' where /proc cannot say), or None when
    no such process runs (a zombie counts as gone): a pid reused by another process starts later."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    except OSError:
        stat = ""
    if stat:
        fields = stat.rsplit(")", 1)[-1].split()
        return None if fields[0] in ("Z", "X") else fields[19]
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return ""


def host_name() -> str:
    """The host a holder names: MYPCBENCH_WORKER_NAME (unique per host, as for VM slots), else the
    machine's name. Only a holder on this host can be told gone before its lease lapses."""
    return getattr(settings, "MYPCBENCH_WORKER_NAME", "") or socket.gethostname()


def new_holder() -> str:
    """This process's name for a lease it takes: host|pid|process start|token."""
    return f"{host_name()}|{os.getpid()}|{process_start(os.getpid()) or ''}|{uuid.uuid4().hex[:12]}"


def holder_gone(holder: str) -> bool:
    """True when ``holder`` was a process on this host that no longer holds it: the process is gone
    (or its pid now belongs to a later process), or it is this process and the lease is not in use
    here. A holder on another host, or an unnamed one, cannot be told gone: its lease must lapse."""
    parts = holder.split("|")
    if len(parts) != 4 or parts[0] != host_name() or not parts[1].isdigit():
        return False
    pid, started = int(parts[1]), parts[2]
    if pid == os.getpid():
        return holder not in HELD
    now_started = process_start(pid)
    return now_started is None or bool(started and now_started and now_started != started)


# ---------------------------------------------------------------- rows


def key_for(task: str, args) -> tuple[str, int]:
    """(key, subject) of a message: the first argument (an id), plus a digest of the others when
    there are any (two judges of one trajectory are two pieces of work)."""
    args = list(args)
    subject = int(args[0])
    rest = json.dumps(args[1:], sort_keys=True, default=str)
    key = str(subject) if len(args) == 1 else f"{subject}:{hashlib.sha256(rest.encode()).hexdigest()[:16]}"
    return key, subject


def _patience(requeues: int, now: datetime) -> datetime:
    return now + timedelta(seconds=patience_seconds() * 2 ** min(requeues, 6))


def owe(task: str, args, *, now=None) -> None:
    """Record that ``task(*args)`` was queued (called just before its message is sent). A row already
    held by a live worker is left held: the new message finds it so and leaves the work to it."""
    if task not in TRACKED:
        return
    now = now or timezone.now()
    key, subject = key_for(task, args)
    row, created = WorkLease.objects.get_or_create(
        task=task, key=key, defaults={"subject": subject, "args": list(args), "expires_at": _patience(0, now),
                                      "since": now},
    )  # fmt: skip
    if not created and (not row.holder or row.expires_at <= now):
        WorkLease.objects.filter(pk=row.pk, holder=row.holder).update(holder="", expires_at=_patience(0, now))


@dataclass
class Lease:
    pk: int
    holder: str
    requeues: int = 0  # how many times the sweeper sent this work again (its workers died)


def take(task: str, args, *, now=None) -> Lease | None:
    """Become the holder of ``task(*args)``'s work; None when a live worker holds it already (that
    worker finishes it, or the sweeper sends it again once its lease lapses)."""
    now = now or timezone.now()
    key, subject = key_for(task, args)
    holder = new_holder()
    HELD.add(holder)
    row, _ = WorkLease.objects.get_or_create(
        task=task, key=key, defaults={"subject": subject, "args": list(args), "expires_at": now, "since": now}
    )
    free = Q(holder="") | Q(expires_at__lte=now)
    if row.holder and holder_gone(row.holder):
        free |= Q(holder=row.holder)
    taken = WorkLease.objects.filter(free, pk=row.pk).update(
        holder=holder, expires_at=now + timedelta(seconds=lease_seconds())
    )
    if not taken:
        HELD.discard(holder)
        return None
    return Lease(row.pk, holder, row.requeues)


def renew(lease: Lease, *, now=None) -> bool:
    now = now or timezone.now()
    return bool(
        WorkLease.objects.filter(pk=lease.pk, holder=lease.holder).update(
            expires_at=now + timedelta(seconds=lease_seconds())
        )
    )


def done(lease: Lease) -> None:
    """The work is done (or ended with its reason): nothing is owed any more."""
    HELD.discard(lease.holder)
    WorkLease.objects.filter(pk=lease.pk, holder=lease.holder).delete()


def release(lease: Lease, note: str = "", *, now=None) -> None:
    """The work is still owed (a retry is queued): back to queued, resent if that message is lost."""
    now = now or timezone.now()
    HELD.discard(lease.holder)
    row = WorkLease.objects.filter(pk=lease.pk, holder=lease.holder).first()
    if row is not None:
        WorkLease.objects.filter(pk=row.pk, holder=lease.holder).update(
            holder="", expires_at=_patience(row.requeues, now), note=note[:300] or row.note
        )


class Heartbeat:
    """Renews a lease from a background thread while its work runs (a model call can take minutes, so
    renewing between steps is not enough): a work lease by default, or a VM slot with ``renew_with`` and
    ``seconds`` given. ``lost`` is set when a renewal finds the lease taken back."""

    def __init__(
        self, lease, interval: float | None = None, *, renew_with=None, seconds=None, name: str = "work-lease"
    ):
        self.lease = lease
        self.renew = renew_with or renew
        period = seconds() if seconds is not None else lease_seconds()
        self.interval = interval if interval is not None else max(0.5, period / 4)
        self.lost = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"{name}-{lease.pk}", daemon=True)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(self.interval):
                close_old_connections()
                try:
                    if not self.renew(self.lease):
                        self.lost.set()
                        return
                except Exception as exc:  # a database hiccup must not stop the work; the next beat retries
                    logger.warning("%s: renewal failed: %s", self._thread.name, exc)
        finally:
            connection.close()

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


# ---------------------------------------------------------------- the sweeper


def expire_gone_holders(*, now=None) -> int:
    """Rows held by a process on this host that is gone expire now, not when their lease lapses."""
    now = now or timezone.now()
    prefix = f"{host_name()}|"
    held = WorkLease.objects.filter(holder__startswith=prefix, expires_at__gt=now).values_list("pk", "holder")
    gone = [(pk, holder) for pk, holder in held if holder_gone(holder)]
    for pk, holder in gone:
        WorkLease.objects.filter(pk=pk, holder=holder).update(expires_at=now)
    return len(gone)


def sweep(send, *, now=None) -> list[WorkLease]:
    """Send again (``send(task, *args)``) the work of every expired row, each by one sweeper only;
    returns the rows sent."""
    now = now or timezone.now()
    expire_gone_holders(now=now)
    sent = []
    for row in WorkLease.objects.filter(expires_at__lte=now).order_by("expires_at")[:500]:
        why = f"its worker {row.holder.split('|')[0]} stopped renewing it" if row.holder else "its message waited"
        note = f"sent again at {now.isoformat(timespec='seconds')}: {why}"
        with transaction.atomic():
            won = WorkLease.objects.filter(pk=row.pk, holder=row.holder, expires_at=row.expires_at).update(
                holder="", expires_at=_patience(row.requeues + 1, now), requeues=row.requeues + 1, note=note[:300]
            )
        if not won:
            continue
        try:
            send(row.task, *row.args)
        except Exception as exc:  # the broker is down: the row stays expired-soon, the next sweep tries again
            WorkLease.objects.filter(pk=row.pk, holder="").update(expires_at=now)
            logger.warning("sweeper: could not send %s %s again: %s", row.task, row.key, exc)
            continue
        logger.warning("sweeper: %s %s sent again (%s)", row.task, row.key, why)
        sent.append(row)
    return sent


def owed(task: str, subjects) -> dict[int, datetime]:
    """subject -> since when, for the work of ``task`` still owed on these subjects."""
    found: dict[int, datetime] = {}
    for subject, since in WorkLease.objects.filter(task=task, subject__in=list(subjects)).values_list(
        "subject", "since"
    ):
        found[subject] = min(since, found.get(subject, since))
    return found


class Sweeper:
    """A daemon thread calling ``step()`` every ``interval`` seconds (default: a quarter of the
    shorter lease), logging what fails; one per worker process."""

    def __init__(self, step, interval: float):
        self.step, self.interval = step, interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="work-sweeper", daemon=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            close_old_connections()
            try:
                self.step()
            except Exception as exc:  # the database may be restarting; the next round tries again
                logger.warning("sweeper: %s: %s", type(exc).__name__, exc)
        connection.close()

    def start(self) -> "Sweeper":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
