"""The compiled form of :func:`vosim.market.binding.pack` (numba).

A separate module so that importing vosim does not import numba. :func:`pack_pool` packs as
the plain function packs, step for step (tasks in order of start, end, position; a task keeps
its processor if free, else takes the lowest free one), over arrays instead of a dictionary of
lists per processor: the plain function is its oracle (``VOSIM_REFERENCE=1`` runs it, and a
test compares the two on random pools).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry

_jit = numba.njit(cache=True, nogil=True)


@_jit
def _free(k, s, e, until, first, fa, fmax):  # pragma: no cover - compiled
    """Whether processor ``k`` (its position among the sorted ids) is free over ``[s, e)``.

    Free when the last task given to it ends by ``s`` and every fixed interval on it that
    starts before ``e`` ends by ``s`` (``fmax``: the running maximum of the fixed ends in
    order of start, per processor).
    """
    if until[k] > s:
        return False
    lo, hi = first[k], first[k + 1]
    i = lo + np.searchsorted(fa[lo:hi], e)  # fixed intervals starting before e
    return i == lo or fmax[i - 1] <= s


@entry((I8, I8, F8, F8, F8, F8, I8))
@_jit
def pack_pool(ids, fnode, fa, fb, start, end, prefer):  # pragma: no cover - compiled
    """:func:`~vosim.market.binding.pack`: each task's processor, and whether all got one.

    Parameters
    ----------
    ids : numpy.ndarray of int, shape (c,)
        The pool's processors (resource ids, any order).
    fnode, fa, fb : numpy.ndarray, shape (f,) each
        Fixed busy intervals ``(processor, a, b)``, model time units; every processor among
        ``ids``.
    start, end : numpy.ndarray of float, shape (h,)
        The tasks' spans, model time units.
    prefer : numpy.ndarray of int, shape (h,)
        Each task's processor now, ``-1`` (or any id not in ``ids``) for none.

    Returns
    -------
    tuple (numpy.ndarray of int64, shape (h,); bool)
        The processors, and ``False`` (the processors then partly unset) when some task finds
        none free.

    Raises nothing (compiled; the caller checks the shapes). Source: as ``pack`` (the greedy
    colouring of interval graphs, Golumbic 1980, ch. 8; the rule is vosim's).
    """
    order = np.sort(ids)
    c = order.size
    # the fixed intervals grouped by processor, each group in order of start
    pos = np.searchsorted(order, fnode)
    by = np.argsort(fa, kind="mergesort")
    by = by[np.argsort(pos[by], kind="mergesort")]
    first = np.zeros(c + 1, dtype=np.int64)
    for r in range(pos.size):
        first[pos[r] + 1] += 1
    for k in range(c):
        first[k + 1] += first[k]
    sa = fa[by]
    fmax = fb[by].copy()
    for k in range(c):
        for r in range(first[k] + 1, first[k + 1]):
            fmax[r] = max(fmax[r], fmax[r - 1])
    until = np.full(c, -np.inf)
    out = np.empty(start.size, dtype=np.int64)
    tasks = np.argsort(end, kind="mergesort")
    tasks = tasks[np.argsort(start[tasks], kind="mergesort")]  # by start, end, position
    for t in tasks:
        s, e = start[t], end[t]
        k = np.searchsorted(order, prefer[t])
        if k >= c or order[k] != prefer[t] or not _free(k, s, e, until, first, sa, fmax):
            k = -1
            for p in range(c):
                if _free(p, s, e, until, first, sa, fmax):
                    k = p
                    break
            if k < 0:
                return out, False
        out[t] = order[k]
        until[k] = e
    return out, True
