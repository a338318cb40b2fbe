"""The metascheduler's queue: waiting jobs in trace order, arrivals and leavers between cycles."""

from __future__ import annotations

import bisect

import mesa
import numpy as np

from vosim.allocators.base import Window
from vosim.allocators.request_screen import least_cost_per_work, unservable_reason
from vosim.core import ResourceRequest
from vosim.market.workload import Job

__all__ = ["JobQueue"]

_NONE = np.empty(0, dtype=np.int64)


class JobQueue:
    """The VO's queue of waiting jobs, kept between scheduling cycles by model job index.

    Jobs enter at submission (:meth:`admit`: screened, then noted as *arrived*), join the
    waiting jobs at the next cycle (:meth:`take_arrivals`), and leave when a window is
    reserved for them (:meth:`remove`) or their user withdraws them (:meth:`withdraw`).
    Interrupted and cancelled jobs come back through :attr:`arrived`. The policy sees the
    queue as :class:`~vosim.policies.base.ResourceRequest` views in trace order (:meth:`jobs`).

    Parameters
    ----------
    model : VOModel
        The model (``jobs``, ``node_price``, ``node_performance``, ``job_budget``; under
        per-period accounts ``budget_period``, ``user_balance``, ``job_user_index``).

    References
    ----------
    VO Preferences §2 (the metascheduler's batch of jobs waiting for the next cycle); the
    queue order is the trace's (Mu'alem & Feitelson 2001 §2: FCFS order).
    """

    def __init__(self, model: mesa.Model) -> None:
        self.model = model
        #: Jobs submitted, interrupted or cancelled since the last cycle (model indices).
        self.arrived: list[int] = []
        #: Whether each job (by model index) is in the queue the policy last saw.
        self.waiting = np.zeros(len(model.jobs), dtype=bool)
        self._count = 0  # number of True in waiting
        self._order: list[int] = []  # waiting jobs ascending (and some that left: filtered)
        self._views: dict[int, ResourceRequest] = {}  # waiting jobs' views (fixed without accounts)
        self._held_views: dict[
            int, ResourceRequest
        ] = {}  # the same of the reservations not started
        self._left: list[int] = []  # withdrawn from the queue since the last cycle
        # Fixed prices: the cheapest window's cost per unit of work for n tasks, O(1) per job.
        self._least_per_work = (
            least_cost_per_work(model.node_price, model.node_performance)
            if model.pricing_policy == "fixed"
            else None
        )

    def __len__(self) -> int:
        """Jobs waiting for a window, including those arrived since the last cycle."""
        return self._count + len(self.arrived)

    @property
    def count(self) -> int:
        """Jobs waiting in the queue the policy last saw (arrivals since not counted)."""
        return self._count

    def admit(self, job: Job) -> bool:
        """Queue ``job`` (state ``waiting``), or reject it at once if it can never run.

        Rejected (state ``rejected``, ``job.reason`` says why): a job marked unusable when it
        was mapped, and a job whose budget is below the cheapest window the whole domain
        could ever offer (the ``n`` cheapest nodes; prices are fixed). Returns whether it
        was queued. (VO Preferences §2: a job no window can serve within ``C``.)
        """
        model = self.model
        reason = job.reason or unservable_reason(
            job.n,
            job.volume,
            job.budget,
            model.node_price,
            model.node_performance,
            self._least_per_work,
        )
        if reason:
            model.ledger.reject(job, reason)
            return False
        model.ledger.queue(job)
        model.job_budget[job.index] = job.budget
        self.arrived.append(job.index)
        return True

    def withdraw(self, index: int) -> None:
        """Take the job at model ``index`` out of the queue (its user withdrew it)."""
        if self.waiting[index]:
            self.waiting[index] = False
            self._count -= 1
            self._left.append(index)
        else:  # arrived since the last cycle: the policy never saw it
            self.arrived.remove(index)
        self._views.pop(index, None)

    def remove(self, index: int) -> None:
        """The job at model ``index`` got a window: it leaves the queue (if it was in it)."""
        if self.waiting[index]:
            self.waiting[index] = False
            self._count -= 1
        self._views.pop(index, None)  # made again, equal, if it ever waits again

    @property
    def settled(self) -> bool:
        """Nothing for the next cycle to take: no job waiting or arrived, none withdrawn.

        (A periodic cycle then may skip ahead.)
        """
        return not (self._count or self.arrived or self._left)

    def unaffordable(self, job: Job, window: Window) -> str:
        """Why ``job``'s user cannot pay ``window`` from this period's balance ("" if it can).

        Under per-period accounts a policy decides with ``min(C, balance)`` per job; later
        jobs of one user in a cycle may exceed what is left, and wait (VO Preferences §4;
        per-period accounts are vosim's). ``window.cost`` in cost units.
        """
        model = self.model
        balance = float(model.user_balance[model.job_user_index[job.index]])
        if window.cost <= balance * (1 + 1e-9):
            return ""
        return (
            f"user's balance {balance:.6g} below the window's cost {window.cost:.6g} after "
            "this cycle's other reservations"
        )

    def take_arrivals(self) -> list[int]:
        """Move the jobs arrived since the last cycle into the queue; return them (indices)."""
        arrived = self.arrived[:]
        if not arrived:
            return arrived
        self.arrived.clear()
        self.waiting[arrived] = True
        self._count += len(arrived)
        order = self._order
        for j in arrived:  # trace order; arrivals are nearly always the latest jobs
            if not order or j > order[-1]:
                order.append(j)
            else:
                at = bisect.bisect_left(order, j)
                if at == len(order) or order[at] != j:
                    order.insert(at, j)
        return arrived

    def take_left(self) -> np.ndarray:
        """The jobs withdrawn since the last call (model indices, shape (k,)); forgotten."""
        if not self._left:
            return _NONE
        left = np.asarray(self._left, dtype=np.int64)
        self._left.clear()
        return left

    def jobs(self) -> list[ResourceRequest]:
        """The waiting jobs in queue (trace) order, with what each may spend now.

        A job may spend its budget ``C``; under per-period accounts ``min(C, balance)``
        of its user's balance (never below 0).
        """
        model = self.model
        if model.budget_period is None:  # budgets are fixed: one ResourceRequest per job
            order, waiting, known = self._order, self.waiting, self._views
            if len(order) != self._count:  # jobs that left the queue
                order[:] = [j for j in order if waiting[j]]
            out = []
            for j in order:
                q = known.get(j)
                if q is None:
                    q = known[j] = self.view(j, float(model.job_budget[j]))
                out.append(q)
            return out
        index = np.flatnonzero(self.waiting)
        balance = model.user_balance[model.job_user_index[index]]
        budget = np.minimum(model.job_budget[index], np.maximum(balance, 0.0))
        return [self.view(j, b) for j, b in zip(index.tolist(), budget.tolist(), strict=True)]

    def reserved(self, running: list[Job], ahead: bool) -> list[tuple[ResourceRequest, Window]]:
        """The reservations among ``running`` not started yet, in queue (trace) order.

        Each job's budget is what it may spend on a new window in place of its reservation:
        ``C``; under per-period accounts ``min(C, window cost + balance)`` when the window's
        hold was taken in this budget period (cancelling returns it), else 0 (a hold of an
        earlier period is not returned, so a new window would be charged twice). Empty at
        no cost when no window was ever reserved ahead of its pass (``ahead`` false: FCFS,
        EASY).
        """
        if not ahead:
            return []
        model, now = self.model, self.model.time
        later = sorted((j for j in running if j.start > now), key=lambda j: j.index)
        if model.budget_period is None:  # fixed budgets: one view per reserved job, kept
            kept, views = self._held_views, {}
            for j in later:
                views[j.index] = kept.get(j.index) or self.view(j.index, j.budget)
            self._held_views = views
            return [(views[j.index], j.window) for j in later]
        balance, user = model.user_balance, model.job_user_index
        return [
            (
                self.view(
                    j.index,
                    min(j.budget, j.window.cost + max(float(balance[user[j.index]]), 0.0))
                    if j.held_in == model.budget_periods
                    else 0.0,
                ),
                j.window,
            )
            for j in later
        ]

    def views(self, indices: list[int]) -> list[ResourceRequest]:
        """The jobs at model ``indices`` as a policy sees them, each with its budget ``C``."""
        jobs = self.model.jobs
        return [self.view(j, jobs[j].budget) for j in indices]

    def view(self, index: int, budget: float) -> ResourceRequest:
        """The job at model ``index`` as a policy sees it (budget ``budget``, cost units)."""
        job = self.model.jobs[index]
        user = int(self.model.job_user_index[index]) if self.model.budget_period else -1
        return ResourceRequest(
            index=index,
            n=job.n,
            volume=job.volume,
            budget=budget,
            criterion=job.criterion,
            submit_time=job.submit_time,
            account=user,
        )
