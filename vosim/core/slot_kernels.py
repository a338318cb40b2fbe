"""Compiled forms of cutting a window out of a slot list and putting one back (numba).

A separate module so that importing vosim does not import numba (~0.5 s, ~100 MB): the first
cut of a process loads it. :func:`cut_distinct` is :meth:`vosim.core.slots.SlotList.cut` for a
window's spans, :func:`release_window` is :func:`vosim.policies.batch_windows.release`. Each result
is the numpy function's, row for row. In a cut each span's slot is
the first row of its node that holds it (the slots of a node are disjoint, so the only one),
the slot's head ``[start, a)`` keeps its place (dropped when empty), and the remainders
``[b, end)`` are merged into the rows in (start, node) order, each before the first row whose
key is greater, as :func:`~vosim.core.slots.merge_rows`'s binary searches place them on rows
in that order. One merge (:func:`merge_runs`) serves every cut and put-back: the rows kept
between two places are copied as blocks. ``VOSIM_REFERENCE=1`` runs the numpy method
instead (the plain path, the oracle of the tests).

References
----------
AEP §3.1 (CSA) and VO Preferences §2: found windows are cut out of the slot list; Mu'alem &
Feitelson (2001), §2: compression takes a reservation out before searching it again.
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry

__all__ = ["cut_distinct", "merge_runs", "merged_rows", "release_window"]

_jit = numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run
# Constants passed to compiled helpers are typed (np.int64(0), np.bool_(False)), and so is a
# counter passed on: numba compiles a helper once more for each literal value it is called with.


@entry((I8, F8, F8, F8, F8, I8, F8, F8))
@_jit
def cut_distinct(node, start, end, price, perf, wnode, a, b):  # pragma: no cover - compiled
    """Cut spans ``[a_i, b_i)`` on distinct nodes ``wnode`` out of ``m >= 1`` slots.

    ``node, start, end, price, perf``: the slot list's columns in (start, node) order, shape
    (m,) (times in model time units, price per time unit); ``wnode`` (int), ``a``, ``b``
    (model time units): the spans, shape (n,). Returns ``(bad, node, start, end, price,
    perf)``: ``bad`` the first span that lies in no slot of its node (the columns are then
    empty; the caller raises ``SlotError``), else -1 and the new columns. Raises nothing
    (compiled). Source: AEP §3.1 and VO Preferences §2 (a found window is cut out).
    """
    m, n = node.size, wnode.size
    size = wnode.max() + 1  # rows of higher nodes hold no span
    pos = np.full(size, -1, dtype=np.int64)
    for i in range(n):
        pos[wnode[i]] = i
    hit = np.full(n, -1, dtype=np.int64)
    found = 0
    for r in range(m):
        k = node[r]
        if k < size:
            i = pos[k]
            if i >= 0 and hit[i] < 0 and start[r] <= a[i] and end[r] >= b[i]:
                hit[i] = r
                found += 1
                if found == n:  # a node's slots are disjoint: no later row holds a span
                    break
    for i in range(n):
        if hit[i] < 0:
            return i, node[:0], start[:0], end[:0], price[:0], perf[:0]
    # each hit row leaves; its head [start, a) and tail [b, end) come back where not empty
    pn, ps, pe, pp, pf = _rows(2 * n, node)
    c = 0
    for i in range(n):
        r = hit[i]
        if a[i] > start[r]:
            pn[c], ps[c], pe[c], pp[c], pf[c] = wnode[i], start[r], a[i], price[r], perf[r]
            c += 1
        if end[r] > b[i]:
            pn[c], ps[c], pe[c], pp[c], pf[c] = wnode[i], b[i], end[r], price[r], perf[r]
            c += 1
    order = np.argsort(pn[:c], kind="mergesort")
    order = order[np.argsort(ps[:c][order], kind="mergesort")]
    new = (pn[order], ps[order], pe[order], pp[order], pf[order])
    out = merge_runs((node, start, end, price, perf), np.sort(hit), new)
    return -1, out[0], out[1], out[2], out[3], out[4]


@entry((I8, F8, F8, F8, F8, I8, F8, F8, F8, F8))
@_jit
def release_window(node, start, end, price, perf, snode, sa, sb, sprice, sperf):  # pragma: no cover
    """``windows.release``: the slot list with a window's spans free again, merged.

    ``node, start, end, price, perf``: the slot list's columns in (start, node) order, shape
    (m,); ``snode, sa, sb, sprice, sperf``: the window's spans (busy time in that list),
    shape (n,); times in model time units, prices per time unit. The rows of the spans'
    nodes and the spans are sorted by (node, start); a row starts a new free span unless it
    touches the previous one of its node (its start at most that row's end), and a merged
    span ends at the latest end of its rows and keeps its first row's price and performance.
    The merged spans go back among the other rows in (start, node) order. Returns the new
    columns. Raises nothing (compiled). Source: Mu'alem & Feitelson (2001), §2 (compression
    puts a reservation back before searching it again).
    """
    m, n = node.size, snode.size
    top = snode.max()
    if m:
        top = max(top, node.max())
    mark = np.zeros(top + 1, dtype=np.bool_)
    for i in range(n):
        mark[snode[i]] = True
    touched = 0
    for r in range(m):
        if mark[node[r]]:
            touched += 1
    k = touched + n
    tn, ta, tb, tp, tf = _rows(k, node)
    q = 0
    for r in range(m):
        if mark[node[r]]:
            tn[q], ta[q], tb[q], tp[q], tf[q] = node[r], start[r], end[r], price[r], perf[r]
            q += 1
    for i in range(n):
        tn[q], ta[q], tb[q], tp[q], tf[q] = snode[i], sa[i], sb[i], sprice[i], sperf[i]
        q += 1
    order = np.argsort(ta, kind="mergesort")
    order = order[np.argsort(tn[order], kind="mergesort")]
    # merged spans: (node, start, end, price, perf), then by (start, node)
    mn, ms, me, mp, mf = _rows(k, node)
    g = -1
    for j in range(k):
        x = order[j]
        if j == 0 or tn[x] != tn[order[j - 1]] or ta[x] > tb[order[j - 1]]:
            g += 1
            mn[g], ms[g], me[g], mp[g], mf[g] = tn[x], ta[x], tb[x], tp[x], tf[x]
        else:
            me[g] = max(me[g], tb[x])
    g += 1
    by = np.argsort(mn[:g], kind="mergesort")
    by = by[np.argsort(ms[:g][by], kind="mergesort")]
    drop = np.empty(m, dtype=np.bool_)
    for r in range(m):
        drop[r] = mark[node[r]]
    return merged_rows(node, start, end, price, perf, drop, mn, ms, me, mp, mf, by)


@_jit
def merged_rows(node, start, end, price, perf, drop, xn, xs, xe, xp, xf, order):  # pragma: no cover
    """The rows not dropped and the extra rows ``order`` picks, merged in (start, node) order.

    ``node, start, end, price, perf``: rows in (start, node) order, shape (m,), ``drop``
    (bool, shape (m,)) the ones left out; ``xn, xs, xe, xp, xf``: extra rows taken in the
    order ``order`` (ascending (start, node)), none with a (start, node) pair of a kept row.
    Each extra row goes before the first kept row with a greater key, as the binary searches
    of :func:`~vosim.core.slots.merge_rows` place it. Returns the five merged columns, shape
    (kept + extra,) each (node ids, model time units, cost units per time unit, performance).

    Raises nothing: compiled, the callers keep the indices in range. Source: AEP §2.1 (the
    slot list ordered by start time); the merge is vosim's.
    """
    new = (xn[order], xs[order], xe[order], xp[order], xf[order])
    return merge_runs((node, start, end, price, perf), np.flatnonzero(drop), new)


@_jit
def merge_runs(columns, gone, new):  # pragma: no cover - compiled
    """The rows not ``gone`` and the ``new`` rows, merged in (start, node) order.

    ``columns``: ``(node, start, end, price, perf)``, rows in (start, node) order, shape (m,)
    each; ``gone``: the rows left out, ascending indices, shape (d,); ``new``: five columns
    of rows in (start, node) order, shape (x,), none with the key of a row kept. Each new
    row goes before the first row whose key is greater (a binary search from the last
    place), and the rows kept between two places or gone rows are copied as a block, column
    by column. Columns: node ids (int), start and end (model time units), price (cost units
    per time unit), performance. Returns the five merged columns, shape (m - d + x,) each.
    ``O(m + x log m)``.
    Raises nothing (compiled; the callers keep the indices in range). Source: AEP §2.1 (the
    slot list ordered by start time); the merge is vosim's.
    """
    node, start, end, price, perf = columns
    ln, ls, le, lp, lf = new
    m, d, x = node.size, gone.size, ln.size
    on, os_, oe, op, of = _rows(m - d + x, node)
    o, r, q = 0, 0, 0  # next output row, next row, next gone row
    for y in range(x + 1):
        place = m
        if y < x:  # the first row after new row y by (start, node)
            lo, hi = r, m
            while lo < hi:
                mid = (lo + hi) >> 1
                if start[mid] < ls[y] or (start[mid] == ls[y] and node[mid] <= ln[y]):
                    lo = mid + 1
                else:
                    hi = mid
            place = lo
        while r < place:  # the rows kept in [r, place), a block between gone rows at a time
            stop = gone[q] if q < d and gone[q] < place else place
            k = stop - r
            on[o : o + k] = node[r:stop]
            os_[o : o + k] = start[r:stop]
            oe[o : o + k] = end[r:stop]
            op[o : o + k] = price[r:stop]
            of[o : o + k] = perf[r:stop]
            o += k
            r = stop
            if q < d and gone[q] == stop and stop < place:
                r += 1
                q += 1
        if y < x:
            on[o], os_[o], oe[o], op[o], of[o] = ln[y], ls[y], le[y], lp[y], lf[y]
            o += 1
    return on, os_, oe, op, of


@_jit
def _rows(k, node):  # pragma: no cover - compiled
    """Room for ``k`` slot rows: ``node`` (``node``'s dtype), ``start, end, price, perf``."""
    return np.empty(k, dtype=node.dtype), np.empty(k), np.empty(k), np.empty(k), np.empty(k)
