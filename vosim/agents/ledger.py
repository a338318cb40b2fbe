"""A job's life in the VO: the one writer of its state, from submission to its end."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from vosim.allocators.base import Window
from vosim.market.workload import Job

__all__ = ["LIFE", "JobLedger", "JobStateError"]

#: The transitions of a job's state: name -> (states it may leave, state it enters). A
#: job is ``pending`` until its user submits it; ``waiting`` in the metascheduler's queue;
#: ``scheduled`` while it holds a window (reserved, then running); it ends ``completed``,
#: ``rejected``, ``withdrawn`` or ``unfinished`` (:data:`vosim.market.workload.JOB_STATES`).
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


class JobLedger:
    """Every job of a run and the one place where a job's state and outcome change.

    Agents ask the ledger to move a job (:meth:`queue`, :meth:`reject`, :meth:`reserve`,
    :meth:`cancel`, :meth:`interrupt`, :meth:`complete`, :meth:`withdraw`, :meth:`end`);
    each checks the move against :data:`LIFE` and keeps the number of jobs in each state,
    so "every job in exactly one state" holds by construction and the counts the model
    reads (completed, rejected, withdrawn) cost O(1). A job's request (its ``n``, volume,
    times and user) is never changed here or anywhere.

    Parameters
    ----------
    jobs : list of Job
        The run's jobs in trace order, each ``pending`` (``job.index`` their position).

    Raises
    ------
    JobStateError
        A job is not ``pending`` at the start.

    References
    ----------
    VO Preferences §2 (a job waits for a cycle, gets a window within its budget ``C``, runs);
    ICCS 2023 §2.2 (a window fails when an owner's local job takes one of its nodes: the job
    waits again); vosim's rule: every job of the trace accounted for in exactly one state.
    """

    def __init__(self, jobs: list[Job]) -> None:
        for job in jobs:
            if job.state != "pending":
                raise JobStateError(
                    f"job {job.job_id} (trace row {job.index}) starts {job.state}, not pending"
                )
        self.jobs = jobs
        #: Jobs in each state now (states with none may be absent or 0).
        self.counts: Counter[str] = Counter(pending=len(jobs))

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
        return Counter(job.state for job in self.jobs)

    # -- transitions -------------------------------------------------------------------------
    def _move(self, job: Job, name: str) -> None:
        leaves, enters = LIFE[name]
        state = job.state
        if state not in leaves:
            raise JobStateError(
                f"job {job.job_id} (trace row {job.index}) is {state}: it cannot {name} "
                f"(only a job {' or '.join(sorted(leaves))} can)"
            )
        counts = self.counts
        counts[state] -= 1
        counts[enters] += 1
        job.state = enters

    def offer(self, job: Job, budget: float, criterion: str) -> None:
        """Its user submits ``job`` with budget ``C`` (cost units) and criterion (a name).

        The job stays ``pending`` until the queue admits or rejects it (:meth:`queue`,
        :meth:`reject`).
        """
        _require(job, "pending", "it cannot be submitted (only a pending job can)")
        job.budget = budget
        job.criterion = criterion

    def queue(self, job: Job) -> None:
        """``job`` enters the metascheduler's queue: ``pending`` -> ``waiting``."""
        self._move(job, "queue")

    def reject(self, job: Job, reason: str) -> None:
        """``job`` can never run here (``reason`` says why): ``pending`` -> ``rejected``."""
        self._move(job, "reject")
        job.reason = reason

    def choose(
        self, job: Job, alternatives: int, user_evaluation: float, earliest_start: float
    ) -> None:
        """Record the alternative chosen for the waiting ``job`` before it is reserved.

        ``alternatives`` found for it in the cycle, the user evaluation ``U`` of the one
        chosen (rank or %), and the earliest start of any window its user could afford on the
        same slots (model time units: the window's start less this is the delay the user
        chose). VO Preferences §2-3.
        """
        _require(job, "waiting", "no alternative can be chosen for it (only for a waiting job)")
        job.alternatives = alternatives
        job.user_evaluation = user_evaluation
        job.earliest_start = earliest_start

    def reserve(
        self, job: Job, window: Window, task_ends: Iterable[float], held_in: int | None = None
    ) -> None:
        """``job`` holds ``window``: ``waiting`` -> ``scheduled``, a new attempt.

        ``task_ends`` (model time units, one per slot of the window in its order) are when
        its tasks end if nothing interrupts them; the job finishes with the last.
        ``held_in``: under per-period accounts, the budget period whose balance holds the
        window's cost.
        """
        self._move(job, "reserve")
        ends = tuple(task_ends)
        job.window = window
        job.nodes = window.spans.node
        job.window_runtime, job.window_cost = window.runtime, window.cost
        job.start = window.start
        job.task_ends = ends
        job.finish = max(ends)
        job.attempt += 1
        if held_in is not None:
            job.held_in = held_in

    def predict(self, job: Job, availability: float) -> None:
        """Record the predicted availability ``P_a^w`` of the scheduled ``job``'s window."""
        _require(job, "scheduled", "only a scheduled job's window has an availability")
        job.predicted_availability = availability

    def _unreserve(self, job: Job) -> None:
        job.window = job.nodes = None
        job.start = job.finish = job.window_runtime = job.window_cost = math.nan
        job.task_ends = ()

    def cancel(self, job: Job, displaced: bool = False) -> None:
        """``job``'s unstarted reservation is cancelled: ``scheduled`` -> ``waiting``.

        ``displaced``: an owner's arriving local job took processors of the reservation
        (counted in ``job.displaced``). Its pending end lapses (a new attempt number).
        """
        self._move(job, "cancel")
        self._unreserve(job)
        job.attempt += 1
        if displaced:
            job.displaced += 1

    def interrupt(self, job: Job, paid: float) -> None:
        """``job`` was stopped while it held its window: ``scheduled`` -> ``waiting``.

        ``paid`` (cost units) is what its user paid for what ran, added to
        ``job.paid_for_failures``; ``job.failures`` counts the interruption.
        """
        self._move(job, "interrupt")
        self._unreserve(job)
        job.paid_for_failures += paid
        job.failures += 1

    def complete(self, job: Job, paid: float) -> None:
        """``job`` ended on its window: ``scheduled`` -> ``completed``, ``paid`` cost units.

        The job keeps what the tables read of its window (``nodes``, ``window_runtime``,
        ``window_cost``, ``start``, ``finish``) and its reserved processor time
        (``node_time``); the window and its task ends are let go, so a run holds no window
        per completed job.
        """
        self._move(job, "complete")
        job.paid = paid
        start = job.start
        job.node_time = sum([e - start for e in job.task_ends])
        job.window = None
        job.task_ends = ()

    def withdraw(self, job: Job, reason: str, at: float = math.nan) -> None:
        """``job`` leaves before it got a window: ``pending`` or ``waiting`` -> ``withdrawn``.

        ``reason`` says why; ``at`` (model time units) is when it left the queue (NaN for a
        job never submitted: its user left the VO first).
        """
        self._move(job, "withdraw")
        job.reason = reason
        job.left_time = at

    def end(self, job: Job, reason: str, at: float = math.nan) -> None:
        """The run ended before ``job`` did: it ends ``unfinished`` with ``reason``.

        ``at`` (model time units): when a submitted job left the queue (the run's end); NaN
        for a job never submitted.
        """
        self._move(job, "end")
        job.reason = reason
        job.left_time = at

    def is_final(self, job: Job) -> bool:
        """Whether ``job`` is in an end state (completed, rejected, withdrawn, unfinished)."""
        return job.state in _FINAL


def _require(job: Job, state: str, refusal: str) -> None:
    """Raise :class:`JobStateError` with ``refusal`` unless ``job`` is in ``state``."""
    if job.state != state:
        raise JobStateError(f"job {job.job_id} (trace row {job.index}) is {job.state}: {refusal}")
