"""VM slot leases: a worker host runs at most MYPCBENCH_VM_SLOTS trajectories at once, each holding a
slot row whose lease expires unless renewed, so a dead worker's slots come back and its trajectories
are found and marked interrupted. Each lease names the process holding it (host, pid, process start,
a token), so a worker on the same host sees at once that the holder died (a killed pool process, a
worker restarted by its supervisor) instead of waiting for the lease to lapse."""

import logging
import socket
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from trajectories.models import Trajectory, VmSlot
from trajectories.queue.leases import HELD, Heartbeat, holder_gone, host_name, new_holder

logger = logging.getLogger(__name__)


def slot_count() -> int:
    return max(1, int(getattr(settings, "MYPCBENCH_VM_SLOTS", 1)))


def concurrency_problem(queues, concurrency: int) -> str:
    """Why a worker's process count does not fit this host's VM slots ("" when it does, or when the worker
    does not take queue "vm"): each running trajectory holds a worker process and a slot."""
    slots = slot_count()
    if "vm" not in queues or concurrency == slots:
        return ""
    if concurrency < slots:
        return (
            f"this vm worker has {concurrency} process(es) for {slots} VM slots (MYPCBENCH_VM_SLOTS): "
            f"{slots - concurrency} slot(s) stay idle; start it with --concurrency {slots}"
        )
    return (
        f"this vm worker has {concurrency} processes for {slots} VM slot(s) (MYPCBENCH_VM_SLOTS): the other "
        f"{concurrency - slots} only wait for a free slot; start it with --concurrency {slots}"
    )


def lease_seconds() -> float:
    return float(getattr(settings, "MYPCBENCH_VM_LEASE_SECONDS", 300))


def worker_name() -> str:
    return getattr(settings, "MYPCBENCH_WORKER_NAME", "") or socket.gethostname()


def reap_gone_holders(*, now=None) -> list[int]:
    """End the leases whose holder on this host died (see holder_gone) and mark their trajectories
    interrupted now, rather than when the lease lapses; returns the trajectory ids."""
    now = now or timezone.now()
    prefix = f"{host_name()}|"
    held = VmSlot.objects.filter(trajectory__isnull=False, holder__startswith=prefix).values_list("pk", "holder")
    gone = [pk for pk, holder in held if holder_gone(holder)]
    if not gone:
        return []
    VmSlot.objects.filter(pk__in=gone).update(expires_at=now)
    return reap_expired(now=now)


def acquire(trajectory: Trajectory, *, worker: str | None = None, slots: int | None = None, now=None) -> VmSlot | None:
    """Lease a free (or lapsed) slot of ``worker`` to ``trajectory``; None when all are taken, or
    when another slot already holds ``trajectory`` (one lease per trajectory, a unique column).
    A lapsed lease, or one whose holder on this host died, is taken over only after its trajectory
    has been marked interrupted."""
    worker = worker or worker_name()
    now = now or timezone.now()
    reap_gone_holders(now=now)
    reap_expired(now=now)
    holder = new_holder()
    # Known as held in this process before it can be seen in the table, so that another thread of this
    # process reaping gone holders never takes it for a dead one.
    HELD.add(holder)
    for number in range(slots or slot_count()):
        VmSlot.objects.get_or_create(worker=worker, slot=number)
        # Compare-and-set: only one contender's UPDATE matches a free row.
        try:
            with transaction.atomic():
                taken = VmSlot.objects.filter(worker=worker, slot=number, trajectory__isnull=True).update(
                    trajectory=trajectory,
                    leased_at=now,
                    renewed_at=now,
                    expires_at=now + timedelta(seconds=lease_seconds()),
                    holder=holder,
                )
        except IntegrityError:  # another process leased a slot to this trajectory first
            HELD.discard(holder)
            return None
        if taken:
            return VmSlot.objects.get(worker=worker, slot=number)
    HELD.discard(holder)
    return None


def renew(lease: VmSlot, *, now=None) -> bool:
    """Push the lease's expiry forward; False when it was lost (lapsed and taken back)."""
    now = now or timezone.now()
    # trajectory_id=None (a free slot) is IS NULL; django-stubs wants an int
    return bool(
        VmSlot.objects.filter(pk=lease.pk, trajectory_id=lease.trajectory_id, holder=lease.holder).update(  # type: ignore[misc]
            renewed_at=now, expires_at=now + timedelta(seconds=lease_seconds())
        )
    )


def release(lease: VmSlot) -> None:
    HELD.discard(lease.holder)
    # trajectory_id=None (a free slot) is IS NULL; django-stubs wants an int
    VmSlot.objects.filter(pk=lease.pk, trajectory_id=lease.trajectory_id, holder=lease.holder).update(  # type: ignore[misc]
        trajectory=None, leased_at=None, renewed_at=None, expires_at=None, holder=""
    )


def holds_live_lease(trajectory: Trajectory, *, now=None) -> bool:
    now = now or timezone.now()
    return VmSlot.objects.filter(trajectory=trajectory, expires_at__gt=now).exists()


def seconds_left(trajectory_id: int, *, now=None) -> float:
    """How long the lease on the trajectory has before it lapses (0 when it has none)."""
    now = now or timezone.now()
    expires = VmSlot.objects.filter(trajectory_id=trajectory_id).values_list("expires_at", flat=True).first()
    return max(0.0, (expires - now).total_seconds()) if expires else 0.0


def reap_expired(*, now=None) -> list[int]:
    """Free lapsed leases and mark their trajectories interrupted; also any trajectory left running
    with no lease at all (a worker killed between lease and start). Returns the trajectory ids."""
    now = now or timezone.now()
    with transaction.atomic():
        lapsed = list(
            VmSlot.objects.select_for_update()
            .filter(trajectory__isnull=False, expires_at__lte=now)
            .values_list("pk", "trajectory_id", "worker")
        )
        ids = [trajectory_id for _, trajectory_id, _ in lapsed]
        orphans = list(
            Trajectory.objects.filter(status=Trajectory.Status.RUNNING, vm_slot__isnull=True, run__provenance="harness")
            .exclude(pk__in=ids)
            .values_list("pk", flat=True)
        )
        for _, trajectory_id, worker in lapsed:
            Trajectory.objects.filter(pk=trajectory_id, status=Trajectory.Status.RUNNING).update(
                status=Trajectory.Status.INTERRUPTED,
                error=f"interrupted: the worker {worker} stopped renewing its VM slot lease",
            )
        if orphans:
            Trajectory.objects.filter(pk__in=orphans).update(
                status=Trajectory.Status.INTERRUPTED,
                error="interrupted: running without a VM slot lease",
            )
        VmSlot.objects.filter(pk__in=[pk for pk, _, _ in lapsed]).update(
            trajectory=None, leased_at=None, renewed_at=None, expires_at=None, holder=""
        )
    for trajectory_id in ids + orphans:
        logger.warning("trajectory %s marked interrupted: its VM slot lease lapsed", trajectory_id)
    return ids + orphans


def heartbeat(lease: VmSlot, interval: float | None = None) -> Heartbeat:
    """Renews a VM slot lease from a background thread while the trajectory runs; ``lost`` is set if the
    lease was taken back."""
    return Heartbeat(lease, interval, renew_with=renew, seconds=lease_seconds, name="lease")
