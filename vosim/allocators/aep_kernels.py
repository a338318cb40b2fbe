"""Compiled sweeps of the AEP window search (numba): where a window of each criterion starts.

:mod:`vosim.allocators.aep` scans candidate starts in numpy blocks, a ``starts x slots`` matrix
per block (``O(K N)`` cells for ``K`` starts and ``N`` nodes). The sweeps here visit the
same starts in order with the slots alive at each start (``start_i <= t <= latest_i``) held in
a Fenwick tree over cost ranks, so the sum of the ``n`` cheapest alive costs is ``O(log G)``
for ``G`` distinct costs: ``O((m + K) log G)`` a scan. The tree's running sums drift by float
rounding, so they only rule starts out (with a proven bound on the drift); a start they do not
rule out is decided on the exact sum the numpy scan takes, the ``n`` cheapest costs in
increasing order summed pairwise as numpy sums (:func:`pairwise_sum`, bit for bit). So every
comparison that decides something compares the very floats of the numpy scan, and the sweeps
return its start (and runtime). Their rows are the slot list's runs of alike slots
(:func:`prepare`), each with the count of slots it stands for, and :func:`window_of_runs`
takes the window's slots from them as the numpy scan's ``_window_at`` takes them.

A separate module so that importing vosim does not import numba (~0.5 s, ~100 MB): the first
search of a process loads it. ``VOSIM_REFERENCE=1`` runs the numpy blocks instead (the plain
path, the oracle of the tests).

References
----------
AEP §2.1-2.2 (the scan over slot starts and its criteria); Fenwick (1994), "A new data
structure for cumulative frequency tables", Software: Practice and Experience 24(3).
"""

from __future__ import annotations

import numba
import numpy as np

from vosim.core.kernel_signatures import F8, I8, entry, f8, i8

__all__ = [
    "cheapest_start",
    "earliest_finish",
    "first_feasible",
    "least_runtime",
    "fenwick_add",
    "orders",
    "NO_ORDER",
    "fenwick_smallest",
    "pairwise_sum",
    "prepare",
    "prepare_ranges",
    "range_nodes",
    "runs_scan",
    "single",
    "usable_runs",
    "window_of_ranges",
    "window_of_runs",
]

_jit = numba.njit(cache=True, nogil=True)  # no Python objects inside: other threads (the UI) run
# Constants passed to compiled helpers are typed (np.int64(0), np.bool_(False)), and so is a
# counter passed on: numba compiles a helper once more for each literal value it is called with.

#: Unit roundoff of float64 (half the machine epsilon), with room to spare.
_U = 1.2e-16

#: No sort order given: a sweep sorts its scan itself (:func:`orders`).
NO_ORDER = np.empty(0, dtype=np.int64)


@_jit
def _block_sum(a, lo, n):  # pragma: no cover - compiled
    """The pairwise sum numpy takes of ``a[lo:lo + n]`` for ``n <= 128``: eight running sums."""
    if n < 8:
        res = -0.0
        for k in range(n):
            res += a[lo + k]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    k = 8
    while k < n - (n % 8):
        r0 += a[lo + k]
        r1 += a[lo + k + 1]
        r2 += a[lo + k + 2]
        r3 += a[lo + k + 3]
        r4 += a[lo + k + 4]
        r5 += a[lo + k + 5]
        r6 += a[lo + k + 6]
        r7 += a[lo + k + 7]
        k += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while k < n:
        res += a[lo + k]
        k += 1
    return res


@_jit
def pairwise_sum(a, lo, n):  # pragma: no cover - compiled
    """The sum numpy takes of ``a[lo:lo + n]``, bit for bit (its pairwise summation).

    ``a``: float64, shape (>= lo + n,). Blocks of up to 128 values are summed by
    :func:`_block_sum`; a longer run is split in two at ``n // 2`` rounded down to a multiple
    of 8 and the halves' sums added, as numpy does. Its recursion is walked with explicit
    stacks (numba does not cache recursive functions).

    Raises nothing (compiled; the caller keeps the indices in range). Source: numpy's
    pairwise summation (no paper).
    """
    if n <= 128:
        return _block_sum(a, lo, n)
    task_lo = np.empty(128, dtype=np.int64)
    task_n = np.empty(128, dtype=np.int64)  # -1: add the two sums on top of ``sums``
    sums = np.empty(128)
    t, s = 1, 0
    task_lo[0], task_n[0] = lo, n
    while t:
        t -= 1
        low, k = task_lo[t], task_n[t]
        if k < 0:
            s -= 1
            sums[s - 1] = sums[s - 1] + sums[s]
        elif k <= 128:
            sums[s] = _block_sum(a, low, k)
            s += 1
        else:
            half = k // 2
            half -= half % 8
            task_lo[t], task_n[t] = 0, -1
            task_lo[t + 1], task_n[t + 1] = low + half, k - half
            task_lo[t + 2], task_n[t + 2] = low, half
            t += 3
    return sums[0]


