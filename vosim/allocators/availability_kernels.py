"""The compiled part of :func:`vosim.allocators.availability_window.max_availability_window`.

A separate module so that importing vosim does not import numba: only a run that searches a
maximum-availability window loads it (:func:`vosim.allocators.availability_window._kernels`).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import I8, entry, i8

__all__ = ["eligibility"]


@entry((I8, I8, I8, i8, i8, i8))
@numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run
def eligibility(
    first: np.ndarray, stop: np.ndarray, node: np.ndarray, rows: int, size: int, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which node is usable at which candidate start, at the starts where ``n`` of them are.

    Slot ``j`` makes node ``node[j]`` usable at the candidate starts ``first[j] <= k <
    stop[j]``; the ranges of one node are disjoint (a node's slots are), so the usable nodes
    at each start are counted from a difference array, and the matrix is filled only at the
    starts ``keep`` where at least ``n`` are usable (the only ones a window of ``n`` tasks
    can take).

    Parameters
    ----------
    first, stop : numpy.ndarray of int64, shape (S,)
        Each slot's range of candidate indices, ``0 <= first[j] < stop[j] <= rows``.
    node : numpy.ndarray of int64, shape (S,)
        Each slot's node, in ``[0, size)``.
    rows, size : int
        Candidate starts K and nodes.
    n : int
        Tasks of the window (>= 1).

    Returns
    -------
    count : numpy.ndarray of int64, shape (rows,)
        Usable nodes at each candidate start.
    keep : numpy.ndarray of int64, shape (k,)
        The candidates with ``count >= n``, ascending.
    eligible : numpy.ndarray of bool, shape (k, size)
        ``eligible[r, i]``: node ``i`` has a slot covering candidate ``keep[r]``'s task.

    References
    ----------
    ICCS 2021 §3.2 (the time scan over candidate starts); AEP §2.1 (the candidate starts).
    """
    diff = np.zeros(rows + 1, dtype=np.int64)
    for j in range(first.size):
        diff[first[j]] += 1
        diff[stop[j]] -= 1
    count = np.cumsum(diff[:rows])
    row_of = np.full(rows + 1, -1, dtype=np.int64)  # candidate -> row of the matrix, or -1
    k = 0
    for c in range(rows):
        if count[c] >= n:
            row_of[c] = k
            k += 1
    keep = np.empty(k, dtype=np.int64)
    for c in range(rows):
        if row_of[c] >= 0:
            keep[row_of[c]] = c
    eligible = np.zeros((k, size), dtype=np.bool_)
    for j in range(first.size):
        i = node[j]
        for c in range(first[j], stop[j]):
            r = row_of[c]
            if r >= 0:
                eligible[r, i] = True
    return count, keep, eligible
