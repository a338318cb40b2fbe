"""The compiled forms of the count view and of a window cut out of it (numba).

:func:`vosim.market.free_time.count_view` and, on a count view,
:func:`vosim.policies.batch_windows.cut_window`.

A separate module so that importing vosim does not import numba: only a run whose slot list
is a count view loads it. :func:`count_rows` gives the rows the plain function gives, in
another order (the caller sorts them as a slot list).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import B1, F8, I8, entry
from vosim.core.slot_kernels import merge_runs

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


@entry((I8, F8, F8, F8, F8, I8, F8, F8, I8, I8, I8))
@_jit
def cut_view_rows(
    node, start, end, price, perf, wnode, a, b, pool, first, members
):  # pragma: no cover - compiled
    """A window cut out of a count view, its pools of several processors re-levelled, at once.

    ``node, start, end, price, perf``: the count view's columns ordered by (start, node),
    shape (m,), times in model time units; ``wnode, a, b``: the window's spans ``[a_i,
    b_i)`` on distinct processors, shape (n,); ``pool``, ``first``, ``members``: as
    :func:`count_rows`. Each span must lie in a row of its processor. The rows of the
    window's pools that hold one processor are cut as :func:`vosim.core.slot_kernels.
    cut_distinct` cuts them; the rows of its other pools are cut the same way and
    re-levelled (:func:`_levels`) without being written back first; all rows come out
    ordered by (start, node), as ``count_view(cut, pool, pools)`` orders them. Returns
    ``(bad, node, start, end, price, perf)``: ``bad`` is ``-1``; or the first span in no row
    of its processor, or ``-2`` when two spans share a processor or a row or span lies on a
    processor with no entry in ``pool``, with no rows (the caller raises, or cuts by the
    plain path, which raises ``IndexError`` for the latter). ``O(m + k log k + x log m)``
    for ``k`` rows of the re-levelled pools and ``x`` new rows: one pass over the rows to
    find them, one to copy the others. Raises nothing (compiled). Source: AEP §3.1 (a found
    window leaves the slot list); Mu'alem & Feitelson (2001), §2 (processors counted).
    """
    columns = (node, start, end, price, perf)
    pos, flag, relevel = _marks(wnode, pool, first, members)
    if pos.size == 0:  # two spans on one processor, or a processor with no pool
        return np.int64(-2), node[:0], start[:0], end[:0], price[:0], perf[:0]
    hit = np.full(wnode.size, -1, dtype=np.int64)  # the row that holds each span
    gone = np.empty(node.size, dtype=np.int64)  # rows not copied as they are, ascending
    g = 0
    for r in range(node.size):  # the only pass over every row before the copy
        if node[r] < 0 or node[r] >= pool.size:  # a row with no pool: the plain path raises
            return np.int64(-2), node[:0], start[:0], end[:0], price[:0], perf[:0]
        f = flag[node[r]]
        if f & 1:
            i = pos[node[r]]
            if hit[i] < 0 and start[r] <= a[i] and end[r] >= b[i]:
                hit[i] = r
                gone[g] = r
                g += 1
                continue
        if f & 2:
            gone[g] = r
            g += 1
    for i in range(wnode.size):
        if hit[i] < 0:
            return i, node[:0], start[:0], end[:0], price[:0], perf[:0]
    pieces = _pieces(columns, gone[:g], pos, hit, a, b)
    new = _new_rows(pieces, pool, relevel, first, members)
    out = merge_runs(columns, gone[:g], new)
    return np.int64(-1), out[0], out[1], out[2], out[3], out[4]


@_jit
def _marks(wnode, pool, first, members):  # pragma: no cover - compiled
    """Each processor's span (``-1``: none), its flags and the pools to re-level.

    Flags: 1 a span on the processor, 2 its pool re-levelled (several processors, one of them
    holding a span). Returns empty arrays when two spans share a processor or one lies on a
    processor with no pool.
    """
    pos = np.full(pool.size, -1, dtype=np.int64)
    flag = np.zeros(pool.size, dtype=np.int8)
    relevel = np.zeros(first.size - 1, dtype=np.bool_)
    for i in range(wnode.size):
        if wnode[i] < 0 or wnode[i] >= pool.size or pos[wnode[i]] >= 0:
            return pos[:0], flag[:0], relevel
        pos[wnode[i]] = i
        flag[wnode[i]] |= 1
        p = pool[wnode[i]]
        if first[p + 1] - first[p] > 1 and not relevel[p]:
            relevel[p] = True
            for q in range(first[p], first[p + 1]):
                flag[members[q]] |= 2
    return pos, flag, relevel


@_jit
def _pieces(columns, gone, pos, hit, a, b):  # pragma: no cover - compiled
    """The rows ``gone`` after the cut: a row as it is, a cut one its head and tail.

    The head ``[start, a)`` and the tail ``[b, end)`` of the row that holds a span are kept
    where not empty. Returns the five columns of the pieces.
    """
    node, start, end, price, perf = columns
    size = gone.size + hit.size
    pn, ps, pe = np.empty(size, dtype=np.int64), np.empty(size), np.empty(size)
    pp, pf = np.empty(size), np.empty(size)
    c = 0
    for r in gone:
        i = pos[node[r]]
        lo, hi = (a[i], b[i]) if i >= 0 and hit[i] == r else (end[r], end[r])
        if lo > start[r]:  # the row, or the head of a cut one
            pn[c], ps[c], pe[c], pp[c], pf[c] = node[r], start[r], lo, price[r], perf[r]
            c += 1
        if end[r] > hi:  # the tail of a cut row
            pn[c], ps[c], pe[c], pp[c], pf[c] = node[r], hi, end[r], price[r], perf[r]
            c += 1
    return pn[:c], ps[:c], pe[:c], pp[:c], pf[:c]


@_jit
def _new_rows(pieces, pool, relevel, first, members):  # pragma: no cover - compiled
    """The rows that replace the gone ones, ordered by (start, node).

    Pieces on pools of one processor as they are; on the pools re-levelled, their levels
    (:func:`pool_levels`, at most as many rows as pieces).
    """
    pn, ps, pe, pp, pf = pieces
    c = pn.size
    new = (np.empty(c, dtype=np.int64), np.empty(c), np.empty(c), np.empty(c), np.empty(c))
    x = np.int64(0)  # typed: see _jit
    of = pool[pn]
    for q in range(c):
        if not relevel[of[q]]:
            new[0][x], new[1][x], new[2][x], new[3][x], new[4][x] = (
                pn[q], ps[q], pe[q], pp[q], pf[q],
            )  # fmt: skip
            x += 1
    by_pool = np.argsort(of, kind="mergesort")
    lo = 0
    while lo < c:  # each re-levelled pool's pieces, levelled on its processors
        p = of[by_pool[lo]]
        hi = lo
        while hi < c and of[by_pool[hi]] == p:
            hi += 1
        if relevel[p]:
            mine = by_pool[lo:hi]
            x = pool_levels(ps[mine], pe[mine], pp[mine], pf[mine],
                            members[first[p] : first[p + 1]], new, x)  # fmt: skip
        lo = hi
    by = np.argsort(new[0][:x], kind="mergesort")
    by = by[np.argsort(new[1][:x][by], kind="mergesort")]
    return new[0][by], new[1][by], new[2][by], new[3][by], new[4][by]


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