@_jit
def fenwick_add(counts, sums, at, value, count):  # pragma: no cover - compiled
    """Add ``count`` rows of total ``value`` at rank ``at`` (1-based) of a Fenwick tree.

    ``counts`` (int64) and ``sums`` (float64), shape (G + 1,): the tree over ``G`` ranks.

    Raises nothing (compiled; the caller keeps the indices in range). Source: Fenwick (1994).
    """
    size = counts.size - 1
    while at <= size:
        counts[at] += count
        sums[at] += value
        at += at & -at


@_jit
def fenwick_smallest(counts, sums, cost_of_rank, step, k):  # pragma: no cover - compiled
    """The sum of the ``k`` cheapest rows present (at least ``k`` are), by a descent.

    ``cost_of_rank[r]``: one row's cost at rank ``r``; ``step``: the largest power of two not
    above the tree's size. The sum carries the tree's rounding drift (see the module).

    Raises nothing (compiled; the caller keeps the indices in range). Source: Fenwick (1994).
    """
    _, left, total, rank = _descend(counts, sums, step, k)
    return total + left * cost_of_rank[rank]


@_jit
def _descend(counts, sums, step, k):  # pragma: no cover - compiled
    """The Fenwick descent to the ``k``-th row (``1 <= k <=`` rows present).

    Returns ``(before, left, total, rank)``: ranks below ``rank`` hold ``before`` rows of
    total ``total`` (cost units), and ``left = k - before`` of the ``k`` are at ``rank``.
    """
    size = counts.size - 1
    pos = 0
    left = k
    total = 0.0
    while step:
        nxt = pos + step
        if nxt <= size and counts[nxt] < left:
            pos = nxt
            left -= counts[nxt]
            total += sums[nxt]
        step //= 2
    return k - left, left, total, pos + 1


@_jit
def _exact(counts, sums, here, cost_of_rank, step, n, buf):  # pragma: no cover - compiled
    """The ``n`` cheapest costs present in increasing order, summed as numpy sums them.

    ``here[r]``: rows present at rank ``r``. The value of ``aep._cheapest_sums`` for the
    alive slots, bit for bit. ``O(d log G)`` for the ``d`` distinct costs among them.
    """
    j = 0
    while j < n:
        r = _descend(counts, sums, step, j + 1)[3]
        take = min(here[r], n - j)
        for q in range(take):
            buf[j + q] = cost_of_rank[r]
        j += take
    return pairwise_sum(buf, np.int64(0), n)


@_jit
def _ranks(cost, order):  # pragma: no cover - compiled
    """Rank of each cost among the distinct costs (1-based) and the cost of each rank.

    ``order``: ``cost``'s stable argsort (:func:`orders`), shape of ``cost``.
    """
    m = cost.size
    rank = np.empty(m, dtype=np.int64)
    cost_of_rank = np.empty(m + 1)
    cost_of_rank[0] = 0.0
    g = 0
    for q in range(m):
        c = cost[order[q]]
        if g == 0 or c != cost_of_rank[g]:
            g += 1
            cost_of_rank[g] = c
        rank[order[q]] = g
    return rank, cost_of_rank[: g + 1]


@_jit
def orders(cost, latest, by_cost, by_late):  # pragma: no cover - compiled
    """A scan's two sort orders: ``by_cost, by_late`` as given, or made here if empty.

    ``cost``, ``latest`` (float, shape (m,)): its rows' cost (cost units) and latest start
    (model time units); ``by_cost``, ``by_late`` (int64): orders already made, or empty. Returns
    ``(by_cost, by_late)``, int64 shape (m,) each: their stable argsorts (``mergesort``).
    :func:`runs_scan` makes them once for a scan, and every sweep over the same scan takes
    them rather than sorting again; a sweep given empty orders sorts. Raises nothing
    (compiled). Source: vosim's (no paper: one sort a scan, not one a sweep).
    """
    if by_cost.size != cost.size:
        by_cost = np.argsort(cost, kind="mergesort")
    if by_late.size != latest.size:
        by_late = np.argsort(latest, kind="mergesort")
    return by_cost, by_late


@_jit
def _top_step(g):  # pragma: no cover - compiled
    step = 1
    while step * 2 <= g:
        step *= 2
    return step if g > 0 else 0


@_jit
def _drift(mag, updates, g):  # pragma: no cover - compiled
    """A bound on the rounding drift of a descent's sum over the tree (cost units).

    Each tree entry is a running sum of at most ``updates`` terms whose magnitudes add up to
    at most ``mag``: its error is at most ``updates * u * mag``; a descent adds at most
    ``log2 G + 1`` entries and one product, each addition erring by at most ``u * mag``.
    """
    depth = np.log2(g + 1.0) + 2.0
    return (updates + 2.0) * depth * 2.0 * _U * mag


