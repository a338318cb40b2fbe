"""Conservative backfilling (Mu'alem & Feitelson 2001): every waiting job holds a reservation."""

from __future__ import annotations

from vosim.allocators.base import Window
from vosim.policies.base import CycleState, Decisions, QueuedJob, register_policy
from vosim.policies.windows import earliest_window, release

__all__ = ["Conservative", "release"]


@register_policy("conservative")
class Conservative:
    """Conservative backfilling: a reservation for every waiting job, none ever delayed.

    One pass at time ``t``, in queue (priority) order over all jobs not yet started: a job
    that holds a reservation has it taken out and is given the earliest window that fits
    beside every other reservation; it moves only if that window starts earlier (its own
    place is always still free, so no job ever starts later than first promised: the
    "compression" of Mu'alem & Feitelson). A job without a reservation gets the earliest
    window. Windows starting at ``t`` start now; the others are reserved at the owners.
    Reservations reach at most to the end of the slot list's interval ``t + L``; a job with
    no window there waits without one and is tried again at the next pass.

    Notes
    -----
    A pass costs ``O(q m log m)`` for ``q`` jobs not started and ``m`` slots.

    Reservations hold concrete nodes, as in the VO they must. On identical processors this is
    not the same schedule as a free-processor profile (the textbook implementation): a
    reservation's node choice can leave time free on several nodes that no later job can use
    at once, and reservations end at ``t + L``. On heavy synthetic workloads of 400 jobs on
    64 processors (``tests/policies/batch_oracle.py``) 40-65 % of the start times differ
    from the profile version and mean waits are 3-5 % lower; EASY and FCFS, whose
    guarantees involve only the queue's head, agree job by job.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (conservative backfilling; compression
    when jobs end before their estimates).
    """

    name = "conservative"
    #: It re-plans its own reservations (compression), so the metascheduler's
    #: :class:`~vosim.policies.replan.Replanner` leaves it alone.
    replans = True

    def decide(self, state: CycleState) -> Decisions:
        """Re-plan every reservation in priority order and reserve for new jobs."""
        decisions = Decisions()
        slots = state.slots
        held: dict[int, Window] = {job.index: w for job, w in state.reserved}
        jobs: list[QueuedJob] = sorted(
            [*state.queue, *(job for job, _ in state.reserved)], key=lambda j: j.index
        )
        moved = 0
        for job in jobs:
            old = held.get(job.index)
            if old is not None:
                free = release(slots, old)
                window = earliest_window(free, job, state.time)
                if window is None or window.start >= old.start:
                    continue  # keeps its place
                decisions.cancel.append(job.index)
                slots = free
                moved += 1
            else:
                window = earliest_window(slots, job, state.time)
                if window is None:
                    decisions.reasons[job.index] = (
                        "conservative: no window within the scheduling interval"
                    )
                    continue
            decisions.reserve.append((job.index, window))
            slots = slots.cut(window)
        decisions.stats["moved"] = moved
        return decisions.settle("no waiting job has a window within the scheduling interval")
