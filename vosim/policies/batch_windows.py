"""Windows of the batch-system rules on a slot list: one start time, or the earliest start.

The batch baselines (FCFS, EASY, conservative backfilling) start a job on ``n`` processors at
once. On the VO's heterogeneous, priced nodes the same rules hold with these choices, which
reduce to the traced machine's on identical processors:

* a task on node ``i`` is estimated to take ``volume / performance_i`` (the requested time on
  a reference node), so faster nodes end their task earlier; the node is held to that
  estimate and released at the actual end, ``run time x p_ref / performance_i``;
* of the nodes free over a task's whole estimated span, the ``n`` cheapest for this job are
  taken (cost ``price_i x volume / performance_i``), and the window must fit the job's budget
  ``C``; ties go to the tightest fit: the slot whose end leaves least time after the task,
  then the slot that has been idle least before the start, then the lowest node id. On
  identical processors only the tie rules act, and they make the node-level rules equal to the
  count-based ones of EASY (a backfilled job that ends before the shadow time takes the head's
  processors first; the head's reservation takes processors that are busy now first).

:func:`window_at` and :func:`earliest_window` are the node form: ``O(m)`` numpy work per
call on ``m`` slots, plus a cut of the slot list per window taken. :class:`IdenticalSlots` is
the count form of the same two calls on identical processors (the traced machine): free
processors and release times as counts, the tie rules as "lowest ids of a group", ``O(n)``
per window; the policies use it whenever a pass's slot list has that form, and the node form
is its oracle in the tests (equal windows, spans in the same order, equal costs).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from vosim.allocators.base import Window
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.core.code_path import kernels, reference
from vosim.core.slots import lexsort_order, merge_rows, span_outside
from vosim.core.windows import Spans, distinct, filled
from vosim.market.free_time import count_view, members_of
from vosim.policies.base import CycleState

__all__ = [
    "window_at",
    "earliest_window",
    "candidate_starts",
    "task_starts",
    "release",
    "IdenticalSlots",
    "NotIdentical",
    "RELATIVE_TOLERANCE",
    "equal_window_cost",
]

#: Relative tolerance on budgets and task lengths (float noise of volume / performance).
RELATIVE_TOLERANCE = _EPS = 1e-9


def window_at(slots: SlotList, start: float, job: ResourceRequest) -> Window | None:
    """The window for ``job`` starting exactly at ``start``, or ``None`` if none fits.

    Parameters
    ----------
    slots : SlotList
        Free slots (at most one per node contains ``start``).
    start : float
        The window's start, model time units.
    job : ResourceRequest
        ``n`` tasks of ``volume`` each, within ``budget``.

    Returns
    -------
    Window or None
        ``n`` spans ``[start, start + volume / performance_i)``, chosen by the rule of the
        module docstring; ``None`` when fewer than ``n`` nodes are free long enough or the
        cheapest ``n`` exceed the budget.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (a job starts when enough processors are free for its
    estimated run time); AEP §2.1 (slots, task time ``V / p_i``, window cost).

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 50.0, 1.0, 1.0), Slot(1, 0.0, 99.0, 1.0, 1.0)])
    >>> w = window_at(sl, 0.0, ResourceRequest(index=0, n=1, volume=40.0, budget=100.0))
    >>> w.nodes, w.runtime
    ((0,), 40.0)
    """
    d = job.volume / slots.performance
    ok = (slots.start <= start) & (slots.end - start >= d * (1 - _EPS))
    rows = np.flatnonzero(ok)
    if rows.size < job.n:
        return None
    cost = slots.price[rows] * d[rows]
    end_slack = slots.end[rows] - (start + d[rows])
    idle = start - slots.start[rows]
    order = np.lexsort((slots.node[rows], idle, end_slack, cost))[: job.n]
    total = float(cost[order].sum())
    if total > job.budget * (1 + _EPS):
        return None
    pick = rows[order]
    spans = tuple(
        Slot(
            int(slots.node[k]),
            start,
            min(start + float(d[k]), float(slots.end[k])),  # a slot short by rounding only
            float(slots.price[k]),
            float(slots.performance[k]),
        )
        for k in pick.tolist()
    )
    return Window(slots=spans, start=start, runtime=float(d[pick].max()), cost=total)


def earliest_window(
    slots: SlotList, job: ResourceRequest, not_before: float, before: float = math.inf
) -> Window | None:
    """The window for ``job`` with the earliest start ``>= not_before``, or ``None``.

    Candidate starts are ``not_before`` and the slot starts after it (a window's start is
    where its last node becomes free). Slot ``r`` can hold the task from any start in
    ``[max(start_r, not_before), end_r - T_r]``; one sweep over these intervals counts the
    slots usable at every candidate, and :func:`window_at` is tried, in time order, only
    where at least ``n`` are (it fails there only on the budget).

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval.
    job : ResourceRequest
        The resource request.
    not_before : float
        Earliest allowed start, model time units.
    before : float
        Only windows starting before it (model time units; default any): a reservation
        asks whether it can move earlier without building the window it keeps.

    Returns
    -------
    Window or None
        ``None`` when no start inside the slot list's interval, before ``before``, holds the
        job.

    Notes
    -----
    ``O(m log m)`` for ``m`` slots, plus ``O(m)`` per candidate that fails on the budget:
    compiled (``compression_kernels.earliest_start``, the same comparisons as
    :func:`candidate_starts` and :func:`window_at`), plain under ``VOSIM_REFERENCE=1``.

    References
    ----------
    Mu'alem & Feitelson (2001), §2: the shadow time of EASY's head job and the reservations
    of conservative backfilling are the earliest times enough processors are free for the
    job's estimated run time.

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 99.0, 1.0, 1.0), Slot(1, 30.0, 99.0, 1.0, 1.0)])
    >>> earliest_window(sl, ResourceRequest(index=0, n=2, volume=40.0, budget=1e9), 0.0).start
    30.0
    """
    if reference():
        starts = candidate_starts(slots, job, not_before)
        starts = starts[starts < before]
    else:  # compiled: the candidates and the test of each, the same first start
        free = (slots.node, slots.start, slots.end, slots.price, slots.performance)
        start = kernels("vosim.policies.compression_kernels").earliest_start(
            free, job.n, float(job.volume), job.budget, float(not_before), float(before)
        )
        starts = np.array([] if math.isnan(start) else [start])
    for t in starts.tolist():
        window = window_at(slots, t, job)  # None only when the budget does not allow it
        if window is not None:
            return window
    return None


def task_starts(
    slots: SlotList, job: ResourceRequest, not_before: float
) -> tuple[np.ndarray, np.ndarray]:
    """When each slot can hold one of ``job``'s tasks: any start in ``[lo_r, hi_r]``.

    Parameters
    ----------
    slots : SlotList
        Free slots (``m`` rows).
    job : ResourceRequest
        The request (a task on slot ``r`` takes ``volume / performance_r``).
    not_before : float
        Earliest allowed start, model time units.

    Returns
    -------
    lo, hi : numpy.ndarray of float, shape (m,)
        ``lo_r = max(start_r, not_before)`` and ``hi_r = end_r - T_r`` (up to a relative
        ``1e-9`` of ``T_r``), model time units; ``lo_r > hi_r``: the slot cannot hold it.

    References
    ----------
    AEP §2.1 (a task of volume ``V`` on a node of performance ``p`` takes ``V / p``).
    """
    lo = np.maximum(slots.start, not_before)
    hi = slots.end - job.volume / slots.performance * (1 - _EPS)
    return lo, hi


def candidate_starts(slots: SlotList, job: ResourceRequest, not_before: float) -> np.ndarray:
    """The starts :func:`earliest_window` tries: where at least ``n`` slots hold a task.

    Candidate starts are ``not_before`` and the slot starts after it (a window's start is
    where its last node becomes free); one sweep over the intervals of :func:`task_starts`
    counts the slots usable at each.

    Parameters
    ----------
    slots : SlotList
        Free slots (``m`` rows).
    job : ResourceRequest
        The request (``n`` tasks of ``volume``).
    not_before : float
        Earliest allowed start, model time units.

    Returns
    -------
    numpy.ndarray of float, shape (k,)
        The candidate starts, ascending (model time units); at every other start no window
        holds the job or one at an earlier candidate holds it on the same nodes.

    Notes
    -----
    ``O(m log m)``.
    """
    if len(slots) < job.n:
        return np.empty(0)
    # slot r can hold the task from any start in [lo_r, hi_r]
    lo, hi = task_starts(slots, job, not_before)
    ok = lo <= hi
    if np.count_nonzero(ok) < job.n:
        return np.empty(0)
    lo, hi = np.sort(lo[ok]), np.sort(hi[ok])
    candidates = distinct(lo)
    # slots that can hold the task from each candidate start: lo <= t minus hi < t
    count = np.searchsorted(lo, candidates, "right") - np.searchsorted(hi, candidates, "left")
    return candidates[count >= job.n]


def cut_window(slots: SlotList, window: Window, pool: np.ndarray | None = None) -> SlotList:
    """``slots.cut(window)``; with ``pool`` (a count view) its pools re-levelled after.

    Cutting a window out of a count view leaves each of its pools' free count right but its
    spans no longer levels (free time of one count may sit on two processors in turn), so
    the pools of several processors the window used are re-levelled
    (:func:`~vosim.market.free_time.count_view`): a later search of the pass then fits
    ``k`` tasks wherever ``k`` processors are free. A pool of one processor needs none: its
    spans left by the cut are its levels already (maximal, none touching), so a window on
    such pools only is the cut alone.
    ``pool``: each node's pool, int64, shape (n_nodes,). Raises what
    :meth:`~vosim.core.slots.SlotList.cut` raises. Compiled with ``pool``
    (``vosim.market.count_kernels.cut_view_rows``: one pass, no cut list written between);
    the cut then :func:`~vosim.market.free_time.count_view` below runs under
    ``VOSIM_REFERENCE=1``, when spans share a processor and when a node has no pool
    (``IndexError``). AEP §2.1 (a chosen window
    leaves the slot list); the levels are vosim's.
    """
    if pool is None:
        return slots.cut(window)
    if not reference():  # compiled: cut and re-levelled in one pass, the same rows
        pool, spans = np.asarray(pool, dtype=np.int64), window.spans
        first, ids = members_of(pool)
        bad, *columns = kernels("vosim.market.count_kernels").cut_view_rows(
            slots.node, slots.start, slots.end, slots.price, slots.performance,
            spans.node, spans.start, spans.end, pool, first, ids,
        )  # fmt: skip
        if bad == -1:
            return SlotList.trusted(*columns)
        if bad >= 0:
            raise span_outside(spans[bad])
    left = slots.cut(window)  # plain, spans sharing a processor, or a node with no pool
    pools = distinct(pool[window.spans.node])
    first, _ = members_of(pool)
    pools = pools[first[pools + 1] - first[pools] > 1]
    return count_view(left, pool, pools) if pools.size else left


def release(slots: SlotList, window: Window, pool: np.ndarray | None = None) -> SlotList:
    """The slot list with ``window``'s spans free again (merged with touching free slots).

    Parameters
    ----------
    slots : SlotList
        Free slots in which ``window``'s spans are busy, maximal on each node (no two of a
        node touch), as the owners' offers and :meth:`~vosim.core.slots.SlotList.cut` give.
    window : Window
        A reservation whose spans lie in busy time of ``slots``.
    pool : numpy.ndarray of int, shape (n_nodes,), optional
        Each node's pool when ``slots`` is a count view: the spans are then added to their
        pools' free counts and those pools re-levelled
        (:func:`~vosim.market.free_time.count_view`), whichever processors they were on.

    Returns
    -------
    SlotList
        The maximal free spans of each node, sorted by start (ties by node id); with
        ``pool``, the count view of the pools' free time with the spans back.

    Notes
    -----
    ``O(m + k log k)`` for ``m`` slots and ``k`` rows on the window's nodes (its ``n`` spans
    and those nodes' free slots): the other rows keep their order
    (:func:`~vosim.core.slots.merge_rows`). Compiled
    (``vosim.core.slot_kernels.release_window``); the numpy below runs under
    ``VOSIM_REFERENCE=1``.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2: compression takes a reservation out
    before searching the job an earlier one.
    """
    spans = window.spans  # columns (kept as such by reservations: no per-span objects)
    if not len(spans):
        return slots
    if pool is not None:  # counts: the spans join their pools' free counts
        columns = [
            np.concatenate([getattr(slots, f), getattr(spans, f)])
            for f in ("node", "start", "end", "price", "performance")
        ]
        back = SlotList.from_arrays(*columns, validate=False)
        return count_view(back, pool, distinct(pool[spans.node]))
    if not reference():  # compiled: the same rows in the same order
        columns = (slots.node, slots.start, slots.end, slots.price, slots.performance)
        released = kernels("vosim.core.slot_kernels").release_window(
            *columns, spans.node, spans.start, spans.end, spans.price, spans.performance
        )
        return SlotList.trusted(*released)
    # only the rows of the window's nodes change: merge those with the spans, then put the
    # merged rows back among the others, which stay in order (no sort of the whole list)
    top = int(spans.node.max())
    if len(slots):
        top = max(top, int(slots.node.max()))
    mark = np.zeros(top + 1, dtype=bool)
    mark[spans.node] = True
    touched = mark[slots.node]
    rows = np.flatnonzero(touched)
    node = np.concatenate([slots.node[rows], spans.node]).astype(np.int64, copy=False)
    a = np.concatenate([slots.start[rows], spans.start])
    b = np.concatenate([slots.end[rows], spans.end])
    price = np.concatenate([slots.price[rows], spans.price])
    perf = np.concatenate([slots.performance[rows], spans.performance])
    order = np.lexsort((a, node))
    node, a, b, price, perf = node[order], a[order], b[order], price[order], perf[order]
    # a row starts a new free span unless it touches the previous row of its node
    new = np.ones(node.size, dtype=bool)
    new[1:] = (node[1:] != node[:-1]) | (a[1:] > b[:-1])
    first = np.flatnonzero(new)
    merged = [node[first], a[first], np.maximum.reduceat(b, first), price[first], perf[first]]
    order = lexsort_order(merged[1], merged[0])
    merged = [c[order] for c in merged]
    keep = ~touched
    cols = [getattr(slots, f)[keep] for f in SlotList.__slots__]
    return SlotList.trusted(*merge_rows(cols, merged))


class NotIdentical(Exception):
    """A pass the count form of :class:`IdenticalSlots` does not cover (use the node form)."""


def equal_window_cost(n: int, price: float, task_time: float) -> float:
    """The cost of ``n`` tasks of ``task_time`` at one ``price``, summed as :func:`window_at` does.

    ``n`` equal terms ``price * task_time`` (cost units per time unit times model time
    units) added by numpy's sum, whose pairwise order makes it differ from ``n * price *
    task_time`` in the last bits. Raises ``ValueError`` for ``n < 0``. AEP §2.1: a window's
    cost is the sum over its slots of price times time.
    """
    return float(np.add.reduce(filled(n, price * task_time)))  # ndarray.sum without its wrapper


class _Group:
    """Processors free now whose slots end at one time ``end``; ``nodes[off:]`` are left."""

    __slots__ = ("end", "nodes", "off")

    def __init__(self, end: float, nodes: np.ndarray) -> None:
        self.end = end
        self.nodes = nodes  # ascending ids
        self.off = 0

    @property
    def free(self) -> int:
        """Processors of the group not taken yet."""
        return self.nodes.size - self.off

    def take(self, k: int) -> np.ndarray:
        """The ``k`` lowest ids left (they leave the group)."""
        taken = self.nodes[self.off : self.off + k]
        self.off += k
        return taken


class IdenticalSlots:
    """A slot list of identical processors held as counts: the batch rules without node scans.

    On the traced machine, with VO reservations that all start at the pass time (FCFS,
    EASY), every processor's free time in ``[t, t + L)`` is one slot ``[s_k, E)`` to one
    common end ``E``: ``s_k = t`` for the processors free now, the reserved end of its
    running task for the others. On such a slot list :func:`window_at` at ``t`` and
    :func:`earliest_window` reduce to counting (``n`` processors free now; EASY's shadow time
    is the ``n``-th smallest release time), and their tie rules to taking the lowest
    processor ids of at most two groups of equal slots: the processors free now, and among
    them those the head's reservation holds (their slots end at the shadow time). This class
    answers both in ``O(n)`` per job started and ``O(m)`` once for the head, with results
    equal, window for window, to the node form on the same :class:`SlotList` (a property test
    compares them on random slot lists with ties).

    Build it with :meth:`of`, which returns ``None`` for a slot list not of that form.

    Parameters
    ----------
    time : float
        The pass time ``t``, model time units.
    end : float
        ``E``, where every slot ends (model time units).
    price, performance : float
        Every processor's price per time unit and performance.
    free : numpy.ndarray of int, shape (f,)
        Ids of the processors free at ``t`` (slots ``[t, E)``), ascending.
    later : (numpy.ndarray, numpy.ndarray) or callable returning them
        The other slots' starts (ascending, all > ``t``) and processor ids, shape
        ``(m - f,)`` each, ordered as in the slot list (by start, then id); a callable is
        called only if :meth:`hold_head` needs them.

    Raises
    ------
    NotIdentical
        From :meth:`take_now` or :meth:`hold_head`: a job outside what the count form
        covers (``n < 1``, or a task time that is not finite and long enough to move ``t``);
        the caller then decides the pass with the node form.

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2: EASY on identical processors counts the
    processors free now and at the shadow time; Lifka (1995).
    """

    def __init__(
        self,
        time: float,
        end: float,
        price: float,
        performance: float,
        free: np.ndarray,
        later: Callable[[], tuple[np.ndarray, np.ndarray]] | tuple[np.ndarray, np.ndarray],
    ) -> None:
        self.time = time
        self.end = end
        self.price = price
        self.performance = performance
        #: Processors free now, by the end of their slot: ``[E]``, then ``[T, E]`` once
        #: :meth:`hold_head` set a reservation at ``T`` aside.
        self.groups = [_Group(end, free)]
        self._free = free.size  # processors free now not taken yet, in all groups
        self._later = later
        self._taken: list[tuple[float, np.ndarray]] = []  # (t + d, ids): slots [t + d, E)
        self._held = False

    def later(self) -> tuple[np.ndarray, np.ndarray]:
        """The slots not free now: their starts (ascending, > ``t``) and processor ids.

        Shape ``(m - f,)`` each, in the slot list's order (by start, then id).
        """
        if callable(self._later):
            self._later = self._later()
        return self._later

    @classmethod
    def of_state(cls, state: CycleState) -> IdenticalSlots | None:
        """The count form of a pass's slots: ``state.processors`` if known, else :meth:`of`.

        ``state.processors`` (the metascheduler's own count of the traced machine's
        processors, ``O(m)`` numpy work) describes the same slots as ``state.slots`` (a test
        compares them at every pass of a run); reading it skips building the slot list.
        """
        parts = state.processors
        if parts is not None:
            return cls(state.time, *parts)
        return cls.of(state.slots, state.time)

    @classmethod
    def of(cls, slots: SlotList, time: float) -> IdenticalSlots | None:
        """The count form of ``slots`` at ``time``, or ``None`` if the slot list is not one.

        The form: at least one slot; all slots end at one finite time ``E`` and have one
        price and one performance; none starts before ``time`` (a slot list of ``[t, t + L)``
        clips its slots to ``t``). ``O(m)`` vectorised checks for ``m`` slots.
        """
        if len(slots) == 0:
            return None
        end, price, perf, start = slots.end, slots.price, slots.performance, slots.start
        if not (start[0] >= time and math.isfinite(end[0]) and perf[0] > 0):
            return None
        if not ((end == end[0]).all() and (perf == perf[0]).all() and (price == price[0]).all()):
            return None
        free = int(start.searchsorted(time, side="right"))
        return cls(
            time,
            float(end[0]),
            float(price[0]),
            float(perf[0]),
            slots.node[:free],
            (start[free:], slots.node[free:]),
        )

    @property
    def free_now(self) -> int:
        """Processors free at ``t`` not taken yet (for a task of any length)."""
        return self._free

    def _task(self, job: ResourceRequest) -> float:
        """The task time ``volume / performance``; raises :class:`NotIdentical` if unusable."""
        d = job.volume / self.performance
        if not (job.n >= 1 and d < math.inf and self.time + d > self.time):
            raise NotIdentical(f"job {job.index}: n={job.n}, task time {d!r}")
        return d

    def _cost(self, n: int, d: float) -> float:
        """The window cost as :func:`window_at` sums it (:func:`equal_window_cost`)."""
        return equal_window_cost(n, self.price, d)

    def _window(
        self, parts: list[tuple[np.ndarray, float]], start: float, d: float, cost: float
    ) -> Window:
        """The window over ``(processor ids, their slots' end)`` parts.

        Each span is ``[start, start + d)`` clipped to its slot's end (a slot shorter by float
        rounding only).
        """
        # a copy: the ids are views of the pass's processor arrays, which it must not keep
        node = np.concatenate([ids for ids, _ in parts])
        stop = np.concatenate([filled(ids.size, min(start + d, end)) for ids, end in parts])
        n = node.size
        spans = Spans(
            node, filled(n, start), stop, filled(n, self.price), filled(n, self.performance)
        )
        return Window(slots=spans, start=start, runtime=d, cost=cost)

    def take_now(self, job: ResourceRequest) -> Window | None:
        """:func:`window_at` ``(slots, t, job)`` on the slots left; its processors are taken.

        Returns the same window as the node form (processors, spans in order, cost), or
        ``None`` when that finds none. ``O(n)``.

        Raises
        ------
        NotIdentical
            ``n < 1``, or a task time that is not finite and long enough to move ``t``.

        References
        ----------
        Mu'alem & Feitelson (2001), §2: a job starts when ``p_j`` processors are free for
        its estimated run time.
        """
        n = job.n
        if n > self._free:
            return None
        d = self._task(job)
        t, groups = self.time, self.groups
        need = d * (1 - _EPS)
        # groups by end, the head's T < E first: the task fits all (n <= free, checked), or
        # the last group alone, or none
        last = groups[-1]
        if groups[0].end - t < need and (last.end - t < need or last.free < n):
            return None
        usable = [g for g in groups if g.free and g.end - t >= need]
        cost = self._cost(n, d)
        if cost > job.budget * (1 + _EPS):
            return None
        if len(usable) == 1:
            parts = [(usable[0].take(n), usable[0].end)]
        else:  # the head's processors (end T < E) first: the least end slack
            first, second = usable
            if not first.end - (t + d) < second.end - (t + d):
                raise NotIdentical(f"job {job.index}: end slacks equal in floats")
            a = min(n, first.free)
            parts = [(first.take(a), first.end), (second.take(n - a), second.end)]
        self._free -= n
        if not self._held and self.end > t + d:  # its slots go on as [t + d, E)
            self._taken.append((t + d, np.concatenate([ids for ids, _ in parts])))
        return self._window(parts, t, d, cost)

    def hold_head(self, job: ResourceRequest) -> float | None:
        """EASY's shadow time: :func:`earliest_window` ``(slots, job, t)``, set aside.

        Returns the start ``T`` of that window (``None`` when it finds none). Its processors
        that are free now then form their own group, free until ``T``: the later jobs of
        :meth:`take_now` see the slots as the node form does after cutting the window out.
        Call at most once, after the heads were taken.

        Raises
        ------
        NotIdentical
            As :meth:`take_now`, for the head.
        RuntimeError
            A second call.

        References
        ----------
        Mu'alem & Feitelson (2001), §2: the shadow time is when enough processors are free
        for the head; the extra processors are those free then beyond its ``p_h``.
        """
        if self._held:
            raise RuntimeError("hold_head: a reservation is already set aside")
        self._held = True
        d = self._task(job)
        t, n, big_e = self.time, job.n, self.end
        need = d * (1 - _EPS)
        hi = big_e - need  # latest start of a task on any slot
        group = self.groups[0]
        if not t <= hi:
            return None
        later_start, later_node = self.later()
        extra_start = np.array([s for s, ids in self._taken for _ in range(ids.size)])
        extra_node = (
            np.concatenate([ids for _, ids in self._taken]) if self._taken else extra_start
        ).astype(np.int64)
        if n <= group.free:
            shadow = float(t)
        else:
            k = n - group.free
            later = np.concatenate([later_start[:k], extra_start])
            if later.size < k:
                return None
            shadow = float(np.partition(later, k - 1)[k - 1])
            if not shadow <= hi:
                return None
        if not big_e - shadow >= need or self._cost(n, d) > job.budget * (1 + _EPS):
            return None
        # window_at(shadow): slots starting by then, least idle (shadow - start) first
        stop = int(later_start.searchsorted(shadow, side="right"))
        starts = np.concatenate([later_start[:stop], extra_start])
        nodes = np.concatenate([later_node[:stop], extra_node])
        within = starts <= shadow
        idle = shadow - starts[within]
        idle_now = shadow - t
        before = int(np.count_nonzero(idle < idle_now))
        if n > before:
            tie = nodes[within][idle == idle_now]
            x = n - before
            if tie.size:  # slots released with the same idle as the free ones: by id
                mine = group.nodes[group.off :]
                lowest = np.sort(np.concatenate([mine[:x], tie]))[:x]
                x = int(np.count_nonzero(mine[:x] <= lowest[-1]))
            self.groups.insert(0, _Group(shadow, group.take(x)))
        return shadow