@_jit
def _move(counts, sums, here, r, c, w):  # pragma: no cover - compiled
    """``|w|`` slots of cost ``c`` each at rank ``r`` into the tree (``w > 0``) or out (``< 0``).

    Their total ``w * c`` is one product, rounded once: the drift bound counts ``|w|``
    updates for it (one rounding for ``|w| = 1``, where the product is exact, two otherwise).
    """
    fenwick_add(counts, sums, r, w * c, w)
    here[r] += w


@_jit
def _sweep(  # pragma: no cover - compiled
    start, latest, cost, weight, rank, cost_of_rank, by_late, level, cap, n, limit, cheapest
):
    """The sweep over candidate starts of the rows of level ``<= cap``.

    Row ``i`` stands for ``weight[i]`` alike slots (the same start, latest start and cost).

    ``cheapest`` false: AMP, the first start whose ``n`` cheapest alive costs fit ``limit``;
    returns ``(t, sum, examined)`` (``nan``: none). ``cheapest`` true: minCost, the first
    start of least sum over every start; returns ``(t, sum, examined)`` (``nan, inf``: no
    start has ``n`` slots). ``rank``/``cost_of_rank`` from :func:`_ranks`; ``by_late``: the
    slots in order of ``latest``.
    """
    m = start.size
    g = cost_of_rank.size - 1
    step = _top_step(g)
    counts = np.zeros(g + 1, dtype=np.int64)
    sums = np.zeros(g + 1)
    here = np.zeros(g + 1, dtype=np.int64)
    buf = np.empty(max(n, 1))
    i = q = alive = examined = updates = 0
    mag = 0.0
    best, best_t = np.inf, np.nan
    while i < m:
        t = start[i]
        while i < m and start[i] == t:
            if level[i] <= cap:
                w = weight[i]
                _move(counts, sums, here, rank[i], cost[i], w)
                alive += w
                mag += w * abs(cost[i])
                updates += w
            i += 1
        while q < m and latest[by_late[q]] < t:
            j = by_late[q]
            if level[j] <= cap:
                w = weight[j]
                _move(counts, sums, here, rank[j], cost[j], -w)
                alive -= w
                mag += w * abs(cost[j])
                updates += w
            q += 1
        if alive < n:
            continue
        examined += 1
        low = fenwick_smallest(counts, sums, cost_of_rank, step, n) - _drift(mag, updates, g)
        if cheapest:
            if low >= best:  # cannot beat the best (nan: look)
                continue
            exact = _exact(counts, sums, here, cost_of_rank, step, n, buf)
            if exact < best:
                best, best_t = exact, t
        elif not low > limit:  # (nan: look)
            exact = _exact(counts, sums, here, cost_of_rank, step, n, buf)
            if exact <= limit:
                return t, exact, examined
    return best_t, best, examined


@entry((F8, F8, F8, I8, i8, f8, I8, I8))
@_jit
def first_feasible(
    start, latest, cost, weight, n, limit, by_cost, by_late
):  # pragma: no cover - compiled
    """AMP's start: the first candidate start where the ``n`` cheapest alive costs fit ``limit``.

    Parameters (shape (m,) each, a scan's rows in start order): ``start``, ``latest`` (the
    latest start the row's slots still cover; model time units), ``cost`` (``price * T`` of
    one slot, cost units), ``weight`` (int64: the alike slots a row stands for, >= 1); ``n``:
    slots of a window; ``limit``: the budget with its tolerance (cost units); ``by_cost``,
    ``by_late`` (int64): the scan's sort orders (:func:`orders`; empty: sorted here).

    Returns ``(t, examined)``: the start (``nan`` if none) and the candidate starts visited up
    to and including it (all of them if none), as ``aep._first_feasible`` counts them.

    Raises nothing: compiled, it takes the arrays ``aep`` builds for it (bad values there are
    refused by ``ResourceRequest`` and ``SlotList`` first). Source: AEP §2.1-2.2.
    """
    by_cost, by_late = orders(cost, latest, by_cost, by_late)
    rank, cost_of_rank = _ranks(cost, by_cost)
    level = np.zeros(start.size, dtype=np.int64)
    t, _, examined = _sweep(
        start, latest, cost, weight, rank, cost_of_rank, by_late, level, np.int64(0), n, limit,
        np.bool_(False),
    )  # fmt: skip
    return t, examined


