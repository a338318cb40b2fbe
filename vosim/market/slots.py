"""Building the free slot list of a scheduling interval from the nodes' busy intervals.

:class:`~vosim.core.slots.Slot` and :class:`~vosim.core.slots.SlotList` are imported from
:mod:`vosim.core` (below both the market and the allocators), the one place that exports them.
"""

from __future__ import annotations

import numpy as np

from vosim.core.slots import SlotList, lexsort_order
from vosim.errors import SlotError

__all__ = ["free_slots"]


def free_slots(
    nodes: np.ndarray,
    price: np.ndarray,
    performance: np.ndarray,
    busy_node: np.ndarray,
    busy_start: np.ndarray,
    busy_end: np.ndarray,
    start: float,
    end: float,
) -> SlotList:
    """Build the slot list of the interval ``[start, end)`` from busy intervals, vectorised.

    Parameters
    ----------
    nodes : array of int, shape (k,)
        Ids of the nodes to cover; a node with no busy interval gets one slot ``[start, end)``.
    price, performance : arrays of float indexed by node id
        Price per time unit and performance of each node (length > max node id).
    busy_node, busy_start, busy_end : arrays, shape (r,)
        Busy intervals ``[busy_start, busy_end)``; disjoint on each node, in any order.
        Intervals of nodes not in ``nodes`` are ignored.
    start, end : float
        The scheduling interval, model time units.

    Returns
    -------
    SlotList
        The maximal free spans of each node inside ``[start, end)``.

    Raises
    ------
    SlotError
        ``end <= start``.

    Notes
    -----
    ``O(r log r + k)`` numpy operations, no Python loop over intervals.

    Examples
    --------
    >>> sl = free_slots(np.array([0, 1]), np.ones(2), np.full(2, 2.0),
    ...                 np.array([0]), np.array([10.0]), np.array([20.0]), 0.0, 100.0)
    >>> [(s.node, s.start, s.end) for s in sl]
    [(0, 0.0, 10.0), (1, 0.0, 100.0), (0, 20.0, 100.0)]
    """
    if not end > start:
        raise SlotError(f"scheduling interval must have end > start, got [{start}, {end})")
    nodes = np.asarray(nodes, dtype=np.int64)
    covered = np.zeros(max(int(nodes.max(initial=-1)), int(busy_node.max(initial=-1))) + 1, bool)
    covered[nodes] = True
    m = (busy_end > start) & (busy_start < end) & covered[busy_node]
    node = busy_node[m]
    a = np.maximum(busy_start[m], start)
    b = np.minimum(busy_end[m], end)
    order = lexsort_order(node, a)
    node, a, b = node[order], a[order], b[order]
    # Interval i is preceded by interval i-1 on the same node, else by the interval start.
    same = np.zeros(node.size, dtype=bool)
    same[1:] = node[1:] == node[:-1]
    prev_end = np.full(node.size, float(start))
    prev_end[1:] = np.where(same[1:], b[:-1], start)
    last = np.ones(node.size, dtype=bool)
    last[:-1] = ~same[1:]
    busy_here = np.zeros(covered.size, dtype=bool)
    busy_here[node] = True
    idle = nodes[~busy_here[nodes]]
    gap_node = np.concatenate([node, node[last], idle])
    gap_s = np.concatenate([prev_end, b[last], np.full(idle.size, float(start))])
    gap_e = np.concatenate(
        [a, np.full(int(last.sum()), float(end)), np.full(idle.size, float(end))]
    )
    keep = gap_e > gap_s
    gap_node = gap_node[keep]
    return SlotList.from_arrays(
        gap_node,
        gap_s[keep],
        gap_e[keep],
        np.asarray(price, dtype=float)[gap_node],
        np.asarray(performance, dtype=float)[gap_node],
        validate=False,
    )
