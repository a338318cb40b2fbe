"""The 0-1 multiple-choice knapsack of task options across clusters (Knapsack Grid).

Each scheduling cycle the Resource Allocation Centre of Knapsack Grid gives the waiting tasks
the free processors of the clusters: task ``i`` has options ``j``, option ``j`` using
``demand[i][j, k]`` processors of cluster ``k`` and worth the utility ``U_ij = U(u_ij)``, and
at most one option per task is taken,

    max  sum_ij U_ij x_ij
    s.t. sum_ij demand_ijk x_ij <= capacity_k   for every cluster k,
         sum_j x_ij <= 1                        for every task i,
         x_ij in {0, 1}.

The slides write ``sum_j x_ij = 1`` (every task gets an option); here a task may *wait*
(``x_ij = 0`` for all ``j``, worth 0), which is what a cycle does with a task that does not fit
now: it stays in the queue for the next cycle. An option whose utility is not positive never
beats waiting, and one that asks a cluster for more processors than are free cannot be taken
now; both are left out of the solve.

:func:`solve_mckp` solves it exactly, by one of

``"dp"``
    dynamic programming over the lattice of processors used per cluster (numpy-vectorised,
    back-pointers to rebuild the choice), for lattices of at most :data:`DP_MAX_STATES` states
    (the slides' clusters of 4, 8, 16 and 32 processors give 5 * 9 * 17 * 33 = 25,245);
``"milp"``
    :func:`scipy.optimize.milp` (HiGHS) with ``mip_rel_gap = 0``, for larger lattices (e.g.
    clusters made of a VO's hundreds of nodes);

and ``"auto"`` (default) picks the DP when its lattice and back-pointers are small enough.
``"greedy"`` is a fast heuristic (value density over the capacity-weighted demand, then
upgrades; never better than the optimum), the last link of the fallback chain
``"milp>greedy"`` (:mod:`vosim.allocators.fallback`): HiGHS under a time or node budget,
the greedy when the budget runs out.

Ties. The DP returns, among the optimal choices, the one that is smallest when compared from
the *last* task to the first, waiting (``-1``) ranking before option 0, option 0 before option
1, and so on: the last task waits if some optimal choice lets it, otherwise it takes the lowest
option some optimal choice gives it; then the task before it, with the processors left, and so
on back to the first. The total is the floating-point sum of the chosen values taken left to
right in task order, and the optimum is exact for those sums; the tie rule is exact whenever
the partial sums are exact (e.g. integers or multiples of a power of two), and with other reals
two choices whose totals tie only after rounding may resolve the other way. The MILP may return
another optimal choice (of equal value within HiGHS's tolerances).
"""

from __future__ import annotations

import contextlib
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from vosim.allocators.base import chain
from vosim.core import registry
from vosim.core.results import Result, Status
from vosim.errors import ProblemError

__all__ = [
    "DP_MAX_CELLS",
    "DP_MAX_STATES",
    "METHODS",
    "quiet_stdout",
    "MCKPResult",
    "solve_mckp",
]

#: ``"auto"`` runs the DP only when its lattice, ``prod(capacity' + 1)`` with each cluster's
#: capacity cut to the most its tasks' options could use together, has at most this many
#: states: about 5x the slides' 25,245, where the DP of a 200-task x 4-option cycle takes some
#: 0.2 s, on a par with HiGHS (which varies from instance to instance far more).
DP_MAX_STATES = 131_072

#: ... and when its back-pointers (one byte per state for each task with an option that can be
#: taken; two bytes when an option index exceeds 127) take at most this many bytes (64 MiB).
DP_MAX_CELLS = 1 << 26

#: HiGHS's objective is scaled so the largest value is this; its absolute gap tolerance (1e-6)
#: then stands for 1e-10 of the largest value.
_MILP_SCALE = 1e4


