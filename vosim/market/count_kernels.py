"""The compiled form of :func:`vosim.market.free_time.count_view` (numba).

A separate module so that importing vosim does not import numba: only a run whose slot list
is a count view loads it. :func:`count_rows` gives the rows the plain function gives, in
another order (the caller sorts them as a slot list).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import B1, F8, I8, entry, f8

_jit = numba.njit(cache=True, nogil=True)
# Constants passed to compiled helpers are typed (np.int64(0), np.bool_(False)), and so is a
# counter passed on: numba compiles a helper once more for each literal value it is called with.


@_jit
def count_rows(node, start, end, price, perf, pool, relevel, first, members):  # pragma: no cover
    """The count view's rows: those of pools not in ``relevel`` as they are, the others levels.

    ``node, start, end, price, perf`` (shape (m,)): the slot rows; ``pool`` (shape (R,)):
    each resource's pool; ``relevel`` (bool, shape (P,)): the pools to re-level;
    ``first`` (shape (P + 1,)) and ``members`` (shape (R,)): each pool's resources, ascending,
    as ``members[first[p]:first[p + 1]]``. Returns the rows ``(node, start, end, price,
    perf)``, how many come first as they were (the pools not re-levelled, in their order;
    then the levels, unsorted: a pool's level ``l`` (1-based) on its ``l``-th resource over
    each maximal span where at least ``l`` of its processors are free,
    ``profile.level_spans``), and ``-1``; or no rows and the first pool found with more
    processors free at once than it holds. A pool re-levelled gives at most as many rows
    as it had (a level's span opens at a rise of the count, and each row raises it by one).
    """
    m = node.size
    out_node = np.empty(m, dtype=np.int64)
    out_start = np.empty(m)
    out_end = np.empty(m)
    out_price = np.empty(m)
    out_perf = np.empty(m)
    count, rows = _grouped(node, pool, relevel)
    n_pools = relevel.size
    top = np.int64(0)  # typed: see _jit
    for r in range(m):  # rows kept as they are
        if not relevel[pool[node[r]]]:
            out_node[top] = node[r]
            out_start[top] = start[r]
            out_end[top] = end[r]
            out_price[top] = price[r]
            out_perf[top] = perf[r]
            top += 1
    out = (out_node, out_start, out_end, out_price, out_perf)
    kept = top
    for p in range(n_pools):
        if count[p + 1] > count[p]:
            top = _levels(start, end, price, perf, rows[count[p] : count[p + 1]],
                          members[first[p] : first[p + 1]], out, top)  # fmt: skip
            if top < 0:  # more free at once than the pool holds
                return (out_node[:0], out_start[:0], out_end[:0], out_price[:0], out_perf[:0]), 0, p
    return (
        (out_node[:top], out_start[:top], out_end[:top], out_price[:top], out_perf[:top]),
        kept,
        -1,
    )


@entry((I8, F8, F8, F8, F8, I8, B1, I8, I8))
@_jit
def count_view_rows(
    node, start, end, price, perf, pool, relevel, first, members
):  # pragma: no cover
    """:func:`count_rows` ordered as a slot list, by (start, node).

    The levels are sorted and merged with the rows kept (already in that order) as those are
    copied, once. The arguments are :func:`count_rows`' (shape (m,) rows, times in model
    time units); ``node, start`` ordered by (start, node). Returns the five columns, ordered
    by (start, node), and ``-1``; or no rows and the first pool found with more processors
    free at once than it holds. Raises nothing (compiled). Source: Mu'alem & Feitelson
    (2001), §2 (counted processors); AEP §2.1 (the slot list ordered by start).
    """
    count, rows = _grouped(node, pool, relevel)
    size = rows.size
    lev = (np.empty(size, dtype=np.int64), np.empty(size), np.empty(size), np.empty(size),
           np.empty(size))  # fmt: skip
    top = np.int64(0)  # typed: see _jit
    for p in range(relevel.size):
        if count[p + 1] > count[p]:
            top = _levels(start, end, price, perf, rows[count[p] : count[p + 1]],
                          members[first[p] : first[p + 1]], lev, top)  # fmt: skip
            if top < 0:  # more free at once than the pool holds
                return node[:0], start[:0], end[:0], price[:0], perf[:0], p
    ln, ls, le, lp, lf = lev
    by = np.argsort(ln[:top], kind="mergesort")
    by = by[np.argsort(ls[:top][by], kind="mergesort")]  # the levels by (start, node)
    total = node.size - size + top
    on = np.empty(total, dtype=np.int64)
    os_ = np.empty(total)
    oe = np.empty(total)
    op = np.empty(total)
    of = np.empty(total)
    x = 0  # next row of slots, those of pools re-levelled skipped
    y = 0  # next level, in by
    for o in range(total):
        while x < node.size and relevel[pool[node[x]]]:
            x += 1
        if x < node.size and (
            y == top or start[x] < ls[by[y]] or (start[x] == ls[by[y]] and node[x] < ln[by[y]])
        ):
            on[o], os_[o], oe[o], op[o], of[o] = node[x], start[x], end[x], price[x], perf[x]
            x += 1
        else:
            r = by[y]
            on[o], os_[o], oe[o], op[o], of[o] = ln[r], ls[r], le[r], lp[r], lf[r]
            y += 1
    return on, os_, oe, op, of, -1


@_jit
def _grouped(node, pool, relevel):  # pragma: no cover - compiled
    """The rows of the pools to re-level, grouped by pool: ``rows[count[p]:count[p + 1]]``.

    Returns ``(count, rows)``, shapes (P + 1,) and (k,), rows in their order within a pool.
    """
    n_pools = relevel.size
    count = np.zeros(n_pools + 1, dtype=np.int64)
    for r in range(node.size):
        p = pool[node[r]]
        if relevel[p]:
            count[p + 1] += 1
    for p in range(n_pools):
        count[p + 1] += count[p]
    at = count[:-1].copy()
    rows = np.empty(count[-1], dtype=np.int64)
    for r in range(node.size):
        p = pool[node[r]]
        if relevel[p]:
            rows[at[p]] = r
            at[p] += 1
    return count, rows


@_jit
def _levels(start, end, price, perf, mine, ids, out, top):  # pragma: no cover - compiled
    """Write the levels of one pool's rows ``mine`` on its resources ``ids`` into ``out``.

    From row ``top`` on; returns the next free row (``profile.level_spans``' stack), or
    ``-1`` if more of the pool's processors are free at once than ``ids`` holds.
    """
    out_node, out_start, out_end, out_price, out_perf = out
    k = mine.size
    stack_start = np.empty(k + 1)
    stack_lo = np.empty(k + 1, dtype=np.int64)
    stack_hi = np.empty(k + 1, dtype=np.int64)
    times = np.empty(2 * k)
    delta = np.empty(2 * k, dtype=np.int64)
    for j in range(k):
        times[j] = start[mine[j]]
        delta[j] = 1
        times[k + j] = end[mine[j]]
        delta[k + j] = -1
    order = np.argsort(times, kind="mergesort")
    pr, pf = price[mine[0]], perf[mine[0]]
    for j in range(1, k):  # the least price of the rows (a window put back keeps its own)
        pr = min(pr, price[mine[j]])
    depth = 0  # spans open on the stack: [start, lowest level, highest level]
    free = 0
    j = 0
    while j < 2 * k:
        t = times[order[j]]
        while j < 2 * k and times[order[j]] == t:  # every change at t
            free += delta[order[j]]
            j += 1
        top_level = stack_hi[depth - 1] if depth else 0
        while depth and stack_hi[depth - 1] > free:  # levels above free close at t
            low = max(stack_lo[depth - 1], free + 1)
            if stack_start[depth - 1] < t:
                for level in range(low, stack_hi[depth - 1] + 1):
                    out_node[top] = ids[level - 1]
                    out_start[top] = stack_start[depth - 1]
                    out_end[top] = t
                    out_price[top] = pr
                    out_perf[top] = pf
                    top += 1
            if stack_lo[depth - 1] <= free:
                stack_hi[depth - 1] = free
            else:
                depth -= 1
            top_level = free
        if free > ids.size:
            return -1
        if free > top_level:
            stack_start[depth] = t
            stack_lo[depth] = top_level + 1
            stack_hi[depth] = free
            depth += 1
    return top


@_jit
def pool_levels(start, end, price, perf, ids, out, top):  # pragma: no cover - compiled
    """The levels of one pool's rows ``(start, end, price, perf)``, shape (k,), any order.

    On its resources ``ids``, written into ``out`` from row ``top`` on; returns the next free
    row (:func:`_levels`).
    """
    return _levels(start, end, price, perf, np.arange(start.size), ids, out, top)


@entry((I8, F8, F8, I8, F8, f8, f8, B1))
@_jit
def mark_held(node, a, b, pool, until, start, now, taken):  # pragma: no cover - compiled
    """Mark in ``taken`` each resource that a busy row holds over its pool's span.

    ``node, a, b`` (shape (r,)): busy rows ``[a, b)``, model time units; ``pool`` (shape
    (R,)): each resource's pool; ``until`` (shape (P,)): each pool's span ``[start,
    until[p])`` (``-inf``: no span); ``now``: rows ended by then hold nothing; ``taken``
    (bool, shape (R,)): set where a row overlaps its pool's span. One pass over the rows,
    for :meth:`~vosim.agents.execution.Execution.bind`. Raises nothing (compiled). Source:
    Mu'alem & Feitelson (2001), §2 (processors counted, named only to run); vosim's rule.
    """
    for r in range(node.size):
        j = node[r]
        if b[r] > now and b[r] > start and a[r] < until[pool[j]]:
            taken[j] = True


@entry((I8, I8, B1, I8, I8))
@_jit
def take_idle(nodes, of, taken, first, members):  # pragma: no cover - compiled
    """Move a window's tasks off held processors, pool by pool; the pools left to pack.

    ``nodes`` (int64, shape (n,)): each task's processor, changed in place; ``of`` (shape
    (n,)): each task's pool; ``taken`` (bool, shape (R,)): processors a busy row holds over
    their pool's span (:func:`mark_held`); ``first`` (shape (P + 1,)) and ``members`` (shape
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