@entry((F8, F8, F8, I8, I8, i8, i8, f8, I8, I8))
@_jit
def least_runtime(
    start, latest, cost, weight, level, levels, n, limit, by_cost, by_late
):  # pragma: no cover - compiled
    """MinRuntime's start and runtime level: AMP on the slots of level ``<= k``, ``k`` rising.

    Arguments as :func:`first_feasible`, with ``level[i]`` the index of slot ``i``'s task time
    among the ``levels`` distinct ones (increasing). The least ``k`` at which AMP finds a
    window and AMP's start there, as ``aep._min_runtime_scan`` tries each task time in turn.
    Returns ``(t, k)``; ``(nan, -1)`` if no level has a window.

    Raises nothing: compiled, it takes the arrays ``aep`` builds for it (bad values there are
    refused by ``ResourceRequest`` and ``SlotList`` first). Source: AEP §2.1-2.2.
    """
    by_cost, by_late = orders(cost, latest, by_cost, by_late)
    rank, cost_of_rank = _ranks(cost, by_cost)
    for k in range(levels):
        t, _, _ = _sweep(
            start, latest, cost, weight, rank, cost_of_rank, by_late, level, k, n, limit,
            np.bool_(False),
        )  # fmt: skip
        if not np.isnan(t):
            return t, k
    return np.nan, -1


@entry((F8, F8, F8, I8, i8, I8, I8))
@_jit
def cheapest_start(start, latest, cost, weight, n, by_cost, by_late):  # pragma: no cover - compiled
    """The start of minCost: the first start of least ``n``-cheapest sum of all starts.

    Arguments as :func:`first_feasible` (every slot takes part). Returns ``(t, sum)``: the
    start and its exact sum (``nan, inf`` when no start has ``n`` slots); ties go to the
    earliest start, as ``aep._min_cost_scan`` keeps the first minimum.

    Raises nothing: compiled, it takes the arrays ``aep`` builds for it (bad values there are
    refused by ``ResourceRequest`` and ``SlotList`` first). Source: AEP §2.1-2.2.
    """
    by_cost, by_late = orders(cost, latest, by_cost, by_late)
    rank, cost_of_rank = _ranks(cost, by_cost)
    level = np.zeros(start.size, dtype=np.int64)
    t, best, _ = _sweep(
        start, latest, cost, weight, rank, cost_of_rank, by_late, level, np.int64(0), n, np.inf,
        np.bool_(True),
    )  # fmt: skip
    return t, best


@_jit
def _fits(counts, sums, here, cost_of_rank, step, n, limit, slack, buf):  # pragma: no cover
    """Whether the ``n`` cheapest costs of one tree (at least ``n`` present) fit ``limit``."""
    if fenwick_smallest(counts, sums, cost_of_rank, step, n) - slack > limit:
        return False
    return _exact(counts, sums, here, cost_of_rank, step, n, buf) <= limit


@entry((F8, F8, F8, I8, I8, F8, i8, f8, I8, I8))
@_jit
def earliest_finish(
    start, latest, cost, weight, level, durations, n, limit, by_cost, by_late
):  # pragma: no cover - compiled
    """The start and runtime of minFinish: the least ``t + runtime`` within ``limit``, first start.

    Arguments as :func:`least_runtime`, with ``level[i]`` the index of slot ``i``'s task time
    in ``durations`` (the distinct task times, increasing, shape (D,)). At each candidate
    start the least runtime is the least ``durations[k]`` at which the ``n`` cheapest alive
    slots of task time at most it fit ``limit`` (a binary search: feasibility only grows with
    ``k``), one tree per ``k``. Returns ``(t, runtime)``, ``(nan, nan)`` if no start has a
    window; ties go to the earliest start, as ``aep._min_finish_scan`` keeps the first
    minimum. Memory ``O(D G)``.

    Raises nothing: compiled, it takes the arrays ``aep`` builds for it (bad values there are
    refused by ``ResourceRequest`` and ``SlotList`` first). Source: AEP §2.1-2.2.
    """
    m = start.size
    big = durations.size
    by_cost, by_late = orders(cost, latest, by_cost, by_late)
    rank, cost_of_rank = _ranks(cost, by_cost)
    g = cost_of_rank.size - 1
    step = _top_step(g)
    counts = np.zeros((big, g + 1), dtype=np.int64)
    sums = np.zeros((big, g + 1))
    here = np.zeros((big, g + 1), dtype=np.int64)
    alive = np.zeros(big, dtype=np.int64)  # alive slots of level <= k
    buf = np.empty(max(n, 1))
    i = q = updates = 0
    mag = 0.0
    best, best_t, best_runtime = np.inf, np.nan, np.nan
    shortest = durations[0]
    top = big - 1
    while i < m:
        t = start[i]
        if t + shortest > best:  # no later start can finish earlier
            break
        while i < m and start[i] == t:
            r, c, w = rank[i], cost[i], weight[i]
            for k in range(level[i], big):
                _move(counts[k], sums[k], here[k], r, c, w)
                alive[k] += w
            mag += w * abs(c)
            updates += w
            i += 1
        while q < m and latest[by_late[q]] < t:
            j = by_late[q]
            r, c, w = rank[j], cost[j], weight[j]
            for k in range(level[j], big):
                _move(counts[k], sums[k], here[k], r, c, -w)
                alive[k] -= w
            mag += w * abs(c)
            updates += w
            q += 1
        if alive[top] < n:
            continue
        slack = _drift(mag, updates, g)
        if not _fits(counts[top], sums[top], here[top], cost_of_rank, step, n, limit, slack, buf):
            continue
        lo = 0
        while alive[lo] < n:  # no window shorter than the n-th shortest alive task
            lo += 1
        hi = top
        while lo < hi:
            mid = (lo + hi) // 2
            if _fits(counts[mid], sums[mid], here[mid], cost_of_rank, step, n, limit, slack, buf):
                hi = mid
            else:
                lo = mid + 1
        finish = t + durations[lo]
        if finish < best:
            best, best_t, best_runtime = finish, t, durations[lo]
    return best_t, best_runtime


