"""How long a job waits for its first start before its user withdraws it (``--patience``)."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable

import mesa

from vosim.agents.callbacks import callback
from vosim.market.workload import Job

__all__ = ["Patience"]


class Patience:
    """The queue's patience clock: a job not started ``patience`` after submission is withdrawn.

    Jobs are watched in submission order, so their deadlines (submit time + ``patience``) are
    too: one Mesa event is pending at a time, at the earliest deadline of a job still waiting.
    A job that started before its deadline is no longer watched; if it comes back to the queue
    after its deadline (interrupted, or its reservation cancelled) it is withdrawn then
    (:meth:`requeued`), so no job retries for ever.

    Parameters
    ----------
    model : mesa.Model
        The model (``time``, ``schedule_event``).
    patience : float
        Longest wait for a first start, model time units (> 0; ``inf``: never withdrawn).
    withdraw : callable (Job, float, str) -> None
        Takes a waiting job out of the queue at a time with a reason (the metascheduler's).

    References
    ----------
    vosim's rule: the run drains until every job has completed or left; a job that waited
    past ``--patience`` (default 30 days) is withdrawn. Users abandoning long waits are common in
    workload models (e.g. Feitelson, *Workload Modeling for Computer Systems Performance
    Evaluation*, 2015, §8 on user behaviour); the 30-day default is vosim's.
    """

    def __init__(
        self, model: mesa.Model, patience: float, withdraw: Callable[[Job, float, str], None]
    ) -> None:
        if not patience > 0:
            raise ValueError(f"patience must be > 0, got {patience!r}")
        self.model = model
        self.patience = float(patience)
        self._withdraw = withdraw
        self._watched: deque[Job] = deque()
        self._pending = math.inf  # time of the event scheduled, inf if none
        self._expire_due = callback(self, "_expire")  # what that event calls

    def watch(self, job: Job) -> None:
        """Start ``job``'s clock (call at submission, in submission order)."""
        if math.isinf(self.patience):
            return
        self._watched.append(job)
        self._schedule()

    def _schedule(self) -> None:
        """Keep one event pending, at the first deadline of a job still waiting."""
        watched = self._watched
        while watched and not self._may_leave(watched[0]):
            watched.popleft()  # started, or left: patience no longer applies
        if not watched:
            return
        due = watched[0].submit_time + self.patience
        if due < self._pending:
            self._pending = due
            self.model.schedule_event(self._expire_due, at=max(due, self.model.time))

    def requeued(self, jobs: list[Job]) -> None:
        """Withdraw, now, those of ``jobs`` (back in the queue) whose deadline has passed.

        A job interrupted (or whose reservation was cancelled) after its deadline is not
        tried again: its user gave up waiting. Jobs submitted just now are never past it.
        """
        now, ledger = self.model.time, self.model.ledger
        for job in jobs:
            if ledger.state[job.index] == "waiting" and job.submit_time + self.patience <= now:
                reason = (
                    f"back in the queue {now - job.submit_time:g} s after submission, past "
                    f"the patience of {self.patience:g} s (--patience), after "
                    f"{ledger.failures[job.index]} interrupted attempt(s)"
                )
                self._withdraw(job, float(now), reason)

    def _may_leave(self, job: Job) -> bool:
        """Whether ``job`` may still be withdrawn: it never started.

        Waiting, or reserved ahead (a re-planning may yet put it back in the queue).
        """
        ledger, i = self.model.ledger, job.index
        if ledger.failures[i]:
            return False
        state = ledger.state[i]
        return state == "waiting" or (state == "scheduled" and ledger.start[i] > self.model.time)

    def _expire(self) -> None:
        """Withdraw every job still waiting whose deadline has come."""
        self._pending = math.inf
        now, ledger = self.model.time, self.model.ledger
        watched = self._watched
        while watched and watched[0].submit_time + self.patience <= now:
            job = watched.popleft()
            if ledger.state[job.index] == "waiting" and ledger.failures[job.index] == 0:
                reason = f"waited {self.patience:g} s (--patience) without a window"
                self._withdraw(job, job.submit_time + self.patience, reason)
        self._schedule()