@dataclass(frozen=True, slots=True)
class MCKPResult(Result):
    """The options chosen by :func:`solve_mckp`.

    Parameters
    ----------
    choice : numpy.ndarray of int64, shape (n_tasks,)
        ``choice[i]`` is the option chosen for task ``i``, ``-1`` when the task waits.
    value : float
        Sum of the chosen values, left to right in task order (``0.0`` when every task waits).
    method : str
        The method that ran: ``"dp"``, ``"milp"`` or ``"greedy"``.
    seconds : float
        Wall time of the whole call, input checks included (``time.perf_counter``), in s.
    used : numpy.ndarray of int64, shape (n_clusters,)
        Processors used per cluster by the chosen options (``<= capacity``).
    optimal : bool
        ``True`` unless the MILP stopped at its ``time_limit`` or ``node_limit`` with its best
        choice so far, or the greedy heuristic ran.
    stats : dict
        Diagnostics; a fallback chain (``"milp>greedy"``) records ``chain``, ``answered_by``
        and ``fell_back`` here (:mod:`vosim.allocators.fallback`).

    Attributes
    ----------
    status : Status
        ``OPTIMAL`` when ``optimal``; otherwise ``FEASIBLE`` for the greedy heuristic and
        ``LIMIT`` for a MILP stopped at its limit. Never ``INFEASIBLE``: every task waiting
        is always a valid choice.
    message : str
        What the choice is: the best found before a limit, every task waiting because no
        option fits, or the status's default message.

    References
    ----------
    ``scipy.optimize.OptimizeResult`` for ``status`` and ``message``.
    """

    choice: np.ndarray
    value: float
    method: str
    seconds: float
    used: np.ndarray
    optimal: bool = True
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def solution(self) -> Any:
        """The option chosen per class (``choice``)."""
        return self.choice

    @property
    def objective(self) -> float:
        """The total value of the choice (``value``)."""
        return self.value

    @property
    def status(self) -> Status:
        """How the solve ended (see the class's Attributes)."""
        if self.optimal:
            return Status.OPTIMAL
        return Status.FEASIBLE if self.method == "greedy" else Status.LIMIT

    @property
    def message(self) -> str:
        """A sentence on the choice (see the class's Attributes)."""
        status = self.status
        if status is Status.LIMIT:
            return "HiGHS stopped at its time or node limit: the best choice found so far"
        if status is Status.OPTIMAL and not (self.choice >= 0).any():
            return "no option fits the free processors: every task waits"
        return status.default_message


# --------------------------------------------------------------------------------------------
# input checks


def _as_list(obj, name: str) -> list:
    if isinstance(obj, str | bytes):
        raise ProblemError(f"{name} must be a sequence with one entry per task, got a string")
    if isinstance(obj, np.ndarray) or isinstance(obj, Sequence):
        return list(obj)
    try:
        return list(obj)
    except TypeError:
        raise ProblemError(
            f"{name} must be a sequence with one entry per task, got {type(obj).__name__}"
        ) from None


def _integers(obj, what: str) -> np.ndarray:
    """``obj`` as an int64 array; ``what`` names it in the error messages."""
    try:
        arr = np.asarray(obj)
    except (TypeError, ValueError):  # e.g. ragged nested sequences
        raise ProblemError(f"{what} must be a rectangular array of integers, got {obj!r}") from None
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64)
    if arr.dtype.kind != "f":
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise ProblemError(f"{what} must hold integers, got {obj!r}") from None
    bad = ~np.isfinite(arr) | (arr != np.round(arr))
    if bad.any():
        at = tuple(int(x) for x in np.argwhere(bad)[0])
        raise ProblemError(f"{what}{list(at)} = {arr[at]} is not an integer")
    return arr.astype(np.int64)


def _capacity(capacity) -> np.ndarray:
    cap = _integers(capacity, "capacity")
    if cap.ndim != 1 or cap.size == 0:
        raise ProblemError(
            f"capacity must be a non-empty 1-D array (one entry per cluster), got shape {cap.shape}"
        )
    if (cap < 0).any():
        k = int(np.flatnonzero(cap < 0)[0])
        raise ProblemError(f"capacity[{k}] = {cap[k]} (cluster {k}) is negative")
    return cap


