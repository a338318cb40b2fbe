"""The compiled part of :func:`vosim.allocators.availability_window.max_availability_window`.

A separate module so that importing vosim does not import numba: only a run that searches a
maximum-availability window loads it (:func:`vosim.allocators.availability_window._kernels`).
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["eligibility"]


@numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run
def eligibility(
    first: np.ndarray, stop: np.ndarray, node: np.ndarray, rows: int, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Which node is usable at which candidate start, and how many are at each.

    Slot ``j`` makes node ``node[j]`` usable at the candidate starts ``first[j] <= k <
    stop[j]``; the ranges of one node are disjoint (a node's slots are). Down each column
    usability toggles at each range's first index and at its stop, so the matrix is the
    running exclusive-or of those marks, row after row.

    Parameters
    ----------
    first, stop : numpy.ndarray of int64, shape (S,)
        Each slot's range of candidate indices, ``0 <= first[j] < stop[j] <= rows``.
    node : numpy.ndarray of int64, shape (S,)
        Each slot's node, in ``[0, size)``.
    rows, size : int
        Candidate starts K and nodes.

    Returns
    -------
    eligible : numpy.ndarray of bool, shape (rows, size)
        ``eligible[k, i]``: node ``i`` has a slot covering candidate ``k``'s task.
    count : numpy.ndarray of int64, shape (rows,)
        Usable nodes at each candidate start (the row sums).

    References
    ----------
    ICCS 2021 §3.2 (the time scan over candidate starts); AEP §2.1 (the candidate starts).
    """
    marks = np.zeros((rows + 1, size), dtype=np.bool_)
    for j in range(first.size):
        marks[first[j], node[j]] ^= True
        marks[stop[j], node[j]] ^= True
    eligible = marks[:rows]
    count = np.zeros(rows, dtype=np.int64)
    for k in range(rows):
        row = eligible[k]
        if k > 0:
            above = eligible[k - 1]
            for i in range(size):
                row[i] ^= above[i]
        c = 0
        for i in range(size):
            c += row[i]
        count[k] = c
    return eligible, count
