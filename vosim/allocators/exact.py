"""Exact methods for the availability problem of ICCS 2023 eq. (3): brute force, DP, MILP.

Three registered methods solve :class:`~vosim.allocators.availability_problem.AvailabilityProblem`
exactly:

``"brute_force"``
    enumerates every ``n``-subset (the paper's *BruteForce*, §3.1); refuses ``N > 25``.
``"exact"``
    a multiple-choice dynamic programme over the groups (beyond the papers, not branch and
    bound); pseudo-polynomial in the budget.
``"milp"``
    a mixed-integer linear programme with group indicator variables solved by HiGHS through
    :func:`scipy.optimize.milp` (needs SciPy); the oracle of the tests and the baseline of
    ``benchmarks/bench_availability.py``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from vosim.allocators.availability_problem import (
    AvailabilityProblem,
    AvailabilityResult,
    infeasible,
    make_result,
    register_method,
    window_probability,
)
from vosim.core.results import Status
from vosim.errors import ProblemError

__all__ = [
    "BRUTE_FORCE_MAX_N",
    "REAL_COST_GRID",
    "brute_force_select",
    "exact_select",
    "milp_select",
]

#: Largest ``N`` that :func:`brute_force_select` accepts (ICCS 2023 §3.2: beyond 25 resources
#: brute force "becomes practically inapplicable"; C(25, 12) is already 5.2 million subsets).
BRUTE_FORCE_MAX_N = 25

#: Budget-axis cells of :func:`exact_select` for real-valued costs when no ``resolution`` is
#: given: the resolution is ``C' / REAL_COST_GRID`` (``C'`` the shifted budget, see Notes).
REAL_COST_GRID = 4096

#: Memory of :func:`exact_select`'s back-tracking tables. The DP keeps the whole value table of
#: every group (8 bytes a cell) when it fits in ``_VALUE_TABLE_BYTES``, otherwise only the option
#: chosen in every cell (1 byte); when that exceeds ``_CHOICE_TABLE_BYTES`` the budget grid is
#: coarsened (see its Notes).
_VALUE_TABLE_BYTES = 128 * 2**20
_CHOICE_TABLE_BYTES = 128 * 2**20

#: Relative tolerance used when deciding that ``cost / resolution`` is a whole number.
_INTEGRAL_RTOL = 1e-12

_CHUNK = 1 << 15  # subsets per vectorised brute-force chunk
_PAD = 8  # node-axis padding of the DP rows: options with k <= _PAD are 1-D operations


# ---------------------------------------------------------------------------------------------
# brute force


@register_method("brute_force")
def brute_force_select(problem: AvailabilityProblem) -> AvailabilityResult:
    """Best window by enumerating every ``n``-subset of the ``N`` resources (*BruteForce*).

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)``, groups ``(N,)``, group probabilities ``(G,)``, ``n`` and budget ``C``
        (same cost units as ``problem.cost``). Real-valued costs are handled exactly: the
        budget test is ``sum(cost[S]) <= C`` in floating point.

    Returns
    -------
    AvailabilityResult
        Status ``OPTIMAL`` with the sorted selection of highest eq. (3) probability (the
        lexicographically first one on ties), or ``INFEASIBLE`` when no ``n``-subset fits the
        budget. ``stats["subsets"]`` is the number of subsets enumerated.

    Raises
    ------
    ProblemError
        ``N > BRUTE_FORCE_MAX_N`` (25): the enumeration would not finish in reasonable time.

    Notes
    -----
    Time O(C(N, n) * (n + G)), vectorised over chunks of subsets with NumPy; memory
    O(chunk * (n + G)). Feasibility is decided first by the ``n`` cheapest resources, so an
    infeasible budget costs O(N log N).

    References
    ----------
    ICCS 2023 §3.1 (*BruteForce*) and eq. (3).

    Examples
    --------
    Two resources of one group count once, so the dearer pair from group 0 beats a cheaper
    pair touching two groups:

    >>> from vosim.allocators import AvailabilityProblem
    >>> prob = AvailabilityProblem(cost=[3, 1, 2, 2], group=[0, 0, 1, 2],
    ...                            group_p=[0.9, 0.5, 0.8], n=2, budget=4)
    >>> res = brute_force_select(prob)
    >>> res.selected.tolist(), res.probability, res.cost, res.status
    ([0, 1], 0.9, 4.0, <Status.OPTIMAL: 'optimal'>)
    """
    N, n = problem.N, problem.n
    if N > BRUTE_FORCE_MAX_N:
        raise ProblemError(
            f"brute_force enumerates all C(N, n) subsets and accepts N <= {BRUTE_FORCE_MAX_N}; "
            f"got N = {N} (use method 'exact')"
        )
    cost = problem.cost
    if cost[np.sort(np.argsort(cost, kind="stable")[:n])].sum() > problem.budget:
        return infeasible("brute_force", subsets=0)
    used, local = np.unique(problem.group, return_inverse=True)
    p = problem.group_p[used]
    best_p, best_sel, count = -1.0, None, 0
    combos = itertools.combinations(range(N), n)
    while True:
        flat = np.fromiter(
            itertools.chain.from_iterable(itertools.islice(combos, _CHUNK)), dtype=np.int64
        )
        if flat.size == 0:
            break
        idx = flat.reshape(-1, n)
        count += idx.shape[0]
        fits = cost[idx].sum(axis=1) <= problem.budget
        if not fits.any():
            continue
        idx = idx[fits]
        touched = np.zeros((idx.shape[0], used.size), dtype=bool)
        touched[np.arange(idx.shape[0])[:, None], local[idx]] = True
        prob = np.prod(np.where(touched, p, 1.0), axis=1)
        i = int(np.argmax(prob))
        if prob[i] > best_p:
            best_p, best_sel = float(prob[i]), idx[i].copy()
    if best_sel is None:  # possible only through rounding in a sum of real costs
        return infeasible("brute_force", subsets=count)
    return make_result(problem, best_sel, Status.OPTIMAL, "brute_force", subsets=count)


# ---------------------------------------------------------------------------------------------
# multiple-choice DP over groups


# Complexity above 15: the ICCS 2023 multiple-choice DP and its back-tracking over one table,
# written as the paper's recurrence.
def _group_dp(  # noqa: C901
    weights: list[list[int]], values: list[float], n: int, cap: int
) -> tuple[list[tuple[int, int]] | None, str]:
    """Multiple-choice knapsack over groups; return the chosen ``(group position, k)`` pairs.

    ``weights[j][k - 1]`` is the (integer, grid) cost of the ``k`` cheapest resources of group
    ``j``, non-decreasing in ``k``; ``values[j]`` is ``log p_j`` (finite). Maximises the sum of
    values over the chosen groups subject to ``sum k = n`` and ``sum weight <= cap``; the pairs
    are ``None`` when no choice reaches ``n`` nodes within ``cap``. The second item names the
    back-tracking table kept: ``"values"`` or ``"choices"``.
    """
    # f[c, v]: best sum of log p over the groups seen so far using exactly v nodes at total grid
    # cost <= c (-inf where unreachable), stored flat as f[c * S + P + v] with P cells of -inf
    # padding before each row. Taking k <= P nodes at cost w moves a state by the constant
    # flat offset w * S + k, so such an option is one contiguous 1-D NumPy operation (sources
    # with v - k < 0 fall into the padding and stay unreachable); the rare k > P go through a
    # strided 2-D view. Either way the offset of the move is w * S + k.
    n_groups = len(weights)
    kmax = max(len(w) for w in weights)
    pad = min(kmax, _PAD)
    stride = n + 1 + pad
    rows = cap + 1
    length = rows * stride
    keep_values = (n_groups + 1) * length * 8 <= _VALUE_TABLE_BYTES
    if keep_values:  # f after every group: T[j + 1] is f after group j
        table = np.empty((n_groups + 1, length))
        f = table[0]
    else:  # only the option taken in every cell: choice[j, cell] = k (0: skip)
        f, new = np.empty(length), np.empty(length)
        dtype = np.uint8 if kmax < 256 else np.uint16
        choice = np.zeros((n_groups, length), dtype=dtype)
        better = np.empty(length, dtype=bool)
        marks = better.view(np.uint8) if dtype is np.uint8 else np.empty(length, dtype=dtype)
    f.fill(-np.inf)
    f[pad::stride] = 0.0
    shifted = np.empty(length)
    for j, (w, val) in enumerate(zip(weights, values, strict=True)):
        if keep_values:
            new = table[j + 1]
        np.copyto(new, f)  # option "skip group j"
        np.add(f, val, out=shifted)  # touching group j adds log p_j, whatever k is
        for k, wk in enumerate(w, start=1):
            if wk > cap:
                break
            if k <= pad:
                d = wk * stride + k
                src, dst = shifted[: length - d], new[d:]
            else:
                src = shifted.reshape(rows, stride)[: rows - wk, pad : pad + n + 1 - k]
                dst = new.reshape(rows, stride)[wk:, pad + k : pad + n + 1]
            if keep_values:
                np.maximum(dst, src, out=dst)
                continue
            ch = choice[j, d:] if k <= pad else choice[j].reshape(rows, stride)[wk:, pad + k :]
            bt = better[: src.size].reshape(src.shape)
            mk = marks[: src.size].reshape(src.shape)
            np.greater(src, dst, out=bt)
            np.maximum(dst, src, out=dst)
            # k grows, so the last strict improvement, the largest k, is the final choice
            if dtype is not np.uint8:
                np.copyto(mk, bt, casting="unsafe")
            if k > 1:
                np.multiply(mk, k, out=mk)
            np.maximum(ch, mk, out=ch)
        if keep_values:
            f = new
        else:
            f, new = new, f
    kind = "values" if keep_values else "choices"
    idx = cap * stride + pad + n
    if not f[idx] > -np.inf:
        return None, kind
    picks = []
    for j in range(n_groups - 1, -1, -1):
        if keep_values:
            # maximum() returns one of its operands bit for bit, so the taken option is found
            # by recomputing the candidates of this cell exactly
            cur, prev = table[j + 1, idx], table[j]
            if cur == prev[idx]:
                continue
            for k, wk in enumerate(weights[j], start=1):
                d = wk * stride + k
                if d <= idx and prev[idx - d] + values[j] == cur:
                    break
            else:  # pragma: no cover - the value must come from some option
                raise AssertionError("DP back-tracking found no option")
        else:
            k = int(choice[j, idx])
            if not k:
                continue
            d = weights[j][k - 1] * stride + k
        picks.append((j, k))
        idx -= d
    assert idx % stride == pad  # back at v = 0
    return picks, kind


def _cover_dp(sizes: np.ndarray, values: np.ndarray, n: int) -> np.ndarray | None:
    """Groups of greatest total log p holding at least ``n`` resources (no budget); positions.

    Among groups of equal size the best ``m`` are the ``m`` of highest ``p``, so the groups are
    pooled by size and each distinct size is one vectorised step over ``m``.
    """
    sizes = np.minimum(sizes, n)
    by_size = np.lexsort((-values, sizes))  # by size, then best p first
    uniq, first, count = np.unique(sizes[by_size], return_index=True, return_counts=True)
    # F[x]: best sum of log p of a set of groups holding >= x resources (x capped at n)
    F = np.full(n + 1, -np.inf)
    F[0] = 0.0
    x = np.arange(n + 1)
    steps = []
    for s, a, cnt in zip(uniq.tolist(), first.tolist(), count.tolist(), strict=True):
        m = np.arange(min(cnt, -(-n // s)) + 1)  # taking more than ceil(n / s) never helps
        gain = np.concatenate(([0.0], np.cumsum(values[by_size[a : a + m.size - 1]])))
        cand = F[np.maximum(x[None, :] - s * m[:, None], 0)] + gain[:, None]
        best = np.argmax(cand, axis=0)  # ties: the fewest groups
        F = cand[best, x]
        steps.append((s, a, best))
    if not F[n] > -np.inf:
        return None
    picked, need = [], n
    for s, a, best in reversed(steps):
        m = int(best[need])
        picked.append(by_size[a : a + m])
        need = max(0, need - m * s)
    return np.concatenate(picked)


@register_method("exact")
def exact_select(
    problem: AvailabilityProblem, *, resolution: float | None = None
) -> AvailabilityResult:
    """Optimal window by a multiple-choice dynamic programme over groups (not branch and bound).

    A window's eq. (3) probability depends only on the set of groups it touches, and inside a
    touched group taking its ``k`` cheapest resources is always best. So each group ``g``
    offers one option per ``k = 1..min(n, |g|)`` (cost: its ``k`` cheapest costs, value:
    ``log p_g``, nodes: ``k``) besides "skip", and a knapsack with two capacities (nodes
    ``= n``, budget ``<= C``) over these options, taking at most one option per group, finds
    the optimum.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (cost units), groups ``(N,)``, group probabilities ``(G,)``, ``n`` and
        budget ``C`` (same units; ``inf`` for none).
    resolution : float, optional
        Step of the budget grid, in cost units. Default: the greatest common divisor of the
        shifted costs (see Notes) when all costs are whole numbers, which makes the DP exact;
        otherwise ``C' / REAL_COST_GRID``.

    Returns
    -------
    AvailabilityResult
        Sorted selection, its eq. (3) probability (:func:`window_probability`) and cost.
        Status ``OPTIMAL`` whenever optimality is proven, which is always the case for
        integer costs; ``FEASIBLE`` only for real costs whose rounding to the grid left a gap
        (then ``stats["upper_bound"]`` bounds the optimal probability); ``INFEASIBLE`` (not
        an exception) when even the ``n`` cheapest resources exceed the budget. ``stats`` also
        holds ``"resolution"`` (``None`` when no DP over the budget ran), ``"dp_cells"`` (cells
        of one DP table) and ``"table"`` (``"values"``, ``"choices"`` or ``None``).

    Raises
    ------
    ProblemError
        ``resolution`` is not a positive finite number.

    Notes
    -----
    *Shortcuts.* If the ``n`` cheapest resources exceed ``C`` the problem is infeasible.
    Groups with ``p_g = 0`` are left out (``log 0 = -inf``); if no window avoids them, every
    feasible window has probability 0 and the ``n`` cheapest resources are returned. Then the
    optimum *without* budget is found by a covering DP over groups alone (greatest sum of
    ``log p_g`` over groups holding at least ``n`` resources, ``O(G n)``); if the ``n``
    cheapest resources of those groups fit the budget they are optimal. This settles every
    instance with an unlimited or loose budget.

    *Budget axis.* Every window has exactly ``n`` nodes, so subtracting the smallest cost
    ``c_min`` from every cost and ``n c_min`` from ``C`` changes no comparison: the DP works on
    these shifted costs and the slack ``C' = C - n c_min``, on a grid of step ``r``
    (``resolution``) with ``W = floor(C' / r) + 1`` cells.

    *Real costs.* The DP first runs with the grid costs rounded *down*, a relaxation: its
    optimum ``U`` bounds the true one, and if its window truly fits ``C`` it is optimal. When
    every shifted cost is a multiple of ``r`` (integer costs with the default ``r``) the
    rounding changes nothing and this is the whole method. Otherwise, if the window does not
    truly fit, a second DP with costs rounded *up* yields a window that surely fits; it is
    optimal if its probability reaches ``U`` and is returned with status ``FEASIBLE``
    otherwise (the ``n`` cheapest resources if even that fails). "A multiple of ``r``" allows
    a relative error of ``1e-12`` so that e.g. ``0.3 / 0.1`` counts as 3; the returned window
    always fits the budget as summed in floating point. A grid whose back-tracking table would
    exceed 128 MiB even at one byte a cell is coarsened by an integer factor and handled the
    same way, so very large integer instances may also come back ``FEASIBLE``.

    *Complexity.* Time ``O(sum_g min(n, |g|) * n * W) <= O(N n W)`` (the ``O(G n C k)`` of the
    multiple-choice knapsack). Rows are laid out so that every option of every group is one
    vectorised NumPy operation over the whole ``(W, n)`` table, about ``N`` operations in
    all. Memory: ``8 G n W`` bytes for the value tables of all groups (back-tracking by exact
    recomputation), or ``G n W`` bytes of recorded choices when that is too much.

    References
    ----------
    ICCS 2023 eq. (3) (the objective) and §2.4 (the problem *KnapsackGroup* solves by branch
    and bound); Kellerer, Pferschy and Pisinger, *Knapsack Problems*, Springer 2004, ch. 11
    (multiple-choice knapsack) and §9.7 (cardinality constraint).

    Examples
    --------
    >>> from vosim.allocators import AvailabilityProblem
    >>> prob = AvailabilityProblem(cost=[3, 1, 2, 2], group=[0, 0, 1, 2],
    ...                            group_p=[0.9, 0.5, 0.8], n=2, budget=4)
    >>> res = exact_select(prob)
    >>> res.selected.tolist(), res.probability, res.cost, res.status
    ([0, 1], 0.9, 4.0, <Status.OPTIMAL: 'optimal'>)
    >>> exact_select(AvailabilityProblem(cost=[3, 1, 2, 2], group=[0, 0, 1, 2],
    ...                                  group_p=[0.9, 0.5, 0.8], n=2, budget=2)).status
    <Status.INFEASIBLE: 'infeasible'>

    Real costs. On a grid of step 0.1 the pair from group 0 (true cost 0.85) rounds down to
    fit the budget 0.8, so the bound 0.9 is not attained and the result is only ``FEASIBLE``;
    the default grid represents these costs exactly and proves 0.54 optimal:

    >>> prob = AvailabilityProblem(cost=[0.4, 0.45, 0.3, 0.3], group=[0, 0, 1, 2],
    ...                            group_p=[0.9, 0.6, 0.6], n=2, budget=0.8)
    >>> res = exact_select(prob, resolution=0.1)
    >>> res.selected.tolist(), round(res.probability, 2), res.status, res.stats["upper_bound"]
    ([0, 2], 0.54, <Status.FEASIBLE: 'feasible'>, 0.9)
    >>> res = exact_select(prob)
    >>> res.selected.tolist(), round(res.probability, 2), res.status
    ([0, 2], 0.54, <Status.OPTIMAL: 'optimal'>)
    """
    if resolution is not None and not (resolution > 0 and math.isfinite(resolution)):
        raise ProblemError(f"resolution must be a positive finite number, got {resolution!r}")
    name = "exact"
    n, cost, budget = problem.n, problem.cost, problem.budget
    order = np.argsort(cost, kind="stable")
    cheapest = np.sort(order[:n])
    if cost[cheapest].sum() > budget:  # summed in index order, like the result's cost
        return infeasible(name, resolution=None, dp_cells=0, table=None)

    def done(
        sel: np.ndarray, status: Status = Status.OPTIMAL, **stats: object
    ) -> AvailabilityResult:
        stats = {"resolution": None, "dp_cells": 0, "table": None, **stats}
        return make_result(problem, sel, status, name, **stats)

    # groups with p > 0, each with its min(n, |g|) cheapest members in order of cost
    by_group = np.lexsort((cost, problem.group))
    gs = problem.group[by_group]
    starts = np.flatnonzero(np.diff(gs, prepend=-1))
    ends = np.append(starts[1:], gs.size)
    keep = problem.group_p[gs[starts]] > 0
    starts, ends = starts[keep], np.minimum(ends[keep], starts[keep] + n)
    if (ends - starts).sum() < n:  # every window touches a p = 0 group
        return done(cheapest)
    members = [by_group[s:e] for s, e in zip(starts.tolist(), ends.tolist(), strict=True)]
    sizes = ends - starts
    values = np.log(problem.group_p[gs[starts]])

    # the optimum ignoring the budget (groups only, O(G n)); if it fits, it is optimal
    picked = _cover_dp(sizes, values, n)
    assert picked is not None  # the groups with p > 0 hold >= n resources
    pool = np.concatenate([members[j] for j in picked.tolist()])
    sel = np.sort(pool[np.argsort(cost[pool], kind="stable")[:n]])  # n cheapest of them
    if cost[sel].sum() <= budget:
        return done(sel)

    # budget grid: shifted costs, slack C' and step r, coarsened if the table is too big
    shifted = cost - cost[order[0]]
    slack = max(0.0, budget - n * cost[order[0]])
    if resolution is None:
        if problem.integral_costs:
            ints = np.round(shifted).astype(np.int64)
            resolution = float(np.gcd.reduce(ints[ints > 0]))  # > 0: the budget binds
        elif slack > 0:
            resolution = slack / REAL_COST_GRID
        else:  # only resources of the smallest cost fit; any step up to the next cost is exact
            resolution = float(shifted[shifted > 0].min())
    resolution = float(resolution)
    kmax = int(sizes.max())
    row_cells = len(members) * (n + 1 + min(_PAD, kmax))
    max_cap = _CHOICE_TABLE_BYTES // (row_cells * (1 if kmax < 256 else 2)) - 1
    if slack / resolution > max_cap:  # coarsen by an integer factor (keeps multiples exact)
        factor = slack / (resolution * max(1, max_cap))
        resolution = resolution * math.ceil(factor) if factor < 2**52 else slack / max_cap
    c_grid = slack / resolution
    cap = math.floor(c_grid + _INTEGRAL_RTOL * max(1.0, c_grid))
    flat = np.concatenate(members)
    # grid costs; a resource dearer than the whole slack can never be taken, so clip there
    with np.errstate(over="ignore"):  # a tiny step may overflow: clipped all the same
        x = np.minimum(shifted[flat] / resolution, cap + 1.0)
    tol = _INTEGRAL_RTOL * np.maximum(1.0, x)  # absorbs rounding noise such as 0.3 / 0.1
    down, up = np.floor(x + tol), np.ceil(x - tol)

    def solve(grid: np.ndarray) -> tuple[np.ndarray | None, dict[str, object]]:
        cum = np.cumsum(grid.astype(np.int64))
        first = np.cumsum(sizes) - sizes  # segment starts in flat
        within = (cum - np.repeat(np.concatenate(([0], cum))[first], sizes)).tolist()
        weights = [within[a : a + k] for a, k in zip(first.tolist(), sizes.tolist(), strict=True)]
        picks, kind = _group_dp(weights, values.tolist(), n, cap)
        stats = {"resolution": resolution, "dp_cells": row_cells * (cap + 1), "table": kind}
        if picks is None:
            return None, stats
        return np.sort(np.concatenate([members[j][:k] for j, k in picks])), stats

    # costs rounded down: a relaxation, exact when every cost lies on the grid
    relaxed, stats = solve(down)
    if relaxed is None:  # even the relaxation needs a p = 0 group: probability 0 is optimal
        return done(cheapest, **stats)
    if cost[relaxed].sum() <= budget:  # the relaxation's optimum truly fits: optimal
        return done(relaxed, **stats)
    # real costs off the grid: a window that surely fits (costs rounded up), optimal if it
    # reaches the relaxation's bound
    upper = window_probability(problem, relaxed)
    sel, stats2 = solve(up) if not np.array_equal(down, up) else (None, stats)
    if sel is None or cost[sel].sum() > budget:
        sel = cheapest
    status = Status.OPTIMAL if window_probability(problem, sel) >= upper else Status.FEASIBLE
    return done(sel, status, upper_bound=upper, **stats2)


# ---------------------------------------------------------------------------------------------
# MILP oracle


@register_method("milp")
def milp_select(problem: AvailabilityProblem) -> AvailabilityResult:
    """Optimal window by a mixed-integer linear programme solved by HiGHS (needs SciPy).

    Variables: ``x_i`` (resource ``i`` selected) and ``y_g`` (group ``g`` touched), binary.
    Minimise ``sum_g w_g y_g`` with ``w_g = -log p_g`` subject to ``x_i <= y_{group(i)}``,
    ``sum_i x_i = n`` and ``sum_i c_i x_i <= C``. A group with ``p_g = 0`` gets the finite
    weight ``1 + 2 * sum_h (-log p_h)`` over the groups with ``p_h > 0``, more than any window
    avoiding such groups can score, so it is touched only when every window must (and then
    every window has probability 0).

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)`` (cost units, real values are fine), groups ``(N,)``, group
        probabilities ``(G,)``, ``n`` and budget ``C`` (``inf`` for none).

    Returns
    -------
    AvailabilityResult
        Status ``OPTIMAL`` with the sorted selection, or ``INFEASIBLE`` when the ``n``
        cheapest resources exceed the budget. ``stats`` holds HiGHS's ``"mip_nodes"`` and
        ``"mip_gap"``.

    Raises
    ------
    ImportError
        SciPy (>= 1.9, for :func:`scipy.optimize.milp`) is not installed.
    RuntimeError
        HiGHS stops without a solution for a feasible instance (e.g. a numerical failure).

    Notes
    -----
    ``N + G'`` binaries (``G'`` the non-empty groups) and ``N + 2`` rows; solved with
    ``mip_rel_gap = 0``. The objective is scaled by ``1e4`` so HiGHS's absolute gap tolerance
    (``1e-6``) means ``1e-10`` in ``log P_a^w``. Worst-case time is exponential (branch and
    cut); the LP relaxation with the disaggregated ``x_i <= y_g`` rows is tight enough that
    the instances of ICCS 2023 §3 solve in milliseconds to seconds. Real costs are compared
    with HiGHS's feasibility tolerance (``1e-7``), the result's cost is summed exactly.

    References
    ----------
    ICCS 2023 eq. (3) and §2.3 (the problem stated as integer linear programming, eq. (4));
    Huangfu and Hall, *Parallelizing the dual revised simplex method*, Math. Prog. Comp. 10
    (2018) (HiGHS).

    Examples
    --------
    >>> from vosim.allocators import AvailabilityProblem
    >>> prob = AvailabilityProblem(cost=[3, 1, 2, 2], group=[0, 0, 1, 2],
    ...                            group_p=[0.9, 0.5, 0.8], n=2, budget=4)
    >>> res = milp_select(prob)
    >>> res.selected.tolist(), res.probability, res.status
    ([0, 1], 0.9, <Status.OPTIMAL: 'optimal'>)
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_array

    name = "milp"
    N, n, cost, budget = problem.N, problem.n, problem.cost, problem.budget
    if np.sort(cost)[:n].sum() > budget:
        return infeasible(name, mip_nodes=0)
    used, local = np.unique(problem.group, return_inverse=True)
    p = problem.group_p[used]
    positive = p > 0
    w = np.zeros(used.size)
    w[positive] = -np.log(p[positive])
    w[~positive] = 1.0 + 2.0 * w[positive].sum()
    objective = np.concatenate((np.zeros(N), w)) * 1e4

    rows = np.repeat(np.arange(N), 2)
    cols = np.column_stack((np.arange(N), N + local)).ravel()
    data = np.tile([1.0, -1.0], N)
    link = csr_array((data, (rows, cols)), shape=(N, N + used.size))
    constraints = [
        LinearConstraint(link, -np.inf, 0.0),
        LinearConstraint(np.concatenate((np.ones(N), np.zeros(used.size)))[None, :], n, n),
    ]
    if budget < np.sort(cost)[-n:].sum():
        row = np.concatenate((cost, np.zeros(used.size)))[None, :]
        constraints.append(LinearConstraint(row, -np.inf, budget))
    res = milp(
        objective,
        constraints=constraints,
        integrality=np.ones(N + used.size),
        bounds=Bounds(0.0, 1.0),
        options={"mip_rel_gap": 0.0},
    )
    if res.status == 2:
        return infeasible(name, mip_nodes=getattr(res, "mip_node_count", None))
    if res.x is None:
        raise RuntimeError(f"HiGHS found no solution: {res.message}")
    sel = np.flatnonzero(res.x[:N] > 0.5)
    if sel.size != n:
        raise RuntimeError(f"HiGHS returned {sel.size} resources instead of n = {n}")
    return make_result(
        problem,
        sel,
        Status.OPTIMAL,
        name,
        mip_nodes=getattr(res, "mip_node_count", None),
        mip_gap=getattr(res, "mip_gap", None),
    )