def _problem(values, demands, capacity) -> tuple[list, list, np.ndarray]:
    """Validated values (float, 1-D), demands (int64, 2-D) and capacity (int64, 1-D)."""
    cap = _capacity(capacity)
    K = cap.size
    vals = _as_list(values, "values")
    dems = _as_list(demands, "demands")
    if len(vals) != len(dems):
        raise ProblemError(
            f"values has {len(vals)} tasks but demands has {len(dems)}; they must match"
        )
    out_v, out_d = [], []
    for i, (row, dem) in enumerate(zip(vals, dems, strict=True)):
        try:
            v = np.asarray(row, dtype=float)
        except (TypeError, ValueError):
            raise ProblemError(f"values[{i}] (task {i}) must hold numbers, got {row!r}") from None
        if v.ndim != 1:
            raise ProblemError(
                f"values[{i}] (task {i}) must be 1-D (one value per option), got shape {v.shape}"
            )
        bad = ~np.isfinite(v)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ProblemError(f"values[{i}][{j}] = {v[j]} (task {i}, option {j}) is not finite")
        d = _integers(dem, f"demands[{i}]")
        if d.shape != (v.size, K):
            raise ProblemError(
                f"demands[{i}] (task {i}) must have shape (options, clusters) = "
                f"({v.size}, {K}), got {d.shape}"
            )
        if (d < 0).any():
            j, k = (int(x) for x in np.argwhere(d < 0)[0])
            raise ProblemError(
                f"demands[{i}][{j}, {k}] = {d[j, k]} (task {i}, option {j}, cluster {k}) "
                "is negative"
            )
        idle = ~d.any(axis=1)
        if idle.any():
            j = int(np.flatnonzero(idle)[0])
            raise ProblemError(
                f"demands[{i}][{j}] (task {i}, option {j}) asks for no processors; every "
                "option must use at least one"
            )
        out_v.append(v)
        out_d.append(d)
    return out_v, out_d, cap


# --------------------------------------------------------------------------------------------
# the two solvers


