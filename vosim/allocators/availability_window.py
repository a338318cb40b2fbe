"""The window of maximum availability ``P_a^w`` within budget over a slot list (time scan)."""

from __future__ import annotations

import math
from collections.abc import Callable
from types import ModuleType

import numpy as np

from vosim.allocators.timescan import time_scan
from vosim.core.code_path import kernels
from vosim.core.slots import Slot, SlotList
from vosim.core.windows import Allocation, ResourceRequest, Window, distinct

__all__ = ["max_availability_window", "COST_RESOLUTION"]

#: Budget resolution of the knapsack: costs are scaled so the budget is this many units.
COST_RESOLUTION = 1000


def _eligibility(
    slots: SlotList,
    duration: np.ndarray,
    candidates: np.ndarray,
    size: int,
    usable: np.ndarray,
    n: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Usable nodes per start (K,); the starts with ``n`` of them (k,); which are, (k, size).

    Node i is usable at start ``t_k`` when ``usable[i]`` and one of its slots covers
    ``[t_k, t_k + T_i]``. A node's slots are disjoint and each holds its own start among the
    candidates, so their ranges of candidate starts are disjoint and non-empty; the compiled
    kernel counts them and fills the rows of the kept starts (time runs down the rows, the
    layout the time scan reads: a row per start).
    """
    latest = slots.end - duration[slots.node]
    ok = (latest >= slots.start) & usable[slots.node]
    first = np.searchsorted(candidates, slots.start[ok], side="left")
    stop = np.searchsorted(candidates, latest[ok], side="right")
    return _kernels().eligibility(first, stop, slots.node[ok], candidates.size, size, n)


def _price(slots: SlotList, size: int) -> np.ndarray:
    """Each node's price per time unit, shape (size,): its dearest slot's (a conservative cost)."""
    price = np.zeros(size)
    np.maximum.at(price, slots.node, slots.price)
    return price


def _kernels() -> ModuleType:
    """The compiled kernel, imported at the first search (numba loads then)."""
    return kernels("vosim.allocators.availability_kernels")


def max_availability_window(
    slots: SlotList,
    request: ResourceRequest,
    p_avail: Callable[[float, np.ndarray], np.ndarray],
    method: str = "knapsack_p",
    *,
    resolution: int = COST_RESOLUTION,
) -> Allocation:
    """The window maximising ``P_a^w`` (eq. 2) within budget ``C``, scanning the slot starts.

    For every candidate start ``t_k`` (the slot starts, as in the AEP scan) a node is usable
    when one of its slots covers ``[t_k, t_k + T_i]``; its availability is
    ``p_avail(T_i, starts)[i, k]`` and its cost ``price_i * T_i`` (the node's dearest slot price
    if its slots differ). The time scan then picks the start and the ``n`` nodes of maximum
    product availability with the named method (``"knapsack_p"`` exact, ``"greedy_united"``,
    ... see :func:`vosim.allocators.methods`).

    Parameters
    ----------
    slots : SlotList
        Free slots; node ids index the rows of ``p_avail``'s result.
    request : ResourceRequest
        ``n``, volume ``V`` (or time ``T``), budget ``C``.
    p_avail : callable ``(duration, starts, rows) -> (r, K)``
        Availability of the nodes ``rows`` (int array, shape (r,)) for a reservation of
        ``duration`` model time units starting at each of ``starts`` (shape (K,)), e.g.
        :meth:`~vosim.market.utilization_schedule.UtilizationSchedule.p_avail`. Asked once per
        distinct duration, for the nodes of that duration usable at some start only (on nodes
        of many performances, the whole matrix per duration was most of the search's cost).
    method : str
        Static availability method used at each start.
    resolution : int
        The budget is scaled to this many integer units and costs are rounded *up*, so every
        window respects ``C``; the choice is optimal up to that resolution.

    Returns
    -------
    Allocation
        ``criterion="max_availability"``; ``stats["probability"]`` is the window's ``P_a^w``.
        ``window=None`` with a reason when no ``n`` usable nodes within budget have a
        positive availability; ``stats["geometric"]`` is ``True`` when that is for want of
        slots alone (no ``n`` slots long enough run together), before any ``P_a`` or price is
        read, so the same slot list fails the same way at any time.

    References
    ----------
    ICCS 2021 §3.2 (dynamic time scan of ``P_a^w(t)``), ICCS 2023 eq. (2); AEP §2.1 for the
    candidate starts.
    """
    size = int(slots.node.max()) + 1 if len(slots) else 0
    if size == 0:
        return Allocation(None, "no free slot", "max_availability", {"geometric": True})
    perf = np.ones(size)
    perf[slots.node] = slots.performance
    duration = request.durations(perf)
    candidates = distinct(slots.start, ordered=True)  # a slot list is ordered by start
    fast_enough = perf >= request.min_performance
    count, keep, eligible = _eligibility(
        slots, duration, candidates, size, fast_enough, request.n
    )  # eligible: (k, size), a row per kept start
    if not count.any():
        return Allocation(None, "no slot long enough", "max_availability", {"geometric": True})
    if keep.size == 0:
        reason = f"no {request.n} concurrent slots long enough in the interval"
        return Allocation(None, reason, "max_availability", {"geometric": True})
    price = _price(slots, size)
    candidates = candidates[keep]
    prob = np.zeros(eligible.shape)  # (k, size): a row per kept start
    usable = eligible.any(axis=0)  # nodes with a slot at some kept start
    for d in distinct(duration[usable]):
        rows = np.flatnonzero(usable & (duration == d))
        prob[:, rows] = np.asarray(p_avail(float(d), candidates, rows)).T
    np.clip(prob, 0.0, 1.0, out=prob)
    np.copyto(prob, 0.0, where=~eligible)
    prob = prob.T  # (size, K), the time scan's shape; a view
    cost = price * duration
    if math.isinf(request.budget):
        int_cost, budget = np.zeros(size, dtype=np.int64), 0
    elif request.budget <= 0:
        int_cost = np.where(cost > 0, resolution + 1, 0).astype(np.int64)
        budget = 0
    else:
        with np.errstate(over="ignore"):
            scaled = np.ceil(cost / request.budget * resolution - 1e-9)
        # Costs beyond the budget are capped just above it (they can never be chosen).
        int_cost = np.minimum(scaled, resolution + 1).astype(np.int64)
        budget = resolution
    res = time_scan(prob, np.maximum(int_cost, 0), request.n, budget, method=method, fast=True)
    stats = {"candidates": int(candidates.size), "evaluations": res.stats.get("evaluations")}
    if res.time_index is None or res.time_index < 0 or not res.probability > 0:
        reason = f"no {request.n} available nodes within budget C={request.budget:g}"
        return Allocation(None, reason, "max_availability", stats)
    t = float(candidates[res.time_index])
    chosen = tuple(
        Slot(int(i), t, t + float(duration[i]), float(price[i]), float(perf[i]))
        for i in np.sort(res.selected)
    )
    window = Window(
        slots=chosen,
        start=t,
        runtime=max(s.length for s in chosen),
        cost=float(sum(s.price * s.length for s in chosen)),
    )
    stats["probability"] = float(res.probability)
    return Allocation(window, "", "max_availability", stats, value=float(res.probability))