@entry((I8, F8, F8, F8, F8, f8, f8, f8, i8))
@_jit
def prepare(node, start, end, price, performance, volume, time, min_performance, n):
    """``aep._prepare``'s scan, its rows the runs of alike usable slots (one compiled pass).

    Parameters: the slot list's columns (shape (m,), in start order); the request's
    ``volume`` (``nan`` when it gives a ``time`` instead), ``time``, ``min_performance`` and
    ``n``. A slot is usable when its node is fast enough and its task ``T_i = V / p_i`` (or
    ``T``) fits in it. A *run* is a longest stretch of consecutive slots of the list with one
    start, end, price and performance (a node's free processors, mostly): its slots are
    usable or not together, and have one latest start, cost and task time.

    Returns ``(index, count, start, latest, cost, duration, candidates, durations, nodes,
    floor)``: per usable run (shape (r,), in list order) the position of its first slot, its
    slots (they are at ``index .. index + count - 1``) and the columns of each of its slots
    (``latest = end - T_i``, ``cost = price * T_i``); the distinct starts covered by at
    least ``n`` usable slots (increasing), the distinct task times (increasing), the nodes
    with a usable slot, and the sum of the ``n`` cheapest usable costs as numpy sums them
    (``inf`` with fewer than ``n``). Each run repeated ``count`` times gives the plain scan's
    arrays, bit for bit.

    Raises nothing: compiled, it takes the arrays ``aep`` builds for it (bad values there are
    refused by ``ResourceRequest`` and ``SlotList`` first). Source: AEP §2.1-2.2; the runs
    are vosim's.
    """
    index, weight = usable_runs(start, end, price, performance, None, volume, time, min_performance)
    s, late, cost, d, candidates, durations, floor, _, _ = runs_scan(
        start[index], end[index], price[index], performance[index], weight, volume, time, n
    )
    nodes = _nodes(node, index, weight)
    return index, weight, s, late, cost, d, candidates, durations, nodes, floor


@_jit
def runs_scan(s, end, price, performance, weight, volume, time, n):  # pragma: no cover
    """:func:`prepare`'s columns of usable runs, from each run's start, end, price and perf.

    ``s, end, price, performance`` (shape (r,)): one slot of each run; ``weight``: its slots;
    ``volume``, ``time``, ``n``: the request's (:func:`prepare`). Returns ``(start, latest,
    cost, duration, candidates, durations, floor)`` as :func:`prepare` returns them (times in
    model time units, costs in cost units), then the scan's sort orders ``(by_cost,
    by_late)`` (:func:`orders`) for the sweeps. Raises nothing (compiled). Source: AEP
    §2.1-2.2.
    """
    k = s.size
    d = np.empty(k)
    for j in range(k):
        d[j] = volume / performance[j] if not np.isnan(volume) else time
    late = end - d
    cost = price * d
    # candidate starts: distinct starts with at least n usable slots covering them
    by_cost, by_late = orders(cost, late, NO_ORDER, NO_ORDER)
    candidates = np.empty(k)
    c = 0
    a = b = 0  # runs started by t, runs ended before t (by latest start)
    covered = 0  # usable slots covering t
    for j in range(k):
        if j > 0 and s[j] == s[j - 1]:
            continue
        t = s[j]
        while a < k and s[a] <= t:
            covered += weight[a]
            a += 1
        while b < k and late[by_late[b]] < t:
            covered -= weight[by_late[b]]
            b += 1
        if covered >= n:
            candidates[c] = t
            c += 1
    durations = _distinct(d)
    floor = _cheapest_total(cost, weight, n, by_cost)
    return s, late, cost, d, candidates[:c].copy(), durations, floor, by_cost, by_late


