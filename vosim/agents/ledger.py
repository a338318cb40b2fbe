"""A job's life in the VO, from submission to its end: its one writer and its record.

:class:`JobLedger` keeps what happens to every job as columns and is the only place they
change (:data:`LIFE`); :meth:`JobLedger.table` is ``jobs.parquet`` (:data:`JOB_COLUMNS`, the
first of them Batsim's, :func:`batsim_final_state`).
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from operator import add, attrgetter
from typing import NamedTuple

import numpy as np
import pandas as pd

from vosim.core import ResourceRequest, Window
from vosim.core.window_columns import WindowColumns
from vosim.market.workload import Job

__all__ = [
    "BATSIM_COLUMNS",
    "BATSIM_FINAL_STATES",
    "JOB_COLUMNS",
    "JOB_STATES",
    "LIFE",
    "LIVE_STATES",
    "JobLedger",
    "JobLife",
    "JobStateError",
    "NodeColumn",
    "batsim_final_state",
]

#: Terminal states of a job; every job read ends in exactly one of them: ``completed``;
#: ``rejected`` (never runnable here, with the reason); ``withdrawn`` (its user left the VO, or
#: it waited past the patience, with the reason); ``unfinished`` (still waiting or running at
#: the ``horizon``).
JOB_STATES = ("completed", "rejected", "withdrawn", "unfinished")

#: The states a job passes through before a terminal one: ``pending`` (not yet submitted),
#: ``waiting`` (in the metascheduler's queue) and ``scheduled`` (holding a window). A table
#: of a run still going (the live page, an interrupted run before it ends) holds them.
LIVE_STATES = ("pending", "waiting", "scheduled")


#: Columns of ``jobs.parquet``: Batsim's ``_jobs.csv`` columns first, in Batsim's order
#: (:data:`BATSIM_COLUMNS`, what ``vosim run --csv`` writes to ``jobs.csv``), then vosim's own.
JOB_COLUMNS: dict[str, str] = {
    "job_id": "job number from the trace",
    "workload_name": "the trace's name: VOModel's trace argument, a bundled name or a path",
    "profile": "Batsim profile name 'delay_<run_time>': the job as a delay of run_time s on a "
    "reference-performance node (tasks on other nodes take run_time x reference/performance)",
    "submission_time": "submit time, model time units (s)",
    "requested_number_of_resources": "node count n of the resource request",
    "requested_time": "reservation time T on a reference-performance node (the walltime), s",
    "success": "1 if final_state is COMPLETED_SUCCESSFULLY, else 0 (Batsim's definition)",
    "final_state": "Batsim job state (batsim_final_state): COMPLETED_SUCCESSFULLY, "
    "COMPLETED_WALLTIME_REACHED (completed, run_time >= requested_time), REJECTED (rejected "
    "or withdrawn: never ran); unfinished: RUNNING (started), SUBMITTED (waiting) or "
    "NOT_SUBMITTED (never submitted)",
    "starting_time": "window start, s (NaN if never scheduled)",
    "execution_time": "finish_time - starting_time, s",
    "finish_time": "completion time, s (NaN unless completed)",
    "waiting_time": "starting_time - submission_time, s",
    "turnaround_time": "finish_time - submission_time, s",
    "stretch": "turnaround_time / execution_time",
    "allocated_resources": "ids of the window's nodes, Batsim interval-set string such as "
    "'0-3 7' (empty if never scheduled)",
    "consumed_energy": "NaN: vosim models no energy (Batsim: joules, -1 without its energy plugin)",
    "metadata": "empty for a completed job (Batsim's default), else 'state: reason' (vosim's "
    "state and reason; Batsim: a string the decision process sets)",
    "user": "user id (SWF field 12)",
    "group": "the user's group (SWF field 13; LCG-2005-1: the experiment's VO), -1 if unknown",
    "owners": "ids of the owners whose nodes ran the job, space separated",
    "criterion": "user criterion (finish, runtime, cost)",
    "requested_processors": "processors asked for in the trace",
    "window_runtime": "reserved window runtime max_i T_i, s",
    "run_time": "run time on a reference-performance node (the trace's, cut at requested_time), s",
    "left_time": "when a job that never completed left: withdrawn at submit + patience, or the "
    "run's end for an unfinished one, s (NaN otherwise)",
    "node_time": "node-seconds the job's tasks used (sum over its nodes; NaN unless completed)",
    "cost": "what the user paid, all attempts: sum over tasks of price x time run, cost units",
    "window_cost": "reserved window's cost sum_i price_i T_i (what was held), cost units",
    "failures": "attempts interrupted: a node taken (availability runs) or preempted by a "
    "local job",
    "displaced": "reservations cancelled before their start by an owner's local job",
    "paid_for_failures": "what the user paid for interrupted attempts, cost units",
    "predicted_availability": "predicted P_a^w of the last window reserved (NaN if none)",
    "alternatives": "alternatives found in the cycle that scheduled the job (0 if never)",
    "user_evaluation": "user evaluation U of the chosen alternative (rank or %, NaN if none)",
    "chosen_delay": "the part of waiting_time its user chose: starting_time less the earliest "
    "start of any window it could afford when its window was reserved (0 under policies that "
    "take the earliest; a reservation moved earlier since counts 0), s (NaN if never scheduled)",
    "budget": "budget C, cost units",
    "state": "completed, rejected, withdrawn or unfinished (vosim.agents.ledger.JOB_STATES); "
    "pending, waiting or scheduled in a run still going (LIVE_STATES)",
    "reason": "why a job was rejected, withdrawn or is unfinished; empty if completed",
}

#: Batsim's ``_jobs.csv`` columns in Batsim's order (Batsim docs, "Jobs" output file): the
#: first columns of :data:`JOB_COLUMNS` and all of ``jobs.csv`` (:func:`batsim_jobs`).
BATSIM_COLUMNS: tuple[str, ...] = (
    "job_id",
    "workload_name",
    "profile",
    "submission_time",
    "requested_number_of_resources",
    "requested_time",
    "success",
    "final_state",
    "starting_time",
    "execution_time",
    "finish_time",
    "waiting_time",
    "turnaround_time",
    "stretch",
    "allocated_resources",
    "consumed_energy",
    "metadata",
)

#: Batsim's job states, in the order of its ``JobState`` enum (the categories of column
#: ``final_state``). vosim writes ``COMPLETED_SUCCESSFULLY``, ``COMPLETED_WALLTIME_REACHED``,
#: ``REJECTED`` and, for a run cut short, ``SUBMITTED``/``RUNNING`` (and ``NOT_SUBMITTED``
#: mid-run); never ``COMPLETED_FAILED`` (no exit codes) nor ``COMPLETED_KILLED`` (vosim's
#: metascheduler kills no job; an interrupted attempt is requeued, see column ``failures``).
BATSIM_FINAL_STATES: tuple[str, ...] = (
    "NOT_SUBMITTED",
    "SUBMITTED",
    "RUNNING",
    "COMPLETED_SUCCESSFULLY",
    "COMPLETED_FAILED",
    "COMPLETED_WALLTIME_REACHED",
    "COMPLETED_KILLED",
    "REJECTED",
)


def batsim_final_state(
    state: str,
    run_time: float,
    requested_time: float,
    *,
    started: bool = False,
    submitted: bool = True,
) -> str:
    """Batsim's ``final_state`` of a vosim job: its outcome named as a Batsim job state.

    ============  =====================================================================
    vosim state   Batsim state
    ============  =====================================================================
    completed     ``COMPLETED_SUCCESSFULLY`` if ``run_time < requested_time``, else
                  ``COMPLETED_WALLTIME_REACHED`` (killed at its walltime)
    rejected      ``REJECTED`` (never ran)
    withdrawn     ``REJECTED`` (never ran: its user left, or it waited past the patience;
                  Batsim has no withdrawal)
    unfinished    ``RUNNING`` if ``started``, else ``SUBMITTED``, or ``NOT_SUBMITTED`` if
                  not ``submitted`` (the run ended first)
    pending       ``NOT_SUBMITTED`` (a run still under way)
    waiting       ``SUBMITTED`` (a run still under way)
    scheduled     ``RUNNING`` if ``started`` else ``SUBMITTED`` (a run still under way)
    ============  =====================================================================

    A job's run time is ``min(trace run time, requested_time)`` (it is killed at the end of
    its reservation), so ``run_time >= requested_time`` means it ran its whole walltime. As in
    Batsim, a delay equal to the walltime reaches it: a trace without requested times (NASA
    iPSC), whose ``requested_time`` is the run time, gives ``COMPLETED_WALLTIME_REACHED``.

    Parameters
    ----------
    state : str
        vosim job state (:data:`~vosim.market.workload.JOB_STATES`, or a state of a job in a
        run still under way: ``pending``, ``waiting``, ``scheduled``).
    run_time, requested_time : float
        The job's run time and requested time ``T`` on a reference-performance node, s.
    started : bool
        For ``unfinished`` and ``scheduled``: whether its window had started.
    submitted : bool
        For ``unfinished``: whether it had been submitted (entered the queue) by the end.

    Returns
    -------
    str
        One of :data:`BATSIM_FINAL_STATES`; ``success`` is 1 exactly for
        ``COMPLETED_SUCCESSFULLY``.

    Raises
    ------
    ValueError
        An unknown ``state``.

    References
    ----------
    Batsim documentation, "Jobs" output file (``final_state``, ``success``: completed before
    its walltime) and its ``JobState`` enum; a delay profile reaches the walltime unless the
    delay is strictly shorter (Batsim's delay-task execution).

    Examples
    --------
    >>> batsim_final_state("completed", 50.0, 100.0)
    'COMPLETED_SUCCESSFULLY'
    >>> batsim_final_state("completed", 100.0, 100.0)
    'COMPLETED_WALLTIME_REACHED'
    >>> batsim_final_state("withdrawn", 50.0, 100.0), batsim_final_state("unfinished", 5, 9)
    ('REJECTED', 'SUBMITTED')
    >>> batsim_final_state("unfinished", 5, 9, submitted=False)
    'NOT_SUBMITTED'
    """
    if state == "completed":
        return (
            "COMPLETED_SUCCESSFULLY" if run_time < requested_time else "COMPLETED_WALLTIME_REACHED"
        )
    if state in ("rejected", "withdrawn"):
        return "REJECTED"
    if state == "unfinished" and not submitted:
        return "NOT_SUBMITTED"
    if state in ("unfinished", "scheduled"):
        return "RUNNING" if started else "SUBMITTED"
    if state == "waiting":
        return "SUBMITTED"
    if state == "pending":
        return "NOT_SUBMITTED"
    raise ValueError(f"unknown job state {state!r}; known: {', '.join(JOB_STATES)}")


def _profile_name(run_time: float) -> str:
    """Batsim profile name of a job run as a delay: ``3600.0 -> 'delay_3600'``."""
    return f"delay_{run_time:.15g}"


#: The transitions of a job's state: name -> (states it may leave, state it enters). A
#: job is ``pending`` until its user submits it; ``waiting`` in the metascheduler's queue;
#: ``scheduled`` while it holds a window (reserved, then running); it ends ``completed``,
#: ``rejected``, ``withdrawn`` or ``unfinished`` (:data:`JOB_STATES`).
LIFE: dict[str, tuple[frozenset[str], str]] = {
    "queue": (frozenset({"pending"}), "waiting"),
    "reject": (frozenset({"pending"}), "rejected"),
    "reserve": (frozenset({"waiting"}), "scheduled"),
    "cancel": (frozenset({"scheduled"}), "waiting"),
    "interrupt": (frozenset({"scheduled"}), "waiting"),
    "complete": (frozenset({"scheduled"}), "completed"),
    "withdraw": (frozenset({"pending", "waiting"}), "withdrawn"),
    "end": (frozenset({"pending", "waiting", "scheduled"}), "unfinished"),
}

#: The states a job ends in at the latest when the run ends, and may not leave.
_FINAL = frozenset({"completed", "rejected", "withdrawn", "unfinished"})


class JobStateError(ValueError):
    """A transition the job's state does not allow (e.g. completing a waiting job).

    The message names the job (its SWF id and its position in the trace), the transition and
    the job's state. Raised by :class:`JobLedger`; it means two parts of the model disagree on
    where the job is, never bad input. Source: vosim's rule, every job in exactly one state
    (the life :data:`LIFE` gives, after VO Preferences §2 and ICCS 2023 §2.2).
    """


class JobLife(NamedTuple):
    """One job's life as :class:`JobLedger` keeps it: ``ledger[index]``, a copy.

    One field per column of the ledger, each in that column's units (model time units for
    times, cost units for money; see :class:`JobLedger`'s attributes). Source: vosim's record
    of the life VO Preferences §2 gives a job (queued, given a window, run).
    """

    state: str
    request: ResourceRequest | None
    budget: float
    criterion: str
    reason: str
    window: Window | None
    task_ends: tuple[float, ...]
    nodes: np.ndarray | None
    start: float
    finish: float
    window_runtime: float
    window_cost: float
    node_time: float
    attempt: int
    failures: int
    displaced: int
    paid: float
    paid_for_failures: float
    held_in: int
    left_time: float
    predicted_availability: float
    alternatives: int
    user_evaluation: float
    earliest_start: float


class JobLedger:
    """Every job's life in a run, as columns, and the one place where it changes.

    The jobs themselves are the trace's immutable records (:class:`Job`); what becomes of
    job ``i`` is kept here, one list per field, read as ``ledger.<field>[i]`` (the fields
    below). Agents ask the ledger to move a job (:meth:`offer`, :meth:`queue`,
    :meth:`reject`, :meth:`choose`, :meth:`reserve`, :meth:`predict`, :meth:`cancel`,
    :meth:`interrupt`, :meth:`complete`, :meth:`withdraw`, :meth:`end`); each checks the move
    against :data:`LIFE` and keeps the number of jobs in each state, so "every job in exactly
    one state" holds by construction and the counts the model reads cost O(1). The columns are
    those of ``jobs.parquet`` (:meth:`table`).

    Parameters
    ----------
    jobs : list of Job
        The run's jobs in trace order (``job.index`` their position), all ``pending``.

    Attributes
    ----------
    state : list of str
        Each job's state (:data:`LIFE`; ``pending`` at the start).
    request : list of ResourceRequest or None
        The request its user submitted (``n``, volume, budget ``C``, criterion; set when it
        enters the queue), ``None`` before.
    budget : numpy.ndarray of float, shape (jobs,)
        Budget ``C`` its user gave it, cost units (NaN until submitted).
    criterion : list of str
        Its user's criterion (empty until submitted).
    reason : list of str
        Why it was rejected, withdrawn or is unfinished (the trace mapping's reason from the
        start; a waiting job's last failed search is the metascheduler's, not here).
    window : list of Window or None
        The window it holds while ``scheduled``.
    task_ends : list of tuple of float
        When the held window's tasks end if nothing interrupts them, model time units.
    nodes : NodeColumn
        Node ids of its last window reserved, int64, shape (n,), or ``None``: the held
        window's while it holds one, kept once it completes.
    start, finish : array.array of float
        Its current (or completed) window's start and its last task's end, model time units.
    window_runtime, window_cost : array.array of float
        That window's runtime ``max_i T_i`` (time units) and cost (cost units).
    node_time : array.array of float
        Processor time its completed window reserved, ``sum_i (end_i - start)``.
    attempt, failures, displaced : array.array of int
        Windows reserved or cancelled so far (the attempt number), interruptions, and
        reservations cancelled because an owner's local job took their processors.
    paid, paid_for_failures : array.array of float
        What its user paid for the attempt that completed and for interrupted ones.
    held_in : array.array of int
        Under per-period accounts, the budget period whose balance holds its window's cost.
    left_time : array.array of float
        When a job that never completed left the queue (NaN otherwise).
    predicted_availability, alternatives, user_evaluation, earliest_start : array.array
        ``P_a^w`` of its last window; alternatives found, ``U`` of the one chosen and the
        earliest affordable start in the cycle that scheduled it (VO Preferences §2-3).
        The numeric columns are typed arrays (``"d"`` float64, ``"q"`` int64): entries
        read and written as Python floats and ints, 8 bytes each.

    Raises
    ------
    JobStateError
        A job's ``index`` is not its position.

    References
    ----------
    VO Preferences §2 (a job waits for a cycle, gets a window within its budget ``C``, runs);
    ICCS 2023 §2.2 (a window fails when an owner's local job takes one of its nodes: the job
    waits again); vosim's rule: every job of the trace accounted for in exactly one state.
    """

    def __init__(self, jobs: list[Job]) -> None:
        for k, job in enumerate(jobs):
            if job.index != k:
                raise JobStateError(
                    f"job {job.job_id} (trace row {job.index}) is at position {k} of the jobs"
                )
        self.jobs = jobs
        k, nan = len(jobs), math.nan
        self.state: list[str] = ["pending"] * k
        self.request: list[ResourceRequest | None] = [None] * k
        self.budget = np.full(k, nan)
        self.criterion: list[str] = [""] * k
        self.reason: list[str] = [job.reason for job in jobs]
        self.window: list[Window | None] = [None] * k
        #: The reserved and running jobs' windows as columns (a re-planning pass reads them).
        self.held = WindowColumns(k)
        self.task_ends: list[tuple[float, ...]] = [()] * k
        self.nodes = NodeColumn(self.window)
        self.start = _column("d", nan, k)
        self.finish = _column("d", nan, k)
        self.window_runtime = _column("d", nan, k)
        self.window_cost = _column("d", nan, k)
        self.node_time = _column("d", nan, k)
        self.attempt = _column("q", 0, k)
        self.failures = _column("q", 0, k)
        self.displaced = _column("q", 0, k)
        self.paid = _column("d", 0.0, k)
        self.paid_for_failures = _column("d", 0.0, k)
        self.held_in = _column("q", -1, k)
        self.left_time = _column("d", nan, k)
        self.predicted_availability = _column("d", nan, k)
        self.alternatives = _column("q", 0, k)
        self.user_evaluation = _column("d", nan, k)
        self.earliest_start = _column("d", nan, k)
        #: Jobs in each state now (states with none may be absent or 0).
        self.counts: Counter[str] = Counter(pending=k)

    def __getitem__(self, index: int) -> JobLife:
        """Job ``index``'s life as it stands: every column's entry, read once (a copy).

        For reading one job (a test, a notebook); the model reads the columns.

        Raises
        ------
        IndexError
            ``index`` is not a job's position.
        """
        return JobLife(*(getattr(self, name)[index] for name in JobLife._fields))

    # -- counts ------------------------------------------------------------------------------
    @property
    def completed(self) -> int:
        """Jobs completed so far."""
        return self.counts["completed"]

    @property
    def rejected(self) -> int:
        """Jobs rejected at submission (no window the domain offers fits their request)."""
        return self.counts["rejected"]

    @property
    def withdrawn(self) -> int:
        """Jobs withdrawn (their user left the VO, or they waited past the patience)."""
        return self.counts["withdrawn"]

    @property
    def settled(self) -> bool:
        """Whether every job has completed or left (rejected or withdrawn)."""
        return self.completed + self.rejected + self.withdrawn == len(self.jobs)

    def states(self) -> Counter[str]:
        """The jobs in each state, counted over the jobs one by one (``O(jobs)``).

        Equal to :attr:`counts` (without zero entries) at any time: what a test compares.
        """
        return Counter(self.state)

    def is_final(self, job: Job) -> bool:
        """Whether ``job`` is in an end state (completed, rejected, withdrawn, unfinished)."""
        return self.state[job.index] in _FINAL

    # -- transitions -------------------------------------------------------------------------
    def _move(self, job: Job, name: str) -> int:
        """Move ``job`` along transition ``name``; return its index."""
        leaves, enters = LIFE[name]
        i = job.index
        state = self.state[i]
        if state not in leaves:
            raise JobStateError(
                f"job {job.job_id} (trace row {i}) is {state}: it cannot {name} "
                f"(only a job {' or '.join(sorted(leaves))} can)"
            )
        counts = self.counts
        counts[state] -= 1
        counts[enters] += 1
        self.state[i] = enters
        return i

    def _require(self, job: Job, state: str, refusal: str) -> int:
        """Raise :class:`JobStateError` with ``refusal`` unless ``job`` is in ``state``."""
        i = job.index
        if self.state[i] != state:
            raise JobStateError(f"job {job.job_id} (trace row {i}) is {self.state[i]}: {refusal}")
        return i

    def offer(self, job: Job, budget: float, criterion: str) -> None:
        """Its user submits ``job`` with budget ``C`` (cost units) and criterion (a name).

        The job stays ``pending`` until the queue admits or rejects it (:meth:`queue`,
        :meth:`reject`).
        """
        i = self._require(job, "pending", "it cannot be submitted (only a pending job can)")
        self.budget[i] = budget
        self.criterion[i] = criterion

    def queue(self, job: Job, account: int = -1) -> ResourceRequest:
        """``job`` enters the metascheduler's queue: ``pending`` -> ``waiting``.

        Returns its request as a policy sees it (``n``, volume, budget ``C``, criterion,
        submission time; ``account`` its user's position under per-period accounts, else
        -1), kept in :attr:`request`. VO Preferences §2 (a resource request: ``n`` slots,
        volume, budget ``C``).

        Raises
        ------
        JobStateError
            ``job`` is not pending.
        RequestError
            Its request is not one (no :meth:`offer` gave it a budget, or ``n < 1``); the
            queue rejects such jobs before asking.
        """
        i = self._move(job, "queue")
        request = self.request[i] = ResourceRequest(
            n=job.n,
            volume=job.volume,
            budget=float(self.budget[i]),
            index=i,
            criterion=self.criterion[i],
            submit_time=job.submit_time,
            account=account,
        )
        return request

    def reject(self, job: Job, reason: str) -> None:
        """``job`` can never run here (``reason`` says why): ``pending`` -> ``rejected``."""
        self.reason[self._move(job, "reject")] = reason

    def choose(
        self, job: Job, alternatives: int, user_evaluation: float, earliest_start: float
    ) -> None:
        """Record the alternative chosen for the waiting ``job`` before it is reserved.

        ``alternatives`` found for it in the cycle, the user evaluation ``U`` of the one
        chosen (rank or %), and the earliest start of any window its user could afford on the
        same slots (model time units: the window's start less this is the delay the user
        chose). VO Preferences §2-3.
        """
        i = self._require(
            job, "waiting", "no alternative can be chosen for it (only for a waiting job)"
        )
        self.alternatives[i] = alternatives
        self.user_evaluation[i] = user_evaluation
        self.earliest_start[i] = earliest_start

    def reserve(
        self, job: Job, window: Window, task_ends: Iterable[float], held_in: int | None = None
    ) -> None:
        """``job`` holds ``window``: ``waiting`` -> ``scheduled``, a new attempt.

        ``task_ends`` (model time units, one per slot of the window in its order) are when
        its tasks end if nothing interrupts them; the job finishes with the last.
        ``held_in``: under per-period accounts, the budget period whose balance holds the
        window's cost.
        """
        i = self._move(job, "reserve")
        ends = tuple(task_ends)
        self.window[i] = window
        self._hold(i, window)
        self.window_runtime[i], self.window_cost[i] = window.runtime, window.cost
        self.start[i] = window.start
        self.task_ends[i] = ends
        self.finish[i] = max(ends)
        self.attempt[i] += 1
        if held_in is not None:
            self.held_in[i] = held_in

    def rebind(self, job: Job, window: Window) -> None:
        """The scheduled ``job``'s unstarted ``window`` moved to other processors of its pools.

        The same start, task times and cost (processors of one pool are interchangeable);
        only ``window``'s node ids differ. Raises :class:`JobStateError` unless ``job`` is
        scheduled. Mu'alem & Feitelson (2001), §2: processors are counted, not named, until
        a job starts.
        """
        i = self._require(job, "scheduled", "only a scheduled job's window can be re-bound")
        self.window[i] = window
        self._hold(i, window)

    def predict(self, job: Job, availability: float) -> None:
        """Record the predicted availability ``P_a^w`` of the scheduled ``job``'s window."""
        i = self._require(job, "scheduled", "only a scheduled job's window has an availability")
        self.predicted_availability[i] = availability

    def _hold(self, i: int, window: Window) -> None:
        """Write job ``i``'s ``window`` into :attr:`held` (its request's ``n`` and volume)."""
        request = self.request[i]
        self.held.write(i, request.n, request.volume, window)

    def _unreserve(self, i: int) -> None:
        self.window[i] = None
        self.held.clear(i)
        self.start[i] = self.finish[i] = self.window_runtime[i] = self.window_cost[i] = math.nan
        self.task_ends[i] = ()

    def cancel(self, job: Job, displaced: bool = False) -> None:
        """``job``'s unstarted reservation is cancelled: ``scheduled`` -> ``waiting``.

        ``displaced``: an owner's arriving local job took processors of the reservation
        (counted in :attr:`displaced`). Its pending end lapses (a new attempt number).
        """
        i = self._move(job, "cancel")
        self._unreserve(i)
        self.attempt[i] += 1
        if displaced:
            self.displaced[i] += 1

    def interrupt(self, job: Job, paid: float) -> None:
        """``job`` was stopped while it held its window: ``scheduled`` -> ``waiting``.

        ``paid`` (cost units) is what its user paid for what ran, added to
        :attr:`paid_for_failures`; :attr:`failures` counts the interruption.
        """
        i = self._move(job, "interrupt")
        self._unreserve(i)
        self.paid_for_failures[i] += paid
        self.failures[i] += 1

    def complete(self, job: Job, paid: float) -> None:
        """``job`` ended on its window: ``scheduled`` -> ``completed``, ``paid`` cost units.

        The job keeps what the tables read of its window (:attr:`nodes`,
        :attr:`window_runtime`, :attr:`window_cost`, :attr:`start`, :attr:`finish`) and its
        reserved processor time (:attr:`node_time`); the window and its task ends are let
        go, so a run holds no window per completed job.
        """
        i = self._move(job, "complete")
        self.paid[i] = paid
        start = self.start[i]
        self.node_time[i] = sum([e - start for e in self.task_ends[i]])
        self.nodes.keep(i, self.window[i].spans.node)
        self.window[i] = None
        self.held.clear(i)
        self.task_ends[i] = ()

    def withdraw(self, job: Job, reason: str, at: float = math.nan) -> None:
        """``job`` leaves before it got a window: ``pending`` or ``waiting`` -> ``withdrawn``.

        ``reason`` says why; ``at`` (model time units) is when it left the queue (NaN for a
        job never submitted: its user left the VO first).
        """
        i = self._move(job, "withdraw")
        self.reason[i] = reason
        self.left_time[i] = at

    def end(self, job: Job, reason: str, at: float = math.nan) -> None:
        """The run ended before ``job`` did: it ends ``unfinished`` with ``reason``.

        ``at`` (model time units): when a submitted job left the queue (the run's end); NaN
        for a job never submitted.
        """
        i = self._move(job, "end")
        self.reason[i] = reason
        self.left_time[i] = at

    def record_run(
        self,
        budget: np.ndarray,
        criterion: Sequence[str],
        refusal: Sequence[str],
        start: np.ndarray,
        nodes: Sequence[np.ndarray | None],
        window_runtime: np.ndarray,
        window_cost: np.ndarray,
        finish: np.ndarray,
        paid: np.ndarray,
        node_time: np.ndarray,
    ) -> None:
        """Every job's whole life at once, as a run that was not stepped through computed it.

        Each job is offered with its ``budget`` and ``criterion``; then rejected with its
        ``refusal`` when that is not empty, else queued, given one window (its only attempt,
        the only alternative, user evaluation ``U`` 0, its start the earliest it could
        afford) and completed at ``finish`` having paid ``paid`` for ``node_time``. The
        end state is the one the moves one by one (:meth:`offer`, :meth:`reject` or
        :meth:`queue`, :meth:`choose`, :meth:`reserve`, :meth:`complete`) leave, but for
        :attr:`request`, which stays ``None`` (no policy reads it after the run).

        Parameters
        ----------
        budget : numpy.ndarray of float, shape (J,)
            Budget ``C`` of each job, cost units.
        criterion, refusal : sequence of str, length J
            Its user's criterion; why it was rejected ("" if it was not).
        start, window_runtime, window_cost : numpy.ndarray of float, shape (J,)
            Its window's start and runtime (model time units) and cost (cost units).
        nodes : sequence of numpy.ndarray of int or None, length J
            Its window's node ids, shape (n,) (``None`` for a rejected job).
        finish, paid, node_time : numpy.ndarray of float, shape (J,)
            Its last task's end (model time units), what it paid (cost units) and the
            processor time its window reserved (time units).

        The float columns of a rejected job are ignored (they stay NaN, its payment 0).

        Raises
        ------
        JobStateError
            A job is not pending (nothing is changed).
        ValueError
            A column's length is not the number of jobs (nothing is changed).

        References
        ----------
        VO Preferences §2 (a job waits, gets a window within its budget ``C``, runs);
        vosim's rule: every job of the trace in exactly one state.
        """
        k = len(self.jobs)
        columns = {
            "budget": budget, "criterion": criterion, "refusal": refusal, "start": start,
            "nodes": nodes, "window_runtime": window_runtime, "window_cost": window_cost,
            "finish": finish, "paid": paid, "node_time": node_time,
        }  # fmt: skip
        for name, column in columns.items():
            if len(column) != k:
                raise ValueError(f"record_run: {name} has {len(column)} entries, not {k}")
        if self.counts["pending"] != k:
            busy = next(i for i, state in enumerate(self.state) if state != "pending")
            raise JobStateError(
                f"job {self.jobs[busy].job_id} (trace row {busy}) is {self.state[busy]}: a "
                "run is recorded at once only over jobs all pending"
            )
        ran = np.array([not r for r in refusal], dtype=bool)
        nan = np.nan

        def kept(values: np.ndarray, otherwise: float = nan) -> array:
            return array("d", np.where(ran, values, otherwise).tobytes())

        self.budget[:] = budget
        self.criterion = list(criterion)
        self.state = ["completed" if r else "rejected" for r in ran.tolist()]
        self.reason = [r or old for r, old in zip(refusal, self.reason, strict=True)]
        self.counts = Counter(self.state)
        self.counts["pending"] = 0
        for i in np.flatnonzero(ran).tolist():
            self.nodes.keep(i, nodes[i])
        self.start = kept(start)
        self.earliest_start = array("d", self.start)
        self.window_runtime, self.window_cost = kept(window_runtime), kept(window_cost)
        self.finish, self.node_time, self.paid = kept(finish), kept(node_time), kept(paid, 0.0)
        self.attempt = array("q", ran.astype(np.int64).tobytes())
        self.alternatives = array("q", self.attempt)
        self.user_evaluation = kept(np.zeros(k))

    def table(self, owner_of_node: Sequence, *, workload_name: str = "") -> pd.DataFrame:
        """The per-job table ``jobs.parquet`` (columns :data:`JOB_COLUMNS`), one row per job.

        Its first columns are Batsim's ``_jobs.csv`` (:data:`BATSIM_COLUMNS`, in Batsim's order
        and meaning): ``final_state`` from :func:`batsim_final_state` (an ``unfinished`` job was
        submitted if it has a ``left_time``, the run's end, and started if its window starts
        before it),
        ``success`` 1 exactly for ``COMPLETED_SUCCESSFULLY``, ``profile`` ``'delay_<run_time>'``,
        ``consumed_energy`` NaN, ``metadata`` empty for completed jobs and ``'state: reason'``
        otherwise.

        Parameters
        ----------
        owner_of_node : sequence
            ``owner_of_node[node_id].owner_id`` gives a node's owner.
        workload_name : str
            Column ``workload_name``: the trace's name (``VOModel.trace_name``; default empty).

        Returns
        -------
        pandas.DataFrame
            Shape (k, len(JOB_COLUMNS)). Times in model time units (s); NaN where a job never
            got that far; ``state`` and ``final_state`` categorical.

        Raises
        ------
        ValueError
            A job in an unknown state (:func:`batsim_final_state`).

        References
        ----------
        Batsim documentation, "Jobs" output file, for the Batsim columns.
        """
        jobs = self.jobs
        k = len(jobs)
        rows = zip(*map(attrgetter(*_TRACE_FIELDS), jobs), strict=True)  # one tuple per field
        col = dict(zip(_TRACE_FIELDS, rows, strict=True)) if k else dict.fromkeys(_TRACE_FIELDS, ())
        col |= {name: getattr(self, name) for name in _LIFE_FIELDS}
        has_w, ids, holder = self.nodes.columns()
        state = np.array(col["state"], dtype=object)
        completed = state == "completed"
        submit = np.array(col["submit_time"], dtype=float)
        start = np.where(has_w, np.array(col["start"], dtype=float), np.nan)
        finish = np.where(completed, np.array(col["finish"], dtype=float), np.nan)
        run_time = np.array(col["run_time"], dtype=float)
        requested = np.array(col["requested_time"], dtype=float)
        left = np.array(col["left_time"], dtype=float)
        with np.errstate(invalid="ignore"):
            started = has_w & ~(start >= left)  # NaN left: mid-run, started
        final = _final_states(state, run_time, requested, started, ~np.isnan(left))
        sets, owners = _node_strings(ids, holder, k, owner_of_node)
        reason = col["reason"]
        metadata = [
            "" if done else f"{s}: {r}".removesuffix(": ")
            for done, s, r in zip(completed.tolist(), col["state"], reason, strict=True)
        ]
        paid = np.array(col["paid"], dtype=float)
        paid_for_failures = np.array(col["paid_for_failures"], dtype=float)
        data = {
            "job_id": np.array(col["job_id"], dtype=np.int64),
            "workload_name": [workload_name] * k,
            "profile": [_profile_name(r) for r in col["run_time"]],
            "submission_time": submit,
            "requested_number_of_resources": np.array(col["n"], dtype=np.int64),
            "requested_time": requested,
            "success": (final == "COMPLETED_SUCCESSFULLY").astype(np.int64),
            "final_state": pd.Categorical(final, categories=list(BATSIM_FINAL_STATES)),
            "starting_time": start,
            "execution_time": finish - start,
            "finish_time": finish,
            "waiting_time": start - submit,
            "turnaround_time": finish - submit,
            "allocated_resources": sets,
            "consumed_energy": np.full(k, np.nan),
            "metadata": metadata,
            "user": np.array(col["user"], dtype=np.int64),
            "group": np.array(col["group"], dtype=np.int64),
            "owners": owners,
            "criterion": list(col["criterion"]),
            "requested_processors": np.array(col["requested_processors"], dtype=np.int64),
            "window_runtime": np.array(col["window_runtime"], dtype=float),
            "run_time": run_time,
            "left_time": left,
            "node_time": np.where(completed, np.array(col["node_time"], dtype=float), np.nan),
            "cost": paid + paid_for_failures,
            "window_cost": np.array(col["window_cost"], dtype=float),
            "failures": np.array(col["failures"], dtype=np.int64),
            "displaced": np.array(col["displaced"], dtype=np.int64),
            "paid_for_failures": paid_for_failures,
            "predicted_availability": np.array(col["predicted_availability"], dtype=float),
            "alternatives": np.array(col["alternatives"], dtype=np.int64),
            "user_evaluation": np.array(col["user_evaluation"], dtype=float),
            "chosen_delay": np.maximum(start - np.array(col["earliest_start"], dtype=float), 0.0),
            "budget": np.array(col["budget"], dtype=float),
            "state": pd.Categorical(state, categories=[*JOB_STATES, *LIVE_STATES]),
            "reason": [
                "" if done else r for done, r in zip(completed.tolist(), reason, strict=True)
            ],
        }
        with np.errstate(divide="ignore", invalid="ignore"):
            stretch = data["turnaround_time"] / data["execution_time"]
        data["stretch"] = np.where(data["execution_time"] > 0, stretch, np.nan)
        df = pd.DataFrame({c: data[c] for c in JOB_COLUMNS})
        if k == 0:  # empty lists of text would be typed float
            df = df.astype({c: "str" for c, v in data.items() if isinstance(v, list)})
        return df


#: The trace's fields of a job (:class:`Job`) the table reads, beside the ledger's own.
_TRACE_FIELDS = (
    "job_id", "user", "group", "submit_time", "n", "requested_time", "run_time",
    "requested_processors",
)  # fmt: skip

#: The ledger's columns the table reads.
_LIFE_FIELDS = (
    "reason", "budget", "criterion", "state", "start", "finish", "window_runtime",
    "window_cost", "node_time", "failures", "displaced", "paid", "paid_for_failures",
    "left_time", "predicted_availability", "alternatives", "user_evaluation", "earliest_start",
)  # fmt: skip


def _column(typecode: str, value: float, k: int) -> array:
    """``k`` entries of ``value`` in a typed array (``"d"`` float64, ``"q"`` int64).

    Read and written one entry at a time as Python floats and ints, as a list would be,
    but 8 bytes an entry: a list holds one float object (24 bytes more) per value written.
    """
    return array(typecode, [value]) * k


class NodeColumn:
    """Node ids of each job's last window reserved: ``ledger.nodes[i]``.

    A job holding a window reads them from it (its spans' nodes); a completed job's are
    kept once, at its completion, in one flat column (no array per job); any other job has
    none (``None``). Shapes: ``nodes[i]`` int64, shape (n,).

    Parameters
    ----------
    windows : list of Window or None
        The ledger's :attr:`JobLedger.window` column, read (never written) here.

    Raises
    ------
    IndexError
        ``nodes[i]`` for ``i`` not a job's position.

    References
    ----------
    Batsim's ``allocated_resources`` (the table's column read from here); no paper.
    """

    def __init__(self, windows: list[Window | None]) -> None:
        self._windows = windows
        k = len(windows)
        self._first = _column("q", -1, k)  # where a completed job's ids start in _ids
        self._size = _column("q", 0, k)
        self._ids = array("q")

    def keep(self, i: int, nodes: np.ndarray) -> None:
        """Keep ``nodes`` (node ids, int, shape (n,)) as job ``i``'s (it completed).

        Raises ``IndexError`` for ``i`` not a job's position, nothing else.
        """
        self._first[i] = len(self._ids)
        self._size[i] = len(nodes)
        self._ids.frombytes(np.asarray(nodes, dtype=np.int64).tobytes())

    def __getitem__(self, i: int) -> np.ndarray | None:
        """Job ``i``'s node ids (int64, shape (n,); a copy once it completed) or ``None``."""
        window = self._windows[i]
        if window is not None:
            return window.spans.node
        first = self._first[i]
        if first < 0:
            return None
        return np.array(self._ids[first : first + self._size[i]], dtype=np.int64)

    def __len__(self) -> int:
        return len(self._windows)

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every job's nodes at once, for the job table (``k = len(self)`` jobs).

        Returns which jobs have some (bool, shape (k,)), their ids (int64, shape (t,)) and
        the job holding each (int64, shape (t,)): completed jobs' first, in the order they
        were kept, then the held windows' in job order. Raises nothing.
        """
        first = np.array(self._first, dtype=np.int64)
        size = np.array(self._size, dtype=np.int64)
        done = np.flatnonzero(first >= 0)
        done = done[np.argsort(first[done], kind="stable")]  # in the order they were kept
        held = [i for i, w in enumerate(self._windows) if w is not None]
        spans = [self._windows[i].spans.node for i in held]
        ids = np.concatenate([np.array(self._ids, dtype=np.int64), *spans])
        holder = np.concatenate(
            [
                np.repeat(done, size[done]),
                np.repeat(np.array(held, dtype=np.int64), [len(a) for a in spans]),
            ]
        )
        has = np.zeros(len(self._windows), dtype=bool)
        has[holder] = True
        return has, ids, holder


def _final_states(
    state: np.ndarray,
    run_time: np.ndarray,
    requested: np.ndarray,
    started: np.ndarray,
    submitted: np.ndarray,
) -> np.ndarray:
    """:func:`batsim_final_state` of every job (arrays of shape (k,)), one call per case.

    The jobs fall in a handful of cases (state, walltime reached, started, submitted); the
    rule is asked once per case, so it stays the one definition of the mapping.
    """
    if state.size == 0:
        return np.empty(0, dtype=object)
    names, code = np.unique(state.astype(str), return_inverse=True)
    reached = ~(run_time < requested)
    case = ((code * 2 + reached) * 2 + started) * 2 + submitted
    cases, at = np.unique(case, return_inverse=True)
    answers = np.empty(cases.size, dtype=object)
    for i, c in enumerate(cases.tolist()):
        s = names[c >> 3]  # reached: run_time >= requested_time (or NaN: not before it)
        answers[i] = batsim_final_state(
            s, 1.0 if c & 4 else 0.0, 1.0, started=bool(c & 2), submitted=bool(c & 1)
        )
    return answers[at]


#: Jobs whose strings :func:`_node_strings` makes at a time: its transient text is bounded
#: by this many jobs' windows, not the run's.
_STRING_CHUNK = 4096


def _node_strings(
    ids: np.ndarray, job: np.ndarray, k: int, owner_of_node: Sequence
) -> tuple[list[str], list[str]]:
    """Per job, the interval set of its window's nodes and its owners' ids (space separated).

    ``ids`` (node ids, int, shape (t,)) are the windows' nodes, ``job[r]`` (shape (t,)) the
    job (of ``k``) whose window holds ``ids[r]``; jobs without a window get empty strings.
    ``owner_of_node[node].owner_id`` is an int >= 0. Runs of consecutive ids are found with
    numpy over :data:`_STRING_CHUNK` jobs' windows at a time; only the strings are made per
    run.
    """
    sets, owners = [""] * k, [""] * k
    if not ids.size:
        return sets, owners
    order = np.lexsort((ids, job))
    ids, job = ids[order], job[order]
    owner_ids = np.array([owner_of_node[n].owner_id for n in range(len(owner_of_node))])
    span = int(owner_ids.max()) + 1
    bounds = np.searchsorted(job, np.arange(0, k + _STRING_CHUNK, _STRING_CHUNK))
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        if a == b:
            continue
        part, held = ids[a:b], job[a:b]
        first = np.ones(part.size, dtype=bool)
        first[1:] = (np.diff(part) != 1) | (held[1:] != held[:-1])
        lo = np.flatnonzero(first)
        hi = np.append(lo[1:], part.size) - 1
        runs = [
            str(x) if x == y else f"{x}-{y}"
            for x, y in zip(part[lo].tolist(), part[hi].tolist(), strict=True)
        ]
        _place(sets, *_joined(held[lo], runs))
        pair = np.unique(held * span + owner_ids[part])  # sorted by job, then owner id
        _place(owners, *_joined(pair // span, [str(o) for o in (pair % span).tolist()]))
    return sets, owners


def _place(out: list[str], keys: np.ndarray, texts: list[str]) -> None:
    """Write ``texts[i]`` at position ``keys[i]`` (shape (r,)) of ``out``."""
    for key, text in zip(keys.tolist(), texts, strict=True):
        out[key] = text


def _joined(keys: np.ndarray, items: list[str]) -> tuple[np.ndarray, list[str]]:
    """Join ``items`` by runs of equal sorted ``keys`` (shape (r,)): each run's key and text.

    Returns the runs' keys (shape (u,)) and texts (``u`` strings): the items of one run
    joined with spaces; the runs are cut from one string.
    """
    new = np.ones(len(items), dtype=bool)
    new[1:] = keys[1:] != keys[:-1]
    text = "".join(map(add, np.where(new, "\n", " ").tolist(), items))
    return keys[new], text[1:].split("\n")
