"""Slots alike counted once: the pass's slot list as groups with multiplicities.

On processors (``VOModel(resources="processors")``, the default) the processors of one
physical node share price and performance, and most of them are free over the same spans:
on UniLu-Gaia a pass's ~5,400 slots hold ~500 distinct ``(start, end, price, performance)``.
A question about counts and costs (how many slots can hold a task at a start, what the
``n`` cheapest cost) has the same answer over the groups, at a tenth of the rows.
:class:`SlotGroups` builds the groups once per slot list; :func:`cheapest_totals` is the
count-weighted sum of the ``n`` cheapest tasks at many starts, with which the re-planning
search drops starts (:func:`vosim.policies.replan._affordable`); :func:`movable` decides
over the groups, compiled, before any per-slot work, that a reservation cannot move at all.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import numpy as np

from vosim.core import SlotList

__all__ = ["SlotGroups", "cheapest_totals", "movable"]


class SlotGroups:
    """The rows of a slot list with equal ``(start, end, price, performance)``, counted.

    Groups are runs of equal rows in the list's own (start, node) order, so building them is
    ``O(m)`` with no sort; rows alike but not adjacent (two nodes of equal price and
    performance with another node between them) stay in separate groups, which changes no
    answer (a count is a sum over groups either way).

    Parameters
    ----------
    slots : SlotList
        The free slots (``m`` rows).

    Attributes
    ----------
    slots : SlotList
        The list grouped.
    gid : numpy.ndarray of int, shape (m,)
        Each row's group.
    start, end, price, performance : numpy.ndarray of float, shape (G,)
        The groups' values (model time units; cost per time unit; performance).
    count : numpy.ndarray of int, shape (G,)
        Rows per group (>= 1).

    References
    ----------
    AEP §2.1 (slots); the grouping is vosim's, for speed on processors.

    Examples
    --------
    >>> from vosim.core import Slot
    >>> g = SlotGroups(SlotList([Slot(k, 0.0, 50.0, 1.0, 2.0) for k in range(3)]
    ...                         + [Slot(3, 10.0, 50.0, 1.0, 2.0)]))
    >>> g.count.tolist(), g.start.tolist()
    ([3, 1], [0.0, 10.0])
    >>> g.by_node[1].tolist()
    [0, 1, 2, 3]
    """

    __slots__ = ("_by_node", "count", "end", "gid", "performance", "price", "slots", "start")

    def __init__(self, slots: SlotList) -> None:
        s, e, p, f = slots.start, slots.end, slots.price, slots.performance
        m = s.size
        new = np.ones(m, dtype=bool)
        new[1:] = (s[1:] != s[:-1]) | (e[1:] != e[:-1]) | (p[1:] != p[:-1]) | (f[1:] != f[:-1])
        first = np.flatnonzero(new)
        self.slots = slots
        self.gid = np.cumsum(new) - 1
        self.start, self.end, self.price, self.performance = s[first], e[first], p[first], f[first]
        self.count = np.diff(np.append(first, m))
        self._by_node: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def by_node(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows in node order and their node ids (int arrays, shape (m,)); built once."""
        if self._by_node is None:
            node = self.slots.node
            if node.size and int(node.max()) < np.iinfo(np.int16).max:
                node = node.astype(np.int16)  # numpy radix-sorts 16-bit keys: 3-4x faster
            order = np.argsort(node, kind="stable")
            self._by_node = (order, self.slots.node[order])
        return self._by_node


