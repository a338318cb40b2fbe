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

__all__ = ["idle_processors", "idle_processors_in_order", "pack"]

#: Busy rows ``(node, a, b)``, shape (r,) each: processor, start and end, model time units.
Rows = tuple[np.ndarray, np.ndarray, np.ndarray]


def idle_processors(
    nodes: np.ndarray,
    ends: np.ndarray,
    start: float,
    now: float,
    pool: np.ndarray,
    first: np.ndarray,
    members: np.ndarray,
    vo: Rows,
    local: Rows,
) -> tuple[np.ndarray, np.ndarray]:
    """A count view's window on processors free over its spans, and the pools left to pack.

    Each pool's tasks share a span ``[start, until_p)``, ``until_p`` the latest end of its
    tasks. A processor is held when a busy row on it (``vo`` or ``local``) overlaps its
    pool's span and has not ended by ``now``. A pool none of whose tasks sits on a held
    processor keeps them; else its tasks, in window order, take the pool's lowest processors
    not held; a pool with fewer such processors than tasks is left to a packing
    (:func:`pack`) and keeps its processors here.

    Parameters
    ----------
    nodes : numpy.ndarray of int64, shape (n,)
        Each task's processor in the count view (not changed).
    ends : numpy.ndarray of float, shape (n,)
        Each task's span end, model time units.
    start, now : float
        The window's start and the time, model time units.
    pool : numpy.ndarray of int64, shape (R,)
        Each resource's pool.
    first, members : numpy.ndarray of int64, shapes (P + 1,) and (R,)
        Each pool's resources, ascending, as ``members[first[p]:first[p + 1]]``
        (:func:`~vosim.market.free_time.members_of`).
    vo, local : tuple of numpy.ndarray
        Busy rows ``(node, a, b)``: the VO's reservations, and the local jobs of the
        window's owners.

    Returns
    -------
    tuple of numpy.ndarray of int64
        The tasks' processors, shape (n,), and the pools left to pack, ascending.

    Raises
    ------
    IndexError
        A task's or row's processor beyond ``pool``.

    Notes
    -----
    ``O(n + r + c)`` for ``r`` busy rows and the ``c`` processors of the window's pools.
    Compiled (``vosim.market.binding_kernels.idle_processors``, one call); the numpy below
    runs under ``VOSIM_REFERENCE=1``.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (processors counted, named only to run); the rule is
    vosim's.

    Examples
    --------
    Pool 0 is processors 0 and 1; a reservation holds processor 0 over the window's span:

    >>> pool, first, members = np.array([0, 0]), np.array([0, 2]), np.array([0, 1])
    >>> vo = (np.array([0]), np.array([0.0]), np.array([50.0]))
    >>> none = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
    >>> got, left = idle_processors(
    ...     np.array([0]), np.array([20.0]), 10.0, 0.0, pool, first, members, vo, none
    ... )
    >>> got.tolist(), left.tolist()
    ([1], [])
    """
    if not reference():
        out, _, left, valid = kernels("vosim.market.binding_kernels").idle_processors(
            nodes, ends, np.array([0, nodes.size]), np.array([float(start)]), float(now),
            pool, first, members, *vo, *local,
        )  # fmt: skip
        if valid:  # else an id beyond pool: the plain path below raises
            return out, left
    of = pool[nodes]
    until = np.full(first.size - 1, -np.inf)
    np.maximum.at(until, of, ends)
    taken = np.zeros(pool.size, dtype=bool)
    for node, a, b in (vo, local):
        taken[node[(b > now) & (b > start) & (a < until[pool[node]])]] = True
    out, left = nodes.copy(), []
    for p in np.unique(of).tolist():
        at = np.flatnonzero(of == p)
        if not taken[out[at]].any():
            continue
        ids = members[first[p] : first[p + 1]]
        idle = ids[~taken[ids]]
        if idle.size >= at.size:
            out[at] = idle[: at.size]
        else:
            left.append(p)
    return out, np.array(left, dtype=np.int64)


def idle_processors_in_order(
    windows: Sequence[tuple[np.ndarray, np.ndarray, float]],
    now: float,
    pools: tuple[np.ndarray, np.ndarray, np.ndarray],
    vo: Rows,
    local: Rows,
) -> tuple[list[np.ndarray], np.ndarray]:
    """:func:`idle_processors` for windows in order, each after the earlier ones are held.

    Window ``w`` is placed as :func:`idle_processors` places it once windows ``0 .. w - 1``
    are reserved on the processors placed for them (their spans ``[start, end)`` join the
    VO's busy rows). It stops at the first window with pools left to pack: only a
    packing places those, and it may move other reservations.

    Parameters
    ----------
    windows : sequence of (nodes, ends, start)
        Per window, as :func:`idle_processors` takes them: each task's processor in the
        count view (int64, shape (n,)), each task's span end (float, shape (n,)) and the
        window's start, model time units.
    now : float
        The time, model time units.
    pools : tuple (pool, first, members) of numpy.ndarray of int64
        As :func:`idle_processors` takes them.
    vo, local : tuple of numpy.ndarray
        As :func:`idle_processors`; ``local`` holds the local jobs of every window's owners.

    Returns
    -------
    tuple (list of numpy.ndarray of int64, numpy.ndarray of int64)
        The processors of windows ``0 .. p - 1``, placed, and of window ``p`` if one has
        pools left to pack; and those pools (ascending; empty when every window is
        placed, ``p`` then being ``len(windows)``).

    Raises
    ------
    IndexError
        A processor of a window's task or of a busy row beyond ``pool``.

    Notes
    -----
    Compiled in one call (``vosim.market.binding_kernels.idle_processors``); the loop over
    :func:`idle_processors` below runs under ``VOSIM_REFERENCE=1``.

    References
    ----------
    Mu'alem & Feitelson (2001), §2 (processors counted); holding the earlier windows is
    vosim's rule, the metascheduler's order of reservations.
    """
    if not windows:
        return [], np.empty(0, dtype=np.int64)
    pool, first, members = pools
    if not reference():
        nodes = np.concatenate([w[0] for w in windows]).astype(np.int64, copy=False)
        ends = np.concatenate([w[1] for w in windows]).astype(np.float64, copy=False)
        off = np.zeros(len(windows) + 1, dtype=np.int64)
        np.cumsum([w[0].size for w in windows], out=off[1:])
        starts = np.array([w[2] for w in windows], dtype=np.float64)
        out, placed, left, valid = kernels("vosim.market.binding_kernels").idle_processors(
            nodes, ends, off, starts, float(now), pool, first, members, *vo, *local
        )
        if valid:  # else an id beyond pool: the plain path below raises
            stop = min(placed + 1, len(windows))
            return [out[off[w] : off[w + 1]] for w in range(stop)], left
    got: list[np.ndarray] = []
    held = [vo]
    for nodes, ends, start in windows:
        rows = tuple(np.concatenate(column) for column in zip(*held, strict=True))
        out, left = idle_processors(nodes, ends, start, now, pool, first, members, rows, local)
        got.append(out)
        if left.size:
            return got, left
        held.append((out, np.full(out.size, float(start)), ends))
    return got, np.empty(0, dtype=np.int64)


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