def _lattice(
    kept: list[np.ndarray], dems: list[np.ndarray], cap: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Clusters of the DP's lattice (smallest first) and their capacities cut to the demand.

    A cluster's capacity is cut to the processors all tasks' options could use together
    (the sum over tasks of their largest demand there): no choice uses more, so the optimum and
    the rebuilt choice are unchanged. Clusters left with 0 are no dimension at all.
    """
    most = np.zeros(cap.size, dtype=np.int64)
    for idx, d in zip(kept, dems, strict=True):
        if idx.size:
            most += d[idx].max(axis=0)
    eff = np.minimum(cap, most)
    dims = np.flatnonzero(eff > 0)
    dims = dims[np.argsort(eff[dims], kind="stable")]  # the largest innermost (contiguous)
    return dims, eff[dims]


def _solve_dp(
    vals: list[np.ndarray], dems: list[np.ndarray], kept: list[np.ndarray], dims, size
) -> np.ndarray:
    """The choice by dynamic programming over the lattice of processors used (see Notes)."""
    n = len(vals)
    shape = tuple(int(s) + 1 for s in size)
    f = np.zeros(shape)  # f[c]: best value of the tasks so far using at most c processors
    cand_buf = np.empty(shape)
    better_buf = np.empty(shape, dtype=bool)
    pointers: list[np.ndarray | None] = [None] * n
    for i in range(n):
        idx = kept[i]
        if idx.size == 0:
            continue
        top = int(idx.max())
        dtype = np.int8 if top <= 127 else np.int16 if top <= 32767 else np.int32
        back = np.full(shape, -1, dtype=dtype)  # -1: the task waits (f unchanged)
        new = f.copy()
        v, d = vals[i], dems[i][:, dims]
        for j in idx.tolist():
            dj = d[j].tolist()
            dst = tuple(slice(x, None) for x in dj)  # states c >= d_j ...
            src = tuple(slice(0, s - x) for s, x in zip(shape, dj, strict=True))  # ... c - d_j
            cand = cand_buf[src]
            better = better_buf[src]
            np.add(f[src], v[j], out=cand)
            here = new[dst]
            np.greater(cand, here, out=better)  # strictly: the first maximiser stays
            np.copyto(here, cand, where=better)
            np.copyto(back[dst], j, where=better)
        f = new
        pointers[i] = back
    choice = np.full(n, -1, dtype=np.int64)
    state = list(size)  # rebuild from the full (cut) capacity, last task first
    for i in range(n - 1, -1, -1):
        back = pointers[i]
        if back is None:
            continue
        j = int(back[tuple(state)])
        if j >= 0:
            choice[i] = j
            state = [c - x for c, x in zip(state, dems[i][j, dims].tolist(), strict=True)]
    return choice


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Send file descriptor 1 to ``/dev/null`` (C-level prints too), then restore it."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _solve_milp(
    vals: list[np.ndarray],
    dems: list[np.ndarray],
    kept: list[np.ndarray],
    cap: np.ndarray,
    time_limit: float | None = None,
    node_limit: int | None = None,
) -> tuple[np.ndarray, bool]:
    """The choice by HiGHS (one binary per option that can be taken) and whether optimal.

    Stopped by a limit before any choice was found, HiGHS's answer is "every task waits"
    (always feasible), not optimal.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_array

    n = len(vals)
    choice = np.full(n, -1, dtype=np.int64)
    tasks = [i for i in range(n) if kept[i].size]
    if not tasks:
        return choice, True
    task_of = np.concatenate([np.full(kept[i].size, i, dtype=np.int64) for i in tasks])
    option = np.concatenate([kept[i] for i in tasks])
    v = np.concatenate([vals[i][kept[i]] for i in tasks])
    d = np.concatenate([dems[i][kept[i]] for i in tasks])  # (n_vars, K)
    n_vars = d.shape[0]
    row = np.repeat(np.arange(len(tasks)), [kept[i].size for i in tasks])
    one_each = csr_array((np.ones(n_vars), (row, np.arange(n_vars))), shape=(len(tasks), n_vars))
    per_cluster = csr_array(d.T.astype(float))
    scale = min(_MILP_SCALE / float(v.max()), 1e300)  # v > 0; no overflow for tiny values
    options: dict[str, Any] = {"mip_rel_gap": 0.0}
    if time_limit is not None:
        options["time_limit"] = float(time_limit)
    if node_limit is not None:
        options["node_limit"] = int(node_limit)
    with quiet_stdout():  # HiGHS may print debug lines straight to file descriptor 1
        res = milp(
            -v * scale,
            constraints=[
                LinearConstraint(one_each, -np.inf, 1.0),
                LinearConstraint(per_cluster, -np.inf, cap.astype(float)),
            ],
            integrality=np.ones(n_vars),
            bounds=Bounds(0.0, 1.0),
            options=options,
        )
    # SciPy maps HiGHS's time limit to status 1 and (1.18) its node limit, HiGHS's "solution
    # limit", to status 4 "not recognized"
    stopped = res.status == 1 or (res.status == 4 and "limit reached" in str(res.message))
    if res.x is None and stopped:
        return choice, False
    if res.x is None:
        raise RuntimeError(f"HiGHS found no solution (taking nothing is one): {res.message}")
    on = res.x > 0.5
    if np.bincount(task_of[on], minlength=n).max(initial=0) > 1:
        raise RuntimeError("HiGHS returned two options for one task")
    choice[task_of[on]] = option[on]
    if (d[on].sum(axis=0) > cap).any():
        raise RuntimeError("HiGHS returned a choice above a cluster's capacity")
    return choice, res.status == 0


def _solve_greedy(
    vals: list[np.ndarray], dems: list[np.ndarray], kept: list[np.ndarray], cap: np.ndarray
) -> np.ndarray:
    """The choice of the greedy heuristic (see :func:`solve_mckp`, method ``"greedy"``).

    Two greedy passes, the better one kept (ties: the first):

    1. rank the options by value density ``U_ij / w_ij`` with the capacity-weighted demand
       ``w_ij = sum_k d_ijk / cap_k`` (Toyoda's aggregate resource, equal cluster weights),
       then 2. by value ``U_ij`` alone (which starts with the best single option, as the
       extended greedy of the 0-1 knapsack does); ties: higher value, lower task, lower option.

    Each pass takes each option in its order when the task has none yet and the option fits
    what is left, then lets each task in turn upgrade to its most valuable option that fits
    the processors left with its current option released (waiting is worth 0). Every step
    keeps the choice within capacity. O(M log M + M K) for ``M`` options and ``K`` clusters.
    """
    n = len(vals)
    tasks = [i for i in range(n) if kept[i].size]
    if not tasks:
        return np.full(n, -1, dtype=np.int64)
    task_of = np.concatenate([np.full(kept[i].size, i, dtype=np.int64) for i in tasks])
    option = np.concatenate([kept[i] for i in tasks])
    v = np.concatenate([vals[i][kept[i]] for i in tasks])
    d = np.concatenate([dems[i][kept[i]] for i in tasks])  # (M, K); d_k > 0 only if cap_k > 0
    weight = (d / np.maximum(cap, 1)).sum(axis=1)  # > 0: every option uses some processor
    by_task: dict[int, list[int]] = {}
    for m in range(v.size):
        by_task.setdefault(int(task_of[m]), []).append(m)

    def greedy_pass(order: np.ndarray) -> tuple[float, np.ndarray]:
        picked = np.full(n, -1, dtype=np.int64)  # position m in the flat arrays, per task
        left = cap.copy()
        for m in order.tolist():
            i = int(task_of[m])
            if picked[i] < 0 and (d[m] <= left).all():
                picked[i] = m
                left -= d[m]
        for i in tasks:  # upgrades
            current = int(picked[i])
            free = left + (d[current] if current >= 0 else 0)
            best, best_value = current, (v[current] if current >= 0 else 0.0)
            for m in by_task[i]:
                if v[m] > best_value and (d[m] <= free).all():
                    best, best_value = m, v[m]
            if best != current:
                picked[i] = best
                left = free - d[best]
        on = picked[picked >= 0]
        return float(v[on].sum()), picked

    density = greedy_pass(np.lexsort((option, task_of, -v, -(v / weight))))
    by_value = greedy_pass(np.lexsort((option, task_of, -v)))
    _, picked = by_value if by_value[0] > density[0] else density
    return np.where(picked >= 0, option[np.maximum(picked, 0)], -1).astype(np.int64)


def solve_mckp(
    values,
    demands,
    capacity,
    method: str = "auto",
    time_limit: float | None = None,
    node_limit: int | None = None,
    fallback_after=None,
) -> MCKPResult:
    """The options of the waiting tasks that fit the free processors with the most utility.

    Solves ``max sum U_ij x_ij`` subject to ``sum_ij demand_ijk x_ij <= capacity_k`` for every
    cluster ``k``, ``sum_j x_ij <= 1`` for every task ``i`` (a task may wait) and binary
    ``x_ij``: the multiple-choice knapsack of task options across clusters.

    Parameters
    ----------
    values : sequence of array_like, each shape (n_options_i,)
        ``values[i][j]``: utility ``U_ij = U(u_ij)`` of option ``j`` of task ``i`` (finite
        reals of any sign; options worth ``<= 0`` are never taken, waiting is worth 0). Tasks
        may have different numbers of options, none at all included (the task waits).
    demands : sequence of array_like of int, each shape (n_options_i, n_clusters)
        ``demands[i][j, k] >= 0``: processors option ``j`` of task ``i`` uses on cluster
        ``k``, at least one of them positive per option. An option asking a cluster for more
        than its capacity is fine: it cannot be taken now.
    capacity : array_like of int, shape (n_clusters,)
        Free processors per cluster, ``>= 0``.
    method : {"auto", "dp", "milp", "greedy"} or a fallback chain, optional
        ``"dp"``: dynamic programming over the lattice of processors used per cluster;
        ``"milp"``: :func:`scipy.optimize.milp` (HiGHS); ``"auto"`` (default): the DP when
        its lattice has at most :data:`DP_MAX_STATES` states and its back-pointers take at
        most :data:`DP_MAX_CELLS` bytes, otherwise the MILP. ``"dp"`` runs the DP whatever
        its size (time and memory grow with the lattice). ``"greedy"``: the heuristic of the
        Notes (``optimal=False``). A chain ``"milp>greedy"`` runs HiGHS under the budget
        ``fallback_after`` and the greedy when HiGHS stops at it
        (:func:`vosim.allocators.fallback.resolve`).
    time_limit : float, optional
        Seconds HiGHS may spend (> 0); when it stops there the result is its best choice so
        far with ``optimal=False`` (every task waits if it had none). ``None`` (default):
        solve to optimality, however long. The DP and the greedy ignore it.
    node_limit : int, optional
        Branch-and-bound nodes HiGHS may solve (>= 1), likewise.
    fallback_after : FallbackBudget, str, int or float, optional
        The budget of the exact link of a chain
        (:class:`~vosim.allocators.fallback.FallbackBudget`: ``"2s"``, ``"5000"`` nodes, ...);
        ignored for a single method. ``None``: ``time_limit`` and ``node_limit`` serve as the
        chain's budget.

    Returns
    -------
    MCKPResult
        ``choice`` (int64 per task, ``-1`` = waits), ``value`` (sum of the chosen values in
        task order), ``method`` (``"dp"`` or ``"milp"``: what ran), ``seconds`` and ``used``
        (int64 processors per cluster). Ties: see the module notes (the DP's choice is fixed;
        the MILP may pick another choice of the same value).

    Raises
    ------
    ProblemError
        ``values`` and ``demands`` differ in the number of tasks or an option's shape (ragged
        or mismatched arrays); a value is NaN or infinite; a demand or capacity is negative or
        not an integer; an option asks for no processors; ``capacity`` is not a non-empty 1-D
        array; ``method`` is unknown; a limit is not positive. The message names the value,
        task, option and cluster.
    UnknownAllocatorError
        A chain names an unknown method, or a link before the last that takes no budget.
    RuntimeError
        HiGHS stops without a usable solution (a numerical failure; taking nothing is always
        feasible).

    References
    ----------
    Knapsack Grid, 'Constructing the Problem' (the objective ``max f(x) = sum U_ij x_ij``, one
    constraint per cluster, one per task, binary ``x_ij``) and 'The 0,1 Knapsack Problem';
    'Two Tasks and Their Options' (the example below); 'Grid and Task Model' (four clusters of
    4, 8, 16 and 32 processors). The greedy: Y. Toyoda, *A simplified algorithm for obtaining
    approximate solutions to zero-one programming problems*, Management Science 21(12)
    (1975) (aggregate resource); H. Kellerer, U. Pferschy and D. Pisinger, *Knapsack
    Problems*, Springer (2004), §2.5 (extended greedy) and ch. 11 (multiple-choice knapsack).

    Notes
    -----
    The DP's state is the vector ``c`` of processors used per cluster, a lattice of
    ``prod(capacity_k + 1)`` states (each capacity first cut to the most the options could
    use together). ``f[c]`` is the best value of the tasks so far using at most ``c``; each
    task updates it as ``f'[c] = max(f[c], max_j f[c - d_j] + U_ij)`` over its options ``j``
    that can be taken, one shifted slice of the K-dimensional array per option, and records in
    a back-pointer array (int8; int16 past 127 options) which option won at each state: an
    option replaces the incumbent only when strictly better, so waiting, then the lowest
    option, wins ties. The choice is rebuilt from the full capacity backwards. Time
    O(S * sum_i m_i) and memory O(S * n) bytes for ``S`` states, ``n`` tasks and ``m_i``
    options: some 30 ms for 200 tasks x 4 options on the slides' clusters (S = 25,245;
    ``benchmarks/bench_mckp.py``). The MILP has one binary per option that can be taken, a row
    per task and a row per cluster; HiGHS (branch and cut) is solved to a zero relative gap,
    its objective scaled so the largest value is 1e4 (its absolute gap 1e-6 then means 1e-10
    of the largest value); ``value`` is summed from the choice. The greedy makes two passes,
    one over the options by value density ``U_ij / sum_k (d_ijk / capacity_k)``, one by value
    ``U_ij``: each takes every option that fits while its task has none, then lets each task
    in turn upgrade to its most valuable option that fits; the better pass wins (the value
    pass is never below the best single option). O(M log M + M K) for ``M`` options and
    ``K`` clusters. Its choice fits the capacities; it has no worst-case
    guarantee (tests compare it with the optimum).

    Examples
    --------
    The slides' two tasks on clusters of 16 and 8 processors: task 1 pays $10 for 8
    processors of cluster 1, $2 for 2 of cluster 1 or $9 for 4 + 4 on clusters 1 and 2; task
    2 pays $11 for 10 of cluster 1 or $2 for 1 of cluster 2. The best is task 1's third option
    with task 2's first ($20; 8 + 10 processors would not fit cluster 1):

    >>> values = [[10, 2, 9], [11, 2]]
    >>> demands = [[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1]]]
    >>> r = solve_mckp(values, demands, capacity=[16, 8])
    >>> r.choice.tolist(), r.value, r.used.tolist(), r.method
    ([2, 0], 20.0, [14, 4], 'dp')
    >>> solve_mckp(values, demands, [16, 8], method="milp").value
    20.0

    With cluster 2 busy and 10 processors free on cluster 1, task 1 waits:

    >>> r = solve_mckp(values, demands, capacity=[10, 0])
    >>> r.choice.tolist(), r.value, r.used.tolist()
    ([-1, 0], 11.0, [10, 0])
    """
    t0 = time.perf_counter()
    if time_limit is not None and not time_limit > 0:
        raise ProblemError(f"time_limit must be > 0 seconds or None, got {time_limit!r}")
    if node_limit is not None and not node_limit >= 1:
        raise ProblemError(f"node_limit must be >= 1 or None, got {node_limit!r}")
    if isinstance(method, str) and ">" in method:  # a fallback chain, e.g. "milp>greedy"
        run = chain("mckp method")
        return run(values, demands, capacity, method, fallback_after, time_limit, node_limit)
    if method not in METHODS:
        raise ProblemError(f"method must be one of {', '.join(map(repr, METHODS))}, got {method!r}")
    vals, dems, cap = _problem(values, demands, capacity)
    # options that can help now: positive value, within every cluster's free processors
    kept = [
        np.flatnonzero((v > 0) & (d <= cap).all(axis=1)) for v, d in zip(vals, dems, strict=True)
    ]
    dims, size = _lattice(kept, dems, cap)
    if method == "auto":
        states = math.prod(int(s) + 1 for s in size)
        busy = sum(1 for idx in kept if idx.size)
        top = max((int(idx.max()) for idx in kept if idx.size), default=0)
        wide = 1 if top <= 127 else 2 if top <= 32767 else 4  # bytes per back-pointer
        small = states <= DP_MAX_STATES and busy * states * wide <= DP_MAX_CELLS
        method = "dp" if small else "milp"
    solver = registry.entry("mckp method", method)
    choice, optimal = solver(_Instance(vals, dems, kept, cap, dims, size, time_limit, node_limit))
    used = np.zeros(cap.size, dtype=np.int64)
    value = 0.0
    for i, j in enumerate(choice.tolist()):
        if j >= 0:
            value += float(vals[i][j])
            used += dems[i][j]
    return MCKPResult(choice, value, method, time.perf_counter() - t0, used, optimal)


class _Instance(NamedTuple):
    """One :func:`solve_mckp` call's checked problem, as every registered solver takes it."""

    vals: list[np.ndarray]
    dems: list[np.ndarray]
    kept: list[np.ndarray]
    cap: np.ndarray
    dims: np.ndarray
    size: np.ndarray
    time_limit: float | None
    node_limit: int | None


# Each MCKP method is a solver ``(_Instance) -> (choice, optimal)`` in the registry.
@registry.registering("mckp method", "dp")
def _by_dp(p: _Instance) -> tuple[np.ndarray, bool]:
    return _solve_dp(p.vals, p.dems, p.kept, p.dims, p.size), True


@registry.registering("mckp method", "milp")
def _by_milp(p: _Instance) -> tuple[np.ndarray, bool]:
    return _solve_milp(p.vals, p.dems, p.kept, p.cap, p.time_limit, p.node_limit)


@registry.registering("mckp method", "greedy")
def _by_greedy(p: _Instance) -> tuple[np.ndarray, bool]:
    return _solve_greedy(p.vals, p.dems, p.kept, p.cap), False


#: The methods :func:`solve_mckp` accepts: ``"auto"`` (the DP when its lattice is small,
#: else the MILP) and the registered solvers.
METHODS = ("auto", *registry.names("mckp method"))