@_jit
def usable_runs(  # pragma: no cover - compiled
    start, end, price, performance, weight, volume, time, min_performance
):
    """The runs of alike slots a request can use: first positions and slots, int64 (r,) each.

    ``start, end, price, performance`` (shape (m,)): the rows, in the slot list's order;
    ``weight``: the slots each row stands for (shape (m,); ``None``: one each); ``volume``
    (``nan`` when the request gives a ``time``), ``time``, ``min_performance``: the
    request's. Rows are the slot list's, or a count view's ranges (:func:`prepare_ranges`).
    Raises nothing (compiled). Source: AEP §2.1 (usable slots); the runs are vosim's.
    """
    m = start.size
    first = np.empty(m, dtype=np.int64)
    count = np.empty(m, dtype=np.int64)
    k = 0
    i = 0
    while i < m:
        j = i + 1
        slots = 1 if weight is None else weight[i]
        # the alike test stays inline (load_rows has its twin): as a shared jitted helper
        # it made a default Gaia run 1.3x slower
        while (
            j < m
            and start[j] == start[i]
            and end[j] == end[i]
            and price[j] == price[i]
            and performance[j] == performance[i]
        ):
            slots += 1 if weight is None else weight[j]
            j += 1
        d = volume / performance[i] if not np.isnan(volume) else time
        if performance[i] >= min_performance and end[i] - d >= start[i]:
            first[k] = i
            count[k] = slots
            k += 1
        i = j
    return first[:k].copy(), count[:k].copy()


@_jit
def _nodes(node, index, weight):  # pragma: no cover - compiled
    """The distinct nodes of the runs' slots (positions ``index[j] .. + weight[j] - 1``)."""
    top = 0
    for j in range(index.size):
        top = max(top, node[index[j] + weight[j] - 1] + 1)  # a run's nodes increase
    seen = np.zeros(top, dtype=np.bool_)
    nodes = 0
    for j in range(index.size):
        for i in range(index[j], index[j] + weight[j]):
            if not seen[node[i]]:
                seen[node[i]] = True
                nodes += 1
    return nodes


@_jit
def _cheapest_total(cost, weight, n, by_cost):  # pragma: no cover - compiled
    """The sum numpy takes of the ``n`` cheapest slots, sorted (``inf``: fewer than ``n``).

    Row ``j`` holds ``weight[j]`` slots of cost ``cost[j]`` each; ``by_cost``: the rows by
    increasing cost, stable (:func:`orders`).
    """
    if weight.sum() < n:
        return np.inf
    cheapest = np.empty(n)
    q = 0
    for j in by_cost:
        w = min(weight[j], n - q)
        cheapest[q : q + w] = cost[j]
        q += w
        if q == n:
            break
    return pairwise_sum(cheapest, np.int64(0), n)


@_jit
def unique_sorted(ordered):  # pragma: no cover - compiled
    """The distinct values of the increasing array ``ordered``, in order (a new array).

    A loop where numpy would assign a slice from an array: numba compiles such an assignment's
    shape-mismatch message (string formatting) for ~2.5 s, once per process and worker.
    """
    out = np.empty_like(ordered)
    u = np.int64(0)  # typed: see _jit
    for v in ordered:
        if u == 0 or out[u - 1] != v:
            out[u] = v
            u += 1
    return out[:u].copy()


@_jit
def _distinct(values):  # pragma: no cover - compiled
    """The distinct values of a float array, increasing.

    Few (the task times of a few speeds) are kept in a short sorted list, ``O(m D)``; past 32
    of them, a sort.
    """
    few = np.empty(32)
    u = 0
    for v in values:
        j = u
        while j > 0 and few[j - 1] > v:
            j -= 1
        if j > 0 and few[j - 1] == v:
            continue
        if u == 32:
            return unique_sorted(np.sort(values))
        for k in range(u, j, -1):  # a loop, not a slice assignment: see unique_sorted
            few[k] = few[k - 1]
        few[j] = v
        u += 1
    return few[:u].copy()


