"""The compiled update of :class:`~vosim.market.slot_cache.SlotListCache`'s kept spans (numba).

Between two scheduling passes a few nodes' busy time changes; the cache recomputes those
nodes' free spans and merges them into the spans it keeps for every other node. In numpy that
is :func:`~vosim.market.slots.free_slots` (a lexsort of the busy rows and a dozen array calls)
and :func:`~vosim.core.slots.merge_rows`; :func:`update_spans` does both in one pass, with the
same rows in the same order (the tests compare it with those two functions). :func:`clipped`
reads the kept spans as the pass's slot list of ``[now, until)``.

A separate module so that importing vosim does not import numba: the first slot list of a
run loads it. ``VOSIM_REFERENCE=1`` builds every slot list from scratch instead (the cache's
oracle).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import B1, F8, I8, entry, f8
from vosim.market.count_kernels import count_rows

__all__ = ["clipped", "update_levels", "update_spans"]

_jit = numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run


@entry((I8, F8, F8, B1, I8, F8, F8, f8, f8))
@_jit
def update_spans(node, start, end, mark, bnode, ba, bb, now, upto):  # pragma: no cover
    """The kept spans with those of the ``mark``-ed nodes recomputed from their busy rows.

    Parameters
    ----------
    node, start, end : numpy.ndarray, shape (m,)
        The kept free spans (int64 node ids, model time units), ordered by (start, node).
    mark : numpy.ndarray of bool, shape (N,)
        The nodes to recompute (by id): their kept spans are dropped.
    bnode, ba, bb : numpy.ndarray, shape (r,)
        Busy intervals ``[ba, bb)`` (int64 node ids, model time units), disjoint on each node,
        in any order; only those of marked nodes that reach into ``(now, upto)`` count.
    now, upto : float
        The interval the spans cover, model time units, ``now < upto``.

    Returns
    -------
    tuple of numpy.ndarray
        ``(node, start, end)``: every kept span of an unmarked node and the maximal free spans
        of each marked node inside ``[now, upto)`` (a marked node with no busy interval
        there gets ``[now, upto)``), ordered by (start, node): the rows
        ``merge_rows(kept, free_slots(marked, ..., now, upto))`` gives.

    Raises nothing: compiled, fed by the cache's own arrays. Source: AEP §2.1 (the slot list
    ordered by start time); the update is vosim's speed-up.
    """
    gn, gs, ge = _gaps(mark, bnode, ba, bb, now, upto)
    return _merged(node, start, end, mark, gn, gs, ge)


@entry((I8, F8, F8, B1, I8, F8, F8, f8, f8, I8, I8, I8))
@_jit
def update_levels(  # pragma: no cover - compiled
    node, start, end, mark, bnode, ba, bb, now, upto, pool, first, members
):
    """:func:`update_spans` for kept spans that are a count view: the marked pools' levels.

    ``mark`` holds every resource of the pools to recompute; ``pool`` (shape (N,)), ``first``
    (shape (P + 1,)) and ``members`` (shape (N,)): each resource's pool and each pool's
    resources, ascending (:func:`~vosim.market.free_time.members_of`). The marked resources'
    free spans are recomputed as :func:`update_spans` does, their pools' free counts levelled
    (:func:`~vosim.market.count_kernels.count_rows`) and merged into the kept spans, ordered
    by (start, node): the rows ``count_view`` of the per-resource spans gives. Returns
    ``(node, start, end)`` and ``-1``, or the first pool found with more resources free at
    once than it holds (then the spans are meaningless: busy rows overlapped on a resource).
    Raises nothing: compiled. Source: Mu'alem & Feitelson (2001), §2 (counted processors);
    the update is vosim's.
    """
    gn, gs, ge = _gaps(mark, bnode, ba, bb, now, upto)
    unpriced = np.zeros(gn.size)
    relevel = np.ones(first.size - 1, dtype=np.bool_)
    rows, _, over = count_rows(gn, gs, ge, unpriced, unpriced, pool, relevel, first, members)
    out_n, out_s, out_e = _merged(node, start, end, mark, rows[0], rows[1], rows[2])
    return out_n, out_s, out_e, over


@_jit
def _gaps(mark, bnode, ba, bb, now, upto):  # pragma: no cover - compiled
    """The maximal free spans in ``[now, upto)`` of the ``mark``-ed nodes, unsorted."""
    # the marked nodes' busy rows, clipped to [now, upto), by (node, start)
    r = bnode.size
    pick = np.empty(r, dtype=np.int64)
    k = 0
    for i in range(r):
        if mark[bnode[i]] and bb[i] > now and ba[i] < upto:
            pick[k] = i
            k += 1
    pick = pick[:k]
    a = np.maximum(ba[pick], now)
    b = np.minimum(bb[pick], upto)
    bn = bnode[pick]
    order = np.argsort(a, kind="mergesort")
    order = order[np.argsort(bn[order], kind="mergesort")]
    # the gaps: before each interval, after each node's last, and idle marked nodes whole
    marked = np.flatnonzero(mark)
    size = k + marked.size
    gn = np.empty(size, dtype=np.int64)
    gs = np.empty(size)
    ge = np.empty(size)
    g = 0
    busy = np.zeros(mark.size, dtype=np.bool_)
    q = 0
    while q < k:
        j = bn[order[q]]
        busy[j] = True
        prev = now
        while q < k and bn[order[q]] == j:
            i = order[q]
            if a[i] > prev:
                gn[g], gs[g], ge[g] = j, prev, a[i]
                g += 1
            prev = b[i]
            q += 1
        if upto > prev:
            gn[g], gs[g], ge[g] = j, prev, upto
            g += 1
    for j in marked:
        if not busy[j]:
            gn[g], gs[g], ge[g] = j, now, upto
            g += 1
    return gn[:g], gs[:g], ge[:g]


@_jit
def _merged(node, start, end, mark, gn, gs, ge):  # pragma: no cover - compiled
    """The kept spans of unmarked nodes and the spans ``(gn, gs, ge)``, by (start, node)."""
    g = gn.size
    by = np.argsort(gn, kind="mergesort")
    by = by[np.argsort(gs[by], kind="mergesort")]  # by (start, node)
    # merge with the kept spans of unmarked nodes, both ordered by (start, node)
    m = node.size
    out_n = np.empty(m + g, dtype=np.int64)
    out_s = np.empty(m + g)
    out_e = np.empty(m + g)
    o = 0
    p = 0
    for x in range(m):
        if mark[node[x]]:
            continue
        while p < g and (gs[by[p]] < start[x] or (gs[by[p]] == start[x] and gn[by[p]] < node[x])):
            y = by[p]
            out_n[o], out_s[o], out_e[o] = gn[y], gs[y], ge[y]
            o += 1
            p += 1
        out_n[o], out_s[o], out_e[o] = node[x], start[x], end[x]
        o += 1
    while p < g:
        y = by[p]
        out_n[o], out_s[o], out_e[o] = gn[y], gs[y], ge[y]
        o += 1
        p += 1
    return out_n[:o], out_s[:o], out_e[:o]


@_jit
def _by_node(ids, bound):  # pragma: no cover - compiled
    """``np.argsort(ids, kind="mergesort")`` for node ids in ``[0, bound)``, shape (k,).

    A counting sort (``O(k + bound)``, stable) when the ids are many beside ``bound`` (the
    spans a pass starts with: most free processors, where numba's mergesort costs ~70 ns an
    id); else the mergesort. Raises nothing (compiled; the caller's ids are in range).
    """
    if 8 * ids.size < bound:
        return np.argsort(ids, kind="mergesort")
    first = np.zeros(bound + 1, dtype=np.int64)
    for x in ids:
        first[x + 1] += 1
    for v in range(bound):
        first[v + 1] += first[v]
    order = np.empty(ids.size, dtype=np.int64)
    for i in range(ids.size):
        order[first[ids[i]]] = i
        first[ids[i]] += 1
    return order


@entry((I8, F8, F8, f8, f8, F8, F8))
@_jit
def clipped(node, start, end, now, until, price, performance):  # pragma: no cover
    """The slot list's columns of ``[now, until)`` from the kept spans (one pass).

    Parameters
    ----------
    node, start, end : numpy.ndarray, shape (m,)
        The kept free spans, ordered by (start, node); they may start before ``now``.
    now, until : float
        The scheduling interval, model time units.
    price, performance : numpy.ndarray of float, shape (N,)
        Each node's price per time unit now and its performance, by node id.

    Returns
    -------
    tuple of numpy.ndarray
        ``(node, start, end, price, performance)`` of the spans clipped to ``[now, until)``
        (empty ones dropped), ordered by (start, node): the spans starting at or before
        ``now`` start at ``now`` and come first, by node id.

    Raises nothing: compiled, fed by the cache's own arrays. Source: AEP §2.1 (the slot list
    of the scheduling interval, ordered by non-decreasing start time).
    """
    k = np.searchsorted(start, now, side="right")
    stop = np.searchsorted(start, until, side="left")
    head = _by_node(node[:k], price.size)
    size = max(stop, k)
    out_n = np.empty(size, dtype=np.int64)
    out_s = np.empty(size)
    out_e = np.empty(size)
    o = 0
    for q in range(size):
        if q < k:
            i = head[q]
            s = now
        else:
            i = q
            s = start[i]
        e = min(end[i], until)
        if e > s:
            out_n[o], out_s[o], out_e[o] = node[i], s, e
            o += 1
    out_n, out_s, out_e = out_n[:o], out_s[:o], out_e[:o]
    return out_n, out_s, out_e, price[out_n], performance[out_n]
