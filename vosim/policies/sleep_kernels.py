"""The compiled concurrency bound of a sleeping request class (numba).

:meth:`vosim.policies.request_classes.RequestClasses._concurrent_end` computes, for a class
that found no window, a lower bound on the end of any later window of it in about twenty
numpy calls; on a long queue it runs for many classes every cycle (a third of a run on
NASA-iPSC). :func:`concurrent_end` computes the same bound in one compiled pass: the same
counts at the same points and the same float operations, so the same value bit for bit.
``VOSIM_REFERENCE=1`` runs the numpy form (the plain path, the oracle of the tests).

A separate module so that importing vosim does not import numba.

References
----------
VO Preferences §2 (the cyclic scheme searches every waiting job each cycle); the bound is
vosim's (it only skips searches that would fail).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import B1, F8, I8, entry, f8, i8

__all__ = ["concurrent_end"]

_jit = numba.njit(cache=True, nogil=True)


@entry((F8, F8, I8, F8, B1, F8, I8, I8, F8, f8, i8, f8, f8, f8))
@_jit
def concurrent_end(  # pragma: no cover - compiled
    start, end, node, performance, pays, f, by_f, group_of, group_speed, volume, n, now,
    horizon, rtol
):  # fmt: skip
    """The least ``t_g + V / s_g`` of ``RequestClasses._concurrent_end``, bit for bit.

    Parameters
    ----------
    start, end, node, performance : arrays of shape (m,)
        The cycle's free slots over ``[now, horizon)`` (model time units; node ids; speed).
    pays : bool array, shape (N,)
        The nodes the class can pay a task on.
    f : float array, shape (N,)
        Per node, where its free slot ending at ``horizon`` begins (``horizon`` if none).
    by_f : int array, shape (N,)
        The node ids in increasing ``f`` (any order among equal ones): sorted once for all
        the classes bounded at one cycle.
    group_of : int array, shape (N,)
        Each node's speed group (0 the fastest).
    group_speed : float array, shape (G,)
        Each group's speed (performance).
    volume : float
        The class's volume ``V`` (performance x time units).
    n : int
        Its tasks.
    now, horizon : float
        The cycle's time ``t`` and the interval's end ``H`` (model time units).
    rtol : float
        The relative slack of a task's length.

    Returns
    -------
    float
        The bound (``inf`` when no ``n`` nodes ever hold the tasks together).

    Raises nothing: compiled, it takes the arrays ``RequestClasses`` builds for it.

    References
    ----------
    VO Preferences §2 (the cyclic scheme); the bound itself is vosim's.
    """
    m = start.size
    first = np.empty(m)
    last = np.empty(m)
    k = 0
    for i in range(m):
        need = volume / performance[i] * (1.0 - rtol)
        if end[i] < horizon and end[i] - start[i] >= need and pays[node[i]]:
            first[k] = start[i]
            last[k] = end[i] - need
            k += 1
    first = np.sort(first[:k])
    last = np.sort(last[:k])
    tail, tail_f, at = _tail_points(first, pays, f, by_f, now)
    r = tail.size
    groups = group_speed.size
    count = np.zeros(groups, dtype=np.int64)  # tail nodes with f <= t, per group
    t_g = np.full(groups, np.inf)
    found = 0
    a = b = c = 0  # pointers into first (<= t), last (< t) and the tail by f (<= t)
    for p in range(at.size):
        t = at[p]
        if p > 0 and t == at[p - 1]:
            continue
        while a < k and first[a] <= t:
            a += 1
        while b < k and last[b] < t:
            b += 1
        while c < r and tail_f[c] <= t:
            count[group_of[tail[c]]] += 1
            c += 1
        have = a - b
        for g in range(groups):
            have += count[g]
            if t_g[g] == np.inf and have >= n:
                t_g[g] = t
                found += 1
        if found == groups:
            break
    best = np.inf
    for g in range(groups):
        best = min(best, t_g[g] + volume / group_speed[g])
    return best


@_jit
def _tail_points(first, pays, f, by_f, now):  # pragma: no cover - compiled
    """The paid-for nodes by ``f`` (ids, their ``f``) and the sweep's points, in order.

    The points are ``now``, the fixed slots' starts ``first`` (sorted) and the tail's
    ``f``, merged: the multiset ``np.sort`` of their concatenation gives.
    """
    tail = np.empty(by_f.size, dtype=np.int64)
    tail_f = np.empty(by_f.size)
    r = 0
    for j in by_f:
        if pays[j]:
            tail[r] = j
            tail_f[r] = f[j]
            r += 1
    k = first.size
    at = np.empty(1 + k + r)
    at[0] = now
    i = j = 0
    while i < k or j < r:
        if j >= r or (i < k and first[i] <= tail_f[j]):
            at[1 + i + j] = first[i]
            i += 1
        else:
            at[1 + i + j] = tail_f[j]
            j += 1
    if k + r and at[1] < now:  # not expected (slots lie in [now, H)): keep the order
        at = np.sort(at)
    return tail[:r], tail_f[:r], at
