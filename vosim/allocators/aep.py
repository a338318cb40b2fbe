"""The AEP window search and its criteria: AMP, minCost, minRuntime, minFinish, minProcTime.

Every criterion scans the slot list in order of non-decreasing start time (AEP §2.1). At a
candidate start ``t`` (a slot start) the *extended window* holds the slots still long enough
for their task, ``start_i <= t <= end_i - T_i``; slots of one node are disjoint, so at most
one slot per node is in it and it holds at most ``N`` slots on ``N`` nodes. A window at ``t``
is ``n`` of those slots within the budget ``C``.

Exact criteria (``amp``, ``min_cost``, ``min_runtime``, ``min_finish``) return the optimum over
every window of the interval (an :class:`~vosim.core.windows.Allocation` with ``exact=True``:
status ``OPTIMAL``, or ``LIMIT`` when a limit truncated the scan); the paper's own procedures
stay available for fidelity (``amp_paper``: the first ``n`` parallel slots within budget,
``min_runtime_substitution``, ``min_finish_substitution``, ``min_proc_time``; status
``FEASIBLE``). Windows only ever start at slot starts: between two consecutive slot starts the
extended window only loses slots, so a later start in between never gives a cheaper, shorter or
earlier-finishing window.

The scan is vectorised over blocks of candidate starts: a block of ``b`` starts is a
``b x (N + b)`` matrix of the slots alive in it, so a scan costs ``O(K * N)`` cells for ``K``
candidate starts (``K <= m``, the number of slots): linear in ``m`` for a fixed node count,
quadratic in ``N`` when ``m`` grows with ``N``, as AEP §3.2 reports for its own scan.

Those blocks are the plain path. The exact criteria without limits run compiled sweeps
instead (:mod:`vosim.allocators.aep_kernels`: the slots alive at each start in a Fenwick tree
over cost ranks, ``O((m + K) log G)`` for ``G`` distinct costs), which return the blocks'
start and runtime. They read the slot list's runs of alike slots as rows with a count
(``m`` is then the runs: a node's free processors are mostly one), and the window takes
the same slots the blocks take; ``VOSIM_REFERENCE=1`` runs the blocks on a row per slot
(the sweeps' test oracle).
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from vosim.allocators.base import register_criterion
from vosim.core.code_path import kernels, reference
from vosim.core.slots import Slot, SlotList
from vosim.core.windows import Allocation, ResourceRequest, Spans, Window, distinct, filled

__all__ = [
    "BELOW_FLOOR",
    "BUDGET_RTOL",
    "CRITERION_CODES",
    "FOUND",
    "NO_WINDOW",
    "ONLY_USABLE",
    "amp",
    "amp_paper",
    "budget_limit",
    "min_cost",
    "min_runtime",
    "min_finish",
    "min_proc_time",
    "min_runtime_substitution",
    "min_finish_substitution",
    "refusal_reason",
    "window_criterion",
]

#: Relative tolerance of the budget test, against float rounding of summed costs.
BUDGET_RTOL = 1e-9
_FLOAT_MAX = float(np.finfo(float).max)
#: Smallest block of candidate starts evaluated at once after the first one.
_MIN_BLOCK = 64
#: Cells (starts x slots) a block of more than ``_MIN_BLOCK`` starts may hold: ~8 MB of float64.
_BLOCK_CELLS = 1_000_000
#: Cells (task times x distinct costs) the compiled minFinish sweep may hold (~100 MB); a
#: larger scan runs the numpy blocks.
_SWEEP_CELLS = 4_000_000


#: The window value each exact criterion minimises (AEP §2.2): its :class:`Allocation`'s
#: ``value`` (the threshold sweeps record the value they compared).
_MINIMISED = {
    "amp": "start",
    "amp_paper": "start",
    "min_cost": "cost",
    "min_finish": "finish",
    "min_runtime": "runtime",
}


def _found(window: Window, name: str, stats: dict, exact: bool = False) -> Allocation:
    """The allocation of ``window``, found by criterion ``name``, with the value it minimises."""
    value = float(getattr(window, _MINIMISED[name]))
    return Allocation(window, "", name, stats, exact=exact, value=value)


@dataclass(frozen=True, slots=True)
class _Scan:
    """Slots usable by a request, ordered by start, and the candidate window starts.

    Each row is one usable slot (the plain scan, ``count`` None) or a run of ``count[i]``
    alike usable slots at positions ``index[i] .. index[i] + count[i] - 1`` of the slot
    list (the compiled scan): one start, end, price and performance, so one latest start,
    cost and task time. The columns are each slot's.
    """

    index: np.ndarray  # (m',) positions in the slot list (of a run's first slot)
    start: np.ndarray  # (m',) slot start
    latest: np.ndarray  # (m',) latest window start the slot still covers: end - T_i
    cost: np.ndarray  # (m',) price_i * T_i
    duration: np.ndarray  # (m',) T_i
    candidates: np.ndarray  # (K,) distinct slot starts with >= n slots covering, increasing
    durations: np.ndarray  # (D,) distinct T_i, increasing (the runtime thresholds)
    nodes: int  # nodes with at least one usable slot
    limit: float  # budget C with its rounding tolerance, finite
    count: np.ndarray | None = None  # (m',) int64 slots of each run; None: one each

    @property
    def weight(self) -> np.ndarray:
        """Slots each row stands for, int64 shape (m',): the sweeps' weights."""
        return np.ones(self.start.size, dtype=np.int64) if self.count is None else self.count

    def positions(self) -> np.ndarray:
        """Every usable slot's position in the slot list, row by row, int64 shape (sum count,)."""
        return self.index if self.count is None else _members(self.index, self.count)


def _members(index: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The positions of runs' slots: ``index[i] .. index[i] + count[i] - 1`` for each ``i``.

    ``index``, ``count``: int64 shape (r,); returns int64 shape (sum count,), run by run.
    """
    offset = np.cumsum(count) - count
    return np.arange(int(count.sum())) + np.repeat(index - offset, count)


def budget_limit(budget: float) -> float:
    """The most a window within ``budget`` (``C``, cost units) may cost, as searches test it.

    ``C`` widened by :data:`BUDGET_RTOL` (costs are sums of floats), capped at the largest
    finite float so that the ``inf`` sums of starts with fewer than ``n`` slots never fit.
    Raises nothing (``nan`` stays ``nan``). Source: AEP §2.2 (a window's cost within ``C``).
    """
    return min(budget * (1 + BUDGET_RTOL), _FLOAT_MAX)


def _sweep_scan(slots: SlotList, request: ResourceRequest) -> _Scan | str:
    """The scan the compiled sweeps read: runs of alike slots as rows, or the plain scan.

    Runs (``aep_kernels.prepare``: a node's free processors are mostly one run, about 7x
    fewer rows than slots on UniLu-Gaia) unless ``VOSIM_REFERENCE=1``, which takes the
    plain :func:`_prepare`. Either way the same candidate starts, refusals and windows.
    """
    if reference():
        return _prepare(slots, request)
    index, count, *columns, floor = _kernels().prepare(
        slots.node, slots.start, slots.end, slots.price, slots.performance,
        np.nan if request.volume is None else float(request.volume),
        np.nan if request.time is None else float(request.time),
        float(request.min_performance), request.n,
    )  # fmt: skip
    scan = _Scan(index, *columns, budget_limit(request.budget), count)
    return _refused(slots, scan, request, floor) or scan


def _prepare(
    slots: SlotList, request: ResourceRequest, longest: float = np.inf, of: _Scan | None = None
) -> _Scan | str:
    """The plain scan of ``slots`` for ``request`` (a row per slot), or why no window exists.

    Its usable slots (task time at most ``longest``, model time units; default any) in
    start order, and the candidate starts where at least ``n`` of them cover. ``of``: the
    plain scan of all usable slots, whose slots (their starts, latest starts, task times and
    costs), distinct task times and node count a scan limited by ``longest`` takes rather
    than computing them again (the node count only sizes blocks). The block scans read it;
    the compiled sweeps read :func:`_sweep_scan`.
    """
    limit = budget_limit(request.budget)
    if of is None:
        duration = request.durations(slots.performance)
        latest = slots.end - duration
        ok = (slots.performance >= request.min_performance) & (latest >= slots.start)
        if longest < np.inf:
            ok &= duration <= longest
        index = np.flatnonzero(ok)
        start = slots.start[index]
        late = latest[index]
        d = duration[index]
        cost = slots.price[index] * d
    else:  # a subset of ``of``'s usable slots: the same values, taken rather than recomputed
        short = of.duration <= longest
        index, start, late, d, cost = (
            of.index[short],
            of.start[short],
            of.latest[short],
            of.duration[short],
            of.cost[short],
        )
    # Only starts covered by at least n slots can hold a window. A node's slots are disjoint,
    # so the slots covering t (start <= t <= latest) are on distinct nodes; counted by two
    # binary searches per start, this drops the starts where concurrency alone fails.
    first = np.ones(start.size, dtype=bool)  # start is sorted: keep the first of equal values
    np.not_equal(start[1:], start[:-1], out=first[1:])
    starts = start[first]
    covering = np.searchsorted(start, starts, side="right") - np.searchsorted(
        np.sort(late), starts, side="left"
    )
    candidates = starts[covering >= request.n]
    if of is not None:
        durations = of.durations[of.durations <= longest]
        scan = _Scan(index, start, late, cost, d, candidates, durations, of.nodes, limit)
    else:
        # counted by marks: numpy 2.5's np.unique of integers is ~10x a sort on these sizes
        nodes = int(np.count_nonzero(np.bincount(slots.node[index])))
        scan = _Scan(index, start, late, cost, d, candidates, distinct(d), nodes, limit)
    floor = np.inf
    if candidates.size:  # the n cheapest usable slots, distinct nodes or not
        floor = float(np.sort(np.partition(cost, request.n - 1)[: request.n]).sum())
    return _refused(slots, scan, request, floor) or scan


def _refused(slots: SlotList, scan: _Scan, request: ResourceRequest, floor: float) -> str:
    """Why no window can exist in ``scan`` of ``slots`` ("" when one may).

    No candidate start (the reason counts the nodes with a usable slot), or a budget below
    ``floor``, the cost of the ``n`` cheapest usable slots, which bounds every window's cost
    from below.
    """
    if scan.candidates.size == 0:
        usable = int(np.count_nonzero(np.bincount(slots.node[scan.positions()])))
        if usable < request.n:
            return _only_usable(usable, request.n)
        return _no_window(request)
    if floor > scan.limit:
        return _below_floor(request.budget, request.n, floor)
    return ""


def _no_window(request: ResourceRequest) -> str:
    return _no_window_of(request.n, request.budget)


#: Outcomes of a compiled window search (``first_fit_kernels``): a window, or why none.
FOUND, ONLY_USABLE, BELOW_FLOOR, NO_WINDOW = 1, 2, 3, 4


def refusal_reason(kind: int, n: int, budget: float, usable: int, floor: float) -> str:
    """The reason a search gives for outcome ``kind`` (``ONLY_USABLE``, ...), as text.

    ``n``: tasks; ``budget``: ``C`` (cost units); ``usable``: nodes with a slot long enough
    (read for ``ONLY_USABLE``); ``floor``: the ``n`` cheapest tasks' cost (``BELOW_FLOOR``).
    The same text :func:`_refused` and :func:`_single_refused` give. Raises ``ValueError``
    for ``FOUND`` or an unknown ``kind``. Source: AEP §2.1-2.2.
    """
    if kind == ONLY_USABLE:
        return _only_usable(int(usable), n)
    if kind == BELOW_FLOOR:
        return _below_floor(budget, n, float(floor))
    if kind == NO_WINDOW:
        return _no_window_of(n, budget)
    raise ValueError(f"refusal_reason: {kind!r} is not a refusal")


def _only_usable(usable: int, n: int) -> str:
    """Why no window exists: only ``usable`` nodes have a slot long enough (``< n``).

    ``usable``, ``n``: node counts. Raises nothing. Source: AEP §2.1 (``n`` slots on
    distinct nodes).
    """
    return f"only {usable} node(s) have a slot long enough for the request (n={n} needed)"


def _below_floor(budget: float, n: int, floor: float) -> str:
    """Why no window exists: the budget ``C`` is below ``floor``, the ``n`` cheapest tasks' cost.

    ``budget``, ``floor``: cost units; ``n``: tasks. Raises nothing. Source: AEP §2.2 (a
    window within the budget ``C``).
    """
    return f"budget C={budget:g} is below the cheapest {n} slot(s), cost {floor:g}"


def _no_window_of(n: int, budget: float) -> str:
    """Why no window exists: no ``n`` concurrent slots within ``budget`` (cost units).

    Raises nothing. Source: AEP §2.1-2.2 (``n`` concurrent slots within the budget ``C``).
    """
    return f"no {n} concurrent slots within budget C={budget:g} in the interval"


@dataclass(frozen=True, slots=True)
class _Block:
    """The extended windows at candidate starts ``k0 .. k1-1`` as a (rows x cols) matrix."""

    k0: int
    t: np.ndarray  # (R,) candidate starts
    cols: np.ndarray  # (M,) positions in the scan of the slots alive somewhere in the block
    cost: np.ndarray  # (R, M) price_i * T_i where the slot is in the extended window, else inf
    duration: np.ndarray  # (M,) T_i of the columns


def _block(scan: _Scan, k0: int, k1: int) -> _Block:
    t = scan.candidates[k0:k1]
    hi = int(np.searchsorted(scan.start, t[-1], side="right"))
    cols = np.flatnonzero(scan.latest[:hi] >= t[0])
    eligible = (scan.start[cols] <= t[:, None]) & (scan.latest[cols] >= t[:, None])
    return _Block(k0, t, cols, np.where(eligible, scan.cost[cols], np.inf), scan.duration[cols])


def _cheapest_sums(cost: np.ndarray, n: int) -> np.ndarray:
    """Per row, the sum of the ``n`` smallest entries (``inf`` with fewer than ``n`` finite)."""
    if cost.shape[1] < n:
        return np.full(cost.shape[0], np.inf)
    # sorted before summing: np.partition leaves the n smallest in an order that differs
    # between CPUs (SIMD selection), and float sums in another order differ in the last bit,
    # which decides near-ties between windows
    return np.sort(np.partition(cost, n - 1, axis=1)[:, :n], axis=1).sum(axis=1)


def _blocks(scan: _Scan, first: int = 8) -> Iterator[_Block]:
    """Blocks of candidate starts, growing from ``first`` to about ``2 N`` starts.

    A block of ``b`` starts spans the ``<= N`` slots alive at its first start plus the slots
    starting inside it, so each start costs ``O(N + b)`` cells: blocks of ``O(N)`` starts
    keep a whole scan ``O(K * N)`` and every matrix ``O(N^2)``. On large domains ``N^2`` is
    more memory than the machine has (LCG-2005-1's 24,515 processors: 10^9 cells), so a
    block also stops growing at ``_BLOCK_CELLS / N`` starts (at least ``_MIN_BLOCK``); with
    few slots it may grow to ``_BLOCK_CELLS`` cells, since every block costs a fixed numpy
    overhead. The small first block lets AMP stop early at little cost.
    """
    k, size, total = 0, first, scan.candidates.size
    nodes = max(1, scan.nodes)
    cap = max(
        _MIN_BLOCK,
        min(2 * nodes, _BLOCK_CELLS // nodes),
        _BLOCK_CELLS // max(1, scan.start.size),
    )
    while k < total:
        end = min(total, k + size)
        yield _block(scan, k, end)
        k, size = end, min(cap, size * 4)


def _thresholds(block: _Block, n: int, durations: np.ndarray) -> np.ndarray:
    """Per row, the index in ``durations`` of the ``n``-th shortest slot of the window.

    No window at that start can be shorter; rows with fewer than ``n`` slots get ``D``.
    """
    d = np.where(np.isfinite(block.cost), block.duration, np.inf)
    if d.shape[1] < n:
        return np.full(d.shape[0], durations.size)
    nth = np.partition(d, n - 1, axis=1)[:, n - 1]
    return np.searchsorted(durations, nth)  # inf -> D


def _min_runtime_rows(block: _Block, scan: _Scan, n: int) -> np.ndarray:
    """Per row, the shortest runtime of a window within budget at that start (``inf``: none).

    At a fixed start the windows with runtime at most ``theta`` are the ``n``-subsets of the
    slots with ``T_i <= theta``, the cheapest of which is their ``n`` cheapest; feasibility is
    monotone in ``theta``, so a binary search over the distinct ``T_i`` (``log D`` steps, each
    one partition of the block) finds the least feasible ``theta`` exactly.
    """
    durations = scan.durations
    rows = block.t.size
    fits = _cheapest_sums(block.cost, n) <= scan.limit
    hi = np.full(rows, durations.size - 1)
    lo = hi.copy()
    fit_rows = np.flatnonzero(fits)
    if fit_rows.size == 0:
        return np.full(rows, np.inf)
    if durations.size > 1:
        sub = _Block(block.k0, block.t[fit_rows], block.cols, block.cost[fit_rows], block.duration)
        lo[fit_rows] = np.minimum(_thresholds(sub, n, durations), hi[fit_rows])
    while True:
        active = np.flatnonzero(fits & (lo < hi))
        if active.size == 0:
            break
        mid = (lo[active] + hi[active]) // 2
        short = block.duration[None, :] <= durations[mid][:, None]
        sums = _cheapest_sums(np.where(short, block.cost[active], np.inf), n)
        ok = sums <= scan.limit
        hi[active[ok]] = mid[ok]
        lo[active[~ok]] = mid[~ok] + 1
    return np.where(fits, durations[lo], np.inf)


def _window_at(
    slots: SlotList, scan: _Scan, request: ResourceRequest, t: float, longest: float = np.inf
) -> Window:
    """The ``n`` cheapest slots of the extended window at ``t`` no longer than ``longest``.

    Ties in cost go to the shorter slot, then to the lower node id.
    """
    if scan.count is not None:
        return _window_of_runs(slots, scan, request.n, t, longest)
    cols = np.flatnonzero((scan.start <= t) & (scan.latest >= t) & (scan.duration <= longest))
    nodes = slots.node[scan.index[cols]]
    pick = cols[np.lexsort((nodes, scan.duration[cols], scan.cost[cols]))[: request.n]]
    return _make_window(slots, scan, pick, t)


def _window_of_runs(slots: SlotList, scan: _Scan, n: int, t: float, longest: float) -> Window:
    """:func:`_window_at`'s choice in a scan of runs (``aep_kernels.window_of_runs``).

    The runs in order of (cost, task time) are taken whole up to the key ``(c, T)`` of the
    ``n``-th slot; the runs of that key give the rest, their slots of lowest node id first:
    the slots the plain lexsort by (cost, task time, node) takes, and the same cost sum.
    """
    at, d, cost = _kernels().window_of_runs(
        scan.start, scan.latest, scan.duration, scan.cost, scan.count, scan.index,
        slots.node, float(t), float(longest), n,
    )  # fmt: skip
    spans = Spans(
        slots.node[at], filled(n, float(t)), t + d, slots.price[at], slots.performance[at]
    )
    return Window(slots=spans, start=float(t), runtime=float(d.max()), cost=float(cost))


def _make_window(slots: SlotList, scan: _Scan, pick: np.ndarray, t: float) -> Window:
    """The window of a plain scan's slots ``pick`` (rows, shape (n,)) at ``t``, by node id."""
    at = scan.index[pick]
    order = np.argsort(slots.node[at], kind="stable")  # distinct nodes: one order
    at, d = at[order], scan.duration[pick][order]
    n = at.size
    spans = Spans(
        slots.node[at], filled(n, float(t)), t + d, slots.price[at], slots.performance[at]
    )
    return Window(
        slots=spans,
        start=float(t),
        runtime=float(scan.duration[pick].max()),
        cost=float(scan.cost[pick].sum()),
    )


def _result(
    name: str,
    slots: SlotList,
    scan: _Scan,
    request: ResourceRequest,
    t: float,
    longest: float = np.inf,
) -> Allocation:
    stats = {"slots": len(slots), "candidates": int(scan.candidates.size)}
    if not np.isfinite(t):
        return Allocation(None, _no_window(request), name, stats)
    return _found(_window_at(slots, scan, request, t, longest), name, stats, exact=True)


@register_criterion("amp")
def amp(slots: SlotList, request: ResourceRequest) -> Allocation:
    """AMP: the window with the earliest start whose cost fits the budget ``C``.

    The AEP scan visits slot starts in increasing order; the first start ``t`` at which the ``n``
    cheapest slots covering ``[t, t + T_i]`` cost at most ``C`` is the earliest feasible start.
    The window takes those ``n`` cheapest slots.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="amp"``; ``window=None`` with a reason if no start is feasible.

    Notes
    -----
    Exact. ``O(N)`` per candidate start visited (one partition of the extended window), so
    ``O(m * N)`` when the whole list is scanned; it stops at the first feasible start, usually
    in the first small block (AEP §3.2: "near linear complexity ... without the full slot list
    scan").

    References
    ----------
    AEP §2.2: "the first suitable window will have the earliest possible start time ... finding
    a set of the first n parallel slots the total cost of which does not exceed S" (AMP).

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 4.0)])
    >>> w = amp(sl, ResourceRequest(n=2, volume=80.0)).window
    >>> (w.start, w.runtime, w.cost)
    (10.0, 40.0, 60.0)
    """
    if request.n == 1:
        return _single("amp", slots, request)
    return _amp_scan(slots, request)


def _first_feasible(scan: _Scan, n: int) -> tuple[float, int] | None:
    """The earliest candidate start where the ``n`` cheapest slots fit the budget.

    Returns ``(t, examined)``: the start and how many candidate starts the scan visited up to
    and including it; ``None`` when no start of the interval holds a window within budget.
    """
    if not reference():  # the compiled sweep: the same start and count
        k = _kernels()
        t, examined = k.first_feasible(
            scan.start, scan.latest, scan.cost, scan.weight, n, scan.limit, k.NO_ORDER, k.NO_ORDER
        )
        return None if np.isnan(t) else (float(t), int(examined))
    for block in _blocks(scan):
        hit = np.flatnonzero(_cheapest_sums(block.cost, n) <= scan.limit)
        if hit.size:
            return float(block.t[int(hit[0])]), block.k0 + int(hit[0]) + 1
    return None


def _earliest_start(
    name: str, slots: SlotList, request: ResourceRequest
) -> tuple[_Scan, float, int] | Allocation:
    """AMP's earliest feasible start: ``(scan, t, starts examined)``, or the failed result.

    The common first step of :func:`amp` and :func:`amp_paper`; ``name`` labels the result.
    ``amp_paper`` walks the scan's slots one by one, so it takes the plain scan.
    """
    scan = (_prepare if name == "amp_paper" else _sweep_scan)(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, name, {"slots": len(slots)})
    first = _first_feasible(scan, request.n)
    if first is None:
        return _result(name, slots, scan, request, np.inf)
    return scan, *first


def _amp_scan(slots: SlotList, request: ResourceRequest) -> Allocation:
    """AMP by the block scan of candidate starts (any ``n``)."""
    found = _earliest_start("amp", slots, request)
    if isinstance(found, Allocation):
        return found
    scan, t, examined = found
    stats = {"slots": len(slots), "candidates": examined}
    return _found(_window_at(slots, scan, request, t), "amp", stats, exact=True)


def _single(name: str, slots: SlotList, request: ResourceRequest) -> Allocation:
    """The exact criterion ``name`` for ``n = 1`` without the scan: the scan's window and reason.

    With one slot, a slot long enough for its task and within the budget is feasible at its
    own start, and nowhere better than there (a later start only shortens what is left of
    it), so each criterion is a minimum over single slots ``O(m)`` instead of a scan of every
    start:

    - ``amp``: the least start of a feasible slot;
    - ``min_cost``: the cheapest usable slot's cost ``c*``, at the least start of a slot of
      cost ``c*`` (when ``c*`` fits the budget);
    - ``min_runtime``: the shortest feasible task time ``theta*``, at the least start of a
      feasible slot that long;
    - ``min_finish``: the least ``start + T_i`` of a feasible slot, at the least start
      reaching it (a start ``t`` that reaches it is the start of a slot that does).

    The window is then the scan's choice at that start: the cheapest slot covering it no
    longer than the optimum's task time (ties: shorter, then lower node id). Slots are ordered
    by start, so "the least start" is the first position. The tests compare every criterion
    with its block scan on random slot lists (window, reason and stats).
    """
    if not reference():  # the same choice in two compiled passes
        return _single_compiled(name, slots, request)
    duration = request.durations(slots.performance)
    latest = slots.end - duration
    usable = (slots.performance >= request.min_performance) & (latest >= slots.start)
    if not usable.any():
        return _single_refused(name, slots, request, None)
    cost = slots.price * duration
    limit = budget_limit(request.budget)
    feasible = np.flatnonzero(usable & (cost <= limit))
    if feasible.size == 0:
        return _single_refused(name, slots, request, float(cost[usable].min()))
    longest = np.inf
    if name == "amp":
        best = feasible[0]
    elif name == "min_cost":
        best = feasible[np.argmin(cost[feasible])]  # argmin: the first, the least start
    elif name == "min_runtime":
        best = feasible[np.argmin(duration[feasible])]
        longest = duration[best]
    else:  # min_finish
        best = feasible[np.argmin(slots.start[feasible] + duration[feasible])]
        longest = duration[best]
    t = slots.start[best]
    cover = np.flatnonzero(usable & (slots.start <= t) & (latest >= t) & (duration <= longest))
    j = int(cover[np.lexsort((slots.node[cover], duration[cover], cost[cover]))[0]])
    d = float(duration[j])
    slot = Slot(
        int(slots.node[j]),
        float(t),
        float(t + d),
        float(slots.price[j]),
        float(slots.performance[j]),
    )
    starts = slots.start[usable]
    if name == "amp":  # AMP's scan stops at t: the distinct starts up to it
        starts = starts[starts <= t]
    candidates = int(np.count_nonzero(np.diff(starts))) + 1
    window = Window(slots=(slot,), start=float(t), runtime=d, cost=float(cost[j]))
    stats = {"slots": len(slots), "candidates": candidates}
    return _found(window, name, stats, exact=True)


def _single_refused(
    name: str, slots: SlotList, request: ResourceRequest, floor: float | None
) -> Allocation:
    """:func:`_single`'s refusal: no usable slot (``floor`` None), or a budget below ``floor``.

    Raises nothing; AEP §2.2 (a window within the budget ``C``).
    """
    if floor is None:
        reason = _only_usable(0, 1)
    else:
        reason = _below_floor(request.budget, 1, floor)
    return Allocation(None, reason, name, {"slots": len(slots)})


#: The criteria the compiled searches take, by code (``aep_kernels.single``'s ``criterion``).
CRITERION_CODES = {"amp": 0, "min_cost": 1, "min_runtime": 2, "min_finish": 3}


def _single_compiled(name: str, slots: SlotList, request: ResourceRequest) -> Allocation:
    """:func:`_single` by ``aep_kernels.single``: the same window, reason and stats."""
    code, j, t, candidates, floor = _kernels().single(
        slots.start, slots.end, slots.price, slots.performance, slots.node,
        np.nan if request.volume is None else float(request.volume),
        np.nan if request.time is None else float(request.time),
        float(request.min_performance),
        budget_limit(request.budget),
        CRITERION_CODES[name],
    )  # fmt: skip
    if code:  # 1: no usable slot; 2: none within the budget, the cheapest costing floor
        return _single_refused(name, slots, request, None if code == 1 else floor)
    performance = float(slots.performance[j])
    d = request.volume / performance if request.volume is not None else float(request.time)
    d = float(d)
    slot = Slot(int(slots.node[j]), float(t), float(t + d), float(slots.price[j]), performance)
    window = Window(slots=(slot,), start=float(t), runtime=d, cost=float(slots.price[j] * d))
    stats = {"slots": len(slots), "candidates": int(candidates)}
    return _found(window, name, stats, exact=True)


@register_criterion("amp_paper")
def amp_paper(slots: SlotList, request: ResourceRequest) -> Allocation:
    """The paper's AMP: the first ``n`` parallel slots, in scan order, within the budget ``C``.

    The slot list is scanned in order of start time (ties: node id), as in AEP §2.1's
    pseudocode: each slot that can host a task (performance at least ``min_performance``,
    long enough from its own start) joins the window, whose start becomes the slot's start
    ``t``, and slots no longer long enough from ``t`` (``end - t < T_i``) leave it. At the first
    step where ``n`` slots of the window fit the budget the search stops, and the window takes
    *the first* ``n`` parallel slots of it in scan order whose total cost is within ``C``: the
    slots that joined earliest, not the cheapest ones (:func:`amp`).

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes, ordered by start (the scan order).
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``, model time units), budget ``C`` (cost units).

    Returns
    -------
    Allocation
        ``criterion="amp_paper"``, status ``FEASIBLE`` (its start is the earliest possible,
        :func:`amp`'s, but its slots optimise nothing); ``window=None`` with a reason when no
        ``n`` concurrent slots fit the budget anywhere in the interval. ``stats``: ``slots``
        (``m``), ``candidates`` (distinct starts visited, as for :func:`amp`) and ``step``
        (the scan position, in the slot list, of the slot whose arrival closed the window).

    Notes
    -----
    *What the paper leaves open, and the choice made here* (decided from the text, before
    any result was looked at). The paper states that AMP returns "the first suitable window",
    which "will have the earliest possible start time": "if at some step i of the algorithm
    (after the i-th slot is added) the suitable window can be formed", AMP stops there; and
    that this "can be reduced to finding a set of the first n parallel slots the total cost of
    which does not exceed the budget limit S". It does not say which ``n`` slots are taken
    when the window at that step holds more than ``n`` slots and its first ``n`` in scan
    order cost more than ``C`` while another ``n`` of them fit. Reading "first n ... within
    S" as "test only the first ``n`` slots, and scan on while they exceed ``C``" would pass
    over steps where a suitable window can be formed, against the paper's "earliest possible
    start time". So:

    1. the search stops at the first step (slot added) at which *some* ``n`` slots of the
       window fit ``C``: that is :func:`amp`'s earliest feasible start ``t``, reached slot by
       slot (slots of equal start join one at a time, in node order, as in the pseudocode);
    2. the window takes the lexicographically first ``n`` slots in scan order within ``C``:
       going through the window's slots in the order they joined, a slot is taken unless
       taking it would leave no way to complete the window within ``C`` (the cheapest
       completion from the later slots exceeds what is left of the budget). When the first
       ``n`` slots fit, they are the window; otherwise an early slot is skipped only when no
       window within ``C`` holds it beside the slots already taken (the budget "forces
       skipping"). At the step that closes the window, every window within ``C`` holds the
       slot just added, so that slot is always the last one taken.

    Each chosen slot is reserved from ``t`` for its task time ``T_i`` (``V / p_i`` on a node of
    performance ``p_i``). Complexity: :func:`amp`'s scan up to ``t``, then ``O(M log M)`` to
    find the step and ``O(n M log n)`` for the choice, ``M <= N`` the slots of the window at
    ``t``.

    References
    ----------
    AEP §2.1 (the scan and its window), §2.2: "the first suitable window will have the
    earliest possible start time ... this procedure can be reduced to finding a set of the
    first n parallel slots the total cost of which does not exceed the budget limit S. This
    description coincides the AMP scheme considered in previous works [13-15]"; §3.1 item 1.

    Examples
    --------
    Three slots from 0 (equal starts are scanned in node order): node 0 is dear, nodes 1 and 2
    cheap. With ``C = 40`` the first two slots (nodes 0 and 1, cost 40) are the window, where
    :func:`amp` takes the cheapest two; with ``C = 30`` the budget forces skipping node 0:

    >>> sl = SlotList([Slot(0, 0.0, 100.0, 3.0, 2.0), Slot(1, 0.0, 100.0, 1.0, 2.0),
    ...                Slot(2, 0.0, 100.0, 1.0, 2.0)])
    >>> job = ResourceRequest(n=2, time=10.0, budget=40.0)
    >>> amp_paper(sl, job).window.nodes, amp(sl, job).window.nodes
    ((0, 1), (1, 2))
    >>> amp_paper(sl, ResourceRequest(n=2, time=10.0, budget=30.0)).window.nodes
    (1, 2)
    """
    found = _earliest_start("amp_paper", slots, request)
    if isinstance(found, Allocation):
        return found
    scan, t, examined = found
    alive = np.flatnonzero((scan.start <= t) & (scan.latest >= t))  # scan order
    cost = scan.cost[alive]
    # The slots starting at t join last, one per step: the least prefix of the window's slots
    # holding n within budget ends at the step that closes the window (feasibility only grows
    # with the prefix, and the whole window at t is feasible).
    lo, hi = int(np.count_nonzero(scan.start[alive] < t)) + 1, alive.size
    while lo < hi:
        mid = (lo + hi) // 2
        fits = _cheapest_sums(cost[None, :mid], request.n)[0] <= scan.limit
        lo, hi = (lo, mid) if fits else (mid + 1, hi)
    pick = alive[_first_within(cost[:hi], request.n, scan.limit)]
    stats = {"slots": len(slots), "candidates": examined, "step": int(scan.index[alive[hi - 1]])}
    return _found(_make_window(slots, scan, pick, t), "amp_paper", stats)


def _first_within(cost: np.ndarray, n: int, limit: float) -> np.ndarray:
    """Positions of the lexicographically first ``n`` entries of ``cost`` summing to ``<= limit``.

    Greedy in order: an entry is taken when it and the cheapest completion from the entries
    after it still fit; a completion exists (the caller checked the ``n`` cheapest fit). Once
    the next ``need`` entries in a row fit, they are the rest of the answer (no skip needed).
    """
    picks: list[int] = []
    spent, j = 0.0, 0
    for need in range(n, 0, -1):
        if spent + float(cost[j : j + need].sum()) <= limit:
            picks.extend(range(j, j + need))
            break
        rest = cost[j:]
        ok = np.flatnonzero(spent + rest + _suffix_cheapest(rest, need - 1) <= limit)
        j += int(ok[0])
        picks.append(j)
        spent += float(cost[j])
        j += 1
    return np.asarray(picks, dtype=np.int64)


def _suffix_cheapest(cost: np.ndarray, k: int) -> np.ndarray:
    """Per position ``j``, the sum of the ``k`` smallest of ``cost[j + 1:]`` (``inf``: fewer)."""
    out = np.full(cost.size, np.inf)
    if k == 0:
        out[:] = 0.0
        return out
    heap: list[float] = []  # the k smallest seen so far, negated (a max-heap)
    total = 0.0
    for j in range(cost.size - 1, -1, -1):
        if len(heap) == k:
            out[j] = total
        c = float(cost[j])
        if len(heap) < k:
            heapq.heappush(heap, -c)
            total += c
        elif c < -heap[0]:
            total += c + heapq.heappushpop(heap, -c)
    return out


@register_criterion("min_cost")
def min_cost(
    slots: SlotList,
    request: ResourceRequest,
    *,
    max_candidates: int | None = None,
    time_limit: float | None = None,
) -> Allocation:
    """minCost: the window of minimum total cost over the whole scheduling interval.

    At every candidate start the AEP scheme takes the ``n`` cheapest slots of the extended
    window; the cheapest of these windows over all starts is the global minimum (a slot's cost
    ``price_i * T_i`` does not depend on the start). Ties go to the earliest start.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.
    max_candidates : int, optional
        Candidate window starts to examine at most (``>= 1``), in scan order; the scan stops
        there with the cheapest window seen. ``None`` (default): the whole interval.
    time_limit : float, optional
        Wall-clock seconds (> 0) after which the scan stops likewise, checked between blocks
        of candidate starts (the first block, at most 64 starts, always runs). The budget of
        a fallback chain such as ``"min_cost>amp"`` (:mod:`vosim.allocators.fallback`)
        arrives through these two arguments.

    Returns
    -------
    Allocation
        ``criterion="min_cost"``; ``window=None`` with a reason if nothing fits the budget.
        With a limit, ``stats["examined"]`` (candidate starts scanned) and
        ``stats["truncated"]`` (``True`` when the limit stopped the scan before the last
        start: the window, if any, is the cheapest among those examined).

    Raises
    ------
    ValueError
        ``max_candidates < 1`` or ``time_limit <= 0``.

    Notes
    -----
    Exact; ``O(N)`` per candidate start, ``O(m * N)`` in all; ``O(m)`` for ``n = 1``
    without limits (one pass over the slots, :func:`_single`).

    References
    ----------
    AEP §2.2: "n slots with the minimum sum cost should be chosen ... at the end the window ...
    will be guaranteed to have overall minimum total allocation cost".
    """
    limited = max_candidates is not None or time_limit is not None
    if max_candidates is not None and not max_candidates >= 1:
        raise ValueError(f"max_candidates must be >= 1 or None, got {max_candidates!r}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be > 0 seconds or None, got {time_limit!r}")
    if request.n == 1 and not limited:
        return _single("min_cost", slots, request)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    return _min_cost_scan(slots, request, max_candidates, deadline)


def _min_cost_scan(
    slots: SlotList,
    request: ResourceRequest,
    max_candidates: int | None = None,
    deadline: float | None = None,
) -> Allocation:
    """The minCost block scan of candidate starts (any ``n``), up to the given limits."""
    limited = max_candidates is not None or deadline is not None
    scan = (_prepare if limited else _sweep_scan)(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, "min_cost", {"slots": len(slots)})
    if not limited and not reference():  # the compiled sweep: the same start
        k = _kernels()
        t, best = k.cheapest_start(
            scan.start, scan.latest, scan.cost, scan.weight, request.n, k.NO_ORDER, k.NO_ORDER
        )
        return _result("min_cost", slots, scan, request, float(t) if best <= scan.limit else np.inf)
    best, best_t, examined = np.inf, np.inf, 0
    for block in _blocks(scan, first=_MIN_BLOCK):
        if examined and deadline is not None and time.perf_counter() >= deadline:
            break
        sums = _cheapest_sums(block.cost, request.n)
        if max_candidates is not None:
            sums = sums[: max_candidates - examined]
        examined += sums.size
        j = int(np.argmin(sums))
        if sums[j] < best:
            best, best_t = float(sums[j]), block.t[j]
        if max_candidates is not None and examined >= max_candidates:
            break
    result = _result("min_cost", slots, scan, request, best_t if best <= scan.limit else np.inf)
    if not limited:
        return result
    total = int(scan.candidates.size)
    truncated = examined < total
    result.stats.update(examined=examined, truncated=truncated)
    if truncated and result.window is None:
        reason = (
            f"stopped after {examined} of {total} candidate starts with no window within "
            f"budget C={request.budget:g} among them"
        )
        return Allocation(None, reason, "min_cost", result.stats)
    return result


@register_criterion("min_runtime")
def min_runtime(slots: SlotList, request: ResourceRequest) -> Allocation:
    """minRuntime: the window of shortest runtime (its longest slot) within budget ``C``.

    At a fixed start ``t``, a window of runtime at most ``theta`` exists within budget exactly
    when the ``n`` cheapest slots of the extended window with ``T_i <= theta`` cost at most
    ``C``. So the shortest runtime over the interval is the least of the distinct ``T_i`` at
    which AMP, run on the slots with ``T_i <= theta`` only, finds a window, and AMP's first
    start there is the earliest start of that runtime (a window feasible at any start is
    feasible at the latest start of its own slots, which AMP visits). The sweep goes up the
    distinct ``T_i`` and stops at the first such ``theta``. The window takes the ``n``
    cheapest slots no longer than that runtime. Ties in runtime go to the earliest start.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="min_runtime"``; ``window=None`` with a reason if nothing fits the budget.

    Notes
    -----
    Exact; at most ``D`` AMP scans for ``D <= N`` distinct task times (``D <= 9`` on nodes
    of integer performance in [2, 10]), each over the slots short enough only and stopping
    at its first window: ``O(D * m * N)`` at worst, usually far less (a threshold sweep at
    every start, as this was before, cost ``O(m * N log D)`` always); ``O(m)`` for ``n = 1``
    (one pass over the slots, :func:`_single`).

    References
    ----------
    AEP §2.2 (minRuntime). The paper's own procedure, substituting the longest slot of the
    cheapest window by cheaper short ones, is :func:`min_runtime_substitution`; vosim's default
    is this exact threshold sweep instead, which is never worse.

    Examples
    --------
    Cheap slow nodes 0-1, a medium node 2 and a dear fast node 3 (task times 40, 20, 10):

    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 0.0, 100.0, 1.0, 2.0),
    ...                Slot(2, 0.0, 100.0, 2.0, 4.0), Slot(3, 0.0, 100.0, 6.0, 8.0)])
    >>> w = min_runtime(sl, ResourceRequest(n=2, volume=80.0, budget=100.0)).window
    >>> (w.nodes, w.runtime, w.cost)
    ((2, 3), 20.0, 100.0)
    >>> w = min_runtime(sl, ResourceRequest(n=2, volume=80.0, budget=99.0)).window
    >>> (w.nodes, w.runtime, w.cost)
    ((0, 2), 40.0, 80.0)
    """
    if request.n == 1:
        return _single("min_runtime", slots, request)
    return _min_runtime_scan(slots, request)


def _min_runtime_scan(slots: SlotList, request: ResourceRequest) -> Allocation:
    """The minRuntime block scan of candidate starts (any ``n``)."""
    scan = _sweep_scan(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, "min_runtime", {"slots": len(slots)})
    # The least runtime theta is the least task time at which AMP, on the slots no longer
    # than theta, finds a window; its first start is the earliest of that runtime.
    if not reference():  # compiled AMP sweeps over theta in turn: the same window
        return _min_runtime_sweeps(slots, scan, request)
    for theta in scan.durations.tolist():
        short = scan if theta == scan.durations[-1] else _prepare(slots, request, theta, scan)
        if isinstance(short, str):
            continue
        first = _first_feasible(short, request.n)
        if first is not None:
            return _result("min_runtime", slots, scan, request, first[0], theta)
    return _result("min_runtime", slots, scan, request, np.inf)


def _min_runtime_sweeps(slots: SlotList, scan: _Scan, request: ResourceRequest) -> Allocation:
    """:func:`_min_runtime_scan`'s window by compiled AMP sweeps over the slots up to theta."""
    level = np.searchsorted(scan.durations, scan.duration)
    kernel = _kernels()
    t, k = kernel.least_runtime(
        scan.start, scan.latest, scan.cost, scan.weight, level, scan.durations.size,
        request.n, scan.limit, kernel.NO_ORDER, kernel.NO_ORDER,
    )  # fmt: skip
    if k < 0:
        return _result("min_runtime", slots, scan, request, np.inf)
    return _result("min_runtime", slots, scan, request, float(t), float(scan.durations[k]))


@register_criterion("min_finish")
def min_finish(slots: SlotList, request: ResourceRequest) -> Allocation:
    """minFinish: the window of earliest finish time ``t + runtime`` within budget ``C``.

    At each candidate start ``t`` the shortest runtime within budget is found exactly as in
    :func:`min_runtime`; the earliest ``t + runtime`` over all starts is the optimum. The scan
    stops once a start cannot beat the best finish even with the shortest task time. Ties in
    finish time go to the earliest start.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="min_finish"``; ``window=None`` with a reason if nothing fits the budget.

    Notes
    -----
    Exact; ``O(N log D)`` per candidate start visited, ``O(m * N log D)`` at most; ``O(m)``
    for ``n = 1`` (one pass over the slots, :func:`_single`).

    References
    ----------
    AEP §2.2: "the minimum finish time for a window on this set of slots is
    (tStart + minRuntime)"; the paper's procedure is :func:`min_finish_substitution`.

    Examples
    --------
    A fast node frees up at 10; waiting for it finishes earlier than starting now:

    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 8.0)])
    >>> w = min_finish(sl, ResourceRequest(n=1, volume=80.0)).window
    >>> (w.start, w.finish)
    (10.0, 20.0)
    """
    if request.n == 1:
        return _single("min_finish", slots, request)
    return _min_finish_scan(slots, request)


def _min_finish_scan(slots: SlotList, request: ResourceRequest) -> Allocation:
    """The minFinish block scan of candidate starts (any ``n``)."""
    scan = _sweep_scan(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, "min_finish", {"slots": len(slots)})
    cells = scan.durations.size * (scan.start.size + 1)
    if cells <= _SWEEP_CELLS and not reference():  # the compiled sweep: the same start
        level = np.searchsorted(scan.durations, scan.duration)
        k = _kernels()
        t, runtime = k.earliest_finish(
            scan.start, scan.latest, scan.cost, scan.weight, level, scan.durations, request.n,
            scan.limit, k.NO_ORDER, k.NO_ORDER,
        )  # fmt: skip
        if np.isnan(t):
            return _result("min_finish", slots, scan, request, np.inf)
        return _result("min_finish", slots, scan, request, float(t), float(runtime))
    if scan.count is not None:  # the blocks read a row per slot
        scan = _prepare(slots, request)
    best, best_t, best_runtime = np.inf, np.inf, np.inf
    shortest = float(scan.durations[0])
    for block in _blocks(scan):
        if block.t[0] + shortest > best:
            break
        runtime = _min_runtime_rows(block, scan, request.n)
        finish = block.t + runtime
        j = int(np.argmin(finish))
        if finish[j] < best:
            best, best_t, best_runtime = float(finish[j]), block.t[j], float(runtime[j])
    return _result("min_finish", slots, scan, request, best_t, best_runtime)


# -- the paper's heuristics ------------------------------------------------------------------


def _threshold_windows(scan: _Scan, n: int) -> Iterator[tuple[np.ndarray, float, np.ndarray]]:
    """Windows of the runtime-threshold sweep, block by block.

    For every candidate start ``t`` and distinct task time ``theta``, the ``n`` cheapest slots
    of the extended window with ``T_i <= theta``, when they fit the budget. Yields
    ``(t, theta, picks)`` with ``t`` of shape (R,) and ``picks`` (R, n) positions in the scan.
    """
    for block in _blocks(scan, first=_MIN_BLOCK):
        first = _thresholds(block, n, scan.durations)
        for k, theta in enumerate(scan.durations):
            rows = np.flatnonzero(first <= k)
            if rows.size == 0:
                continue
            cost = np.where(block.duration <= theta, block.cost[rows], np.inf)
            # stable: which of equal-cost slots are taken, and their order in the sum, must
            # not depend on the CPU (np.argpartition's order does)
            pick = np.argsort(cost, axis=1, kind="stable")[:, :n]
            sums = np.take_along_axis(cost, pick, axis=1).sum(axis=1)
            ok = sums <= scan.limit
            if ok.any():
                yield block.t[rows[ok]], float(theta), block.cols[pick[ok]]


@register_criterion("min_proc_time")
def min_proc_time(slots: SlotList, request: ResourceRequest) -> Allocation:
    """Heuristic minProcTime: a window of small total processor time ``sum_i T_i``.

    The paper's §3.1 minProcTime is "simplified and does not guarantee an optimal result":
    at each step of the scan it evaluates one window instead of the best one. vosim's
    deterministic version evaluates, at each candidate start ``t``, the windows of the runtime
    threshold sweep (for each distinct task time ``theta``, the ``n`` cheapest slots no longer
    than ``theta``, when they fit the budget) and keeps the one of least processor time. The
    set includes the ``n`` shortest slots at ``t`` whenever they fit the budget, which is then
    the optimum at ``t``; otherwise the exact minimum would need a cardinality-constrained
    knapsack per start, which the paper does not attempt either. Ties go to the earliest start.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="min_proc_time"``; ``window=None`` with a reason if nothing fits.

    Notes
    -----
    Heuristic, never better than the optimum (tests compare with brute force). ``O(N D)`` per
    candidate start for ``D`` distinct task times, ``O(m * N * D)`` in all.

    References
    ----------
    AEP §3.1, item 5 (minProcTime) and Fig. 2b.
    """
    return _best_by_key(slots, request, "min_proc_time", None)


def window_criterion(
    key: Callable[[Window], float],
) -> Callable[[SlotList, ResourceRequest], Allocation]:
    """Make an AEP criterion that minimises ``key(window)``, a user function of a window.

    The returned function scans like :func:`min_proc_time`: at each candidate start it
    evaluates ``key`` on the windows of the runtime-threshold sweep (the ``n`` cheapest slots
    no longer than each distinct task time, within budget) and returns the window of least
    ``key`` (ties: the first found, i.e. the earliest start, then the shorter threshold). The
    result is exact for criteria that, at a fixed start, depend only on runtime and cost and
    grow with both (e.g. a weighted sum of finish time and cost); otherwise it is the AEP
    heuristic of the paper's general scheme. Register it by name with
    :func:`~vosim.allocators.base.register_criterion`.

    Parameters
    ----------
    key : callable
        ``key(window) -> float``, smaller is better.

    Returns
    -------
    callable
        ``criterion(slots, request) -> Allocation`` with ``criterion="custom"``.

    Notes
    -----
    Builds a :class:`Window` and calls ``key`` for every (start, threshold) pair within budget:
    ``O(m * D)`` Python calls, far slower than the vectorised built-in criteria.

    References
    ----------
    AEP §2.1: the general scheme picks "the best matching window alternative" by any criterion
    ``crW`` at each step of the scan.

    Examples
    --------
    >>> from vosim.allocators import register_criterion, allocate_window
    >>> late_and_dear = window_criterion(lambda w: w.finish + 0.1 * w.cost)
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 8.0)])
    >>> w = late_and_dear(sl, ResourceRequest(n=1, volume=80.0)).window
    >>> (w.start, w.finish, w.cost)
    (10.0, 20.0, 10.0)
    """

    def criterion(slots: SlotList, request: ResourceRequest) -> Allocation:
        return _best_by_key(slots, request, "custom", key)

    criterion.__doc__ = f"AEP criterion minimising {getattr(key, '__name__', 'key')}(window)."
    return criterion


def _best_by_key(
    slots: SlotList,
    request: ResourceRequest,
    name: str,
    key: Callable[[Window], float] | None,
) -> Allocation:
    """Best window of the threshold sweep by ``key`` (``None``: processor time, vectorised)."""
    scan = _prepare(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, name, {"slots": len(slots)})
    # Compared as (value, start, threshold): ties go to the earliest start, then the lower
    # threshold, whatever order the block yields them in.
    best, best_window = (np.inf, np.inf, np.inf), None
    for t, theta, picks in _threshold_windows(scan, request.n):
        if key is None:
            values = scan.duration[picks].sum(axis=1)
            j = int(np.lexsort((t, values))[0])
            if (values[j], t[j], theta) < best:
                best = (float(values[j]), float(t[j]), theta)
                best_window = _make_window(slots, scan, picks[j], t[j])
            continue
        for tj, pick in zip(t, picks, strict=True):
            window = _make_window(slots, scan, pick, tj)
            value = (float(key(window)), float(tj), theta)
            if value < best:
                best, best_window = value, window
    stats = {"slots": len(slots), "candidates": int(scan.candidates.size)}
    if best_window is None:
        return Allocation(None, _no_window(request), name, stats)
    return Allocation(best_window, "", name, stats, value=best[0])


def _substitution(scan: _Scan, n: int, t: float) -> np.ndarray | None:
    """The paper's substitution procedure at start ``t`` (AEP §2.2); positions or ``None``.

    Start from the ``n`` cheapest slots of the extended window; go through the other slots in
    order of cost and replace the longest slot of the window by the current one when it is
    shorter and the window stays within budget.
    """
    cols = np.flatnonzero((scan.start <= t) & (scan.latest >= t))
    if cols.size < n:
        return None
    order = cols[np.lexsort((scan.duration[cols], scan.cost[cols]))]
    window = list(order[:n])
    cost = float(scan.cost[window].sum())
    if cost > scan.limit:
        return None
    durations = scan.duration
    for j in order[n:]:
        longest = max(range(n), key=lambda k: durations[window[k]])
        out = window[longest]
        # The paper's pseudocode tests "resultWindow.cost + shortSlot.cost < S"; the cost
        # after the swap (the long slot leaves) is what the budget bounds, so that is tested.
        if durations[j] < durations[out] and cost - scan.cost[out] + scan.cost[j] <= scan.limit:
            window[longest] = j
            cost += scan.cost[j] - scan.cost[out]
    return np.asarray(window)


def _substitution_search(
    slots: SlotList, request: ResourceRequest, name: str, finish: bool
) -> Allocation:
    scan = _prepare(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, name, {"slots": len(slots)})
    best, best_window = np.inf, None
    for t in scan.candidates:
        pick = _substitution(scan, request.n, t)
        if pick is None:
            continue
        runtime = float(scan.duration[pick].max())
        value = t + runtime if finish else runtime
        if value < best:
            best, best_window = value, _make_window(slots, scan, pick, t)
    stats = {"slots": len(slots), "candidates": int(scan.candidates.size)}
    if best_window is None:
        return Allocation(None, _no_window(request), name, stats)
    return Allocation(best_window, "", name, stats, value=best)


@register_criterion("min_runtime_substitution")
def min_runtime_substitution(slots: SlotList, request: ResourceRequest) -> Allocation:
    """Heuristic minRuntime: the paper's substitution procedure (kept for fidelity).

    At each candidate start: order the extended window by cost, take the ``n`` cheapest slots,
    then for each further slot in order of cost, replace the window's longest slot by it when
    it is shorter and the budget still holds. The shortest window over all starts wins (ties:
    the earliest start).

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="min_runtime_substitution"``.

    Notes
    -----
    The paper's heuristic: vosim does not rely on it being optimal. :func:`min_runtime` is
    exact (tested against brute force) and this procedure is tested never to beat it; in
    vosim's random tests the two always reached the same runtime. The paper's test
    "resultWindow.cost + shortSlot.cost < S" is read as the cost after the swap (the long
    slot leaves the window). ``O(N log N + N n)`` Python work per candidate start, far
    slower than the vectorised :func:`min_runtime`.

    References
    ----------
    AEP §2.2, the minRuntime pseudocode.
    """
    return _substitution_search(slots, request, "min_runtime_substitution", finish=False)


@register_criterion("min_finish_substitution")
def min_finish_substitution(slots: SlotList, request: ResourceRequest) -> Allocation:
    """Heuristic minFinish: the paper's substitution procedure (kept for fidelity).

    The earliest ``t + runtime`` where the runtime at each start ``t`` comes from the
    substitution procedure of :func:`min_runtime_substitution`.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="min_finish_substitution"``; never earlier than :func:`min_finish`.

    References
    ----------
    AEP §2.2: "the minimum finish time ... is (tStart + minRuntime)".
    """
    return _substitution_search(slots, request, "min_finish_substitution", finish=True)


def _kernels() -> ModuleType:
    """The compiled sweeps, imported at the first search (numba loads then)."""
    return kernels("vosim.allocators.aep_kernels")