# Complexity above 15: compiled (numba): the four criteria's one-slot choices in one kernel, so a
# search is one call; split, each part would be a call and its dispatch.
@entry((F8, F8, F8, F8, I8, f8, f8, f8, f8, i8))
@_jit
def single(start, end, price, performance, node, volume, time, min_performance, limit, criterion):  # noqa: C901
    """``aep._single``'s choice for ``n = 1`` in two passes over the slots (the same floats).

    Parameters: the slot list's columns (shape (m,), in start order); the request's
    ``volume`` (``nan`` when it gives a ``time``), ``time`` and ``min_performance`` (as in
    :func:`prepare`); ``limit``, the budget with its tolerance (cost units); ``criterion``:
    0 ``amp`` (the least start of a feasible slot), 1 ``min_cost`` (the cheapest, at its least
    start), 2 ``min_runtime`` (the shortest task, at its least start), 3 ``min_finish`` (the
    least ``start + T_i``, at its least start).

    Returns ``(code, j, t, candidates, floor)``: ``code`` 0 found (``j`` the chosen slot's
    position, ``t`` the window's start, ``candidates`` the distinct usable starts the numpy
    form counts), 1 no usable slot, 2 none within the budget (``floor`` the cheapest usable
    cost). The chosen slot is the cheapest slot covering ``t`` no longer than the optimum's
    task time, ties by shorter task, then lower node id, then position, as the numpy form's
    ``lexsort``.

    Raises nothing: compiled, it takes the columns of a checked ``SlotList`` and request.
    Source: AEP §2.1-2.2 (a window of one slot: feasible at the slot's own start).
    """
    m = start.size
    best = -1
    floor = np.inf
    usable_any = False
    key = np.inf
    for i in range(m):
        d = volume / performance[i] if not np.isnan(volume) else time
        if not (performance[i] >= min_performance and end[i] - d >= start[i]):
            continue
        usable_any = True
        cost = price[i] * d
        if cost < floor:
            floor = cost
        if not cost <= limit:
            continue
        if criterion == 0:
            if best < 0:
                best = i
            continue
        if criterion == 1:
            value = cost
        elif criterion == 2:
            value = d
        else:
            value = start[i] + d
        if best < 0 or value < key:  # the first minimum, as argmin
            best, key = i, value
    if not usable_any:
        return 1, -1, np.nan, 0, floor
    if best < 0:
        return 2, -1, np.nan, 0, floor
    t = start[best]
    d_best = volume / performance[best] if not np.isnan(volume) else time
    longest = np.inf if criterion <= 1 else d_best
    j = -1
    jc = jd = np.inf
    jn = 0
    candidates = 0
    last = np.nan
    for i in range(m):
        d = volume / performance[i] if not np.isnan(volume) else time
        late = end[i] - d
        if not (performance[i] >= min_performance and late >= start[i]):
            continue
        if criterion != 0 or start[i] <= t:  # AMP's scan stops at t
            if candidates == 0 or start[i] != last:
                candidates += 1
                last = start[i]
        if start[i] <= t and late >= t and d <= longest:
            cost = price[i] * d
            if j < 0 or cost < jc or (cost == jc and (d < jd or (d == jd and node[i] < jn))):
                j, jc, jd, jn = i, cost, d, node[i]
    return 0, j, t, candidates, floor


@entry((F8, F8, F8, F8, I8, I8, I8, f8, f8, i8))
@_jit
def window_of_runs(start, latest, duration, cost, count, index, node, t, longest, n):
    """The ``n`` cheapest slots of the runs alive at ``t`` (no longer than ``longest``).

    Parameters: a scan of runs (shape (r,) each, as :func:`prepare` returns them: each run's
    start, latest start, task time and cost of one slot, its slots and first position);
    ``node`` (int64, shape (m,)): the slot list's node ids; ``t``: the window's start and
    ``longest``: the longest task time taken (model time units); ``n``: slots wanted (at
    least ``n`` are alive at ``t``).

    Returns ``(at, d, total)``: the slots' positions in the slot list and their task times,
    ordered by node id (shape (n,) each), and the window's cost as numpy sums the costs in
    increasing order. The slots are those the plain scan's lexsort by (cost, task time, node
    id) takes: runs in order of (cost, task time) whole, then the lowest node ids of the
    runs of the ``n``-th slot's key.

    Raises nothing (compiled; the caller keeps ``t`` a feasible start). Source: AEP §2.1-2.2
    (the ``n`` cheapest slots of the extended window); the runs are vosim's.
    """
    none = np.empty(0, dtype=np.int64)
    return window_of_ranges(
        start, latest, duration, cost, count, index, none, none, node, t, longest, n
    )


