"""Allocation strategies of the Knapsack Grid slides: FCFS, EASY backfilling, gang, knapsack.

Every strategy is a small :class:`~vosim.grid.simulator.Strategy` driven by
:func:`~vosim.grid.simulator.simulate`; at each decision it returns the whole set of tasks that
run from now on. Where a strategy picks an option by itself it takes the *shortest fitting
option*: among the options whose processors fit the free processors of every cluster, the one
of least length ``T_ij`` (ties: the lower option index, so the reference option first).

* :class:`FCFS` -- queue order; the head starts as soon as one of its options fits; nothing
  jumps the head. Non-preemptive.
* :class:`EASY` -- Maui-style (EASY) backfilling with exact run times: the head gets a
  reservation at the earliest time one of its options fits given the running tasks' finish
  times (the *shadow time*); a later task may start now only if it fits now and either ends by
  the shadow time or uses only processors the reservation leaves free at the shadow time (the
  *extra* processors, which it then consumes). Non-preemptive.
* :class:`Gang` -- time slicing over an Ousterhout matrix. Each row is a full allocation of the
  clusters. Packing rule: a task entering the matrix (queue order) goes to the first row, in
  order of creation, where one of its options fits the processors the row leaves free (its
  shortest such option); otherwise it opens a new row. It keeps that row and option until it
  completes; rows left empty are removed. Rows take turns in creation order for
  ``slice_length`` hours (ticks at multiples of ``slice_length``); if the active row empties
  mid-slice the next row takes over at once, for the rest of the slice. A task entering the
  active row starts at once.
* :class:`Knapsack` -- every ``tau`` hours all unfinished arrived tasks (running or waiting)
  are candidates; the multiple-choice knapsack (one option or none per task, processors per
  cluster within capacity, sum of utilities maximal) is solved with
  :func:`vosim.allocators.mckp.solve_mckp`, and the chosen set runs until the next cycle
  (running tasks not chosen are preempted; a task chosen on another option moves). Arrivals
  between cycles wait for the next cycle.
* :class:`KnapsackBackfill` (KS+BF) -- the same, and at every decision (between cycles too)
  the waiting tasks, in queue order, start at once on the shortest option that fits the idle
  processors (a task that does not fit is skipped: there is no reservation, since the next
  cycle reconsiders everything).

Ties in the knapsack. Candidates are passed in queue order and a running task's current option
is listed first (the others keep their order), so with the tie rule of
:func:`~vosim.allocators.mckp.solve_mckp` (later tasks wait first, lower option indices first)
an optimal choice that keeps tasks where they run, and favours earlier tasks, is preferred.

Utility policies 1-5 (:func:`utilities`) and :func:`sigmoid` are the slides' rules of
:mod:`vosim.policies.knapsack_rules`, shared with the VO's knapsack policies: with ``r_ij =
(1 - phi_i) T_ij`` the remaining computation time of a task that has done the fraction
``phi_i`` of its work.

References
----------
Knapsack Grid, "Allocation Strategies Used" and "Constructing the Problem"; the utility
policies' slides as cited in :mod:`vosim.policies.knapsack_rules`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence

import numpy as np

from vosim.errors import ParameterError
from vosim.grid.simulator import GridState, Strategy
from vosim.grid.workload import GridTask
from vosim.policies.knapsack_rules import UTILITY_POLICIES as POLICIES
from vosim.policies.knapsack_rules import check_utility_policy, option_utilities, sigmoid

__all__ = [
    "POLICIES",
    "Strategy",
    "FCFS",
    "EASY",
    "Gang",
    "Knapsack",
    "KnapsackBackfill",
    "sigmoid",
    "utilities",
]

#: Relative time tolerance of the EASY shadow-time comparison.
_TIME_RTOL = 1e-9


def utilities(policy: int, now: float, task: GridTask, remaining: float = 1.0) -> np.ndarray:
    """Utility ``u_ij`` of each option of ``task`` under a policy of the slides.

    Parameters
    ----------
    policy : int
        1 to 5 (see the module docstring).
    now : float
        ``t``, hours.
    task : GridTask
        Supplies ``s_i``, ``N_i``, ``T_ij`` and ``v_ij``.
    remaining : float, default 1.0
        ``1 - phi_i``, the remaining fraction of its work (``> 0``).

    Returns
    -------
    numpy.ndarray of float, shape (n_options,)
        In the order of ``task.options``.

    Raises
    ------
    ParameterError
        As :func:`~vosim.policies.knapsack_rules.option_utilities`, which this applies to
        the task's options.

    Examples
    --------
    >>> from vosim.grid.workload import make_options
    >>> t = GridTask(0, 1.0, make_options(8, 2.0, 10.0, (8, 8)))
    >>> [t.options[j].length for j in range(len(t.options))]
    [2.0, 2.2, 4.0, 2.0]
    >>> utilities(1, 3.0, t).round(2).tolist()
    [10.0, 9.0, 4.67, 10.0]
    >>> utilities(4, 3.0, t, remaining=0.5).round(3).tolist()  # (2 + 0.5 T) / 2 + 2 / (0.5 T)
    [3.5, 3.368, 3.0, 3.5]
    """
    return option_utilities(
        policy,
        now,
        task.submit,
        task.reference_length,
        task.lengths,
        task.credits,
        remaining,
    )


class _Fitting(Strategy):
    """Shared bookkeeping: options of each task sorted by length, for quick fit tests."""

    def reset(self, tasks: Sequence[GridTask], capacity: np.ndarray) -> None:
        self._tasks = tasks
        self._capacity = capacity.tolist()
        self._sorted = [
            [(j, t.options[j].processors) for j in np.argsort(t.lengths, kind="stable").tolist()]
            for t in tasks
        ]
        self._min_total = [int(t.demand.sum(axis=1).min()) for t in tasks]

    def _fit(self, i: int, free: list[int]) -> int | None:
        """The shortest option of task ``i`` fitting ``free``, or ``None``."""
        if self._min_total[i] > sum(free):
            return None
        for j, procs in self._sorted[i]:
            if all(p <= f for p, f in zip(procs, free, strict=True)):
                return j
        return None

    def _take(self, free: list[int], i: int, j: int, sign: int = -1) -> None:
        for k, p in enumerate(self._tasks[i].options[j].processors):
            free[k] += sign * p


class FCFS(_Fitting):
    """First come, first served: the queue head starts when one of its options fits.

    Non-preemptive; a task never starts before an earlier-queued one. Takes the shortest
    fitting option.

    References
    ----------
    Knapsack Grid, "Allocation Strategies Used" (comparison strategy FCFS).

    Examples
    --------
    >>> from vosim.grid.simulator import simulate
    >>> from vosim.grid.workload import GridTask, TaskOption
    >>> ts = [GridTask(0, 0.0, (TaskOption((3,), 2.0, 1.0),)),
    ...       GridTask(1, 0.0, (TaskOption((4,), 1.0, 1.0),)),
    ...       GridTask(2, 0.0, (TaskOption((1,), 1.0, 1.0),))]
    >>> simulate(ts, (4,), FCFS()).tasks["first_start"].tolist()  # task 2 waits behind task 1
    [0.0, 2.0, 3.0]
    """

    name = "FCFS"
    preemptive = False

    def decide(self, state: GridState) -> dict[int, int]:
        """Start waiting tasks in queue order until the head does not fit."""
        run = dict(state.running)
        free = state.free.tolist()
        for i in state.waiting:
            j = self._fit(i, free)
            if j is None:
                break
            run[i] = j
            self._take(free, i, j)
        return run


class EASY(_Fitting):
    """EASY (Maui-style) backfilling with a reservation for the queue head.

    Non-preemptive. Run times are exact (each option's length is known), so the head starts
    no later than its first reservation.

    Attributes
    ----------
    reservations : list of (float, int, float)
        ``(decision time, head task id, reservation start)`` for every decision at which the
        head could not start.

    References
    ----------
    Knapsack Grid, "Allocation Strategies Used" (comparison strategy Backfilling); Lifka,
    "The ANL/IBM SP scheduling system", JSSPP 1995 (EASY).

    Examples
    --------
    A long task that fits the idle processors now but would delay the head is not backfilled:

    >>> from vosim.grid.simulator import simulate
    >>> from vosim.grid.workload import GridTask, TaskOption
    >>> ts = [GridTask(0, 0.0, (TaskOption((6,), 100.0, 1.0),)),
    ...       GridTask(1, 1.0, (TaskOption((10,), 2.0, 1.0),)),
    ...       GridTask(2, 2.0, (TaskOption((4,), 1000.0, 1.0),)),
    ...       GridTask(3, 3.0, (TaskOption((4,), 50.0, 1.0),))]
    >>> simulate(ts, (10,), EASY()).tasks["first_start"].tolist()  # task 3 is backfilled
    [0.0, 100.0, 102.0, 3.0]
    """

    name = "EASY"
    preemptive = False

    def reset(self, tasks: Sequence[GridTask], capacity: np.ndarray) -> None:
        """Forget the reservations of a previous run."""
        super().reset(tasks, capacity)
        self.reservations: list[tuple[float, int, float]] = []

    def _shadow(self, state: GridState, run: dict[int, int], free: list[int], head: int):
        """Earliest time one of ``head``'s options fits, and the processors it leaves free."""
        now = state.now
        ends = []
        for i, j in run.items():
            f = (
                state.finish_time(i)
                if i in state.running
                else now + (state.remaining(i) * self._tasks[i].lengths[j])
            )
            ends.append((f, i, j))
        ends.sort()
        avail = list(free)
        n = len(ends)
        e = 0
        while e < n:
            t = ends[e][0]
            while e < n and ends[e][0] == t:
                self._take(avail, ends[e][1], ends[e][2], sign=+1)
                e += 1
            j = self._fit(head, avail)
            if j is not None:
                self._take(avail, head, j)
                return t, avail
        raise AssertionError("EASY: the head fits no empty grid")  # options were validated

    def decide(self, state: GridState) -> dict[int, int]:
        """Start the head while it fits; then reserve for it and backfill behind it."""
        run = dict(state.running)
        free = state.free.tolist()
        queue = state.waiting
        h = 0
        while h < len(queue):
            j = self._fit(queue[h], free)
            if j is None:
                break
            run[queue[h]] = j
            self._take(free, queue[h], j)
            h += 1
        if h == len(queue):
            return run
        head = queue[h]
        shadow, extra = self._shadow(state, run, free, head)
        self.reservations.append((state.now, self._tasks[head].id, float(shadow)))
        limit = shadow + _TIME_RTOL * max(1.0, abs(shadow))
        for i in queue[h + 1 :]:
            if self._min_total[i] > sum(free):
                continue
            rem = None
            for j, procs in self._sorted[i]:
                if not all(p <= f for p, f in zip(procs, free, strict=True)):
                    continue
                if rem is None:
                    rem = state.remaining(i)
                if state.now + rem * self._tasks[i].lengths[j] <= limit:
                    pass  # ends before the reservation starts
                elif all(p <= x for p, x in zip(procs, extra, strict=True)):
                    self._take(extra, i, j)  # runs past the shadow time on spare processors
                else:
                    continue
                run[i] = j
                self._take(free, i, j)
                break
        return run


class Gang(_Fitting):
    """Gang scheduling: time slices over an Ousterhout matrix (packing rule in the module doc).

    Parameters
    ----------
    slice_length : float
        Hours each row runs before the next takes over (``> 0``).

    Attributes
    ----------
    row_of : dict of int to int
        Task id -> the row (numbered in order of creation) it was packed into.
    history : list of (float, int or None)
        ``(decision time, active row)`` at every decision.

    Raises
    ------
    ParameterError
        ``slice_length <= 0``.

    References
    ----------
    Knapsack Grid, "Allocation Strategies Used" (comparison strategy Gang); Ousterhout,
    "Scheduling techniques for concurrent systems", ICDCS 1982.

    Examples
    --------
    Two whole-cluster tasks share the cluster in alternating one-hour slices:

    >>> from vosim.grid.simulator import simulate
    >>> from vosim.grid.workload import GridTask, TaskOption
    >>> ts = [GridTask(0, 0.0, (TaskOption((4,), 2.0, 1.0),)),
    ...       GridTask(1, 0.0, (TaskOption((4,), 2.0, 1.0),))]
    >>> r = simulate(ts, (4,), Gang(1.0))
    >>> r.tasks["finish"].tolist(), r.segments["task_id"].tolist()
    ([3.0, 4.0], [0, 1, 0, 1])
    """

    preemptive = True

    def __init__(self, slice_length: float = 1.0) -> None:
        if not (math.isfinite(slice_length) and slice_length > 0):
            raise ParameterError(f"slice_length must be > 0 hours, got {slice_length!r}")
        self.slice_length = float(slice_length)
        self.period = self.slice_length
        self.name = f"Gang(slice={self.slice_length:g}h)"

    def reset(self, tasks: Sequence[GridTask], capacity: np.ndarray) -> None:
        """Start from an empty matrix."""
        super().reset(tasks, capacity)
        self._rows: dict[int, dict[int, int]] = {}  # row -> {task index: option}
        self._row_free: dict[int, list[int]] = {}
        self._row_of_index: dict[int, int] = {}
        self._next_row = 0
        self._active: int | None = None
        self.row_of: dict[int, int] = {}
        self.history: list[tuple[float, int | None]] = []

    def _next_after(self, row: int | None) -> int | None:
        if not self._rows:
            return None
        later = [r for r in self._rows if row is None or r > row]
        return min(later) if later else min(self._rows)

    def decide(self, state: GridState) -> dict[int, int]:
        """Update the matrix, advance the active row at a tick, run the active row."""
        present = set(state.running).union(state.waiting)
        for i in [i for i in self._row_of_index if i not in present]:  # completed
            r = self._row_of_index.pop(i)
            j = self._rows[r].pop(i)
            self._take(self._row_free[r], i, j, sign=+1)
            if not self._rows[r]:
                del self._rows[r], self._row_free[r]
        for i in state.waiting:
            if i in self._row_of_index:
                continue
            for r in self._rows:  # creation order
                j = self._fit(i, self._row_free[r])
                if j is not None:
                    break
            else:
                r = self._next_row
                self._next_row += 1
                self._rows[r] = {}
                self._row_free[r] = list(self._capacity)
                j = self._fit(i, self._row_free[r])
            self._rows[r][i] = j
            self._take(self._row_free[r], i, j)
            self._row_of_index[i] = r
            self.row_of[self._tasks[i].id] = r
        if state.tick or self._active not in self._rows:
            self._active = self._next_after(self._active)
        self.history.append((state.now, self._active))
        return dict(self._rows[self._active]) if self._active is not None else {}


class Knapsack(_Fitting):
    """Knapsack strategy: each cycle, the option set of maximal total utility runs.

    Parameters
    ----------
    policy : int, default 1
        Utility policy 1 to 5 (:func:`utilities`).
    tau : float, default 1.0
        Cycle time ``tau``, hours (``> 0``).
    method : str, default "auto"
        Passed to the solver.
    solver : callable, optional
        ``solver(values, demands, capacity, method=...)`` with the signature and result of
        :func:`vosim.allocators.mckp.solve_mckp` (the default): ``values`` a list of 1-D
        float arrays (one per candidate, one utility per option), ``demands`` a list of
        ``(n_options, K)`` int arrays, ``capacity`` an int array ``(K,)``; the result has
        ``choice`` (option per candidate, ``-1`` for none) and ``seconds``.
    keep_bonus : float, default 1e-9
        A running task's current option is worth ``1 + keep_bonus`` times its utility, so that
        among (nearly) equally good choices the knapsack leaves running tasks where they are
        (``0``: only the solver's tie rule decides). The chosen set is within this relative
        margin of the optimum of the unbiased utilities.

    Raises
    ------
    ParameterError
        An unknown policy, ``tau <= 0`` or ``keep_bonus < 0``.

    Notes
    -----
    An option of utility ``<= 0`` is never chosen (waiting is worth 0), so a task whose
    options are all worth 0 (e.g. credit 0 under policy 1 or 2) never runs;
    :func:`~vosim.grid.simulator.simulate` then stops with a ``RuntimeError`` once nothing
    else can happen. Moving a running task to another option counts as a preemption in
    :attr:`~vosim.grid.simulator.GridResult.tasks`.

    References
    ----------
    Knapsack Grid, "Constructing the Problem" and "The 0,1 Knapsack Problem".

    Examples
    --------
    The slides' small example: clusters of 16 and 8 processors; task 1 pays $10 for 8
    processors of cluster 1, $2 for 2, or $9 for 4 and 4 of clusters 1 and 2; task 2 pays $11
    for 10 processors of cluster 1 or $2 for 1 of cluster 2. The best cycle is worth $20:

    >>> from vosim.grid.simulator import simulate
    >>> from vosim.grid.workload import TaskOption
    >>> t1 = GridTask(1, 0.0, (TaskOption((8, 0), 1.0, 10), TaskOption((2, 0), 1.0, 2),
    ...                        TaskOption((4, 4), 1.0, 9)))
    >>> t2 = GridTask(2, 0.0, (TaskOption((11, 0), 1.0, 11), TaskOption((0, 1), 1.0, 2)))
    >>> r = simulate([t1, t2], (16, 8), Knapsack(policy=1, tau=1.0))
    >>> r.segments[["task_id", "option", "start", "end"]].to_numpy().tolist()
    [[1.0, 2.0, 0.0, 1.0], [2.0, 0.0, 0.0, 1.0]]
    """

    preemptive = True
    _label = "Knapsack"

    def __init__(
        self,
        policy: int = 1,
        tau: float = 1.0,
        *,
        method: str = "auto",
        solver: Callable | None = None,
        keep_bonus: float = 1e-9,
    ) -> None:
        self.policy = check_utility_policy(policy)
        if not (math.isfinite(tau) and tau > 0):
            raise ParameterError(f"tau must be > 0 hours, got {tau!r}")
        self.tau = float(tau)
        self.period = self.tau
        self.method = method
        self.solver = solver
        if not (math.isfinite(keep_bonus) and keep_bonus >= 0):
            raise ParameterError(f"keep_bonus must be >= 0, got {keep_bonus!r}")
        self.keep_bonus = float(keep_bonus)
        self.name = f"{self._label}(policy={self.policy}, tau={self.tau:g}h)"

    def _solve(self, state: GridState) -> dict[int, int]:
        solver = self.solver
        if solver is None:
            from vosim.allocators.mckp import solve_mckp as solver
        cands = sorted(set(state.running).union(state.waiting))
        values, demands, perms = [], [], []
        for i in cands:
            task = self._tasks[i]
            u = utilities(self.policy, state.now, task, state.remaining(i))
            perm = self._identity[i]
            if i in state.running:  # its current option first, and a hair more valuable
                cur = state.running[i]
                perm = np.array([cur, *(j for j in perm if j != cur)])
                u = u.copy()
                u[cur] *= 1.0 + self.keep_bonus
            values.append(u[perm])
            demands.append(task.demand[perm])
            perms.append(perm)
        capacity = np.asarray(state.capacity, dtype=np.int64)
        t0 = time.perf_counter()
        result = solver(values, demands, capacity, method=self.method)
        state.solve_seconds = float(getattr(result, "seconds", time.perf_counter() - t0))
        if not getattr(result, "optimal", True):  # a MILP stopped at its time limit
            self.suboptimal_cycles += 1
        choice = np.asarray(result.choice)
        return {i: int(perm[c]) for i, c, perm in zip(cands, choice, perms, strict=True) if c >= 0}

    def reset(self, tasks: Sequence[GridTask], capacity: np.ndarray) -> None:
        """Prepare the option orders of a new run."""
        super().reset(tasks, capacity)
        self._identity = [np.arange(len(t.options)) for t in tasks]
        #: Cycles whose knapsack was not solved to optimality (a solver time limit hit).
        self.suboptimal_cycles = 0

    def decide(self, state: GridState) -> dict[int, int]:
        """At a tick, solve the knapsack over all present tasks; otherwise keep running."""
        return self._solve(state) if state.tick else dict(state.running)


class KnapsackBackfill(Knapsack):
    """KS+BF: the knapsack strategy, plus idle processors filled at once in queue order.

    Parameters and errors as :class:`Knapsack`.

    References
    ----------
    Knapsack Grid, "Allocation Strategies Used" ("Also tested Knapsack + Backfilling") and
    "KS+BF is Best and Provides QoS".
    """

    _label = "KS+BF"

    def decide(self, state: GridState) -> dict[int, int]:
        """Knapsack at a tick; at every decision, start waiting tasks that fit idle processors."""
        run = self._solve(state) if state.tick else dict(state.running)
        free = list(self._capacity)
        for i, j in run.items():
            self._take(free, i, j)
        for i in state.waiting:
            if i in run:
                continue
            j = self._fit(i, free)
            if j is not None:
                run[i] = j
                self._take(free, i, j)
        return run
