"""Conservative backfilling (Mu'alem & Feitelson 2001): every waiting job holds a reservation."""

from __future__ import annotations

import math

import numpy as np

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, SlotList
from vosim.core.windows import filled
from vosim.market.free_time import members
from vosim.market.profile import FreeProfile
from vosim.policies.base import CycleState, Decisions, Policy, register_policy
from vosim.policies.batch_windows import (
    _EPS,
    IdenticalSlots,
    cut_window,
    earliest_window,
    release,
)

__all__ = ["Conservative", "release"]


@register_policy("conservative", options=("static",))
class Conservative(Policy):
    """Conservative backfilling: a reservation for every waiting job, none ever delayed.

    One pass at time ``t``, in queue (priority) order over all jobs not yet started: a job
    that holds a reservation has it taken out and is given the earliest window that fits
    beside every other reservation; it moves only if that window starts earlier (its own
    place is always still free, so no job ever starts later than first promised: the
    "compression" of Mu'alem & Feitelson). A job without a reservation gets the earliest
    window. Windows starting at ``t`` start now; the others are reserved at the owners.
    Reservations reach at most to the end of the slot list's interval ``t + L``; a job with
    no window there waits without one and is tried again at the next pass.

    On identical processors (the traced machine, where
    :attr:`~vosim.policies.base.CycleState.processors` gives the slots in count form) a
    reservation is a *count* of processors in a :class:`~vosim.market.profile.FreeProfile`,
    not a set of nodes: this is Mu'alem & Feitelson's conservative backfilling itself. The
    policy keeps each waiting job's promised start between passes (no reservation is made at
    the owners), re-inserts every job in queue order at the earliest start the profile allows
    (never later than promised), and starts the jobs promised ``t`` on the lowest free
    processor ids. Promises are not bounded by ``t + L``. Elsewhere (heterogeneous nodes,
    prices, budgets) reservations hold concrete nodes, as in the VO they must, and each moves
    only to a window of the node form that starts earlier.

    Notes
    -----
    A pass costs ``O(q k)`` on the count form for ``q`` waiting jobs and ``k`` profile steps
    (at most two per running or waiting job), and ``O(q m log m)`` on the node form for
    ``m`` slots. On the traced machine the scheduling interval ``L`` is at least twice the
    longest estimate (:class:`~vosim.model.VOModel`), so every running task ends before
    ``t + L`` and the count form sees every busy processor's release.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (conservative backfilling; compression
    when jobs end before their estimates).
    """

    name = "conservative"
    #: It re-plans its own reservations (compression), so the metascheduler's
    #: :class:`~vosim.policies.replan.Replanner` leaves it alone.
    replans = True

    def __init__(self, static: bool = False) -> None:
        #: Prices and owners never change (fixed pricing, no owner exit): without windows
        #: that can fail, free time then grows only where reserved time is freed, so the node
        #: form searches a held reservation again only where that happened.
        self.static = static
        #: Count form: each waiting job's promised start (model index -> model time).
        self.promised: dict[int, float] = {}
        self._moved = False  # the last count-form pass moved a promise
        # node form: a counter of searches and freeings, each node's stamp when last freed
        # (-1: never) and each job's stamp and interval end at its last search
        self._stamp = 0
        self._freed_at = np.full(0, -1, dtype=np.int64)
        self._searched: dict[int, tuple[int, float]] = {}

    def decide(self, state: CycleState) -> Decisions:
        """Re-plan every reservation in priority order and reserve for new jobs."""
        decisions = self.decide_by_counts(state) if not state.reserved else None
        return decisions if decisions is not None else self.decide_by_nodes(state)

    def decide_by_counts(self, state: CycleState) -> Decisions | None:
        """:meth:`decide` on identical processors held as counts; ``None`` where not that.

        ``None`` when :attr:`~vosim.policies.base.CycleState.processors` is unknown, or a
        waiting job's task time is not finite and positive (the node form then decides).

        References
        ----------
        Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2: every job is inserted in a profile
        of free processors at the first point it fits; when a job ends early, the queue is
        compressed in order, each job moving to its earliest start, never later.
        """
        free = IdenticalSlots.of_state(state) if state.processors is not None else None
        if free is None or not state.queue:
            return None if free is None else Decisions().settle()
        t, performance = state.time, free.performance
        tasks = [job.volume / performance for job in state.queue]
        if not all(t < t + d < math.inf for d in tasks):
            return None
        releases, _ = free.later()
        promised = self.promised
        for index in state.left.tolist():
            promised.pop(index, None)
        # the running tasks to their estimated ends, and every waiting job's promised place
        held = [
            (job.n, max(s, t), s + d)
            for job, d in zip(state.queue, tasks, strict=True)
            if (s := promised.get(job.index)) is not None and s + d > t
        ]
        n, a, b = np.array(held, dtype=float).reshape(-1, 3).T
        busy = releases.size
        profile = FreeProfile.of_changes(
            free.free_now + busy,
            t,
            np.concatenate([filled(busy, t), releases, a, b]),
            np.concatenate([filled(busy, -1, int), filled(busy, 1, int), -n, n]),
        )
        # Room before a promised place opens only when a task ended before its estimate, a
        # waiting job left, or a job moved (last pass): else every promise is still the
        # earliest (new jobs only take room), and only new jobs are searched.
        search = self._moved or state.freed.size > 0 or state.left.size > 0
        decisions = Decisions()
        reasons, moved = decisions.reasons, 0
        for job, d in zip(state.queue, tasks, strict=True):
            old = promised.get(job.index)
            if old is not None and old + d > t:  # moves only to an earlier start
                place = (max(old, t), old + d)
                start = profile.earliest(job.n, d, t, own=place) if search else None
                if start is None:
                    start = place[0]  # keeps its place, held above
                else:
                    profile.release(job.n, *place)
                    profile.hold(job.n, start, start + d)
                    moved += 1
            else:
                start = profile.earliest(job.n, d, t)
                if start is None or free.price * d * job.n > job.budget * (1 + 1e-9):
                    promised.pop(job.index, None)
                    reasons[job.index] = "conservative: no window on the machine within budget"
                    continue
                profile.hold(job.n, start, start + d)
            if start > t:
                promised[job.index] = start
                reasons[job.index] = f"conservative: reserved at {start:g}"
                continue
            promised.pop(job.index, None)
            window = free.take_now(job)
            if window is None:  # the profile counted them free: the two forms disagree
                raise AssertionError(f"job {job.index}: {job.n} processors not free at {t:g}")
            decisions.reserve.append((job.index, window))
        decisions.stats["moved"] = moved
        self._moved = moved > 0
        return decisions.settle("no waiting job can start now")

    def decide_by_nodes(self, state: CycleState) -> Decisions:
        """:meth:`decide` on the slot list, reservations on concrete nodes.

        On a static market (``static``, budgets per job, none replenished) a held reservation
        is searched again only when a window starting before it may have appeared since its
        last search (:meth:`_may_move`); the passes are those of searching every reservation
        (a test compares whole runs).
        """
        decisions = Decisions()
        slots = state.slots
        held: dict[int, Window] = {job.index: w for job, w in state.reserved}
        jobs: list[ResourceRequest] = sorted(
            [*state.queue, *(job for job, _ in state.reserved)], key=lambda j: j.index
        )
        search_all = (
            not self.static
            or state.availability is not None
            or state.refreshed
            or state.balance is not None
        )
        self._stamp += 1
        self._mark_freed(state.freed)
        moved = 0
        for job in jobs:
            old = held.get(job.index)
            searched = self._searched.get(job.index)
            self._searched[job.index] = (self._stamp, state.until)
            if old is not None:
                if not (search_all or self._may_move(slots, job, old, state.time, searched)):
                    continue
                free = release(slots, old, state.pool)
                window = earliest_window(free, job, state.time, before=old.start)
                if window is None:
                    continue  # keeps its place
                decisions.cancel.append(job.index)
                slots = free
                moved += 1
                self._stamp += 1  # its old window is free for the jobs after it
                self._mark_freed(
                    old.spans.node if state.pool is None else members(state.pool, old.spans.node)
                )
            else:
                window = earliest_window(slots, job, state.time)
                if window is None:
                    decisions.reasons[job.index] = (
                        "conservative: no window within the scheduling interval"
                    )
                    continue
            decisions.reserve.append((job.index, window))
            slots = cut_window(slots, window, state.pool)
        decisions.stats["moved"] = moved
        self._moved = moved > 0
        return decisions.settle("no waiting job has a window within the scheduling interval")

    def _mark_freed(self, nodes: np.ndarray) -> None:
        """Stamp ``nodes`` (ids, shape (k,)) as freed now (:attr:`_stamp`)."""
        if not nodes.size:
            return
        top = int(nodes.max()) + 1
        if top > self._freed_at.size:
            self._freed_at = np.concatenate(
                [
                    self._freed_at,
                    np.full(max(top, 2 * self._freed_at.size) - self._freed_at.size, -1),
                ]
            )
        self._freed_at[nodes] = self._stamp

    def _may_move(
        self,
        slots: SlotList,
        job: ResourceRequest,
        old: Window,
        now: float,
        searched: tuple[int, float] | None,
    ) -> bool:
        """Whether a window starting before ``old`` may exist that did not at its last search.

        ``searched``: the stamp and interval end (model time units) of the job's last search
        (``None``: never searched by this policy). On a static market free time grows only
        where reserved time is released (early ends, cancellations, moves: the nodes stamped
        by :meth:`_mark_freed`) and at the interval's end; elsewhere it has only been taken
        (reservations, local jobs) and the earliest allowed start has only grown. So a
        window that starts before ``old`` and did not exist then holds a task on a node
        freed since, or on a node slow enough that the task, started before ``old.start``,
        may end past that search's interval; that node has a free slot now that holds the
        task from a start before ``old.start``. Or it uses one of ``old``'s own nodes freed
        since (putting ``old`` back may join a freed slot to it). ``False`` is exact: a full
        search would keep the reservation in place.
        """
        if searched is None:
            return True
        stamp, until = searched
        freed_at = self._freed_at
        own = old.spans.node
        if np.any(freed_at[own[own < freed_at.size]] > stamp):
            return True
        node = slots.node
        task = job.volume / slots.performance
        fresh = old.start + task > until  # nodes slow enough to end past that interval
        known = node < freed_at.size
        fresh[known] |= freed_at[node[known]] > stamp
        rows = np.flatnonzero(fresh)
        if not rows.size:
            return False
        lo = np.maximum(slots.start[rows], now)
        return bool(np.any((lo < old.start) & (slots.end[rows] - lo >= task[rows] * (1 - _EPS))))
