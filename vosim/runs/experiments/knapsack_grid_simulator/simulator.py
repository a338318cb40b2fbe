"""Event-driven, preemptive simulation of a grid of clusters under an allocation strategy.

Part of the ``knapsack-grid`` experiments' simulator
(:mod:`vosim.runs.experiments.knapsack_grid_simulator`).
The simulator jumps from event to event, never by a fixed time step. Events are task arrivals,
task completions and, for a *periodic* strategy (one with a ``period``, e.g. the knapsack cycle
``tau`` or a gang time slice), cycle ticks at ``0, tau, 2 tau, ...`` hours; ticks are skipped
while the grid holds no task (the next tick is then the first multiple of ``tau`` at or after
the next arrival). All events at one instant are applied first (completions, then arrivals,
then the tick) and the strategy then makes one decision: it returns the complete set of tasks
that run from now on, each with the option it runs on (:meth:`Strategy.decide`).

Preemptive state (Knapsack Grid, "Assumptions and Definitions": "a state-based and preemptive
form of a Grid"). A running task that the decision leaves out, or moves to another option, is
stopped at that instant and keeps its completed fraction ``phi`` of the work; resumed later on
option ``j`` it needs ``(1 - phi) * T_ij`` more hours. A task's progress is the sum of
``(run time of a segment) / T_ij`` over its run segments; it completes when that reaches 1.
A strategy that declares itself non-preemptive (``preemptive = False``) may not stop or move a
running task; the simulator asserts this and, at every decision, that the chosen options fit
the clusters' capacities (``AssertionError`` otherwise: a bug in the strategy).

Queue order is submit time, ties broken by the order of ``tasks``; a preempted task returns to
its place in that order. A completion within ``1e-9`` (relative) of an event counts as
happening at that event.

References
----------
Knapsack Grid slides, "Assumptions and Definitions", "Allocation Strategies Used" and "Grid
and Task Model".
"""

from __future__ import annotations

import math
from bisect import bisect_left, insort
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from vosim.errors import ParameterError
from vosim.runs.experiments.knapsack_grid_simulator.workload import GridTask, check_tasks

__all__ = ["Strategy", "GridState", "GridResult", "simulate"]

#: Relative time tolerance: events closer than this (times max(1, t)) coincide.
_TIME_RTOL = 1e-9


class Strategy:
    """Base class of allocation strategies driven by :func:`simulate`.

    Subclasses set :attr:`name`, :attr:`period` (hours between cycle ticks, ``None`` for a
    purely event-driven strategy) and :attr:`preemptive`, and implement :meth:`decide`. A
    strategy object keeps state for one run; :func:`simulate` calls :meth:`reset` first.
    """

    #: Name reported in :class:`GridResult`.
    name: str = "strategy"
    #: Hours between cycle ticks (``None``: no ticks).
    period: float | None = None
    #: Whether :meth:`decide` may stop or move running tasks.
    preemptive: bool = False

    def reset(self, tasks: Sequence[GridTask], capacity: np.ndarray) -> None:
        """Forget any previous run; ``tasks`` are in queue order (their index is used later)."""

    def decide(self, state: GridState) -> dict[int, int]:
        """Return ``{task index: option index}`` for every task that runs from ``state.now``."""
        raise NotImplementedError


