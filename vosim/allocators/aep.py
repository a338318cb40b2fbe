"""The AEP window search and its exact criteria AMP (earliest start) and minCost."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from vosim.allocators.base import Allocation, ResourceRequest, Window, register_criterion
from vosim.market.slots import Slot, SlotList

__all__ = ["amp", "min_cost"]

#: Relative tolerance of the budget test, against float rounding of summed costs.
BUDGET_RTOL = 1e-9
#: Cells of the (candidates x slots) matrix evaluated at once; bounds memory to ~16 MB.
_CHUNK_CELLS = 2_000_000


@dataclass(frozen=True, slots=True)
class _Scan:
    """Slots usable by a request, ordered by start, and the candidate window starts."""

    index: np.ndarray  # (m',) positions in the slot list
    start: np.ndarray  # (m',) slot start
    latest: np.ndarray  # (m',) latest window start the slot still covers: end - T_i
    cost: np.ndarray  # (m',) price_i * T_i
    duration: np.ndarray  # (m',) T_i
    candidates: np.ndarray  # (K,) distinct slot starts, increasing


def _prepare(slots: SlotList, request: ResourceRequest) -> _Scan | str:
    duration = request.durations(slots.performance)
    latest = slots.end - duration
    ok = (slots.performance >= request.min_performance) & (latest >= slots.start)
    index = np.flatnonzero(ok)
    seen = np.zeros(int(slots.node.max()) + 1 if len(slots) else 0, dtype=bool)
    seen[slots.node[index]] = True
    usable = int(np.count_nonzero(seen))
    if usable < request.n:
        return (
            f"only {usable} node(s) have a slot long enough for the request (n={request.n} needed)"
        )
    # The n cheapest usable slots (distinct nodes or not) bound every window's cost from below.
    cost = slots.price[index] * duration[index]
    floor = float(np.partition(cost, request.n - 1)[: request.n].sum())
    if floor > request.budget * (1 + BUDGET_RTOL):
        return (
            f"budget C={request.budget:g} is below the cheapest {request.n} slot(s), cost {floor:g}"
        )
    start = slots.start[index]
    return _Scan(index, start, latest[index], cost, duration[index], np.unique(start))


def _row_sums(scan: _Scan, n: int, k0: int, k1: int) -> np.ndarray:
    """Sum of the ``n`` cheapest eligible slot costs at candidate starts ``k0 .. k1-1``.

    A slot is eligible at start ``t`` when ``start <= t <= end - T_i``; slots of one node are
    disjoint, so eligible slots lie on distinct nodes. Rows with fewer than ``n`` get ``inf``.
    """
    t = scan.candidates[k0:k1]
    hi = int(np.searchsorted(scan.start, t[-1], side="right"))
    cols = np.flatnonzero(scan.latest[:hi] >= t[0])
    if cols.size < n:
        return np.full(t.size, np.inf)
    eligible = (scan.start[cols] <= t[:, None]) & (scan.latest[cols] >= t[:, None])
    m = np.where(eligible, scan.cost[cols], np.inf)
    return np.partition(m, n - 1, axis=1)[:, :n].sum(axis=1)


def _chunks(scan: _Scan, first: int = 8) -> Iterator[tuple[int, int]]:
    """Candidate ranges growing geometrically (so AMP usually stops in the first one)."""
    k, size, total = 0, first, scan.candidates.size
    cap = max(1, _CHUNK_CELLS // max(1, scan.start.size))
    while k < total:
        end = min(total, k + size)
        yield k, end
        k, size = end, min(cap, size * 4)


def _window_at(slots: SlotList, scan: _Scan, request: ResourceRequest, t: float) -> Window:
    """The n cheapest eligible slots at start ``t`` (ties broken by node id)."""
    cols = np.flatnonzero((scan.start <= t) & (scan.latest >= t))
    nodes = slots.node[scan.index[cols]]
    pick = cols[np.lexsort((nodes, scan.cost[cols]))[: request.n]]
    chosen = []
    for j in pick:
        i = int(scan.index[j])
        chosen.append(
            Slot(
                int(slots.node[i]),
                float(t),
                float(t + scan.duration[j]),
                float(slots.price[i]),
                float(slots.performance[i]),
            )
        )
    chosen.sort(key=lambda s: s.node)
    return Window(
        slots=tuple(chosen),
        start=float(t),
        runtime=float(scan.duration[pick].max()),
        cost=float(scan.cost[pick].sum()),
    )


@register_criterion("amp")
def amp(slots: SlotList, request: ResourceRequest) -> Allocation:
    """AMP: the window with the earliest start whose cost fits the budget ``C``.

    The AEP scan visits slot starts in increasing order; the first start ``t`` at which the ``n``
    cheapest slots covering ``[t, t + T_i]`` cost at most ``C`` is the earliest feasible start
    (the set of usable slots only changes at slot starts, so no window starts earlier). The
    window takes those ``n`` cheapest slots.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="amp"``; ``window=None`` with a reason if no start is feasible.

    Notes
    -----
    Exact. Vectorised over candidate starts in geometrically growing blocks: the usual case
    (a window near the interval start) costs ``O(m)``; the worst case ``O(K * m)`` with
    ``K <= m`` distinct starts, against the paper's ``O(m)`` scan that keeps a running window.

    References
    ----------
    AEP §2.2: "the first suitable window will have the earliest possible start time ... finding
    a set of the first n parallel slots the total cost of which does not exceed S" (AMP).
    """
    scan = _prepare(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, "amp", {"slots": len(slots)})
    limit = request.budget * (1 + BUDGET_RTOL)
    for k0, k1 in _chunks(scan):
        sums = _row_sums(scan, request.n, k0, k1)
        hit = np.flatnonzero(np.isfinite(sums) & (sums <= limit))
        if hit.size:
            t = scan.candidates[k0 + int(hit[0])]
            stats = {"slots": len(slots), "candidates": k0 + int(hit[0]) + 1}
            return Allocation(_window_at(slots, scan, request, t), "", "amp", stats)
    return Allocation(
        None,
        f"no {request.n} concurrent slots within budget C={request.budget:g} in the interval",
        "amp",
        {"slots": len(slots), "candidates": int(scan.candidates.size)},
    )


@register_criterion("min_cost")
def min_cost(slots: SlotList, request: ResourceRequest) -> Allocation:
    """minCost: the window of minimum total cost over the whole scheduling interval.

    At every candidate start the AEP scheme takes the ``n`` cheapest usable slots; the cheapest
    of these windows over all starts is the global minimum (a slot's cost ``price_i * T_i``
    does not depend on the start). Ties go to the earliest start.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.

    Returns
    -------
    Allocation
        ``criterion="min_cost"``; ``window=None`` with a reason if nothing fits the budget.

    Notes
    -----
    Exact; ``O(K * m)`` with ``K`` distinct slot starts, vectorised in blocks.

    References
    ----------
    AEP §2.2: "n slots with the minimum sum cost should be chosen ... at the end the window ...
    will be guaranteed to have overall minimum total allocation cost".
    """
    scan = _prepare(slots, request)
    if isinstance(scan, str):
        return Allocation(None, scan, "min_cost", {"slots": len(slots)})
    best, best_k = np.inf, -1
    for k0, k1 in _chunks(scan, first=64):
        sums = _row_sums(scan, request.n, k0, k1)
        j = int(np.argmin(sums))
        if sums[j] < best:
            best, best_k = float(sums[j]), k0 + j
    stats = {"slots": len(slots), "candidates": int(scan.candidates.size)}
    if not np.isfinite(best) or best > request.budget * (1 + BUDGET_RTOL):
        reason = (
            f"no {request.n} concurrent slots within budget C={request.budget:g} in the interval"
        )
        return Allocation(None, reason, "min_cost", stats)
    window = _window_at(slots, scan, request, scan.candidates[best_k])
    return Allocation(window, "", "min_cost", stats)
