"""The compiled parts of :func:`vosim.policies.compression.compress` (numba).

A separate module so that importing vosim does not import numba (~0.5 s, ~100 MB): only a run
that re-plans reservations loads it. Every function mirrors a numpy step of the plain pass
(:mod:`vosim.policies.replan`, :mod:`vosim.policies.batch_windows`) operation for operation where
it decides something, so the floats compared are the same floats; the docstrings name the
step. Steps that only skip work (a necessary condition) compare with the plain pass's loosened
budget, so float rounding never skips a window the plain pass finds.

Three tuples carry the state (numba passes their arrays by reference):

``rows``
    The free slots as rows ``node, start, end, price, perf`` with an ``alive`` flag, linked
    per node (``head[node]``, ``nxt[row]``; ``top[0]`` rows in use), the nodes ``joined``
    (time freed on them since the previous search of a known reservation; also the first
    ``jcount[0]`` entries of ``jlist``), and groups of alike rows (equal start, end, price and
    performance): ``gid[row]``, ``gstart, gend, gprice, gperf, gcount`` (live rows of the
    group), ``gtop[0]`` groups in use. A row whose values change leaves its group. Then
    ``pvals`` (every performance a row can have, increasing) and ``pmin`` (a floor of the
    least price of a live group of each, :func:`price_floors`). Last, when the slots are a
    count view (``release`` and ``cut_window`` with ``pool``), ``pool_of`` (each node's pool)
    and each pool's nodes ``members[first[p]:first[p + 1]]``; all three empty otherwise.
``jobs``
    The reservations in priority order: ``n, volume, budget`` (the job's), the held window's
    ``ostart, oruntime, ocost`` and its spans ``soff[i]:soff[i + 1]`` of ``snode, sstart,
    send, sprice, sperf``.
``out``
    The window found: ``node, end, price, perf`` per span (in the window's order) and
    ``scal = (start, runtime, cost)``.
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.allocators.aep_kernels import (
    fenwick_add,
    fenwick_smallest,
    pairwise_sum,
    unique_sorted,
)
from vosim.core.kernel_signatures import B1, F8, I8, b1, entry, f8, i8, tuple_of
from vosim.core.slot_kernels import merged_rows
from vosim.market.count_kernels import pool_levels
from vosim.policies.batch_windows import _EPS  # relative tolerance of budgets and task lengths

#: The numba types of the state tuples ``rows``, ``jobs``, ``out`` (above) and of
#: ``earliest_start``'s ``free`` (a slot list's columns): the kernels' declared signatures.
ROWS = tuple_of(
    I8, F8, F8, F8, F8, B1, I8, I8, I8, B1, I8, I8, I8, F8, F8, F8, F8, I8, I8, F8, F8, I8, I8, I8
)
JOBS = tuple_of(I8, F8, F8, F8, F8, F8, I8, I8, F8, F8, F8, F8)
OUT = tuple_of(I8, F8, F8, F8, F8)
FREE = tuple_of(I8, F8, F8, F8, F8)

#: Looser budget of the plain pass's necessary conditions.
_LOOSE = 1e-6

_jit = numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run
# Constants passed to compiled helpers are typed (np.int64(0), np.bool_(False)), and so is a
# counter passed on: numba compiles a helper once more for each literal value it is called with.


@_jit
def _lexsort4(k1, k2, k3, k4):  # pragma: no cover - compiled
    """``np.lexsort((k4, k3, k2, k1))``: by ``k1``, ties by ``k2``, ``k3``, then ``k4``."""
    order = np.argsort(k4, kind="mergesort")
    order = order[np.argsort(k3[order], kind="mergesort")]
    order = order[np.argsort(k2[order], kind="mergesort")]
    return order[np.argsort(k1[order], kind="mergesort")]


@_jit
def _window_at(free, t, n, volume, budget, out):  # pragma: no cover - compiled
    """``windows.window_at(free, t, job)``: the ``n`` cheapest tasks at ``t`` within budget.

    ``free``: ``(node, start, end, price, perf)`` of the slots searched. Writes the window to
    ``out``; returns whether one was found.
    """
    fnode, fstart, fend, fprice, fperf = free
    out_node, out_end, out_price, out_perf, scal = out
    m = fnode.size
    d = volume / fperf
    ok = np.empty(m, dtype=np.int64)
    k = 0
    for r in range(m):
        if fstart[r] <= t and fend[r] - t >= d[r] * (1 - _EPS):
            ok[k] = r
            k += 1
    if k < n:
        return False
    rows = ok[:k]
    cost = fprice[rows] * d[rows]
    if k > n:  # the first n by (cost, slack, idle, node) cost at most the n-th least cost:
        bar = np.partition(cost, n - 1)[n - 1]  # only those rows are sorted (the same n)
        c = 0
        for q in range(k):
            if cost[q] <= bar:
                rows[c], cost[c] = rows[q], cost[q]
                c += 1
        rows, cost = rows[:c], cost[:c]
    slack = fend[rows] - (t + d[rows])
    idle = t - fstart[rows]
    order = _lexsort4(cost, slack, idle, fnode[rows].astype(np.float64))[:n]
    chosen = cost[order]
    total = pairwise_sum(chosen, np.int64(0), n)
    if total > budget * (1 + _EPS):
        return False
    runtime = -np.inf
    for j in range(n):
        r = rows[order[j]]
        out_node[j] = fnode[r]
        out_end[j] = min(t + d[r], fend[r])
        out_price[j] = fprice[r]
        out_perf[j] = fperf[r]
        runtime = max(runtime, d[r])
    scal[0] = t
    scal[1] = runtime
    scal[2] = total
    return True


@_jit
def _covered(points, lo, hi):  # pragma: no cover - compiled
    """Which ``points`` (ascending) lie in some ``[lo_r, hi_r]``: bool, shape of ``points``."""
    order = np.argsort(lo, kind="mergesort")
    inside = np.zeros(points.size, dtype=np.bool_)
    reach = -np.inf  # the furthest hi of the intervals opened so far
    q = 0
    for c in range(points.size):
        t = points[c]
        while q < order.size and lo[order[q]] <= t:
            reach = max(reach, hi[order[q]])
            q += 1
        inside[c] = reach >= t
    return inside


@_jit
def _least_k(cost, count, by_cost, k):  # pragma: no cover - compiled
    """The least total cost of ``k`` tasks on entries of ``count`` slots each at ``cost``.

    ``cost`` (float, shape (f,)): a task's cost on each entry, cost units; ``count`` (int64,
    shape (f,)): the entry's slots; ``by_cost`` (int64, shape (f,)): the entries by
    increasing cost; ``k`` (int): the job's tasks. Summed in that order, ``O(k)`` after the
    sort; ``inf`` is never returned (fewer than ``k`` slots give the sum of all). A window's
    cost is the sum of its tasks' (AEP §2.1, within the budget ``C``), so no window on these
    entries costs less. Raises nothing (compiled).
    """
    total = 0.0
    left = k
    for r in by_cost:
        take = min(count[r], left)
        total += cost[r] * take
        left -= take
        if left == 0:
            break
    return total


@_jit
def _starts(lo, hi, cost, count, mine, k, limit, near, before):  # pragma: no cover - compiled
    """The starts before ``before`` where a window may hold ``k`` tasks, ascending.

    Over entries (a slot, or a group of ``count`` alike slots) that can hold a task from any
    start in ``[lo, hi]`` at ``cost`` each: the candidate starts of
    ``windows.candidate_starts`` (an entry's ``lo`` where at least ``k`` slots hold a task),
    with ``near`` only those where a ``mine`` entry holds one (``replan.earlier_window``'s
    ``freed``), and only those where the ``k`` cheapest tasks present fit ``limit`` (the
    loosened budget, as ``replan._affordable``): a sweep over the starts keeps the entries
    present in a Fenwick tree over their cost ranks (an entry leaves after its ``hi``,
    widened by ``1e-9`` relative as ``_affordable`` widens it). At the other starts no window
    holds the job. None at all, before any sweep, when the ``k`` cheapest tasks of every
    entry together (:func:`_least_k`) exceed ``limit``: a start holds a subset of them.
    """
    ok = np.flatnonzero(lo <= hi)
    if count[ok].sum() < k:
        return np.empty(0)
    lo, hi, cost, count, mine = lo[ok], hi[ok], cost[ok], count[ok], mine[ok]
    f = lo.size
    by_cost = np.argsort(cost, kind="mergesort")
    if _least_k(cost, count, by_cost, k) > limit * (1 + 1e-12):
        return np.empty(0)  # no start's k cheapest cost less than all entries' k cheapest
    by_lo = np.argsort(lo, kind="mergesort")
    by_hi = np.argsort(hi, kind="mergesort")
    # the distinct lo values (ascending) where at least k slots hold a task: slots with
    # lo <= t less those with hi < t, walked with two pointers
    cands = np.empty(f)
    c = 0
    held = 0
    q = 0
    e = 0
    while q < f:
        t = lo[by_lo[q]]
        while q < f and lo[by_lo[q]] <= t:
            held += count[by_lo[q]]
            q += 1
        while e < f and hi[by_hi[e]] < t:
            held -= count[by_hi[e]]
            e += 1
        if held >= k and t < before:
            cands[c] = t
            c += 1
    cands = cands[:c]
    if near and cands.size:
        cands = cands[_covered(cands, lo[mine], hi[mine])]
    if not cands.size:
        return cands
    rank = np.empty(f, dtype=np.int64)
    cost_of_rank = np.empty(f + 1)
    for r in range(f):  # loops, not array assignments: see aep_kernels.unique_sorted
        rank[by_cost[r]] = r + 1
        cost_of_rank[r + 1] = cost[by_cost[r]]
    wide = hi + 1e-9 * np.maximum(np.abs(hi), 1.0)
    counts = np.zeros(f + 1, dtype=np.int64)
    sums = np.zeros(f + 1)
    present = np.zeros(f, dtype=np.bool_)
    total = 0
    step = 1
    while step * 2 <= f:
        step *= 2
    keep = np.zeros(cands.size, dtype=np.bool_)
    q = 0
    e = 0
    for c in range(cands.size):
        t = cands[c]
        while q < f and lo[by_lo[q]] <= t:
            r = by_lo[q]
            present[r] = True
            fenwick_add(counts, sums, rank[r], cost[r] * count[r], count[r])
            total += count[r]
            q += 1
        while e < f and wide[by_hi[e]] < t:  # by_hi orders wide too, up to rounding
            r = by_hi[e]
            if present[r]:
                present[r] = False
                fenwick_add(counts, sums, rank[r], -cost[r] * count[r], -count[r])
                total -= count[r]
            e += 1
        keep[c] = total >= k and fenwick_smallest(counts, sums, cost_of_rank, step, k) <= limit
    return cands[keep]


@_jit
def _own_runs(rows, j, a, b, price, perf, ra, rb, rp, rf):  # pragma: no cover - compiled
    """``windows.release`` on one node: its live rows with the span ``[a, b)`` put back.

    The rows of a node are disjoint and do not touch, and the span lies in their busy time,
    so it joins only a row ending at ``a`` and one starting at ``b``. Writes the rows after
    (``start, end, price, perf``) to ``ra, rb, rp, rf`` (room for the node's live rows plus
    one): the other rows in list order, then the joined one, which takes the price and
    performance of its first part, as ``release`` takes them. Returns how many.
    """
    start, end, rprice, rperf, alive, head, nxt = rows[1:8]
    first, last, lp, lf = a, b, price, perf
    c = 0
    r = head[j]
    while r >= 0:
        if alive[r]:
            if end[r] == a:  # the row just before the span: the run starts there
                first, lp, lf = start[r], rprice[r], rperf[r]
            elif start[r] == b:  # the row just after: the run ends with it
                last = end[r]
            else:
                ra[c], rb[c], rp[c], rf[c] = start[r], end[r], rprice[r], rperf[r]
                c += 1
        r = nxt[r]
    ra[c], rb[c], rp[c], rf[c] = first, last, lp, lf
    return c + 1


@_jit
def _cheapest_task(rows, jobs, i, slow, by_rows):  # pragma: no cover - compiled
    """``replan._cheapest_task``: the least cost of a task of reservation ``i`` fast enough.

    Over the slots searched (the joined nodes' rows with ``by_rows``, else every live group)
    and the old window's spans; ``inf`` if none is fast enough (``task <= slow``). Every live
    group is read through the least price of each performance (:func:`price_floors`): a
    task's cost ``price * (V / p)`` rounds monotonically in ``price``, so the least price of
    a performance gives the least cost of its groups, the same float, in ``O(P)`` for ``P``
    performances rather than ``O(G)`` for ``G`` groups. After a move of the pass the floors
    may be lower than the live groups' (rows that left are not read out), so the value is
    then a lower bound of ``replan``'s: its only uses are necessary conditions (the budget
    left for the other ``n - 1`` tasks), which a lower value loosens, never tightens, so
    the windows found are the same.
    """
    price, perf, alive, head, nxt, jlist, jcount = (
        rows[3], rows[4], rows[5], rows[6], rows[7], rows[10], rows[11],
    )  # fmt: skip
    pvals, pmin = rows[19], rows[20]
    v, soff, sprice, sperf = jobs[1], jobs[6], jobs[10], jobs[11]
    low = np.inf
    if by_rows:
        for q in range(jcount[0]):
            r = head[jlist[q]]
            while r >= 0:
                if alive[r]:
                    task = v[i] / perf[r]
                    if task <= slow and price[r] * task < low:
                        low = price[r] * task
                r = nxt[r]
    else:  # the live groups by performance: the least price of each (price_floors)
        for p in range(pvals.size):
            if pmin[p] < np.inf:
                task = v[i] / pvals[p]
                if task <= slow and pmin[p] * task < low:
                    low = pmin[p] * task
    for s in range(soff[i], soff[i + 1]):
        task = v[i] / sperf[s]
        if task <= slow and sprice[s] * task < low:
            low = sprice[s] * task
    return low


# Complexity above 15: compiled (numba): the plain earlier_window's steps (screen, starts, window,
# budget) in one kernel, so a reservation is searched without Python between steps.
@_jit
def _search(rows, jobs, i, near, now, out):  # noqa: C901 - pragma: no cover - compiled
    """``replan.earlier_window`` for reservation ``i``; ``near``: searched where time was freed.

    The slots searched are every row (as groups of alike rows), or with ``near`` and one
    task only the joined nodes' rows; the old window's spans are put back on its nodes
    (:func:`_own_runs`), the slots that cannot hold a task fast and cheap enough before the
    old start dropped, and the first start of :func:`_starts` at which :func:`_window_at`
    finds a window on the slots kept wins.
    """
    node, start, end, price, perf, alive, head, nxt, top, joined, jlist, jcount = rows[:12]
    gid, gstart, gend, gprice, gperf, gcount, gtop = rows[12:19]
    n, volume, budget, ostart, oruntime, ocost, soff, snode, sstart, send, sprice, sperf = jobs
    k = n[i]
    v = volume[i]
    cap = min(budget[i], ocost[i])
    slow = oruntime[i] * (1 + _EPS)
    s0, s1 = soff[i], soff[i + 1]
    before = ostart[i]
    counted = rows[21].size > 0
    by_rows = near and k == 1
    low = _cheapest_task(rows, jobs, i, slow, by_rows)
    if low == np.inf:
        return False
    bound = cap * (1 + _LOOSE) - (k - 1) * low
    # entries: slots (by_rows) or groups of the other nodes, then the old nodes' runs (or,
    # counted, the levels of the old pools with the old spans back)
    own = np.zeros(head.size, dtype=np.bool_)
    ownlist = _own_nodes(rows, jobs, i, own)
    if by_rows:
        size = 0
        for q in range(jcount[0]):
            r = head[jlist[q]]
            while r >= 0:
                size += alive[r]
                r = nxt[r]
    else:
        size = gtop[0]
    runs = s1 - s0
    for j in ownlist:
        if joined[j] or not by_rows or counted:  # counted: the pools' rows are levelled
            r = head[j]
            while r >= 0:
                runs += alive[r]
                r = nxt[r]
    enode = np.empty(size + runs, dtype=np.int64)  # a row's node; -1 for a group
    egroup = np.full(size + runs, -1, dtype=np.int64)
    est = np.empty(size + runs)
    een = np.empty(size + runs)
    epr = np.empty(size + runs)
    epf = np.empty(size + runs)
    ecount = np.empty(size + runs, dtype=np.int64)
    emine = np.zeros(size + runs, dtype=np.bool_)
    f = np.int64(0)  # typed: see _jit
    if by_rows:
        for q in range(jcount[0]):
            r = head[jlist[q]]
            while r >= 0:
                if alive[r] and not own[node[r]]:
                    task = v / perf[r]
                    if start[r] < before and task <= slow and price[r] * task <= bound:
                        enode[f], est[f], een[f] = node[r], start[r], end[r]
                        epr[f], epf[f], ecount[f], emine[f] = price[r], perf[r], 1, True
                        f += 1
                r = nxt[r]
    else:
        count = gcount[: gtop[0]].copy()
        mine = np.zeros(gtop[0], dtype=np.bool_)
        for j in ownlist:  # the old nodes' rows leave their groups for this search
            r = head[j]
            while r >= 0:
                if alive[r]:
                    count[gid[r]] -= 1
                r = nxt[r]
        if near:
            for q in range(jcount[0]):
                if not own[jlist[q]]:
                    r = head[jlist[q]]
                    while r >= 0:
                        if alive[r]:
                            mine[gid[r]] = True
                        r = nxt[r]
        for g in range(gtop[0]):
            if count[g] > 0:
                task = v / gperf[g]
                if gstart[g] < before and task <= slow and gprice[g] * task <= bound:
                    enode[f], egroup[f], est[f], een[f] = -1, g, gstart[g], gend[g]
                    epr[f], epf[f], ecount[f], emine[f] = gprice[g], gperf[g], count[g], mine[g]
                    f += 1
    if counted:  # each old pool's levels, its rows and the old spans counted together
        f0 = f
        f = _released_levels(rows, jobs, i, ownlist, (enode, est, een, epr, epf), f)
        g = f0
        for c in range(f0, f):
            task = v / epf[c]
            if est[c] < before and task <= slow and epr[c] * task <= bound:
                enode[g], est[g], een[g], epr[g], epf[g] = enode[c], est[c], een[c], epr[c], epf[c]
                ecount[g], emine[g] = 1, joined[enode[c]]
                g += 1
        f = g
    for s in range(s0, s0 if counted else s1):
        j = snode[s]
        # the node's runs written where its entries go, then kept in place if usable
        if by_rows and not joined[j]:  # not among the slots searched: the span alone
            est[f], een[f], epr[f], epf[f] = sstart[s], send[s], sprice[s], sperf[s]
            runs = 1
        else:
            runs = _own_runs(
                rows, j, sstart[s], send[s], sprice[s], sperf[s],
                est[f:], een[f:], epr[f:], epf[f:],
            )  # fmt: skip
        for c in range(f, f + runs):
            task = v / epf[c]
            if est[c] < before and task <= slow and epr[c] * task <= bound:
                enode[f], est[f], een[f], epr[f], epf[f] = j, est[c], een[c], epr[c], epf[c]
                ecount[f], emine[f] = 1, joined[j]
                f += 1
    if ecount[:f].sum() < k:
        return False
    lo = np.maximum(est[:f], now)
    hi = een[:f] - v / epf[:f] * (1 - _EPS)
    cost = epr[:f] * (v / epf[:f])
    starts = _starts(lo, hi, cost, ecount[:f], emine[:f], k, cap * (1 + _LOOSE), near, before)
    if not starts.size:
        return False
    # the slots kept, one per row (a group's live rows), as windows.window_at sees them
    keep = np.zeros(gtop[0], dtype=np.bool_)
    slots = 0
    for e in range(f):
        if egroup[e] >= 0:
            keep[egroup[e]] = True
        slots += ecount[e]
    fnode = np.empty(slots, dtype=np.int64)
    fstart = np.empty(slots)
    fend = np.empty(slots)
    fprice = np.empty(slots)
    fperf = np.empty(slots)
    c = 0
    if not by_rows:
        for r in range(top[0]):
            if alive[r] and keep[gid[r]] and not own[node[r]]:
                fnode[c], fstart[c], fend[c], fprice[c], fperf[c] = (
                    node[r], start[r], end[r], price[r], perf[r],
                )  # fmt: skip
                c += 1
    for e in range(f):
        if egroup[e] < 0:
            fnode[c], fstart[c], fend[c], fprice[c], fperf[c] = (
                enode[e], est[e], een[e], epr[e], epf[e],
            )  # fmt: skip
            c += 1
    free = (fnode, fstart, fend, fprice, fperf)
    for t in starts:
        if _window_at(free, t, k, v, cap, out):
            return True
    return False


@_jit
def _own_nodes(rows, jobs, i, own):  # pragma: no cover - compiled
    """The nodes reservation ``i``'s old window gives time back to, marked in ``own``.

    Its spans' nodes; counted, every node of their pools (a pool's time is a count), pools
    in the order of their lowest nodes. ``O(n + k log k)`` for the ``k`` pools' ``n`` nodes.
    """
    pool_of, first, members = rows[21], rows[22], rows[23]
    soff, snode = jobs[6], jobs[7]
    if pool_of.size == 0:
        out = np.empty(soff[i + 1] - soff[i], dtype=np.int64)
        for s in range(soff[i], soff[i + 1]):
            own[snode[s]] = True
            out[s - soff[i]] = snode[s]
        return out
    size = 0
    pools = np.empty(soff[i + 1] - soff[i], dtype=np.int64)
    lowest = np.empty(pools.size, dtype=np.int64)
    k = 0
    for s in range(soff[i], soff[i + 1]):
        p = pool_of[snode[s]]
        if not own[members[first[p]]]:
            for q in range(first[p], first[p + 1]):
                own[members[q]] = True
            size += first[p + 1] - first[p]
            pools[k], lowest[k] = p, members[first[p]]
            k += 1
    # pools by their lowest node, a pool's nodes ascending: _released_levels writes the
    # pools in the order of their lowest nodes, as from a scan of every node
    out = np.empty(size, dtype=np.int64)
    c = 0
    for x in np.argsort(lowest[:k]):
        p = pools[x]
        for q in range(first[p], first[p + 1]):
            out[c] = members[q]
            c += 1
    return out


@_jit
def _released_levels(rows, jobs, i, ownlist, out, top):  # pragma: no cover - compiled
    """The levels of the old pools' live rows with reservation ``i``'s spans put back.

    ``release(slots, old, pool)`` for the search: for each pool of ``ownlist`` (all its
    nodes, a pool's nodes in increasing order), its live rows and the old spans on it
    counted together and re-levelled (``count_view``) into ``out`` (``node, start, end,
    price, perf``) from ``top`` on. Returns the next free row.
    """
    pool_of, first, members = rows[21], rows[22], rows[23]
    for j in ownlist:
        p = pool_of[j]
        if members[first[p]] == j:  # once per pool, at its first node
            top = _pool_with(rows, jobs, i, p, out, top, np.bool_(False))
    return top


@_jit
def _pool_with(rows, jobs, i, p, out, top, retire):  # pragma: no cover - compiled
    """Pool ``p``'s live rows, with reservation ``i``'s spans on it (``i >= 0``), levelled.

    Written into ``out`` from ``top`` on; with ``retire`` the rows read leave the list
    (``alive`` cleared, their groups' counts lowered, the pool's nodes' lists emptied).
    Returns the next free row of ``out``.
    """
    start, end, price, perf, alive, head, nxt = rows[1:8]
    gid, gcount = rows[12], rows[17]
    pool_of, first, members = rows[21], rows[22], rows[23]
    soff, snode, sstart, send, sprice, sperf = (
        jobs[6],
        jobs[7],
        jobs[8],
        jobs[9],
        jobs[10],
        jobs[11],
    )
    s0, s1 = (soff[i], soff[i + 1]) if i >= 0 else (0, 0)
    size = 0
    for q in range(first[p], first[p + 1]):
        r = head[members[q]]
        while r >= 0:
            size += alive[r]
            r = nxt[r]
    for s in range(s0, s1):
        size += pool_of[snode[s]] == p
    ga, gb, gp, gf = np.empty(size), np.empty(size), np.empty(size), np.empty(size)
    c = 0
    for q in range(first[p], first[p + 1]):
        r = head[members[q]]
        while r >= 0:
            if alive[r]:
                ga[c], gb[c], gp[c], gf[c] = start[r], end[r], price[r], perf[r]
                c += 1
                if retire:
                    alive[r] = False
                    gcount[gid[r]] -= 1
            r = nxt[r]
        if retire:
            head[members[q]] = -1
    for s in range(s0, s1):
        if pool_of[snode[s]] == p:
            ga[c], gb[c], gp[c], gf[c] = sstart[s], send[s], sprice[s], sperf[s]
            c += 1
    if c == 0:
        return top
    return pool_levels(ga, gb, gp, gf, members[first[p] : first[p + 1]], out, top)


@_jit
def _may_use(rows, jobs, i, now):  # pragma: no cover - compiled
    """``replan._may_use`` over the joined nodes' rows: whether reservation ``i`` may move."""
    start, end, price, perf, alive, head, nxt = rows[1:8]
    joined, jlist, jcount = rows[9:12]
    n, volume, budget, ostart, oruntime, ocost, soff, snode = jobs[:8]
    s0, s1 = soff[i], soff[i + 1]
    for s in range(s0, s1):
        if joined[snode[s]]:
            return True
    v = volume[i]
    slow = oruntime[i] * (1 + _EPS)
    least = np.inf  # the cheapest task on a joined row meeting the other conditions
    for q in range(jcount[0]):
        r = head[jlist[q]]
        while r >= 0:
            if alive[r]:
                task = v / perf[r]
                if (
                    start[r] < ostart[i]
                    and task <= slow
                    and max(start[r], now) <= end[r] - task * (1 - _EPS)
                    and price[r] * task < least
                ):
                    least = price[r] * task
            r = nxt[r]
    if least == np.inf:
        return False
    low = _cheapest_task(rows, jobs, i, slow, np.bool_(False))
    limit = min(budget[i], ocost[i]) * (1 + _LOOSE) - (n[i] - 1) * low
    return least <= limit


@entry((ROWS, JOBS, B1, b1, f8, i8, OUT))
@_jit
def next_move(rows, jobs, known, use_known, now, i0, out):  # pragma: no cover - compiled
    """The first reservation from ``i0`` on (priority order) that ``replan`` would move.

    A known reservation (searched before with this window) is searched only if time was
    freed on a node it may use (:func:`_may_use`), and then only for windows that use such
    time. Returns its index, with the window in ``out``; ``len(n)`` if none.
    """
    jcount = rows[11]
    n = jobs[0]
    for i in range(i0, n.size):
        near = use_known and known[i]
        if near and (jcount[0] == 0 or not _may_use(rows, jobs, i, now)):
            continue
        if _search(rows, jobs, i, near, now, out):
            return i
    return n.size


@_jit
def _sorted_distinct(values):  # pragma: no cover - compiled
    """The distinct values of ``values``, increasing, as ``windows.distinct`` gives them.

    Runs of equal neighbours are dropped before the sort: the performances of a pass's rows
    and spans come in long runs (a node's slots, a window's spans), and numba's sort costs
    about ten times numpy's per value (a pass's ~5,000 values sorted whole take ~100 us).
    """
    if values.size < 2:
        return values.copy()
    heads = np.empty(values.size, dtype=values.dtype)
    heads[0] = values[0]
    c = 1
    for i in range(1, values.size):
        if values[i] != values[i - 1]:
            heads[c] = values[i]
            c += 1
    return unique_sorted(np.sort(heads[:c]))


@entry((I8, F8, F8, F8, F8, i8, i8, I8, F8))
@_jit
def load_rows(snode, sstart, send, sprice, sperf, nodes, cap, freed, span_perf):  # pragma: no cover
    """The row columns of a pass (module docstring, ``rows``), loaded from its slot list.

    Parameters: the slot list's columns ``node, start, end, price, performance`` (shape (m,),
    ordered by (start, node)); ``nodes``: the per-node arrays' size (> every node id met);
    ``cap``: room for rows and groups (>= m); ``freed``: nodes that gained free time since
    the previous pass (int64, any order, repeats allowed: joined from the start);
    ``span_perf``: the performance of every reserved span (a moved window's rows take it).

    Returns the 21 columns in the order ``compression._Rows.columns`` gives them: each row
    linked to the previous row of its node in list order (``head[node]`` the last), groups
    of consecutive alike rows (equal start, end, price and performance), the joined nodes,
    every performance a row can have and its price floor (:func:`price_floors`).

    Raises nothing: compiled, fed by a checked ``SlotList`` and the reservations' spans.
    No paper source: vosim's load of the slots (Mu'alem & Feitelson 2001, §2: compression).
    """
    m = snode.size
    node = np.empty(cap, dtype=np.int64)
    start, end, price, perf = np.empty(cap), np.empty(cap), np.empty(cap), np.empty(cap)
    # rows and groups past the loaded ones are written whole when a move adds them
    # (_add_row, _regroup): left uninitialised, a pass pays for its m rows, not for cap
    alive = np.empty(cap, dtype=np.bool_)
    nxt = np.empty(cap, dtype=np.int64)
    head = np.full(nodes, -1, dtype=np.int64)
    gid = np.empty(cap, dtype=np.int64)
    gstart, gend, gprice, gperf = np.empty(cap), np.empty(cap), np.empty(cap), np.empty(cap)
    gcount = np.empty(cap, dtype=np.int64)
    g = -1
    for r in range(m):
        node[r], start[r], end[r], price[r], perf[r] = (
            snode[r],
            sstart[r],
            send[r],
            sprice[r],
            sperf[r],
        )
        alive[r] = True
        nxt[r] = head[snode[r]]  # the previous row of its node, in list order
        head[snode[r]] = r
        if (
            r == 0
            or sstart[r] != sstart[r - 1]
            or send[r] != send[r - 1]
            or sprice[r] != sprice[r - 1]
            or sperf[r] != sperf[r - 1]
        ):
            g += 1
            gstart[g], gend[g], gprice[g], gperf[g] = sstart[r], send[r], sprice[r], sperf[r]
            gcount[g] = 0
        gid[r] = g
        gcount[g] += 1
    top = np.array([m], dtype=np.int64)
    gtop = np.array([g + 1], dtype=np.int64)
    gained = _sorted_distinct(freed)
    joined = np.zeros(nodes, dtype=np.bool_)
    jlist = np.empty(nodes, dtype=np.int64)
    for k in range(gained.size):
        joined[gained[k]] = True
        jlist[k] = gained[k]
    jcount = np.array([gained.size], dtype=np.int64)
    pvals = _sorted_distinct(np.concatenate((sperf, span_perf)))
    pmin = np.empty(pvals.size)
    rows = (
        node, start, end, price, perf, alive, head, nxt, top, joined, jlist, jcount,
        gid, gstart, gend, gprice, gperf, gcount, gtop, pvals, pmin,
    )  # fmt: skip
    price_floors(rows)
    return rows


@entry((I8, F8, F8, F8, F8, B1, i8, i8))
@_jit
def live_slots(node, start, end, price, perf, alive, loaded, top):  # pragma: no cover
    """The live rows' columns ``node, start, end, price, perf``, ordered by (start, node).

    Rows ``[0, loaded)`` were loaded from a slot list, so the live ones among them are in
    that order already (a move shortens or retires a row, never moves its start); rows
    ``[loaded, top)``, which moves added, are sorted and merged in
    (:func:`~vosim.core.slot_kernels.merged_rows`). The order of
    ``np.lexsort((node, start))`` over the live rows (two live rows of a node never share a
    start). ``node`` (int), ``start``, ``end`` (model time units), ``price`` (cost units per
    time unit), ``perf`` and ``alive`` (bool): the rows' columns, shape (cap,) each, rows
    ``[0, top)`` in use. Returns the five columns of the live rows, shape (live,) each.
    ``O(m + a log a)`` for ``m`` rows and ``a`` added. Raises nothing (compiled). Source:
    AEP §2.1 (the slot list ordered by start time); the merge after compression's moves is
    vosim's.
    """
    added = np.empty(top - loaded, dtype=np.int64)
    a = 0
    for r in range(loaded, top):
        if alive[r]:
            added[a] = r
            a += 1
    added = added[:a]
    added = added[np.argsort(node[added], kind="mergesort")]
    added = added[np.argsort(start[added], kind="mergesort")]
    return merged_rows(
        node[:loaded], start[:loaded], end[:loaded], price[:loaded], perf[:loaded],
        ~alive[:loaded], node, start, end, price, perf, added,
    )  # fmt: skip


@_jit
def price_floors(rows):  # pragma: no cover - compiled
    """Set ``pmin[p]``, the least price of a live group of performance ``pvals[p]`` (``inf``: none).

    ``O(G log P)`` over the ``G`` groups, when a pass loads its rows. A move then lowers a
    floor when it adds a cheaper row (:func:`_regroup`) but does not raise one when rows leave
    (that would take ``O(G)`` a move): within a pass ``pmin`` is a lower bound of the least
    live price, exact at the start.

    ``rows``: the kernels' row columns (module docstring); ``pmin`` (shape (P,), cost units per
    time unit) is written in place. Raises nothing: compiled, fed by the columns ``_Rows``
    builds (every group's performance is in ``pvals`` by construction). No paper source:
    vosim's speed-up of the necessary conditions of compression (Mu'alem & Feitelson 2001, §2).
    """
    gprice, gperf, gcount, gtop, pvals, pmin = rows[15:21]
    pmin[:] = np.inf
    for g in range(gtop[0]):
        if gcount[g] > 0:
            p = np.searchsorted(pvals, gperf[g])
            if gprice[g] < pmin[p]:
                pmin[p] = gprice[g]


@_jit
def _add_row(rows, j, a, b, pr, pf):  # pragma: no cover - compiled
    """A live row ``(j, a, b, pr, pf)`` at the end, first in node ``j``'s list, alone in a group."""
    _regroup(rows, _link_row(rows, j, a, b, pr, pf))


@_jit
def _link_row(rows, j, a, b, pr, pf):  # pragma: no cover - compiled
    """A live row ``(j, a, b, pr, pf)`` at the end, first in node ``j``'s list, no group yet.

    Returns its index.
    """
    node, start, end, price, perf, alive, head, nxt, top = rows[:9]
    r = top[0]
    node[r], start[r], end[r], price[r], perf[r] = j, a, b, pr, pf
    alive[r] = True
    nxt[r] = head[j]
    head[j] = r
    top[0] = r + 1
    return r


@_jit
def _regroup(rows, r):  # pragma: no cover - compiled
    """Row ``r`` (live, values set) into a new group of its own."""
    start, end, price, perf = rows[1], rows[2], rows[3], rows[4]
    gid, gstart, gend, gprice, gperf, gcount, gtop = rows[12:19]
    g = gtop[0]
    gstart[g], gend[g], gprice[g], gperf[g], gcount[g] = start[r], end[r], price[r], perf[r], 1
    gid[r] = g
    gtop[0] = g + 1
    pvals, pmin = rows[19], rows[20]
    p = np.searchsorted(pvals, perf[r])
    if price[r] < pmin[p]:  # a floor only lowers: rows leaving groups do not raise it
        pmin[p] = price[r]


@_jit
def _cut(rows, out, k):  # pragma: no cover - compiled
    """Cut the window in ``out`` (``k`` spans) out of the rows holding it (``SlotList.cut``).

    ``[start, a)`` kept if not empty, ``[b, end)`` added. Returns 1 if a span lies in no
    row (``SlotError``), else 0.
    """
    start, end, price, perf, alive, head, nxt = rows[1:8]
    gid, gcount = rows[12], rows[17]
    out_node, out_end, scal = out[0], out[1], out[4]
    t = scal[0]
    for q in range(k):
        j = out_node[q]
        e = out_end[q]
        hit = -1
        r = head[j]
        while r >= 0:
            if alive[r] and start[r] <= t and end[r] >= e:
                hit = r
                break
            r = nxt[r]
        if hit < 0:
            return 1
        tail = end[hit]
        gcount[gid[hit]] -= 1
        end[hit] = t
        if t <= start[hit]:
            alive[hit] = False
        else:
            _regroup(rows, hit)
        if tail > e:
            _add_row(rows, j, e, tail, price[hit], perf[hit])
    return 0


@_jit
def _apply_counted(rows, jobs, i, out):  # pragma: no cover - compiled
    """:func:`apply_move` on a count view: ``cut_window(release(slots, old, pool), ...)``.

    The old window's pools are re-levelled with its spans back, the window cut out of those
    levels, then the window's pools re-levelled; every node of the old pools is joined.
    Returns as :func:`apply_move` does.
    """
    node, alive, head, nxt, top, joined, jlist, jcount = (
        rows[0], rows[5], rows[6], rows[7], rows[8], rows[9], rows[10], rows[11],
    )  # fmt: skip
    gcount, gtop = rows[17], rows[18]
    pool_of, first, members = rows[21], rows[22], rows[23]
    n, soff, snode = jobs[0], jobs[6], jobs[7]
    out_node = out[0]
    touched = np.zeros(first.size - 1, dtype=np.bool_)
    for s in range(soff[i], soff[i + 1]):
        touched[pool_of[snode[s]]] = True
    for q in range(n[i]):
        touched[pool_of[out_node[q]]] = True
    # rows (and groups) added: the old pools' levels (their rows and the old spans), one
    # tail per cut, the window's pools' levels (their rows after both): 2 per live row and
    # 4 per span bound them
    need = 4 * (soff[i + 1] - soff[i]) + 4 * n[i] + 16
    for p in range(touched.size):
        if touched[p]:
            for q in range(first[p], first[p + 1]):
                r = head[members[q]]
                while r >= 0:
                    need += 2 * alive[r]
                    r = nxt[r]
    if top[0] + need > node.size or gtop[0] + need > gcount.size:
        return 2
    tmp = (
        np.empty(need, dtype=np.int64), np.empty(need), np.empty(need), np.empty(need),
        np.empty(need),
    )  # fmt: skip
    old_pools = np.zeros(first.size - 1, dtype=np.bool_)
    for s in range(soff[i], soff[i + 1]):
        old_pools[pool_of[snode[s]]] = True
    for p in np.flatnonzero(old_pools):  # release: the old pools with the spans back
        _relevel(rows, jobs, i, p, tmp)
        for q in range(first[p], first[p + 1]):
            j = members[q]
            if not joined[j]:
                joined[j] = True
                jlist[jcount[0]] = j
                jcount[0] += 1
    if _cut(rows, out, n[i]):
        return 1
    new_pools = np.zeros(first.size - 1, dtype=np.bool_)
    for q in range(n[i]):
        new_pools[pool_of[out_node[q]]] = True
    for p in np.flatnonzero(new_pools):  # the window's pools levelled again
        _relevel(rows, jobs, np.int64(-1), p, tmp)
    return 0


@_jit
def _relevel(rows, jobs, i, p, tmp):  # pragma: no cover - compiled
    """Pool ``p``'s live rows (with reservation ``i``'s spans, ``i >= 0``) as its levels.

    Levels that close together come out one after another with equal values: they share
    one group, as alike rows in a row of the slot list do (:func:`load_rows`).
    """
    gid, gstart, gend, gprice, gperf, gcount = rows[12:18]
    c = _pool_with(rows, jobs, i, p, tmp, np.int64(0), np.bool_(True))
    g = -1
    for x in range(c):
        a, b, pr, pf = tmp[1][x], tmp[2][x], tmp[3][x], tmp[4][x]
        if g >= 0 and gstart[g] == a and gend[g] == b and gprice[g] == pr and gperf[g] == pf:
            r = _link_row(rows, tmp[0][x], a, b, pr, pf)
            gid[r] = g
            gcount[g] += 1
        else:
            _add_row(rows, tmp[0][x], a, b, pr, pf)
            g = gid[rows[8][0] - 1]


@entry((ROWS, JOBS, i8, OUT))
@_jit
def apply_move(rows, jobs, i, out):  # pragma: no cover - compiled
    """Move reservation ``i`` to the window in ``out``: ``release(slots, old).cut(window)``.

    The old spans are put back on their nodes (:func:`_own_runs`), the window's spans cut out
    of the rows that hold them (:func:`_cut`), and the old window's nodes joined; on a count
    view, :func:`_apply_counted`. Returns 0; 1 if a span lies in no row
    (``SlotError``); 2, with nothing changed, if the arrays have too little room left (grow
    them, call again).
    """
    if rows[21].size:
        return _apply_counted(rows, jobs, i, out)
    node, alive, head, nxt, top, joined, jlist, jcount = (
        rows[0], rows[5], rows[6], rows[7], rows[8], rows[9], rows[10], rows[11],
    )  # fmt: skip
    gid, gcount, gtop = rows[12], rows[17], rows[18]
    n, soff, snode, sstart, send, sprice, sperf = (
        jobs[0], jobs[6], jobs[7], jobs[8], jobs[9], jobs[10], jobs[11],
    )  # fmt: skip
    need = 2 * n[i]  # rows (and groups) added: one per run put back, two per cut at most
    for s in range(soff[i], soff[i + 1]):
        r = head[snode[s]]
        while r >= 0:
            need += alive[r]
            r = nxt[r]
    if top[0] + need > node.size or gtop[0] + need > gcount.size:
        return 2
    ra, rb, rp, rf = np.empty(need), np.empty(need), np.empty(need), np.empty(need)
    for s in range(soff[i], soff[i + 1]):
        j = snode[s]
        runs = _own_runs(rows, j, sstart[s], send[s], sprice[s], sperf[s], ra, rb, rp, rf)
        r = head[j]
        while r >= 0:
            if alive[r]:
                alive[r] = False
                gcount[gid[r]] -= 1
            r = nxt[r]
        head[j] = -1
        for c in range(runs):
            _add_row(rows, j, ra[c], rb[c], rp[c], rf[c])
        if not joined[j]:
            joined[j] = True
            jlist[jcount[0]] = j
            jcount[0] += 1
    return _cut(rows, out, n[i])


@entry((FREE, i8, f8, f8, f8, f8))
@_jit
def earliest_start(free, n, volume, budget, not_before, before):  # pragma: no cover - compiled
    """``windows.earliest_window``'s start: the first candidate start that holds a window.

    ``free``: ``(node, start, end, price, perf)`` of the slot list. The candidates are those
    of ``windows.candidate_starts`` (the distinct ``lo_r = max(start_r, not_before)`` where at
    least ``n`` slots have ``lo_r <= t <= hi_r``, ``hi_r = end_r - V / perf_r (1 - 1e-9)``),
    before ``before``, ascending. At each, the slots free over a task's whole span (the test
    of ``windows.window_at``, operation for operation) and the sum of the ``n`` least costs
    among them in increasing order, summed as numpy sums them (:func:`pairwise_sum`), against
    the budget as ``window_at`` compares them; which slots tie does not change the values
    summed. ``volume`` in performance x time units, ``budget`` in cost units, ``not_before``
    and ``before`` in model time units. Returns that start (model time units) or NaN. Raises
    nothing (compiled). Source: Mu'alem & Feitelson (2001), §2 (the earliest start with
    enough processors free for the estimate); AEP §2.1 (a window's cost within ``C``).
    """
    fnode, fstart, fend, fprice, fperf = free
    m = fnode.size
    if m < n:
        return np.nan
    d = volume / fperf
    least = d * (1 - _EPS)
    lo = np.maximum(fstart, not_before)
    hi = fend - least
    ok = np.flatnonzero(lo <= hi)
    if ok.size < n:
        return np.nan
    slo = np.sort(lo[ok])
    shi = np.sort(hi[ok])
    cost = fprice * d
    limit = budget * (1 + _EPS)
    buf = np.empty(m)
    c = 0
    while c < slo.size:
        t = slo[c]
        while c < slo.size and slo[c] == t:  # the distinct values of lo, ascending
            c += 1
        if not t < before:
            break
        held = np.searchsorted(slo, t, side="right") - np.searchsorted(shi, t, side="left")
        if held < n:
            continue
        k = 0
        for r in range(m):
            if fstart[r] <= t and fend[r] - t >= least[r]:
                buf[k] = cost[r]
                k += 1
        if k < n:
            continue
        chosen = np.sort(np.partition(buf[:k], n - 1)[:n]) if k > n else np.sort(buf[:k])
        if pairwise_sum(chosen, np.int64(0), n) <= limit:
            return t
    return np.nan