class GridState:
    """What a strategy sees at a decision (read-only by convention).

    Attributes
    ----------
    now : float
        Current time, hours.
    tasks : sequence of GridTask
        All tasks in queue order; strategies refer to tasks by index into it.
    capacity : numpy.ndarray of int64, shape (K,)
        Processors per cluster.
    free : numpy.ndarray of int64, shape (K,)
        Processors not used by the running tasks (a fresh copy: strategies may modify it).
    running : dict of int to int
        Running task index -> option index (a fresh copy).
    waiting : tuple of int
        Arrived, unfinished tasks that do not run, in queue order.
    tick : bool
        Whether this decision is a cycle tick of a periodic strategy.
    solve_seconds : float
        A strategy that solves an optimisation problem may store its solver time here (it is
        reported in :attr:`GridResult.cycles`); ``nan`` otherwise.
    """

    __slots__ = (
        "_end",
        "_opt",
        "_rho",
        "_start",
        "capacity",
        "free",
        "now",
        "running",
        "solve_seconds",
        "tasks",
        "tick",
        "waiting",
    )

    def __init__(self, now, tasks, capacity, free, running, waiting, tick, sim) -> None:
        self.now = now
        self.tasks = tasks
        self.capacity = capacity
        self.free = free
        self.running = running
        self.waiting = waiting
        self.tick = tick
        self.solve_seconds = math.nan
        self._rho, self._start, self._opt, self._end = sim

    def remaining(self, i: int) -> float:
        """Remaining fraction ``1 - phi`` of task ``i``'s work now."""
        j = self._opt[i]
        if j < 0:
            return float(self._rho[i])
        done = (self.now - self._start[i]) / self.tasks[i].lengths[j]
        return max(float(self._rho[i] - done), 0.0)

    def finish_time(self, i: int) -> float:
        """When running task ``i`` completes if left alone, hours."""
        return float(self._end[i])


@dataclass(frozen=True, slots=True, eq=False)
class GridResult:
    """What a simulated run produced.

    Attributes
    ----------
    strategy : str
        The strategy's name.
    tasks : pandas.DataFrame
        One row per task in queue order: ``task_id``, ``submit``, ``first_start``, ``finish``,
        ``turnaround`` (``finish - submit``), ``n_preemptions`` (times it was stopped or moved
        before completing), ``credit`` (of its reference option), ``reference_length``
        (``N_i``), ``processors`` (of its reference option); times in hours.
    cycles : pandas.DataFrame
        One row per decision: ``time``, ``tick`` (a cycle tick of a periodic strategy),
        ``waiting`` and ``running`` (task counts after the decision), ``used_0`` ..
        ``used_{K-1}`` (processors in use per cluster after the decision) and
        ``solve_seconds`` (knapsack solver time; ``nan`` when nothing was solved).
    segments : pandas.DataFrame
        One row per uninterrupted run of a task: ``task_id``, ``option``, ``start``, ``end``
        (hours) and ``fraction`` (the part of the task's work done in it).
    """

    strategy: str
    tasks: pd.DataFrame
    cycles: pd.DataFrame
    segments: pd.DataFrame

    @property
    def overall_completion_time(self) -> float:
        """The last finish time, hours (Knapsack Grid slides, "Final Task Completion Times")."""
        return float(self.tasks["finish"].max())

    def speedup(self, baseline: GridResult) -> pd.Series:
        """Per-task speedup ``baseline turnaround / this turnaround``, indexed by ``task_id``.

        Knapsack Grid slides, "Speedup Relative to FCFS" (``baseline`` is then the FCFS run).
        """
        mine = self.tasks.set_index("task_id")["turnaround"]
        base = baseline.tasks.set_index("task_id")["turnaround"]
        if not mine.index.equals(base.index):
            raise ParameterError("speedup needs two runs of the same tasks")
        return (base / mine).rename("speedup")


def _check_decision(decision, strategy, state, demand, n_options, caps) -> dict:
    if not isinstance(decision, Mapping):
        raise AssertionError(f"{strategy.name}: decide must return a mapping, got {decision!r}")
    present = set(state.running).union(state.waiting)
    used = np.zeros(len(caps), dtype=np.int64)
    out = {}
    for i, j in decision.items():
        i, j = int(i), int(j)
        if i not in present:
            raise AssertionError(f"{strategy.name}: task {i} is not waiting or running")
        if not 0 <= j < n_options[i]:
            raise AssertionError(f"{strategy.name}: task {i} has no option {j}")
        used += demand[i][j]
        out[i] = j
    if (used > caps).any():
        raise AssertionError(
            f"{strategy.name} at t={state.now}: processors {used.tolist()} exceed the capacity "
            f"{caps.tolist()}"
        )
    if not strategy.preemptive:
        for i, j in state.running.items():
            if out.get(i) != j:
                raise AssertionError(
                    f"{strategy.name} is non-preemptive but stopped or moved task {i} at "
                    f"t={state.now}"
                )
    return out