def cheapest_totals(
    cost: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    count: np.ndarray,
    starts: np.ndarray,
    n: int,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """At each start, the sum of the ``n`` cheapest tasks over the groups that hold one.

    Parameters
    ----------
    cost : numpy.ndarray of float, shape (g,)
        A task's cost on each group's slots, cost units.
    lo, hi : numpy.ndarray of float, shape (g,)
        Each group holds a task from any start in ``[lo, hi]``, model time units.
    count : numpy.ndarray of int, shape (g,)
        Slots per group.
    starts : numpy.ndarray of float, shape (k,)
        The starts, ascending, model time units.
    n : int
        Tasks of the job.

    Yields
    ------
    (numpy.ndarray, numpy.ndarray)
        Blocks of ``starts`` (in order) and, for each, the total cost of its ``n`` cheapest
        tasks (of all tasks held when fewer than ``n``), cost units.

    Notes
    -----
    ``O(k g)`` in blocks of at most ``_BLOCK`` cells: a cumulative count over the groups by
    cost gives each group's share of the ``n`` cheapest. Raises nothing; the arrays must
    have one length.

    References
    ----------
    AEP §2.2 (a window at a start is feasible when its ``n`` cheapest slots fit the budget
    ``C``; the AMP test); the counts per group are vosim's.
    """
    order = np.argsort(cost, kind="stable")
    cost, lo, hi, count = cost[order], lo[order], hi[order], count[order]
    step = max(1, _BLOCK // max(cost.size, 1))
    for a in range(0, starts.size, step):
        t = starts[a : a + step, None]
        usable = np.where((lo <= t) & (t <= hi), count, 0)  # (starts, groups)
        before = np.cumsum(usable, axis=1) - usable  # tasks of cheaper groups
        taken = np.clip(n - before, 0, usable)  # this group's share of the n cheapest
        yield starts[a : a + step], (taken * cost).sum(axis=1)


#: Starts x groups summed at once by :func:`cheapest_totals`.
_BLOCK = 1 << 20


def movable(
    groups: SlotGroups,
    spans: tuple[np.ndarray, ...],
    volume: float,
    n: int,
    longest: float,
    budget: float,
    before: float,
    not_before: float,
) -> bool:
    """Whether ``n`` tasks may start together before ``before`` with ``spans`` put back.

    The necessary condition of re-planning's search
    (:func:`vosim.policies.replan.earlier_window`) over slots alike: the spans of the held
    window are put back (each joined with the free slots that touch it, as
    :func:`~vosim.policies.batch_windows.release` joins them, those slots taken out of their
    groups); a slot is usable if it starts before ``before``, runs a task no longer than
    ``longest`` and the task costs no more than ``budget`` less ``n - 1`` of the cheapest
    tasks; then at each start ``t`` (a usable slot's ``max(start, not_before)``, before
    ``before``) the ``n`` cheapest tasks held at ``t`` must exist and cost at most
    ``budget``. Budgets are loosened by ``1e-6`` and slot ends by ``1e-9`` relative, so float
    rounding never says ``False`` where the search finds a window.

    Parameters
    ----------
    groups : SlotGroups
        Free slots, in which ``spans`` are busy.
    spans : tuple of numpy.ndarray
        The held window's ``(node, start, end, price, performance)``, shape (k,) each, one
        span per node.
    volume : float
        A task's volume (a task takes ``volume / performance``).
    n : int
        Tasks of the job (>= 1).
    longest : float
        The held window's runtime: no task may take longer, model time units.
    budget : float
        What the new window may cost, cost units.
    before, not_before : float
        The new window starts in ``[not_before, before)``, model time units.

    Returns
    -------
    bool
        ``False`` only if no such window exists.

    Notes
    -----
    Compiled (numba): ``O(G + k log m)`` for ``G`` groups, then ``O(G)`` per candidate start
    at worst (the walk by cost stops at the ``n``-th task or at the budget). In numpy the
    same test was ~60 calls, no faster than the search it guards; compiled it is ~20x
    faster. Raises nothing on valid input (``spans`` busy in ``groups``, ``n >= 1``).

    References
    ----------
    Mu'alem & Feitelson (2001), IEEE TPDS 12(6), §2 (compression: a reservation moves to an
    earlier start); AEP §2.2 (the AMP test of a start: the ``n`` cheapest slots within ``C``).
    """
    order, sorted_node = groups.by_node
    slots = groups.slots
    node, start, end, price, performance = spans
    return bool(
        _compiled()(
            groups.start,
            groups.end,
            groups.price,
            groups.performance,
            groups.count,
            groups.gid,
            order,
            sorted_node,
            slots.start,
            slots.end,
            node,
            start,
            end,
            price,
            performance,
            float(volume),
            int(n),
            float(longest),
            float(budget),
            float(before),
            float(not_before),
        )
    )


#: Relative tolerance of task lengths (as :data:`vosim.policies.batch_windows._EPS`).
_EPS = 1e-9


@functools.cache
def _compiled():
    """:func:`_movable` compiled by numba, at the first call.

    numba costs ~100 MB of memory and ~0.5 s to import: runs that never re-plan (EASY on
    the traced machine) skip it. The machine code is cached beside the module, so later
    processes load it.
    """
    import numba

    return numba.njit(cache=True)(_movable)


# Complexity above 15: compiled (numba): the plain pass's necessary conditions for a move, in its
# order, over the slot groups.
def _movable(  # noqa: C901
    gstart, gend, gprice, gperf, gcount, gid, order, sorted_node, slot_start, slot_end,
    snode, sstart, send, sprice, sperf, volume, n, longest, budget, before, not_before,
):  # fmt: skip
    g, k = gstart.size, snode.size
    slow = longest * (1 + _EPS)
    # the cheapest task fast enough on any slot or span (a bound on the others' cost)
    low = np.inf
    gtask = volume / gperf
    for i in range(g):
        if gtask[i] <= slow and gprice[i] * gtask[i] < low:
            low = gprice[i] * gtask[i]
    for j in range(k):
        task = volume / sperf[j]
        if task <= slow and sprice[j] * task < low:
            low = sprice[j] * task
    if not np.isfinite(low):
        return False
    bound = budget * (1 + 1e-6) - (n - 1) * low
    limit = budget * (1 + 1e-6)
    # the spans put back: each joined with the free slots of its node that touch it
    count = gcount.copy()
    a = sstart.copy()
    b = send.copy()
    for j in range(k):
        lo = np.searchsorted(sorted_node, snode[j], "left")
        hi = np.searchsorted(sorted_node, snode[j], "right")
        for q in range(lo, hi):
            r = order[q]
            if slot_end[r] == sstart[j]:
                a[j] = slot_start[r]
                count[gid[r]] -= 1
            elif slot_start[r] == send[j]:
                b[j] = slot_end[r]
                count[gid[r]] -= 1
    # usable groups and spans: when each holds a task, its cost, how many
    m = g + k
    t_lo = np.empty(m)
    t_hi = np.empty(m)
    cost = np.empty(m)
    many = np.empty(m, dtype=np.int64)
    used = 0
    for i in range(m):
        if i < g:
            s, e, p, task, c = gstart[i], gend[i], gprice[i], gtask[i], count[i]
        else:
            s, e, p, task, c = a[i - g], b[i - g], sprice[i - g], volume / sperf[i - g], 1
        if c <= 0 or not s < before:
            continue
        if task > slow or p * task > bound:
            continue
        x = max(s, not_before)
        y = e - task * (1 - _EPS)
        y = y + 1e-9 * max(abs(y), 1.0)
        if x > y:
            continue
        t_lo[used], t_hi[used], cost[used], many[used] = x, y, p * task, c
        used += 1
    t_lo, t_hi, cost, many = t_lo[:used], t_hi[:used], cost[:used], many[:used]
    by_cost = np.argsort(cost, kind="mergesort")
    taken, total = 0, 0.0  # the n cheapest at any time: no start does better
    for q in by_cost:
        take = min(many[q], n - taken)
        total += take * cost[q]
        taken += take
        if taken == n:
            break
    if taken < n or total > limit:
        return False
    starts = np.sort(t_lo)
    for u in range(used):
        t = starts[u]
        if not t < before:
            break
        if u > 0 and t == starts[u - 1]:
            continue
        taken, total = 0, 0.0
        for q in by_cost:
            if t_lo[q] <= t <= t_hi[q]:
                take = min(many[q], n - taken)
                total += take * cost[q]
                taken += take
                if taken == n or total > limit:  # sums only grow: over the budget stays over
                    break
        if taken == n and total <= limit:
            return True
    return False
