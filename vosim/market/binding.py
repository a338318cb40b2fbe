"""Processors for tasks held by count: a pool's unstarted tasks packed onto its processors.

A reservation that holds ``k`` processors of a pool (processors of one owner, performance
and price: interchangeable) needs particular processors only to run. :func:`pack` gives them:
the tasks not started yet are re-packed in start order onto the processors that the pool's
fixed busy time (started tasks, local jobs) leaves free, each keeping the processor it had
where it can.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np

from vosim.core.code_path import kernels, reference
from vosim.errors import SlotError

__all__ = ["pack"]


def pack(
    ids: Sequence[int] | np.ndarray,
    fixed: tuple[np.ndarray, np.ndarray, np.ndarray],
    start: np.ndarray,
    end: np.ndarray,
    prefer: np.ndarray,
) -> np.ndarray | None:
    """Processors for ``h`` tasks of one pool over ``[start, end)``, by a greedy packing.

    The tasks are taken in order of start (then end, then position); each gets a processor
    of ``ids`` that no fixed interval and no task given before holds at any time of its span:
    its ``prefer``-red one if that is free, else the lowest free id.

    Parameters
    ----------
    ids : array_like of int, shape (c,)
        The pool's processors (resource ids).
    fixed : tuple of numpy.ndarray, each shape (f,)
        ``(node, a, b)``: busy intervals that keep their processor (started tasks, local
        jobs), model time units; ``node`` among ``ids``.
    start, end : numpy.ndarray of float, shape (h,)
        The tasks' spans, model time units (``start < end``).
    prefer : numpy.ndarray of int, shape (h,)
        Each task's processor now (kept if free), ``-1`` for none.

    Returns
    -------
    numpy.ndarray of int64, shape (h,) or None
        Each task's processor (no two tasks, and no task and fixed interval, overlap on
        one), or ``None`` when some task finds no free processor.

    Raises
    ------
    SlotError
        The arrays' shapes differ.

    Notes
    -----
    It never fails when every fixed interval starts no later than every task and at most
    ``c`` tasks and fixed intervals overlap at any time: at a task's start the ones holding
    a processor then are fewer than ``c``, and nothing given later starts earlier (the
    greedy colouring of an interval graph). Fixed intervals that start later (local jobs
    placed ahead on part of the pool) can make it fail where a packing exists (extending a
    pre-colouring of an interval graph is NP-complete). ``O(h c log f)``. Compiled
    (``vosim.market.binding_kernels.pack_pool``); the Python below runs under
    ``VOSIM_REFERENCE=1``.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (identical processors are counted, not named); the
    greedy colouring of interval graphs (Golumbic 1980, ch. 8). The packing rule is vosim's.

    Examples
    --------
    Two processors; processor 0 runs until 10. A task held on 0 from 5 moves to 1:

    >>> fixed = (np.array([0]), np.array([0.0]), np.array([10.0]))
    >>> pack([0, 1], fixed, np.array([5.0]), np.array([20.0]), np.array([0])).tolist()
    [1]
    """
    start = np.asarray(start, dtype=float)
    end = np.asarray(end, dtype=float)
    prefer = np.asarray(prefer, dtype=np.int64)
    fnode, fa, fb = (np.asarray(x) for x in fixed)
    if not (start.shape == end.shape == prefer.shape and fnode.shape == fa.shape == fb.shape):
        raise SlotError(
            f"pack: tasks of shapes {start.shape}, {end.shape}, {prefer.shape} and fixed rows "
            f"of shapes {fnode.shape}, {fa.shape}, {fb.shape} differ"
        )
    if not reference():  # compiled: the same processors
        got, done = kernels("vosim.market.binding_kernels").pack_pool(
            np.asarray(ids, dtype=np.int64), fnode.astype(np.int64, copy=False),
            fa.astype(float, copy=False), fb.astype(float, copy=False), start, end, prefer,
        )  # fmt: skip
        return got if done else None
    order = sorted(ids)
    busy: dict[int, tuple[list[float], list[float]]] = {}  # processor -> sorted (a, b)
    for q in order:
        mine = np.flatnonzero(fnode == q)
        rows = sorted(zip(fa[mine].tolist(), fb[mine].tolist(), strict=True))
        busy[q] = ([r[0] for r in rows], [r[1] for r in rows])
    until = dict.fromkeys(order, -np.inf)  # the end of the last task given to each

    def free(q: int, s: float, e: float) -> bool:
        if q not in until or until[q] > s:
            return False
        a, b = busy[q]
        i = bisect.bisect_left(a, e)  # fixed intervals starting before e
        return i == 0 or max(b[:i]) <= s

    out = np.empty(start.size, dtype=np.int64)
    for t in sorted(range(start.size), key=lambda j: (start[j], end[j], j)):
        s, e = float(start[t]), float(end[t])
        q = int(prefer[t])
        if not free(q, s, e):
            q = next((p for p in order if free(p, s, e)), -1)
            if q < 0:
                return None
        out[t] = q
        until[q] = e
    return out