# Complexity above 15: the slides' event loop: arrivals, completions, periodic and event-driven
# strategies and preemption in one time-ordered loop.
def simulate(tasks: Sequence[GridTask], clusters: Sequence[int], strategy: Strategy) -> GridResult:  # noqa: C901
    """Run ``tasks`` on a grid of ``clusters`` under ``strategy`` until every task completes.

    Parameters
    ----------
    tasks : sequence of GridTask
        The stream (any order; unique ids); every option must fit its cluster.
    clusters : sequence of int, shape (K,)
        Processors per cluster.
    strategy : Strategy
        E.g. :class:`~.strategies.FCFS` or :class:`~.strategies.Knapsack`.

    Returns
    -------
    GridResult

    Raises
    ------
    ParameterError
        No task, bad clusters, duplicate ids, or an option larger than its cluster.
    AssertionError
        The strategy over-filled a cluster, chose a task or option that does not exist, or
        (non-preemptive) stopped a running task.
    RuntimeError
        The strategy leaves tasks waiting on an idle grid with no event left to change that.

    Notes
    -----
    Each decision costs the strategy's time plus ``O(R + W)`` (``R`` running, ``W`` waiting
    tasks); there are at most ``2 n`` arrival and completion events plus one tick per
    ``period`` of busy time.

    References
    ----------
    Knapsack Grid slides, "Assumptions and Definitions" (a state-based, preemptive grid).

    Examples
    --------
    >>> from vosim.runs.experiments.knapsack_grid_simulator.strategies import FCFS
    >>> from vosim.runs.experiments.knapsack_grid_simulator.workload import GridTask, TaskOption
    >>> ts = [GridTask(0, 0.0, (TaskOption((4,), 2.0, 1.0),)),
    ...       GridTask(1, 0.5, (TaskOption((3,), 1.0, 1.0),))]
    >>> r = simulate(ts, (4,), FCFS())
    >>> r.tasks[["task_id", "first_start", "finish"]].to_numpy().tolist()
    [[0.0, 0.0, 2.0], [1.0, 2.0, 3.0]]
    >>> r.overall_completion_time
    3.0
    """
    tasks = list(tasks)
    if not tasks:
        raise ParameterError("simulate needs at least one task")
    caps = np.asarray(check_tasks(tasks, clusters), dtype=np.int64)
    caps.flags.writeable = False
    period = strategy.period
    if period is not None and not (math.isfinite(period) and period > 0):
        raise ParameterError(f"{strategy.name}: period must be > 0 hours, got {period!r}")

    order = sorted(range(len(tasks)), key=lambda i: (tasks[i].submit, i))
    ts = [tasks[i] for i in order]
    n = len(ts)
    submit = np.array([t.submit for t in ts])
    demand = [t.demand for t in ts]
    lengths = [t.lengths for t in ts]
    n_options = [len(t.options) for t in ts]

    rho = np.ones(n)  # remaining fraction at the start of the current segment
    start = np.full(n, math.nan)  # start of the current segment
    opt = np.full(n, -1, dtype=np.int64)  # current option, -1 when not running
    end = np.full(n, math.inf)  # completion time of the current segment if left alone
    first_start = np.full(n, math.nan)
    finish = np.full(n, math.nan)
    n_pre = np.zeros(n, dtype=np.int64)
    sim_arrays = (rho, start, opt, end)

    running: dict[int, int] = {}
    waiting: list[int] = []  # sorted task indices = queue order
    used = np.zeros(len(caps), dtype=np.int64)
    seg_rows: list[tuple[int, int, float, float, float]] = []
    cyc_rows: list[tuple] = []

    strategy.reset(ts, caps)
    next_arrival = 0
    finished = 0
    k_tick = 0
    while finished < n:
        present = bool(running or waiting)
        candidates = []
        if next_arrival < n:
            candidates.append(submit[next_arrival])
        if running:
            candidates.append(min(end[i] for i in running))
        if period is not None and present:
            candidates.append(k_tick * period)
        now = float(min(candidates))
        tol = _TIME_RTOL * max(1.0, abs(now))

        # completions
        for i in [i for i in running if end[i] <= now + tol]:
            j = running.pop(i)
            used -= demand[i][j]
            seg_rows.append((i, j, float(start[i]), now, float(rho[i])))
            rho[i] = 0.0
            opt[i] = -1
            end[i] = math.inf
            finish[i] = now
            finished += 1
        # arrivals
        arrived = []
        while next_arrival < n and submit[next_arrival] <= now + tol:
            arrived.append(next_arrival)
            waiting.append(next_arrival)  # arrivals come in queue order, after all waiting
            next_arrival += 1
        if period is not None and not present:
            k_tick = max(k_tick, math.ceil(now / period - _TIME_RTOL))
        tick = period is not None and (present or bool(arrived)) and k_tick * period <= now + tol
        if tick:
            k_tick += 1
        if not (running or waiting):
            continue

        state = GridState(
            now,
            ts,
            caps,
            caps - used,
            dict(running),
            tuple(waiting),
            tick,
            sim_arrays,
        )
        decision = _check_decision(strategy.decide(state), strategy, state, demand, n_options, caps)

        # stop or move running tasks left out of the decision
        for i, j in list(running.items()):
            if decision.get(i) == j:
                continue
            done = (now - start[i]) / lengths[i][j]
            seg_rows.append((i, j, float(start[i]), now, float(done)))
            rho[i] -= done
            running.pop(i)
            used -= demand[i][j]
            opt[i] = -1
            end[i] = math.inf
            n_pre[i] += 1
            insort(waiting, i)
        # start the new ones
        for i, j in decision.items():
            if i in running:
                continue
            w = bisect_left(waiting, i)
            del waiting[w]
            running[i] = j
            used += demand[i][j]
            opt[i] = j
            start[i] = now
            end[i] = now + rho[i] * lengths[i][j]
            if math.isnan(first_start[i]):
                first_start[i] = now
        if (used > caps).any() or (used < 0).any():  # bookkeeping must agree with the check
            raise AssertionError(f"processor bookkeeping broken at t={now}: {used.tolist()}")
        cyc_rows.append(
            (now, tick, len(waiting), len(running), *used.tolist(), state.solve_seconds)
        )
        if not running and waiting and next_arrival >= n and (period is None or tick):
            raise RuntimeError(
                f"{strategy.name} left {len(waiting)} task(s) waiting on an idle grid at "
                f"t={now} with nothing left to happen"
            )

    ids = [t.id for t in ts]
    task_df = pd.DataFrame(
        {
            "task_id": ids,
            "submit": submit,
            "first_start": first_start,
            "finish": finish,
            "turnaround": finish - submit,
            "n_preemptions": n_pre,
            "credit": [t.credit for t in ts],
            "reference_length": [t.reference_length for t in ts],
            "processors": [t.options[0].total for t in ts],
        }
    )
    used_cols = [f"used_{k}" for k in range(len(caps))]
    cycles = pd.DataFrame(
        cyc_rows, columns=["time", "tick", "waiting", "running", *used_cols, "solve_seconds"]
    )
    cycles["solve_seconds"] = cycles["solve_seconds"].astype(float)
    seg = pd.DataFrame(seg_rows, columns=["task", "option", "start", "end", "fraction"])
    seg.insert(0, "task_id", np.asarray(ids)[seg.pop("task").to_numpy(dtype=np.int64)])
    seg = seg.sort_values(["start", "task_id"], kind="stable", ignore_index=True)
    return GridResult(strategy.name, task_df, cycles, seg)
