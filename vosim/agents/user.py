"""UserAgent: a VO user with a budget rule and a preferred criterion who submits jobs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import mesa

from vosim.agents.callbacks import callback
from vosim.market.workload import Job

__all__ = ["UserAgent", "USER_CRITERIA"]

#: Users' preferred criteria: finish time, runtime or cost (VO Preferences §4) and window
#: availability ``P_a^w`` (ICCS 2021/2023).
USER_CRITERIA = ("finish", "runtime", "cost", "availability")


class _InModel:
    """A user's value held in a model array (one entry per user, at the user's position).

    The model keeps all users' values in one array, so a mean over them is one numpy sum.
    """

    def __init__(self, column: str, kind: type) -> None:
        self.column, self.kind = column, kind

    def __get__(self, user, owner=None):
        if user is None:
            return self
        return self.kind(getattr(user.model, self.column)[user.position])

    def __set__(self, user, value) -> None:
        getattr(user.model, self.column)[user.position] = value


class UserAgent(mesa.Agent):
    """A VO user: submits its jobs at their submit times with a budget from its budget rule.

    Budget rule: ``C = budget_factor * n * V * c_max`` where ``c_max`` is the dearest base cost
    of one unit of work in the domain (``max_p base(p) / p``,
    :meth:`~vosim.market.pricing.ExponentialPricing.dearest_cost_per_work`). A factor of 1.6 buys
    the dearest nodes with the full 60 % markup; factors below 1 rely on cheaper nodes and
    discounts (VO Preferences §4).

    Parameters
    ----------
    model : VOModel
        The model.
    user_id : int
        SWF user id (field 12) or synthetic id.
    jobs : sequence of Job
        This user's jobs, any order (sorted by submit time here).
    budget_factor : float
        Budget multiplier (> 0).
    criterion : str
        Preferred criterion, one of :data:`USER_CRITERIA`.
    cost_per_work : float
        ``c_max`` above, cost per (performance x time unit).
    position : int
        This user's position in ``model.users``: its entries of ``model.user_satisfaction``,
        ``model.user_active`` and ``model.user_balance`` (per-period accounts, when the
        model's ``budget_period`` is set).

    Notes
    -----
    Per-period account (vosim's extension of the budget rule, enabled by the model's
    ``budget_period``): the user's :attr:`balance` is reset to its :attr:`allowance` at the
    start of every period (:meth:`replenish`, no carry-over) and each reserved window's cost is
    taken from it (:meth:`charge`); a job may then spend at most ``min(C, balance)``. The
    balance lives only in ``model.user_balance`` (one source of truth, read by the
    metascheduler's vectorised screen); :attr:`balance` is a view of it.
    """

    #: Satisfaction in [0, 1]: a moving average of how each scheduled job went
    #: (``model.user_satisfaction``).
    satisfaction = _InModel("user_satisfaction", float)
    #: Whether the user is still in the VO (``model.user_active``).
    active = _InModel("user_active", bool)

    def __init__(
        self,
        model: mesa.Model,
        user_id: int,
        jobs: Sequence[Job],
        budget_factor: float,
        criterion: str,
        cost_per_work: float,
        position: int,
    ) -> None:
        super().__init__(model)
        self.user_id = user_id
        self.position = position
        #: Budget granted each period, cost units (NaN: no per-period account).
        self.allowance = math.nan
        self.budget_factor = budget_factor
        self.criterion = criterion
        self.cost_per_work = cost_per_work
        self.jobs = sorted(jobs, key=lambda j: (j.submit_time, j.index))  # ties: trace order
        self._next = 0
        self.submitted = 0
        self.satisfaction = 1.0
        #: Moving averages (as the satisfaction's) of each factor of a job's score apart:
        #: ``1 - u`` (the alternative), ``T / (T + wait)`` (the whole wait) and
        #: ``T / (T + queueing)`` (the wait less the delay the user chose).
        self.choice_part = self.wait_part = self.queue_part = 1.0
        #: ``(choice_part, wait_part, queue_part)`` when the user left (None: still in).
        self.parts_at_leaving: tuple[float, float, float] | None = None
        self.evaluated = 0
        self.active = True
        self.left_at = math.nan
        self._submit_due = callback(self, "submit_due")  # what submission events call
        if self.jobs:
            model.schedule_event(self._submit_due, at=self.jobs[0].submit_time)

    def budget_for(self, job: Job) -> float:
        """Budget ``C`` of ``job`` under this user's budget rule (cost units)."""
        return self.budget_factor * job.n * job.volume * self.cost_per_work

    @property
    def _accounts(self) -> bool:
        """Whether the model keeps per-period accounts (``budget_period`` set)."""
        return self.model.budget_period is not None

    @property
    def balance(self) -> float:
        """What is left of this period's allowance, cost units (NaN: no per-period account)."""
        if not self._accounts:
            return math.nan
        return float(self.model.user_balance[self.position])

    def replenish(self) -> None:
        """Reset the balance to the allowance (start of a budget period, no carry-over).

        References
        ----------
        VO Preferences §4: users' budgets; the per-period account is vosim's extension.
        """
        if self._accounts:
            self.model.user_balance[self.position] = self.allowance

    def charge(self, cost: float) -> None:
        """Take ``cost`` (cost units, >= 0) of a reserved window from the balance.

        References
        ----------
        VO Preferences §4: users' budgets; the per-period account is vosim's extension.
        """
        if self._accounts:
            self.model.user_balance[self.position] -= cost

    def evaluate(self, job: Job, u: float, wait: float) -> None:
        """Update the satisfaction after ``job`` got a window; maybe leave the VO.

        A job scores ``q = (1 - u) * T / (T + wait)`` in [0, 1]: ``u`` is its user evaluation
        ``U`` scaled to [0, 1] (0: the alternative the user likes best) and the second factor
        penalises the wait (``T`` the requested time, model time units). Satisfaction is the
        moving average ``s <- 0.8 s + 0.2 q``. With ``model.user_exit_satisfaction`` set, a
        user whose satisfaction is below it after at least 3 scheduled jobs leaves the VO:
        its future jobs are withdrawn (with that reason). The factors are also averaged
        apart (:attr:`choice_part`, :attr:`wait_part`, and :attr:`queue_part` with the wait
        less the delay the user chose: the window's start less the earliest start the ledger
        noted), and kept as they were when the user left (:attr:`parts_at_leaving`): why
        users leave.

        References
        ----------
        VO Preferences §1-3 (fair rules keep participants in the VO; user evaluations ``U``);
        the satisfaction rule is vosim's.
        """
        t = max(job.requested_time, 1e-12)
        choice = 1.0 - min(max(u, 0.0), 1.0)
        waited = t / (t + max(wait, 0.0))
        ledger = self.model.ledger
        chosen = ledger.start[job.index] - ledger.earliest_start[job.index]
        queued = t / (t + max(wait - (chosen if chosen > 0 else 0.0), 0.0))
        self.satisfaction = 0.8 * self.satisfaction + 0.2 * choice * waited
        self.choice_part = 0.8 * self.choice_part + 0.2 * choice
        self.wait_part = 0.8 * self.wait_part + 0.2 * waited
        self.queue_part = 0.8 * self.queue_part + 0.2 * queued
        self.model.users_changed = True
        self.evaluated += 1
        threshold = getattr(self.model, "user_exit_satisfaction", None)
        if (
            self.active
            and threshold is not None
            and self.evaluated >= 3
            and self.satisfaction < threshold
        ):
            self.active = False
            self.left_at = float(self.model.time)
            self.parts_at_leaving = (self.choice_part, self.wait_part, self.queue_part)

    def replayed(
        self,
        evaluated: int,
        satisfaction: float,
        choice_part: float,
        wait_part: float,
        queue_part: float,
    ) -> None:
        """Take the end of a run replayed in one loop: every job submitted, ``evaluated`` scored.

        ``satisfaction`` and its parts (each in [0, 1]) are the values :meth:`evaluate` left
        after the last of this user's ``evaluated`` jobs (:mod:`vosim.agents.replay`). Its
        pending submission event then submits nothing. Raises nothing. Source: as
        :meth:`evaluate` (VO Preferences §1-3; the satisfaction rule is vosim's).
        """
        self._next = self.submitted = len(self.jobs)
        self.evaluated = evaluated
        self.satisfaction = satisfaction
        self.choice_part, self.wait_part, self.queue_part = choice_part, wait_part, queue_part
        self.model.users_changed = True

    def submit_due(self) -> None:
        """Submit every job whose submit time has come, then schedule the next submission.

        A user who left the VO withdraws all its remaining jobs at once (``withdrawn``; they
        never enter the queue).
        """
        now = self.model.time
        if not self.active:
            while self._next < len(self.jobs):
                job = self.jobs[self._next]
                self._next += 1
                self.model.ledger.withdraw(
                    job, "user left the VO (satisfaction below the threshold)"
                )
            return
        accepted = False
        while self._next < len(self.jobs) and self.jobs[self._next].submit_time <= now:
            job = self.jobs[self._next]
            self._next += 1
            self.model.ledger.offer(job, self.budget_for(job), self.criterion)
            self.submitted += 1
            accepted |= self.model.metascheduler.submit(job)
        if self._next < len(self.jobs):
            self.model.schedule_event(self._submit_due, at=self.jobs[self._next].submit_time)
        if accepted:
            self.model.metascheduler.request_pass()  # last: the pass may run at once
