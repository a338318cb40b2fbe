"""The metascheduler's queue: waiting jobs in trace order, arrivals and leavers between cycles."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import replace

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
    queue as the jobs' requests (:class:`~vosim.core.ResourceRequest`) in trace order
    (:meth:`jobs`).

    Parameters
    ----------
    model : VOModel
        The model (``jobs``, ``ledger``, ``node_price``, ``node_performance``; under
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

        Rejected (state ``rejected``, the ledger's ``reason`` says why): a job marked unusable
        when it was mapped, and a job whose budget is below the cheapest window the whole domain
        could ever offer (the ``n`` cheapest nodes; prices are fixed). Returns whether it
        was queued. (VO Preferences §2: a job no window can serve within ``C``.)
        """
        model, ledger = self.model, self.model.ledger
        reason = self.refusal(job, float(ledger.budget[job.index]))
        if reason:
            ledger.reject(job, reason)
            return False
        account = int(model.job_user_index[job.index]) if model.budget_period else -1
        ledger.queue(job, account)
        self.arrived.append(job.index)
        return True

    def refusal(self, job: Job, budget: float) -> str:
        """Why ``job``, submitted with budget ``C`` (cost units), can never run here.

        The reason its trace mapping gave, else :func:`unservable_reason` of its request on
        the domain's nodes; "" if the queue admits it. Reading the state only; raises
        nothing. VO Preferences §2: a job no window can serve within ``C``.
        """
        model = self.model
        return job.reason or unservable_reason(
            job.n,
            job.volume,
            budget,
            model.node_price,
            model.node_performance,
            self._least_per_work,
        )

    def withdraw(self, index: int) -> None:
        """Take the job at model ``index`` out of the queue (its user withdrew it)."""
        if self.waiting[index]:
            self.waiting[index] = False
            self._count -= 1
            self._left.append(index)
        else:  # arrived since the last cycle: the policy never saw it
            self.arrived.remove(index)

    def remove(self, index: int) -> None:
        """The job at model ``index`` got a window: it leaves the queue (if it was in it)."""
        if self.waiting[index]:
            self.waiting[index] = False
            self._count -= 1

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
        """The waiting jobs' requests in queue (trace) order, with what each may spend now.

        A job may spend its budget ``C``; under per-period accounts ``min(C, balance)``
        of its user's balance (never below 0).
        """
        model, request = self.model, self.model.ledger.request
        if model.budget_period is None:  # budgets are fixed: each job's own request
            order, waiting = self._order, self.waiting
            if len(order) != self._count:  # jobs that left the queue
                order[:] = [j for j in order if waiting[j]]
            return [request[j] for j in order]
        index = np.flatnonzero(self.waiting)
        balance = model.user_balance[model.job_user_index[index]]
        budget = np.minimum(model.ledger.budget[index], np.maximum(balance, 0.0))
        return [self.view(j, b) for j, b in zip(index.tolist(), budget.tolist(), strict=True)]

    def reserved(self, unstarted: Callable[[], list[int]]) -> list[tuple[ResourceRequest, Window]]:
        """The reservations not started yet, in queue (trace) order, as the pass re-plans them.

        ``unstarted`` gives their job indices, ascending
        (:meth:`Execution.unstarted <vosim.agents.execution.Execution.unstarted>`). Each
        job's budget is what it may spend on a new window in place of its reservation:
        ``C``; under per-period accounts ``min(C, window cost + balance)`` when the window's
        hold was taken in this budget period (cancelling returns it), else 0 (a hold of an
        earlier period is not returned, so a new window would be charged twice). Raises
        nothing.
        """
        later = unstarted()
        if not later:
            return []
        model, ledger = self.model, self.model.ledger
        window = ledger.window
        if model.budget_period is None:  # fixed budgets: each job's own request
            return [(ledger.request[j], window[j]) for j in later]
        balance, user, budget = model.user_balance, model.job_user_index, ledger.budget
        return [
            (
                self.view(
                    j,
                    min(float(budget[j]), window[j].cost + max(float(balance[user[j]]), 0.0))
                    if ledger.held_in[j] == model.budget_periods
                    else 0.0,
                ),
                window[j],
            )
            for j in later
        ]

    def views(self, indices: list[int]) -> list[ResourceRequest]:
        """The jobs at model ``indices`` as a policy sees them, each with its budget ``C``."""
        request = self.model.ledger.request
        return [request[j] for j in indices]

    def view(self, index: int, budget: float) -> ResourceRequest:
        """The request of the job at model ``index`` with budget ``budget`` (cost units)."""
        request = self.model.ledger.request[index]
        return request if request.budget == budget else replace(request, budget=budget)
