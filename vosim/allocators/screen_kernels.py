"""The compiled form of :func:`vosim.allocators.request_screen.screen_requests` (numba).

A separate module so that importing vosim does not import numba (~0.5 s, ~100 MB): the first
screen of a process loads it. The codes are those of the numpy function, comparison for
comparison: each node's longest free slot times its performance is its capacity, a request is
short when fewer than ``n`` nodes have a capacity of at least ``V`` (the ``n``-th largest
capacity below ``V``), and else too poor when ``n V`` times the least ``price / performance``
of those nodes exceeds ``C (1 + rtol)``; the products and quotients are the same floats, and a
minimum does not depend on the order it is taken in. The requests are sorted by volume
instead of the nodes by capacity: each node finds by a binary search how many requests it can
hold a task of, and suffix sums and minima over those counts give each request its usable
nodes and their least ``price / performance``: ``O(m + N log k + k log k)`` for ``m`` slots on
``N`` nodes and ``k`` requests (the numpy function sorts the nodes, ``O(m + N log N)``).
``VOSIM_REFERENCE=1`` runs the numpy function instead (the plain path, the oracle of the tests).

References
----------
AEP §2.1: a window is ``n`` slots that each hold a task of volume ``V`` (``length x
performance >= V``), its cost the sum of ``price x V / performance`` within the budget ``C``.
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry, f8

__all__ = ["screen_codes"]

_jit = numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run

_FITS_MAYBE, _TOO_FEW_LONG_SLOTS, _BUDGET_TOO_LOW = 0, 1, 2


@entry((I8, F8, F8, F8, F8, I8, F8, F8, f8))
@_jit
def screen_codes(node, start, end, price, perf, n, volume, budget, rtol):  # pragma: no cover
    """Screening codes of ``k`` requests against ``m`` slots (int8, shape (k,)).

    ``node, start, end, price, perf``: the slots' columns, shape (m,), ``m >= 1`` (times in
    model time units, price in cost units per time unit); ``n`` (int64), ``volume``
    (performance x time units), ``budget`` (cost units): the requests, shape (k,); ``rtol``:
    the budget's relative tolerance. Raises nothing (compiled). Source: AEP §2.1 (a slot
    holds a task of volume ``V`` when ``length x performance >= V``; a window's cost).
    """
    size = node.max() + 1
    longest = np.zeros(size)
    node_perf = np.ones(size)
    node_price = np.full(size, np.inf)
    for r in range(node.size):
        k = node[r]
        longest[k] = max(longest[k], end[r] - start[r])
        node_perf[k] = perf[r]
        node_price[k] = price[r]
    capacity = longest * node_perf
    ratio = node_price / node_perf
    # requests by volume: node j holds a task of each of the first p_j (V <= capacity_j)
    k_req = n.size
    by_volume = np.argsort(volume, kind="mergesort")
    sorted_volume = volume[by_volume]
    usable = np.zeros(k_req + 1, dtype=np.int64)  # nodes with p_j == p, then a suffix sum
    cheapest = np.full(k_req + 1, np.inf)  # least ratio of those nodes, then a suffix min
    for j in range(size):
        p = np.searchsorted(sorted_volume, capacity[j], side="right")
        usable[p] += 1
        cheapest[p] = min(cheapest[p], ratio[j])
    for p in range(k_req - 1, -1, -1):
        usable[p] += usable[p + 1]
        cheapest[p] = min(cheapest[p], cheapest[p + 1])
    code = np.zeros(k_req, dtype=np.int8)
    for q in range(k_req):
        i = by_volume[q]  # nodes with p_j > q hold its task
        need = max(min(n[i], size), 1)
        if n[i] > size or usable[q + 1] < need:
            code[i] = _TOO_FEW_LONG_SLOTS
        elif n[i] * volume[i] * cheapest[q + 1] > budget[i] * (1 + rtol):
            code[i] = _BUDGET_TOO_LOW
    return code
