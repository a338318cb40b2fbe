"""The compiled forms of :func:`vosim.market.binding.pack` and ``idle_processors`` (numba).

A separate module so that importing vosim does not import numba. :func:`pack_pool` packs as
the plain function packs, step for step (tasks in order of start, end, position; a task keeps
its processor if free, else takes the lowest free one), over arrays instead of a dictionary of
lists per processor; :func:`idle_processors` gives a window's processors in one call. The
plain functions are their oracles (``VOSIM_REFERENCE=1`` runs them, and tests compare the two
on random pools).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry, f8

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


@_jit
def _mark_held(node, a, b, pool, until, start, now, taken):  # pragma: no cover - compiled
    """Mark in ``taken`` each resource that a busy row holds over its pool's span.

    ``node, a, b`` (shape (r,)): busy rows ``[a, b)``, model time units; ``pool`` (shape
    (R,)): each resource's pool; ``until`` (shape (P,)): each pool's span ``[start,
    until[p])`` (``-inf``: no span); ``now``: rows ended by then hold nothing; ``taken``
    (bool, shape (R,)): set where a row overlaps its pool's span. One pass over the rows,
    for :meth:`~vosim.agents.execution.Execution.bind`. Raises nothing (compiled). Source:
    Mu'alem & Feitelson (2001), §2 (processors counted, named only to run); vosim's rule.
    Returns ``False`` (``taken`` partly marked) at a row on no resource of ``pool``.
    """
    for r in range(node.size):
        j = node[r]
        if j < 0 or j >= pool.size:
            return False
        if b[r] > now and b[r] > start and a[r] < until[pool[j]]:
            taken[j] = True
    return True


@_jit
def _take_idle(nodes, of, taken, first, members):  # pragma: no cover - compiled
    """Move a window's tasks off held processors, pool by pool; the pools left to pack.

    ``nodes`` (int64, shape (n,)): each task's processor, changed in place; ``of`` (shape
    (n,)): each task's pool; ``taken`` (bool, shape (R,)): processors a busy row holds over
    their pool's span (:func:`_mark_held`); ``first`` (shape (P + 1,)) and ``members`` (shape
    (R,)): each pool's processors, ascending. A pool none of whose tasks sits on a held
    processor keeps them; else its tasks, in window order, take the pool's lowest processors
    not held. Returns the pools (ascending) with fewer such processors than tasks, which only
    a packing of the pool can place. Raises nothing (compiled). Source: Mu'alem & Feitelson
    (2001), §2 (processors counted, named only to run); the rule is vosim's (``bind``).
    """
    n = nodes.size
    pools = np.empty(n, dtype=np.int64)  # the window's pools, ascending
    d = 0
    for i in range(n):
        p = of[i]
        k = d
        while k > 0 and pools[k - 1] > p:
            k -= 1
        if k > 0 and pools[k - 1] == p:
            continue
        for j in range(d, k, -1):
            pools[j] = pools[j - 1]
        pools[k] = p
        d += 1
    left = np.empty(d, dtype=np.int64)
    c = 0
    for q in range(d):
        p = pools[q]
        held = False
        need = 0
        for i in range(n):
            if of[i] == p:
                need += 1
                held = held or taken[nodes[i]]
        if not held:
            continue  # its processors are free
        idle = 0
        for r in range(first[p], first[p + 1]):
            idle += not taken[members[r]]
        if idle < need:
            left[c] = p  # its tasks keep their processors for the packing
            c += 1
            continue
        i = 0
        r = first[p]
        for _ in range(need):  # the lowest processors free over the span, in window order
            while taken[members[r]]:
                r += 1
            while of[i] != p:
                i += 1
            nodes[i] = members[r]
            i += 1
            r += 1
    return left[:c]


@entry((I8, F8, I8, F8, f8, I8, I8, I8, I8, F8, F8, I8, F8, F8))
@_jit
def idle_processors(
    nodes, ends, off, starts, now, pool, first, members, vnode, va, vb, lnode, la, lb
):  # pragma: no cover - compiled
    """:func:`~vosim.market.binding.idle_processors` for windows in order, in one call.

    ``nodes, ends`` (shape (s,)): the windows' tasks (processor, end of span), window ``w``'s
    at ``off[w]:off[w + 1]`` (``off``: shape (W + 1,)); ``starts`` (shape (W,)): their
    starts; ``now``: the time, model time units; ``pool``, ``first``, ``members``: as
    :func:`_take_idle`; ``vnode, va, vb`` and ``lnode, la, lb``: the VO's and the windows'
    owners' local busy rows. Window ``w`` is placed as the plain function places it after
    windows ``0 .. w - 1`` were reserved on the processors placed here: their spans ``[start,
    end)`` count as VO rows. Per window the plain function's steps: each pool's span, the
    processors held over it (:func:`_mark_held`), then :func:`_take_idle`. It stops at the
    first window with pools left to pack (only a packing places them, and a packing moves
    other reservations). Returns ``(processors, placed, pools left to pack, True)``:
    ``processors`` (shape (s,)) for windows ``0 .. placed`` (of window ``placed``, if
    ``placed < W``, as the plain function returns them beside its pools left, ascending);
    or ``False`` last when a task or row names no resource of ``pool`` (nothing read
    outside it: the caller runs the plain function, which raises). ``O(r + W (r' + c) + s)``
    for ``r`` busy rows, ``r'`` of them on the windows' pools and not ended by ``now`` (read
    once, :func:`_rows_on`), and ``c`` processors of a window's pools. Raises nothing.
    Source: Mu'alem & Feitelson (2001), §2; the rule is vosim's.
    """
    none = np.empty(0, dtype=np.int64)
    out = nodes.copy()
    for i in range(nodes.size):
        if nodes[i] < 0 or nodes[i] >= pool.size:
            return out, 0, none, False
    until = np.full(first.size - 1, -np.inf)
    for i in range(nodes.size):  # the windows' pools: rows elsewhere hold nothing here
        until[pool[nodes[i]]] = np.inf
    rows = _rows_on(vnode, va, vb, lnode, la, lb, pool, until, now)
    if rows[0].size and rows[0][0] < 0:
        return out, 0, none, False
    rnode, ra, rb = rows
    until[:] = -np.inf
    taken = np.zeros(pool.size, dtype=np.bool_)
    span_start = np.empty(nodes.size)  # the placed windows' spans, as VO rows
    windows = off.size - 1
    for w in range(windows):
        lo, hi = off[w], off[w + 1]
        start = starts[w]
        of = np.empty(hi - lo, dtype=np.int64)
        for i in range(lo, hi):
            of[i - lo] = pool[nodes[i]]
            if ends[i] > until[of[i - lo]]:
                until[of[i - lo]] = ends[i]
        _mark_held(rnode, ra, rb, pool, until, start, now, taken)
        _mark_held(out[:lo], span_start[:lo], ends[:lo], pool, until, start, now, taken)
        left = _take_idle(out[lo:hi], of, taken, first, members)
        if left.size:
            return out, w, left, True
        for i in range(lo, hi):  # cleared for the next window
            until[of[i - lo]] = -np.inf
            span_start[i] = start
        taken[:] = False
    return out, windows, none, True


@_jit
def _rows_on(vnode, va, vb, lnode, la, lb, pool, until, now):  # pragma: no cover - compiled
    """The busy rows on the windows' pools that hold anything after ``now``.

    The VO's rows ``vnode, va, vb`` then the local ones, each in its order, kept where not
    ended by ``now`` and on a pool with ``until[p] > -inf``. Returns ``(node, a, b)``; one
    row with ``node[0] == -1`` when a row names no resource of ``pool``.
    """
    k = vnode.size + lnode.size
    node, a, b = np.empty(k, dtype=np.int64), np.empty(k), np.empty(k)
    c = 0
    for part in range(2):
        pn, pa, pb = (vnode, va, vb) if part == 0 else (lnode, la, lb)
        for r in range(pn.size):
            j = pn[r]
            if j < 0 or j >= pool.size:
                node[0] = -1
                return node[:1], a[:1], b[:1]
            if pb[r] > now and until[pool[j]] > -np.inf:
                node[c], a[c], b[c] = j, pa[r], pb[r]
                c += 1
    return node[:c], a[:c], b[:c]