@_jit
def window_of_ranges(  # pragma: no cover - compiled
    start, latest, duration, cost, count, index, rowstart, rpos, members, t, longest, n
):
    """:func:`window_of_runs` on a slot list whose node ids are read through ranges.

    The slot at position ``p`` is on ``members[rpos[R] + p - rowstart[R]]`` for the range
    ``R`` with ``rowstart[R] <= p < rowstart[R + 1]`` (``count_kernels.rows_before`` and
    ``ranges_of``: shapes (r + 1,) and (r,)); with ``rowstart`` empty, on ``members[p]``
    (``members`` is the slot list's node column). The other arguments and the result
    ``(at, d, total)`` are :func:`window_of_runs`'. Raises nothing (compiled). Source: AEP
    §2.1-2.2.
    """
    r = start.size
    alive = np.empty(r, dtype=np.int64)
    k = 0
    for i in range(r):
        if start[i] <= t and latest[i] >= t and duration[i] <= longest:
            alive[k] = i
            k += 1
    rows = alive[:k]
    rows = rows[np.argsort(duration[rows], kind="mergesort")]
    rows = rows[np.argsort(cost[rows], kind="mergesort")]  # by cost, then task time
    at = np.empty(n, dtype=np.int64)
    costs = np.empty(n)
    taken = 0
    lo = 0
    while taken + count[rows[lo]] < n:  # whole runs before the n-th slot's own
        taken += count[rows[lo]]
        lo += 1
    c, d = cost[rows[lo]], duration[rows[lo]]
    while lo > 0 and cost[rows[lo - 1]] == c and duration[rows[lo - 1]] == d:
        lo -= 1  # runs of the n-th slot's key that came first: the key's runs start here
        taken -= count[rows[lo]]
    q = 0
    for j in range(lo):
        row = rows[j]
        for p in range(index[row], index[row] + count[row]):
            at[q] = p
            costs[q] = cost[row]
            q += 1
    hi = lo
    tied = 0
    while hi < k and cost[rows[hi]] == c and duration[rows[hi]] == d:
        tied += count[rows[hi]]
        hi += 1
    pool = np.empty(tied, dtype=np.int64)
    u = 0
    for j in range(lo, hi):
        row = rows[j]
        for p in range(index[row], index[row] + count[row]):
            pool[u] = p
            u += 1
    pool = pool[np.argsort(_nodes_at(pool, rowstart, rpos, members), kind="mergesort")]
    for p in pool[: n - q]:
        at[q] = p
        costs[q] = c
        q += 1
    total = pairwise_sum(costs, np.int64(0), n)
    # each slot's task time, then the window's order: by node id
    dur = np.empty(n)
    q = 0
    for j in range(lo):
        for _ in range(count[rows[j]]):
            dur[q] = duration[rows[j]]
            q += 1
    dur[q:] = d
    order = np.argsort(_nodes_at(at, rowstart, rpos, members), kind="mergesort")
    return at[order], dur[order], total


@_jit
def _nodes_at(positions, rowstart, rpos, members):  # pragma: no cover - compiled
    """The node ids of slot ``positions`` (:func:`window_of_ranges`' reading)."""
    if rowstart.size == 0:
        return members[positions]
    out = np.empty(positions.size, dtype=np.int64)
    for q in range(positions.size):
        p = positions[q]
        r = np.searchsorted(rowstart, p, side="right") - 1
        out[q] = members[rpos[r] + p - rowstart[r]]
    return out


@_jit
def prepare_ranges(  # pragma: no cover - compiled
    rs, re_, rp, rf, rcount, rowstart, volume, time, min_performance, n
):
    """:func:`prepare` on a count view's ranges: the same scan, its runs found among ``r``.

    ``rs, re_, rp, rf, rcount`` (shape (r,)): the ranges' start, end, price, performance and
    processors, in the rows' order (``count_kernels.ranges_of``); ``rowstart``: each range's first
    row in the expanded rows, shape (r + 1,) (``count_kernels.rows_before``); ``volume``, ``time``,
    ``min_performance``, ``n``: the request's. A run (a longest stretch of consecutive alike rows)
    is a longest stretch of consecutive alike ranges. Returns ``prepare``'s ``(index, count, start,
    latest, cost, duration, candidates, durations)``, ``floor``, each run's first range (shape
    (r',)) and the scan's sort orders ``(by_cost, by_late)`` (:func:`orders`, for the sweeps);
    the nodes with a usable slot are :func:`range_nodes`' (read only when no start has a
    window). ``O(r)`` before the scan's own ``O(r' log r')``. Raises nothing (compiled). Source: AEP
    §2.1-2.2.
    """
    fr, weight = usable_runs(rs, re_, rp, rf, rcount, volume, time, min_performance)
    s, late, cost, d, candidates, durations, floor, by_cost, by_late = runs_scan(
        rs[fr], re_[fr], rp[fr], rf[fr], weight, volume, time, n
    )
    index = rowstart[fr]
    return index, weight, s, late, cost, d, candidates, durations, floor, fr, by_cost, by_late


@_jit
def range_nodes(fr, weight, rcount, rpos, members, size):  # pragma: no cover - compiled
    """The distinct processors of the runs (first range ``fr``, ``weight`` rows each).

    ``fr``, ``weight`` (int64, shape (r',)): :func:`prepare_ranges`' runs; ``rcount``,
    ``rpos``: the ranges' processors and first place in ``members`` (the pools' processors);
    ``size``: processors (ids below it). :func:`prepare`'s ``nodes``, an int. Raises nothing
    (compiled). Source: AEP §2.2 (why no window: too few nodes with a usable slot).
    """
    seen = np.zeros(size, dtype=np.bool_)
    nodes = 0
    for j in range(fr.size):
        x = fr[j]
        left = weight[j]
        while left > 0:
            for o in range(rcount[x]):
                q = members[rpos[x] + o]
                if not seen[q]:
                    seen[q] = True
                    nodes += 1
            left -= rcount[x]
            x += 1
    return nodes
