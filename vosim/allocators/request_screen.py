"""Screening a batch of resource requests against a slot list with O(1)-per-request bounds."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from vosim.allocators.aep import BUDGET_RTOL
from vosim.core.code_path import kernels, reference
from vosim.core.slots import SlotList
from vosim.core.windows import ResourceRequest

__all__ = [
    "screen_requests",
    "screen_batch",
    "batch_screen",
    "FITS_MAYBE",
    "TOO_FEW_LONG_SLOTS",
    "BUDGET_TOO_LOW",
    "ALLOCATOR_FAILED",
    "SCREEN_REASONS",
    "least_cost_per_work",
    "unservable_reason",
]

#: Screening codes: the request may fit (run the allocator), or a necessary condition fails.
FITS_MAYBE, TOO_FEW_LONG_SLOTS, BUDGET_TOO_LOW = 0, 1, 2
#: Code of a request the allocator searched and found no window for (its reason is the
#: allocator's).
ALLOCATOR_FAILED = 3
#: Why a request screened out cannot be served (by screening code).
SCREEN_REASONS = {
    TOO_FEW_LONG_SLOTS: "fewer than n nodes have a free slot long enough in the interval",
    BUDGET_TOO_LOW: "budget C below n tasks on the cheapest node with a slot long enough",
}


def screen_requests(
    slots: SlotList, n: np.ndarray, volume: np.ndarray, budget: np.ndarray
) -> np.ndarray:
    """Rule out requests that no window of ``slots`` can serve, vectorised over a batch.

    Two necessary conditions for a window of ``n`` slots for tasks of volume ``V`` within
    budget ``C``: (1) at least ``n`` nodes have a free slot of work capacity
    ``length * performance >= V``; (2) ``n * V * min(price / performance) <= C`` over those
    nodes (every task costs at least ``V`` times the cheapest cost per unit of work). Slots only
    shrink when windows are cut out, so a request ruled out stays ruled out for the rest of a
    cycle.

    Parameters
    ----------
    slots : SlotList
        Free slots (``m`` of them on ``N`` nodes).
    n : array of int, shape (k,)
        Node counts of the requests.
    volume : array of float, shape (k,)
        Volumes ``V`` (performance x time units).
    budget : array of float, shape (k,)
        Budgets ``C`` (cost units).

    Returns
    -------
    numpy.ndarray of int8, shape (k,)
        :data:`FITS_MAYBE`, :data:`TOO_FEW_LONG_SLOTS` or :data:`BUDGET_TOO_LOW` per request.

    Notes
    -----
    ``O(m + N log N + k log N)``; the allocator then runs only for requests that may fit.
    Compiled (:mod:`vosim.allocators.screen_kernels`); the numpy below runs under
    ``VOSIM_REFERENCE=1``.

    Examples
    --------
    >>> from vosim.core import Slot
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 0.0, 10.0, 1.0, 10.0)])
    >>> screen_requests(sl, np.array([1, 2, 1]), np.array([150.0, 150.0, 150.0]),
    ...                 np.array([1e9, 1e9, 10.0])).tolist()
    [0, 1, 2]
    """
    n = np.asarray(n, dtype=np.int64)
    volume = np.asarray(volume, dtype=float)
    budget = np.asarray(budget, dtype=float)
    if len(slots) == 0:
        return np.full(n.shape, TOO_FEW_LONG_SLOTS, dtype=np.int8)
    if not reference():  # compiled: the same codes, comparison for comparison
        columns = (slots.node, slots.start, slots.end, slots.price, slots.performance)
        return kernels("vosim.allocators.screen_kernels").screen_codes(
            *columns, n, volume, budget, BUDGET_RTOL
        )
    size = int(slots.node.max()) + 1
    longest = np.zeros(size)
    np.maximum.at(longest, slots.node, slots.end - slots.start)
    perf = np.ones(size)
    price = np.full(size, np.inf)
    perf[slots.node] = slots.performance
    price[slots.node] = slots.price
    capacity = longest * perf
    order = np.argsort(-capacity, kind="stable")
    capacity = capacity[order]
    cheapest = np.minimum.accumulate(price[order] / perf[order])  # min cost per work, prefix
    # (1) the n-th largest node capacity must hold V: one gather per request.
    nth = np.minimum(n, capacity.size) - 1
    short = (n > capacity.size) | (capacity[np.maximum(nth, 0)] < volume)
    code = np.where(short, TOO_FEW_LONG_SLOTS, FITS_MAYBE).astype(np.int8)
    # (2) only for the requests left: n V times the least cost per work of the usable nodes.
    rest = np.flatnonzero(~short)
    usable = np.searchsorted(-capacity, -volume[rest], side="right")  # nodes with capacity >= V
    floor = n[rest] * volume[rest] * cheapest[usable - 1]
    code[rest[floor > budget[rest] * (1 + BUDGET_RTOL)]] = BUDGET_TOO_LOW
    return code


def batch_screen(requests: Sequence[ResourceRequest]) -> Callable[[SlotList], np.ndarray]:
    """A function ``slots -> codes`` screening ``requests`` against any slot list.

    The request columns are gathered once, so screening the same batch after every cut costs
    only :func:`screen_requests`. Requests given by reservation time ``T`` rather than volume
    ``V`` are not screened (code :data:`FITS_MAYBE`): the bounds above are in units of work.
    ``min_performance`` is ignored, which only weakens the bounds, so a request screened out
    still has no window. Codes have shape ``(k,)``, int8.
    """
    by_volume = np.array([r.volume is not None for r in requests], dtype=bool)
    picked = [r for r in requests if r.volume is not None]
    n = np.array([r.n for r in picked], dtype=np.int64)
    volume = np.array([r.volume for r in picked], dtype=float)
    budget = np.array([r.budget for r in picked], dtype=float)

    def screen(slots: SlotList) -> np.ndarray:
        code = np.full(len(requests), FITS_MAYBE, dtype=np.int8)
        if picked:
            code[by_volume] = screen_requests(slots, n, volume, budget)
        return code

    return screen


def screen_batch(slots: SlotList, requests: Sequence[ResourceRequest]) -> np.ndarray:
    """:func:`screen_requests` for :class:`ResourceRequest` objects (see :func:`batch_screen`)."""
    return batch_screen(requests)(slots)


def least_cost_per_work(price: np.ndarray, performance: np.ndarray) -> list[float]:
    """The cheapest ``n`` nodes' summed cost per unit of work, for every ``n``.

    Parameters
    ----------
    price, performance : numpy.ndarray of float, shape (N,)
        Every node's price (cost per time unit) and performance.

    Returns
    -------
    list of float, length N
        Entry ``n - 1``: the sum of the ``n`` least ``price / performance``; a window of ``n``
        tasks of volume ``V`` costs at least ``V`` times it (AEP §2.1: a slot's cost is its
        price times its length ``V / p``).
    """
    return np.cumsum(np.sort(price / performance)).tolist()


def unservable_reason(
    n: int,
    volume: float,
    budget: float,
    price: np.ndarray,
    performance: np.ndarray,
    least: list[float] | None = None,
) -> str:
    """Why a resource request can never be served by a domain of nodes ("" if it may be).

    The domain has fewer than ``n`` nodes, or the budget ``C`` is below the cheapest window it
    could ever offer (``n`` tasks of volume ``V`` on the ``n`` cheapest nodes per unit of work).

    Parameters
    ----------
    n, volume, budget : int, float, float
        The request: node count, volume ``V`` (performance x time units) and budget ``C``.
    price, performance : numpy.ndarray of float, shape (N,)
        Every node's price (cost per time unit) and performance.
    least : list of float, optional
        :func:`least_cost_per_work` of these nodes, when prices are fixed (O(1) per request).

    References
    ----------
    AEP §2.1 (a window's cost under the budget ``C``).
    """
    if price.size < n:
        return f"needs {n} nodes, more than the domain's {price.size}"
    if least is not None:  # equal to the sort below up to rounding
        floor = volume * least[n - 1]
    else:
        floor = float(np.sort(price * (volume / performance))[:n].sum())
    if floor > budget * (1 + 1e-9):
        return f"budget C={budget:.6g} below the cheapest possible window ({floor:.6g})"
    return ""
