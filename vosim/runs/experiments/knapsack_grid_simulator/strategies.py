"""Allocation strategies of the Knapsack Grid slides: FCFS, EASY backfilling, gang, knapsack.

Part of the ``knapsack-grid`` experiments' simulator
(:mod:`vosim.runs.experiments.knapsack_grid_simulator`). Every strategy is a small
:class:`~.simulator.Strategy` driven by :func:`~.simulator.simulate`; at each decision it
returns the whole set of tasks that run from now on. Where a strategy picks an option by
itself it takes the *shortest fitting option*: among the options whose processors fit the
free processors of every cluster, the one of least length ``T_ij`` (ties: the lower option
index, so the reference option first).

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

Shared with the VO's policies. The knapsack's utilities are the slides' policies 1-5 of
:func:`vosim.policies.knapsack_rules.option_utilities` (as the VO's knapsack policies value
their options), with ``r_ij = (1 - phi_i) T_ij`` the remaining computation time of a task that
has done the fraction ``phi_i`` of its work; the knapsack is solved by
:func:`vosim.allocators.mckp.solve_mckp`, the VO's solver. FCFS and EASY are the rules of the
VO's baselines :class:`vosim.policies.fcfs.FCFS` and :class:`vosim.policies.easy.EASY` (start
heads while they fit; the head's shadow time and extra processors) on per-cluster processor
counts with task options instead of the VO's nodes and windows.

References
----------
Knapsack Grid slides, "Allocation Strategies Used" and "Constructing the Problem"; the utility
policies' slides as cited in :mod:`vosim.policies.knapsack_rules`; Lifka, "The ANL/IBM SP
scheduling system", JSSPP 1995 (EASY).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from vosim.allocators.mckp import MCKPResult, solve_mckp
from vosim.errors import ParameterError
from vosim.policies.knapsack_rules import check_utility_policy, option_utilities
from vosim.runs.experiments.knapsack_grid_simulator.simulator import GridState, Strategy
from vosim.runs.experiments.knapsack_grid_simulator.workload import GridTask

__all__ = ["FCFS", "EASY", "Gang", "Knapsack", "KnapsackBackfill"]

#: Relative time tolerance of the EASY shadow-time comparison.
_TIME_RTOL = 1e-9
#: A running task's current option is worth ``1 + _KEEP_BONUS`` times its utility in the
#: knapsack, so that among (nearly) equally good choices running tasks stay where they are;
#: the chosen set is within this relative margin of the optimum of the unbiased utilities.
_KEEP_BONUS = 1e-9


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

    def _start_in_order(
        self, queue: Sequence[int], run: dict[int, int], free: list[int], *, skip: bool
    ) -> int:
        """Start the tasks of ``queue`` not in ``run``, in order, on their shortest fitting option.

        ``run`` and ``free`` are updated in place. A task that does not fit blocks the rest
        (FCFS's rule, :func:`vosim.policies.fcfs.start_heads`; its position is returned) or,
        with ``skip``, is passed over (``len(queue)`` is returned).
        """
        for h, i in enumerate(queue):
            if i in run:
                continue
            j = self._fit(i, free)
            if j is None:
                if skip:
                    continue
                return h
            run[i] = j
            self._take(free, i, j)
        return len(queue)


class FCFS(_Fitting):
    """First come, first served: the queue head starts when one of its options fits.

    Non-preemptive; a task never starts before an earlier-queued one (the rule of the VO's
    :class:`vosim.policies.fcfs.FCFS`). Takes the shortest fitting option.

    References
    ----------
    Knapsack Grid slides, "Allocation Strategies Used" (comparison strategy FCFS).

    Examples
    --------
    >>> from vosim.runs.experiments.knapsack_grid_simulator.simulator import simulate
    >>> from vosim.runs.experiments.knapsack_grid_simulator.workload import GridTask, TaskOption
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
        self._start_in_order(state.waiting, run, state.free.tolist(), skip=False)
        return run


class EASY(_Fitting):
    """EASY (Maui-style) backfilling with a reservation for the queue head.

    Non-preemptive. Run times are exact (each option's length is known), so the head starts
    no later than its first reservation. The rule (shadow time, extra processors) is that of
    the VO's :class:`vosim.policies.easy.EASY`, here on per-cluster processor counts.

    Attributes
    ----------
    reservations : list of (float, int, float)
        ``(decision time, head task id, reservation start)`` for every decision at which the
        head could not start.

    References
    ----------
    Knapsack Grid slides, "Allocation Strategies Used" (comparison strategy Backfilling); Lifka,
    "The ANL/IBM SP scheduling system", JSSPP 1995 (EASY).

    Examples
    --------
    A long task that fits the idle processors now but would delay the head is not backfilled:

    >>> from vosim.runs.experiments.knapsack_grid_simulator.simulator import simulate
    >>> from vosim.runs.experiments.knapsack_grid_simulator.workload import GridTask, TaskOption
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
        h = self._start_in_order(queue, run, free, skip=False)
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
    Knapsack Grid slides, "Allocation Strategies Used" (comparison strategy Gang); Ousterhout,
    "Scheduling techniques for concurrent systems", ICDCS 1982.

    Examples
    --------
    Two whole-cluster tasks share the cluster in alternating one-hour slices:

    >>> from vosim.runs.experiments.knapsack_grid_simulator.simulator import simulate
    >>> from vosim.runs.experiments.knapsack_grid_simulator.workload import GridTask, TaskOption
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
        Utility policy 1 to 5 (:func:`~vosim.policies.knapsack_rules.option_utilities`).
    tau : float, default 1.0
        Cycle time ``tau``, hours (``> 0``).
    solver : callable, default :func:`~vosim.allocators.mckp.solve_mckp`
        ``solver(values, demands, capacity)`` returning an
        :class:`~vosim.allocators.mckp.MCKPResult`, e.g. ``solve_mckp`` with a time limit
        (``functools.partial``): ``values`` a list of 1-D float arrays (one per candidate,
        one utility per option), ``demands`` a list of ``(n_options, K)`` int arrays,
        ``capacity`` an int array ``(K,)``.

    Attributes
    ----------
    suboptimal_cycles : int
        Cycles of the last run whose knapsack was not solved to optimality (the solver's
        time limit was hit and its best choice so far ran).

    Raises
    ------
    ParameterError
        An unknown policy or ``tau <= 0``.

    Notes
    -----
    An option of utility ``<= 0`` is never chosen (waiting is worth 0), so a task whose
    options are all worth 0 (e.g. credit 0 under policy 1 or 2) never runs;
    :func:`~.simulator.simulate` then stops with a ``RuntimeError`` once nothing else can
    happen. Moving a running task to another option counts as a preemption in
    :attr:`~.simulator.GridResult.tasks`. A running task's current option is worth
    ``1 + 1e-9`` times its utility, so that among (nearly) equally good choices running
    tasks stay where they are.

    References
    ----------
    Knapsack Grid slides, "Constructing the Problem" and "The 0,1 Knapsack Problem".

    Examples
    --------
    The slides' small example: clusters of 16 and 8 processors; task 1 pays $10 for 8
    processors of cluster 1, $2 for 2, or $9 for 4 and 4 of clusters 1 and 2; task 2 pays $11
    for 10 processors of cluster 1 or $2 for 1 of cluster 2. The best cycle is worth $20:

    >>> from vosim.runs.experiments.knapsack_grid_simulator.simulator import simulate
    >>> from vosim.runs.experiments.knapsack_grid_simulator.workload import TaskOption
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
        solver: Callable[..., MCKPResult] = solve_mckp,
    ) -> None:
        self.policy = check_utility_policy(policy)
        if not (math.isfinite(tau) and tau > 0):
            raise ParameterError(f"tau must be > 0 hours, got {tau!r}")
        self.tau = float(tau)
        self.period = self.tau
        self.solver = solver
        self.name = f"{self._label}(policy={self.policy}, tau={self.tau:g}h)"

    def _solve(self, state: GridState) -> dict[int, int]:
        cands = sorted(set(state.running).union(state.waiting))
        values, demands, perms = [], [], []
        for i in cands:
            task = self._tasks[i]
            u = option_utilities(
                self.policy,
                state.now,
                task.submit,
                task.reference_length,
                task.lengths,
                task.credits,
                state.remaining(i),
            )
            perm = self._identity[i]
            if i in state.running:  # its current option first, and a hair more valuable
                cur = state.running[i]
                perm = np.array([cur, *(j for j in perm if j != cur)])
                u = u.copy()
                u[cur] *= 1.0 + _KEEP_BONUS
            values.append(u[perm])
            demands.append(task.demand[perm])
            perms.append(perm)
        capacity = np.asarray(state.capacity, dtype=np.int64)
        result = self.solver(values, demands, capacity)
        state.solve_seconds = float(result.seconds)
        if not result.optimal:  # a MILP stopped at its time limit
            self.suboptimal_cycles += 1
        choice = np.asarray(result.choice)
        return {i: int(perm[c]) for i, c, perm in zip(cands, choice, perms, strict=True) if c >= 0}

    def reset(self, tasks: Sequence[GridTask], capacity: np.ndarray) -> None:
        """Prepare the option orders of a new run."""
        super().reset(tasks, capacity)
        self._identity = [np.arange(len(t.options)) for t in tasks]
        self.suboptimal_cycles = 0

    def decide(self, state: GridState) -> dict[int, int]:
        """At a tick, solve the knapsack over all present tasks; otherwise keep running."""
        return self._solve(state) if state.tick else dict(state.running)


class KnapsackBackfill(Knapsack):
    """KS+BF: the knapsack strategy, plus idle processors filled at once in queue order.

    Parameters and errors as :class:`Knapsack`.

    References
    ----------
    Knapsack Grid slides, "Allocation Strategies Used" ("Also tested Knapsack + Backfilling") and
    "KS+BF is Best and Provides QoS".
    """

    _label = "KS+BF"

    def decide(self, state: GridState) -> dict[int, int]:
        """Knapsack at a tick; at every decision, start waiting tasks that fit idle processors."""
        run = self._solve(state) if state.tick else dict(state.running)
        free = list(self._capacity)
        for i, j in run.items():
            self._take(free, i, j)
        self._start_in_order(state.waiting, run, free, skip=True)
        return run
