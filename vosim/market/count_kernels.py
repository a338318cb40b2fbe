"""The compiled forms of the count view and of a window cut out of it (numba).

:func:`vosim.market.free_time.count_view` and, on a count view,
:func:`vosim.policies.batch_windows.cut_window`.

A separate module so that importing vosim does not import numba: only a run whose slot list
is a count view loads it. :func:`count_rows` gives the rows the plain function gives, in
another order (the caller sorts them as a slot list).

**The count view as level ranges.** A count view gives a pool's level ``l`` to its ``l``-th
processor, so the rows of one pool that open and close together are a block of its processors in
increasing order: a *range* ``(start, end, price, perf, pool, pos, count)`` stands for the
processors ``members[pos : pos + count]``, each free over ``[start, end)``. A view of ``m`` rows
holds ``r`` ranges (Gaia: ~300 against ~2,600 rows), so what reads every row once per window (the
AEP scan's runs, ``aep_kernels.prepare_ranges``; the cut) reads every range instead
(``first_fit_kernels``). The ranges are the rows' own order: :func:`ranges_of` groups consecutive
rows into ranges and :func:`expand` writes them back, the same rows in the same order. A cut
(:func:`cut_ranges`) re-levels the window's pools from their ranges and places the new ranges by
``(start, first processor id)``, which is the rows' ``(start, node)`` order when every pool's
processors are consecutive ids (:func:`consecutive`: Gaia's nodes, LCG's one-processor nodes);
:func:`cut_view_rows` on the expanded rows is its oracle (hypothesis).

References
----------
Mu'alem & Feitelson (2001), §2 (identical processors are counted, not named); AEP §2.1 (the
slot list ordered by start), §3.1 (a found window leaves the slot list). The ranges are
vosim's.
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
    k = mine.size
    times = np.empty(2 * k)
    delta = np.empty(2 * k, dtype=np.int64)
    pr = price[mine[0]]
    for j in range(k):
        times[j] = start[mine[j]]
        delta[j] = 1
        times[k + j] = end[mine[j]]
        delta[k + j] = -1
        pr = min(pr, price[mine[j]])  # a window put back keeps its own price: the least
    sa, sb, lo, hi, spans = _level_spans(times, delta, ids.size)
    if spans < 0:
        return -1
    pf = perf[mine[0]]
    for x in range(spans):  # a row per level
        for level in range(lo[x], hi[x] + 1):
            out[0][top], out[1][top], out[2][top] = ids[level - 1], sa[x], sb[x]
            out[3][top], out[4][top] = pr, pf
            top += 1
    return top


@_jit
def _level_spans(times, delta, size):  # pragma: no cover - compiled
    """The levels of a pool's free count, as blocks of levels that close together.

    ``times, delta`` (shape (2k,)): the count's changes (``+w`` at an interval's start,
    ``-w`` at its end); ``size``: the pool's processors. A level opens where the count rises
    past it and closes where it falls below; the levels ``low .. high`` of one stack entry
    that close at ``t`` are one block ``[start, t)``. Returns ``(start, end, low, high,
    blocks)`` in closing order, or ``blocks = -1`` if more than ``size`` are free at once
    (``profile.level_spans``' stack).
    """
    order = np.argsort(times, kind="mergesort")
    k = times.size // 2
    stack_start = np.empty(k + 1)
    stack_lo = np.empty(k + 1, dtype=np.int64)
    stack_hi = np.empty(k + 1, dtype=np.int64)
    sa, sb = np.empty(2 * k + 1), np.empty(2 * k + 1)
    lo, hi = np.empty(2 * k + 1, dtype=np.int64), np.empty(2 * k + 1, dtype=np.int64)
    blocks = 0
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
                sa[blocks], sb[blocks] = stack_start[depth - 1], t
                lo[blocks], hi[blocks] = low, stack_hi[depth - 1]
                blocks += 1
            if stack_lo[depth - 1] <= free:
                stack_hi[depth - 1] = free
            else:
                depth -= 1
            top_level = free
        if free > size:
            return sa, sb, lo, hi, -1
        if free > top_level:
            stack_start[depth] = t
            stack_lo[depth] = top_level + 1
            stack_hi[depth] = free
            depth += 1
    return sa, sb, lo, hi, blocks


@_jit
def pool_levels(start, end, price, perf, ids, out, top):  # pragma: no cover - compiled
    """The levels of one pool's rows ``(start, end, price, perf)``, shape (k,), any order.

    On its resources ``ids``, written into ``out`` from row ``top`` on; returns the next free
    row (:func:`_levels`).
    """
    return _levels(start, end, price, perf, np.arange(start.size), ids, out, top)


# -- the count view held as level ranges ------------------------------------------------------
@_jit
def consecutive(first, members):  # pragma: no cover - compiled
    """Whether each pool's processors ``members[first[p]:first[p + 1]]`` are consecutive ids.

    ``first`` (int64, shape (P + 1,)) and ``members`` (int64, shape (R,), each pool's ids
    ascending): ``free_time.members_of``. Raises nothing (compiled). Source: vosim's (the
    condition under which ranges keep the rows' ``(start, node)`` order).
    """
    for p in range(first.size - 1):
        if first[p + 1] > first[p] and (
            members[first[p + 1] - 1] - members[first[p]] != first[p + 1] - first[p] - 1
        ):
            return False
    return True


@_jit
def ranges_of(node, start, end, price, perf, pool, first, members):  # pragma: no cover
    """The rows of a slot list as ranges: consecutive rows alike on consecutive processors.

    ``node, start, end, price, perf`` (shape (m,)): the rows, in their order; ``pool``
    (int64, shape (N,)): each processor's pool; ``first``, ``members``: each pool's
    processors (:func:`consecutive`). Row ``i + 1`` joins row ``i``'s range when it has the
    same start, end, price and performance, the same pool, and is the pool's next processor.
    Returns ``(start, end, price, perf, pool, pos, count)``, shape (r,) each: the range
    stands for ``members[pos : pos + count]`` (times in model time units). ``O(m + N)``.
    Raises nothing (compiled). Source: Mu'alem & Feitelson (2001), §2 (counted processors);
    the ranges are vosim's.
    """
    where = np.empty(pool.size, dtype=np.int64)  # each processor's place in members
    for q in range(members.size):
        where[members[q]] = q
    m = node.size
    rs, re_, rp, rf = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    rpool, rpos, rcount = (np.empty(m, dtype=np.int64), np.empty(m, dtype=np.int64),
                           np.empty(m, dtype=np.int64))  # fmt: skip
    r = -1
    for i in range(m):
        p, w = pool[node[i]], where[node[i]]
        if (
            r >= 0
            and start[i] == rs[r]
            and end[i] == re_[r]
            and price[i] == rp[r]
            and perf[i] == rf[r]
            and p == rpool[r]
            and w == rpos[r] + rcount[r]
        ):
            rcount[r] += 1
            continue
        r += 1
        rs[r], re_[r], rp[r], rf[r] = start[i], end[i], price[i], perf[i]
        rpool[r], rpos[r], rcount[r] = p, w, 1
    r += 1
    return rs[:r], re_[:r], rp[:r], rf[:r], rpool[:r], rpos[:r], rcount[:r]


@_jit
def expand(ranges, members):  # pragma: no cover - compiled
    """The rows ``(node, start, end, price, perf)`` the ``ranges`` stand for, in order.

    ``ranges``: as :func:`ranges_of` returns them; ``members``: the pools' processors.
    ``O(m)``. Raises nothing (compiled). Source: AEP §2.1 (the slot list's rows); the ranges
    are vosim's.
    """
    rs, re_, rp, rf, _, rpos, rcount = ranges
    m = rcount.sum()
    node = np.empty(m, dtype=np.int64)
    start, end, price, perf = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    i = 0
    for r in range(rs.size):
        for o in range(rcount[r]):
            node[i] = members[rpos[r] + o]
            start[i], end[i], price[i], perf[i] = rs[r], re_[r], rp[r], rf[r]
            i += 1
    return node, start, end, price, perf


@_jit
def _level_ranges(s, e, w, lead, ids, out, top):  # pragma: no cover - compiled
    """The levels of one pool's free intervals, written as ranges into ``out`` from ``top``.

    ``s, e, w`` (shape (k,)): intervals ``[s, e)`` each holding ``w`` processors; ``ids``:
    the pool's processors ``members[base : base + size]``; ``lead``: the levels' price and
    performance, the pool and ``base``. Level ``l`` (1-based) goes to ``ids[l - 1]``; the
    levels that open and close together are one range (:func:`_levels` writes them one row
    each). Returns the next free range, or ``-1`` when more than ``size`` are free at once.
    """
    k = s.size
    times = np.empty(2 * k)
    delta = np.empty(2 * k, dtype=np.int64)
    for j in range(k):
        times[j], delta[j] = s[j], w[j]
        times[k + j], delta[k + j] = e[j], -w[j]
    sa, sb, lo, hi, spans = _level_spans(times, delta, ids.size)
    if spans < 0:
        return -1
    for x in range(spans):  # one range per block
        out[0][top], out[1][top], out[2][top], out[3][top] = sa[x], sb[x], lead[0], lead[1]
        out[4][top], out[5][top], out[6][top] = lead[2], lead[3] + lo[x] - 1, hi[x] - lo[x] + 1
        top += 1
    return top


@_jit
def cut_ranges(ranges, hit, offset, a, b, first, members):  # noqa: C901 - pragma: no cover
    """A window cut out of a count view held as ranges, its pools re-levelled.

    ``ranges``: :func:`ranges_of`'s, in the rows' order; the window's task ``i`` takes the
    processor ``offset[i]`` of range ``hit[i]`` over ``[a[i], b[i])`` (shape (n,) each, the
    tasks on distinct processors). As ``count_kernels.cut_view_rows`` cuts the expanded
    rows: a task on a pool of one processor leaves its row's head ``[start, a)`` and tail
    ``[b, end)`` where not empty; every pool of several processors holding a task is
    re-levelled from its ranges, the tasks' rows cut, at its rows' least price. The new
    ranges go, in ``(start, first processor id)`` order, before the first range kept whose
    key is greater. Returns ``(bad, ranges)``: ``bad`` is ``-1``; or the first task outside
    its range, or ``-2`` when two tasks share a processor, or ``-3`` when a pool would hold
    more free processors than it has (no ranges then). ``O(r + k log k)`` for ``k`` ranges of
    the pools re-levelled. Raises nothing (compiled). Source: AEP §3.1 (a found window
    leaves the slot list); Mu'alem & Feitelson (2001), §2 (processors counted).
    """
    rs, re_, rp, rf, rpool, rpos, rcount = ranges
    r, n = rs.size, hit.size
    pools = first.size - 1
    relevel = np.zeros(pools, dtype=np.bool_)
    hits = np.zeros(r, dtype=np.int64)  # tasks in each range
    for i in range(n):
        h = hit[i]
        if offset[i] < 0 or offset[i] >= rcount[h] or a[i] < rs[h] or b[i] > re_[h]:
            return i, _none(ranges)
        for q in range(i):
            if hit[q] == h and offset[q] == offset[i]:
                return np.int64(-2), _none(ranges)
        hits[h] += 1
        p = rpool[h]
        if first[p + 1] - first[p] > 1:
            relevel[p] = True
    gone = np.zeros(r, dtype=np.bool_)
    size = 0  # room for the new ranges: at most two per task, plus the pools' levels
    for x in range(r):
        if relevel[rpool[x]] or hits[x]:
            gone[x] = True
            size += 2 * rcount[x] + 2
    new = (np.empty(size), np.empty(size), np.empty(size), np.empty(size),
           np.empty(size, dtype=np.int64), np.empty(size, dtype=np.int64),
           np.empty(size, dtype=np.int64))  # fmt: skip
    top = np.int64(0)  # typed: numba compiles a helper once more per literal value
    for i in range(n):  # the tasks on pools of one processor: their heads and tails
        h = hit[i]
        if relevel[rpool[h]]:
            continue
        for lo, hi in ((rs[h], a[i]), (b[i], re_[h])):
            if hi > lo:
                new[0][top], new[1][top], new[2][top], new[3][top] = lo, hi, rp[h], rf[h]
                new[4][top], new[5][top], new[6][top] = rpool[h], rpos[h], 1
                top += 1
    # each re-levelled pool's ranges, in order (a counting sort by pool), and each range's tasks
    at = np.zeros(pools + 1, dtype=np.int64)
    for x in range(r):
        if relevel[rpool[x]]:
            at[rpool[x] + 1] += 1
    for p in range(pools):
        at[p + 1] += at[p]
    fill = at[:-1].copy()
    mine = np.empty(at[-1], dtype=np.int64)
    for x in range(r):
        if relevel[rpool[x]]:
            mine[fill[rpool[x]]] = x
            fill[rpool[x]] += 1
    task_of = np.full(r, -1, dtype=np.int64)  # a range's first task, then each task's next
    next_task = np.full(n, -1, dtype=np.int64)
    for i in range(n - 1, -1, -1):
        next_task[i] = task_of[hit[i]]
        task_of[hit[i]] = i
    for p in np.flatnonzero(relevel):  # each pool re-levelled from its ranges, tasks' rows cut
        k = 0
        for x in mine[at[p] : at[p + 1]]:
            k += 1 + 2 * hits[x]
        s, e, w = np.empty(k), np.empty(k), np.empty(k, dtype=np.int64)
        c = 0
        pr, pf, seen = np.inf, 0.0, False
        for x in mine[at[p] : at[p + 1]]:
            pieces = c
            if rcount[x] > hits[x]:
                s[c], e[c], w[c] = rs[x], re_[x], rcount[x] - hits[x]
                c += 1
            i = task_of[x]
            while i >= 0:
                if a[i] > rs[x]:
                    s[c], e[c], w[c] = rs[x], a[i], 1
                    c += 1
                if re_[x] > b[i]:
                    s[c], e[c], w[c] = b[i], re_[x], 1
                    c += 1
                i = next_task[i]
            if c > pieces:  # the range left something: its price counts, its perf if first
                pr = min(pr, rp[x])
                if not seen:
                    pf, seen = rf[x], True
        if c:
            lead = (pr, pf, np.int64(p), first[p])
            ids = members[first[p] : first[p + 1]]
            top = _level_ranges(s[:c], e[:c], w[:c], lead, ids, new, top)
            if top < 0:
                return np.int64(-3), _none(ranges)
    # the new ranges by (start, first id), then merged before the first kept range greater
    key = np.empty(top, dtype=np.int64)
    for y in range(top):
        key[y] = members[new[5][y]]
    by = np.argsort(key, kind="mergesort")
    by = by[np.argsort(new[0][:top][by], kind="mergesort")]
    kept = r - gone.sum()
    total = kept + top
    out = (np.empty(total), np.empty(total), np.empty(total), np.empty(total),
           np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64),
           np.empty(total, dtype=np.int64))  # fmt: skip
    x = 0
    o = 0
    for q in range(top + 1):
        if q < top:
            y = by[q]
            ys, yk = new[0][y], key[y]
        while x < r and (
            q == top or rs[x] < ys or (rs[x] == ys and members[rpos[x]] <= yk) or gone[x]
        ):
            if not gone[x]:
                _copy(ranges, x, out, o)
                o += 1
            x += 1
        if q < top:
            _copy(new, y, out, o)
            o += 1
    return np.int64(-1), out


@_jit
def _copy(src, x, dst, o):  # pragma: no cover - compiled
    """Range ``x`` of ``src`` written as range ``o`` of ``dst``."""
    dst[0][o], dst[1][o], dst[2][o], dst[3][o] = src[0][x], src[1][x], src[2][x], src[3][x]
    dst[4][o], dst[5][o], dst[6][o] = src[4][x], src[5][x], src[6][x]


@_jit
def _none(ranges):  # pragma: no cover - compiled
    """No ranges, typed as ``ranges``."""
    return (ranges[0][:0], ranges[1][:0], ranges[2][:0], ranges[3][:0], ranges[4][:0],
            ranges[5][:0], ranges[6][:0])  # fmt: skip


@_jit
def rows_before(rcount):  # pragma: no cover - compiled
    """Each range's first row in the expanded rows: int64, shape (r + 1,), the last ``m``.

    ``rcount`` (int64, shape (r,)): each range's processors. Raises nothing (compiled).
    Source: vosim's (positions of the expanded slot list, AEP §2.1).
    """
    out = np.zeros(rcount.size + 1, dtype=np.int64)
    for x in range(rcount.size):
        out[x + 1] = out[x] + rcount[x]
    return out
