"""Periodic scheduling cycles that skip the idle stretches between events."""

from __future__ import annotations

import math

import mesa

from vosim.agents.callbacks import callback
from vosim.agents.event_list import next_live_events

__all__ = ["PeriodicCycles", "first_multiple"]


def first_multiple(t: float, period: float, after: int = -1) -> int:
    """The least integer ``k > after`` with ``k * period >= t`` (as float64 computes it).

    Parameters
    ----------
    t : float
        A model time (finite).
    period : float
        The cycle period, model time units (finite, > 0).
    after : int
        ``k`` must exceed it (default -1: any ``k >= 0``).

    Returns
    -------
    int
        The index of the first cycle at or after ``t`` (cycle ``k`` runs at ``k * period``).

    Examples
    --------
    >>> first_multiple(601.0, 300.0), first_multiple(600.0, 300.0), first_multiple(0.0, 300.0, 0)
    (3, 2, 1)
    """
    k = max(math.ceil(t / period), after + 1)
    while k * period < t:  # t / period rounded down
        k += 1
    while k - 1 > after and (k - 1) * period >= t:  # rounded up
        k -= 1
    return k


class PeriodicCycles:
    """Runs the metascheduler's cycle at ``k * period``, skipping cycles that cannot act.

    Cycle ``k`` is due at time ``k * period`` (``k = 0, 1, ...``). After each cycle, if the
    metascheduler cannot act (:meth:`~vosim.agents.metascheduler.MetaschedulerAgent.can_act`:
    nothing waits, arrived, left or was freed, balances did not grow, every reservation has
    started, passes neither reprice nor review owners), every cycle before the model's next
    event would repeat a pass that decides nothing on an unchanged state; so the next cycle is
    the first multiple of ``period`` after now that is at or after the next event (a
    submission, a job's end or interruption, a deadline of patience, a budget period...),
    not the next period. A trace with a month-long gap, or with Unix-timestamp submit times,
    then costs a few cycles per event instead of one per period.

    Every cycle of the every-period schedule that may act still runs, at the same time and in
    the same order among the events at that time (its event is created right after the cycle
    run before it, as in the every-period schedule, since no event runs in between); the
    cycles skipped are idle repeats. So every decision and every row kept is the same
    (``tests/agents/test_periodic.py`` compares job, task and cycle tables). A policy that
    reads the slot list even with nothing to do (conservative, knapsack) makes the owners
    draw their interval local load up to ``now + L``; a skip past such cycles draws the same
    load later, since each owner draws from its own stream in interval order
    (:class:`~vosim.agents.owner.ResourceOwnerAgent`).
    Online local jobs' arrivals (:class:`~vosim.agents.local.LocalJobs`) are not events a
    skip stops at: with nothing waiting and no reservation ahead an arrival can change the
    VO's state only by preempting a running job, and then it calls :meth:`wake`.

    Parameters
    ----------
    model : VOModel
        The model (``metascheduler``, ``owners``, ``scheduling_interval``, Mesa's event list).
    period : float
        Time between cycles, model time units (finite, > 0).

    Attributes
    ----------
    ran : int
        Cycles run.
    skipped : int
        Cycles of the every-period schedule skipped (they could not act).

    Raises
    ------
    ValueError
        ``period`` is not a finite number > 0.

    References
    ----------
    VO Preferences §2 (the metascheduler's periodic cycle); skipping the cycles that cannot act
    is vosim's rule.
    """

    def __init__(self, model: mesa.Model, period: float) -> None:
        if not (math.isfinite(period) and period > 0):
            raise ValueError(f"period must be a finite number > 0, got {period!r}")
        self.model = model
        self.period = float(period)
        self.index: int | None = 0  # k of the cycle scheduled next (None: none)
        self.ran = self.skipped = 0
        self._due = callback(self, "due")  # what the cycle events call
        self._last = -1  # index of the last cycle run
        self._event = model.schedule_event(self._due, at=0.0)

    @property
    def next_time(self) -> float | None:
        """Time of the cycle scheduled next (``None``: none, nothing can happen any more)."""
        return None if self.index is None else self.index * self.period

    def due(self) -> None:
        """Run the cycle due now, then schedule the next one that may act."""
        self.model.metascheduler.cycle()
        self.ran += 1
        self._last = self.index
        k, nxt = self.index, self._next_index()
        self.skipped += (nxt if nxt is not None else k + 1) - k - 1
        self.index = nxt
        if nxt is not None:
            self._event = self.model.schedule_event(self._due, at=nxt * self.period)

    def wake(self) -> None:
        """Bring the next cycle forward to the first multiple of ``period`` from now.

        Called when something outside the events a skip stops at changed what a cycle can do
        (an owner's local job preempted a VO job, which waits again).
        """
        k = first_multiple(self.model.time, self.period, after=self._last)
        if self.index is not None and k >= self.index:
            return
        if self.index is not None:
            self._event.cancel()
        self.skipped -= (self.index - k) if self.index is not None else 0
        self.index = k
        self._event = self.model.schedule_event(self._due, at=k * self.period)

    def _next_index(self) -> int | None:
        """Index of the next cycle to run (``None``: no event is left, so none ever acts)."""
        k, model = self.index, self.model
        if model.metascheduler.can_act():
            return k + 1
        ahead = next_live_events(model, 2)  # O(events): not counted twice here
        if not ahead:  # no event is left that is not cancelled
            return None
        local = model.local_jobs.arrivals if model.local_jobs is not None else None
        head = [e for e in ahead if local is None or e.fn() is not local]
        if not head:  # only local arrivals are left: no cycle acts again unless woken
            return None
        return first_multiple(head[0].time, self.period, after=k)
