"""Compression of unstarted reservations in one compiled pass: the fast form of ``replan``.

:func:`vosim.policies.replan.replan` searches each unstarted reservation again in priority
order with numpy calls on the whole slot list (tens of calls per reservation, a new slot list
per move). :func:`compress` gives the same moves (the same windows, spans in the same order,
the same free slots after them) with the searches compiled by numba: the pass's free slots
are held once as rows linked per node, a move updates only its nodes' rows, and the
per-reservation work of the plain pass (which reservations may move at all, the window
search, putting the old window back and cutting the new one out) runs without Python between
two moves. Python sees only the moves found, so the availability rule (``P_a^w`` no lower)
stays the plain one.

``replan`` is the oracle: a test compares the two on random domains (hypothesis) and at every
pass of runs on the bundled traces; ``VOSIM_REFERENCE=1`` makes
:class:`~vosim.policies.replan.Replanner` call ``replan`` instead.

References
----------
Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (compression: a reservation moves earlier
when jobs end before their estimates, never later); AEP §2.1-2.2 (windows of ``n`` slots, task
time ``V / p``, cost within the budget ``C``).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import numpy as np

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, SlotList
from vosim.core.code_path import kernels
from vosim.core.window_columns import WindowColumns
from vosim.core.windows import Spans, distinct
from vosim.errors import SlotError
from vosim.market.free_time import members, members_of
from vosim.market.uncertainty import window_availability
from vosim.policies.base import CycleState, Decisions, Replanned

__all__ = ["compress"]


def compress(
    state: CycleState,
    known: Callable[[ResourceRequest, Window], bool] | None = None,
    freed: np.ndarray | None = None,
) -> Replanned:
    """:func:`~vosim.policies.replan.replan` with its searches compiled: the same result.

    Parameters
    ----------
    state : CycleState
        The pass: ``time``, ``reserved`` (in priority order), ``slots`` (read only if a
        reservation is pending) and ``availability`` (read only for a move found).
    known : callable (ResourceRequest, Window) -> bool, optional
        As ``replan``'s: whether a reservation was searched at the previous pass with this
        window and found nothing; it is then searched only where time was freed since.
    freed : numpy.ndarray of int, shape (k,), optional
        Nodes that gained free time since the previous pass (``state.freed``).

    Returns
    -------
    Replanned
        As ``replan`` returns: the moves, the free slots after them (``None`` if nothing
        moved), the reservations after them and the nodes their old windows freed.

    Raises
    ------
    SlotError
        A window found lies in no free slot of its node (the state's slots and reservations
        disagree: a reserved span is not busy in ``state.slots``).

    Notes
    -----
    Per pass ``O(m + S)`` to load ``m`` slots and the ``S`` spans of the reservations; per
    reservation searched ``O(m' log m')`` over the ``m'`` slots that may hold one of its tasks,
    plus ``O(m')`` per candidate start; per move ``O(k log k)`` on its nodes' ``k`` rows.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (compression); AEP §2.1-2.2.
    """
    reserved = list(state.reserved)
    decisions = Decisions()
    moved: list[np.ndarray] = []
    if reserved:
        kernels = _kernels()
        jobs = _Reservations(reserved, state.held)
        flags = np.zeros(len(reserved), dtype=np.bool_)
        if known is not None:
            flags[:] = [known(job, old) for job, old in reserved]
        rows = _Rows(state.slots, jobs, freed, state.pool)
        most = max(job.n for job, _ in reserved)
        found = (
            np.empty(most, dtype=np.int64),
            np.empty(most),
            np.empty(most),
            np.empty(most),
            np.empty(3),
        )
        now = float(state.time)
        i = 0
        while True:
            columns = rows.columns, jobs.columns
            i = kernels.next_move(*columns, flags, known is not None, now, i, found)
            if i >= len(reserved):
                break
            job, old = reserved[i]
            window = _window(found, job.n)
            schedule = state.availability
            if schedule is not None and window_availability(window, schedule) < window_availability(
                old, schedule
            ):
                i += 1
                continue
            while (code := kernels.apply_move(rows.columns, jobs.columns, i, found)) == 2:
                rows.grow()
            if code:
                raise SlotError(f"compress: the window found for job {job.index} lies in no slot")
            decisions.cancel.append(job.index)
            decisions.reserve.append((job.index, window))
            moved.append(
                old.spans.node if state.pool is None else members(state.pool, old.spans.node)
            )
            reserved[i] = (job, window)
            i += 1
    decisions.stats["moved"] = len(decisions.reserve)
    if not moved:
        return Replanned(decisions.settle(), None, reserved, np.empty(0, dtype=np.int64))
    freed_nodes = distinct(np.concatenate(moved).astype(np.int64, copy=False))
    return Replanned(decisions.settle(), rows.slot_list(), reserved, freed_nodes)


def _window(found: tuple[np.ndarray, ...], n: int) -> Window:
    """The window :func:`next_move` wrote to ``found``, as ``windows.window_at`` builds it."""
    node, end, price, perf, (start, runtime, cost) = found
    return Window(
        slots=Spans(
            node[:n].copy(), np.full(n, start), end[:n].copy(), price[:n].copy(), perf[:n].copy()
        ),
        start=float(start),
        runtime=float(runtime),
        cost=float(cost),
    )


class _Reservations:
    """The reservations of a pass as the kernels' columns, in priority order.

    Gathered from ``held`` (the windows kept as columns across passes) when given, else
    from the windows of ``reserved`` themselves; the budgets are always ``reserved``'s (under
    per-period accounts they are the pass's, not the request's).
    """

    def __init__(
        self, reserved: list[tuple[ResourceRequest, Window]], held: WindowColumns | None = None
    ) -> None:
        count = len(reserved)
        index = np.fromiter((job.index for job, _ in reserved), dtype=np.int64, count=count)
        budget = np.fromiter((job.budget for job, _ in reserved), dtype=float, count=count)
        held = WindowColumns.of(reserved) if held is None else held
        self.columns = held.columns(index, budget)
        self.nodes = int(self.columns[7].max()) + 1 if self.columns[6][-1] else 0


class _Rows:
    """The pass's free slots as rows linked per node, and the nodes joined so far.

    Parameters
    ----------
    slots : SlotList
        The free slots (maximal per node).
    jobs : _Reservations
        The reservations (their nodes size the per-node arrays).
    freed : numpy.ndarray of int or None
        Nodes that gained free time since the previous pass: joined from the start.
    pool : numpy.ndarray of int, shape (n_nodes,), optional
        Each node's pool when ``slots`` is a count view (moves re-level pools).
    """

    def __init__(
        self,
        slots: SlotList,
        jobs: _Reservations,
        freed: np.ndarray | None,
        pool: np.ndarray | None = None,
    ) -> None:
        m = len(slots)
        self.loaded = m  # rows [0, m) come from the slot list, in its (start, node) order
        # a copy: a read-only array would compile load_rows a second time
        gained = np.empty(0, dtype=np.int64) if freed is None else np.array(freed, np.int64)
        nodes = max(
            jobs.nodes,
            int(slots.node.max()) + 1 if m else 0,
            int(gained.max()) + 1 if gained.size else 0,
            0 if pool is None else len(pool),  # a pool's every node may be read
        )
        cap = 2 * m + 4 * int(jobs.columns[6][-1]) + 16
        (
            self.node, self.start, self.end, self.price, self.performance, self.alive,
            self.head, self.nxt, self.top, self.joined, self.jlist, self.jcount,
            self.gid, self.gstart, self.gend, self.gprice, self.gperf, self.gcount, self.gtop,
            self.pvals, self.pmin,
        ) = _kernels().load_rows(
            slots.node, slots.start, slots.end, slots.price, slots.performance,
            nodes, cap, gained, jobs.columns[11],
        )  # fmt: skip
        if pool is None:
            self.pool_of = self.first = self.members = np.empty(0, dtype=np.int64)
        else:
            self.pool_of = np.asarray(pool, dtype=np.int64)
            self.first, self.members = members_of(self.pool_of)

    @property
    def columns(self) -> tuple[np.ndarray, ...]:
        """The kernels' row arguments, in their order."""
        return (
            self.node,
            self.start,
            self.end,
            self.price,
            self.performance,
            self.alive,
            self.head,
            self.nxt,
            self.top,
            self.joined,
            self.jlist,
            self.jcount,
            self.gid,
            self.gstart,
            self.gend,
            self.gprice,
            self.gperf,
            self.gcount,
            self.gtop,
            self.pvals,
            self.pmin,
            self.pool_of,
            self.first,
            self.members,
        )

    def grow(self) -> None:
        """Twice the room for rows (the kernels refused a move for lack of it)."""
        names = ("node", "start", "end", "price", "performance", "alive", "nxt", "gid")
        names += ("gstart", "gend", "gprice", "gperf", "gcount")
        for name in names:
            old = getattr(self, name)
            new = np.full(2 * old.size, -1 if name == "nxt" else 0, dtype=old.dtype)
            new[: old.size] = old
            setattr(self, name, new)

    def slot_list(self) -> SlotList:
        """The live rows as a slot list, ordered by (start, node) as ``SlotList`` keeps it.

        The loaded rows keep the slot list's order (a move changes a row's end, or retires
        it), so only the rows moves added are sorted, then merged in (``O(m)``,
        ``compression_kernels.live_slots``; the plain form is a lexsort of the live rows).
        """
        return SlotList.trusted(
            *_kernels().live_slots(
                self.node, self.start, self.end, self.price, self.performance, self.alive,
                self.loaded, int(self.top[0]),
            )
        )  # fmt: skip


def _kernels() -> ModuleType:
    """The compiled kernels, imported at the first pass that re-plans (numba loads then)."""
    return kernels("vosim.policies.compression_kernels")
