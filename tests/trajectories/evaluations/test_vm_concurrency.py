"""A vm worker whose processes and the host's VM slots differ says so in its log when it is ready: each
running trajectory holds a process and a slot, so the smaller of the two is what the host runs."""

import logging
from types import SimpleNamespace

from trajectories.evaluations.slots import concurrency_problem
from trajectories.tasks import check_vm_concurrency


def ready_worker(queues: list[str], concurrency: int) -> SimpleNamespace:
    """What Celery's worker_ready sends: the consumer, with its app's queues and its controller."""
    amqp = SimpleNamespace(queues=SimpleNamespace(consume_from={name: object() for name in queues}))
    return SimpleNamespace(app=SimpleNamespace(amqp=amqp), controller=SimpleNamespace(concurrency=concurrency))


def test_fewer_processes_than_slots_leave_slots_idle_and_more_only_wait(settings):
    settings.MYPCBENCH_VM_SLOTS = 4
    assert concurrency_problem({"vm"}, 1) == (
        "this vm worker has 1 process(es) for 4 VM slots (MYPCBENCH_VM_SLOTS): 3 slot(s) stay idle; "
        "start it with --concurrency 4"
    )
    assert "the other 2 only wait for a free slot; start it with --concurrency 4" in concurrency_problem({"vm"}, 6)
    assert concurrency_problem({"vm", "default"}, 4) == ""
    assert concurrency_problem({"judging"}, 1) == "", "only a worker taking queue vm holds slots"


def test_the_worker_says_so_in_its_log_when_ready(settings, caplog):
    settings.MYPCBENCH_VM_SLOTS = 3
    with caplog.at_level(logging.WARNING, logger="trajectories.tasks"):
        check_vm_concurrency(sender=ready_worker(["vm"], 1))
        check_vm_concurrency(sender=ready_worker(["vm"], 3))
        check_vm_concurrency(sender=ready_worker(["media"], 1))
    assert [r.getMessage() for r in caplog.records] == [
        "this vm worker has 1 process(es) for 3 VM slots (MYPCBENCH_VM_SLOTS): 2 slot(s) stay idle; "
        "start it with --concurrency 3"
    ]
