"""MetaschedulerAgent: each scheduling cycle asks the VO's policy and applies its decisions."""

from __future__ import annotations

import bisect
import math
from functools import partial

import mesa
import numpy as np

from vosim.agents.execution import Execution
from vosim.agents.patience import Patience
from vosim.allocators.base import Window
from vosim.allocators.fallback import FallbackLog
from vosim.allocators.screen import (
    ALLOCATOR_FAILED,
    SCREEN_REASONS,
    least_cost_per_work,
    unservable_reason,
)
from vosim.market.slot_cache import SlotListCache
from vosim.market.slots import SlotList, free_slots
from vosim.market.workload import Job
from vosim.policies.base import CycleState, Decisions, Policy, QueuedJob
from vosim.policies.css import DEFAULT_CRITERION_ALLOCATORS
from vosim.policies.replan import REPLAN_MODES, Replanner

__all__ = ["MetaschedulerAgent", "DEFAULT_CRITERION_ALLOCATORS"]

#: A reserved job with no choice made: one alternative, user evaluation 0 (scale 1).
_SINGLE = (0, np.zeros(1), 1.0)
_NONE = np.empty(0, dtype=np.int64)


class MetaschedulerAgent(mesa.Agent):
    """The VO metascheduler: one scheduling cycle that asks a policy and applies its decisions.

    Each cycle (a recurring Mesa event, or with ``event_driven`` a pass after every job end
    and arrival) it builds the :class:`~vosim.policies.base.CycleState` (the free slot list of
    ``[t, t + L)`` from the owners' schedules, the queue, the unstarted reservations; each
    built only if the policy reads it), calls the policy, and applies its decisions:
    cancellations first (refunded, released), then reservations at the owners (charged,
    realised: a window can fail when owners' local jobs are uncertain), then the completion or
    failure events. What to decide is the policy's alone (:mod:`vosim.policies`: the cyclic
    scheduling scheme ``css``, ``availability``, ``fcfs``, ``easy``, ``conservative``,
    ``knapsack``, ...).

    Parameters
    ----------
    model : VOModel
        The model (provides ``owners``, ``jobs``, ``node_price``, ``node_performance``).
    scheduling_interval : float
        Length ``L`` of the scheduling interval, model time units.
    scheduler : Policy
        The policy deciding each cycle (e.g. :class:`~vosim.policies.css.CyclicScheme`).
    event_driven : bool
        Run a pass at every time a job ends or arrives (all ends at ``t`` first, then all
        arrivals at ``t``, then one pass), as batch systems do, instead of periodic cycles.
    replan : str
        ``"always"`` (default): before each pass the unstarted reservations are re-planned
        (:class:`~vosim.policies.replan.Replanner`: each moves to an earlier window no worse
        for its user, so no job starts later than first reserved), unless the policy does it
        itself (``replans = True``, conservative backfilling). ``"never"``: a reservation
        stays where it was made (the single-cycle scheme of the papers).

    Raises
    ------
    ValueError
        ``replan`` is not one of :data:`~vosim.policies.replan.REPLAN_MODES`.

    References
    ----------
    VO Preferences §2 (the metascheduler's cycle over the slot list of the scheduling
    interval); AEP §1; Mu'alem & Feitelson (2001) §2 and vosim's issue 18 (re-planning).
    """

    def __init__(
        self,
        model: mesa.Model,
        scheduling_interval: float,
        scheduler: Policy,
        event_driven: bool = False,
        replan: str = "always",
    ) -> None:
        super().__init__(model)
        self.scheduling_interval = scheduling_interval
        self.scheduler = scheduler
        self.event_driven = event_driven
        if replan not in REPLAN_MODES:
            raise ValueError(f"replan must be one of {', '.join(REPLAN_MODES)}, got {replan!r}")
        #: Re-plans unstarted reservations before each pass (``None``: never, the policy
        #: does it itself, or utilization uncertainty is on: not supported yet). Static:
        #: nothing but the VO's own early ends frees time before a reservation, so only
        #: reservations that may move are searched.
        self.replanner = (
            Replanner(static=model.pricing_policy == "fixed" and model.owner_exit_revenue is None)
            if replan == "always"
            and not getattr(scheduler, "replans", False)
            and not model.availability
            else None
        )
        self._pass_at = -math.inf  # time of the pass already scheduled (event driven)
        self._arrived: list[int] = []  # submitted or back in the queue since the last cycle
        self._waiting = np.zeros(len(model.jobs), dtype=bool)  # in the queue, by job index
        self._waiting_count = 0
        self._order: list[int] = []  # waiting jobs ascending (and some that left: filtered)
        self._queued_jobs: dict[int, QueuedJob] = {}  # without accounts a job's view is fixed
        self._freed: set[int] = set()  # nodes with reserved time released since the last cycle
        self._refreshed = False  # users' balances replenished since the last cycle
        self._reasons: dict[int, str] = {}  # why a job got no window (policy without a record)
        self._owner = np.array([o.owner_id for o in model.owner_of_node], dtype=np.int64)
        self._slot_cache = (
            SlotListCache(model.node_price, model.node_performance)
            if model.pricing_policy == "fixed" and model.owner_exit_revenue is None
            else None
        )
        # Identical nodes holding only VO tasks (the traced machine): the slot list's count form
        # comes from the reservations alone (CycleState.processors).
        price, perf = model.node_price, model.node_performance
        self._counted = (
            model.pricing_policy == "fixed"
            and model.owner_exit_revenue is None
            and model.local_flow is None
            and not model.availability
            and bool((price == price[0]).all() and (perf == perf[0]).all())
        )
        # Fixed prices: the cheapest window's cost per unit of work for n tasks, O(1) per job.
        self._least_per_work = (
            least_cost_per_work(model.node_price, model.node_performance)
            if model.pricing_policy == "fixed"
            else None
        )
        #: The jobs holding windows: reservation, run, completion or interruption.
        self.execution = Execution(
            model, event_driven, self._arrived, self._freed, self.request_pass
        )
        self._left: list[int] = []  # withdrawn from the queue since the last cycle
        #: Withdraws jobs not started ``model.patience`` after submission (None: never).
        self.patience = (
            Patience(model, model.patience, self.withdraw) if model.patience is not None else None
        )
        self.rejected = self.withdrawn = self.cycles = 0
        self.last_batch = self.last_scheduled = self.last_alternatives = 0
        self.last_ua = self.last_vo_evaluation = self.last_vo_total = math.nan

    # -- submissions -------------------------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Accept ``job`` into the queue, or reject it at once if it can never run.

        Rejected: a job marked unusable when it was mapped, and a job whose budget is below the
        cheapest window the whole domain could ever offer (the ``n`` cheapest nodes; prices
        are fixed).
        """
        if not job.reason:
            model = self.model
            job.reason = unservable_reason(
                job.n,
                job.volume,
                job.budget,
                model.node_price,
                model.node_performance,
                self._least_per_work,
            )
        if job.reason:
            job.state = "rejected"
            self.rejected += 1
            return
        job.state = "waiting"
        self.model.job_budget[job.index] = job.budget
        self._arrived.append(job.index)
        if self.patience is not None:
            self.patience.watch(job)
        self.request_pass()

    def withdraw(self, job: Job, at: float, reason: str) -> None:
        """Take the waiting ``job`` out of the queue: ``withdrawn`` at time ``at``, ``reason``.

        The policy learns it at the next cycle (``CycleState.left``).

        Raises
        ------
        ValueError
            ``job`` is not waiting.
        """
        if job.state != "waiting":
            raise ValueError(f"job {job.job_id} is {job.state}, not waiting: cannot withdraw")
        k = job.index
        if self._waiting[k]:
            self._waiting[k] = False
            self._waiting_count -= 1
            self._left.append(k)
        else:  # arrived since the last cycle: the policy never saw it
            self._arrived.remove(k)
        job.state, job.reason, job.left_time = "withdrawn", reason, at
        self.withdrawn += 1

    def budgets_refreshed(self) -> None:
        """Tell the next cycle that users' balances were replenished (jobs may now pay)."""
        self._refreshed = True

    # -- the scheduling cycle ----------------------------------------------------------------
    def slot_list(self, now: float, nodes: np.ndarray | None = None) -> SlotList:
        """Free slots of all owners' nodes over ``[now, now + L)``.

        ``nodes`` (node ids, shape (r,)): only those nodes' slots; honoured where the slot
        list is kept between cycles (fixed prices and owners), else every node's are returned.
        """
        until = now + self.scheduling_interval
        model = self.model
        if self._slot_cache is not None:  # fixed prices and owners: spans kept between cycles
            for owner in model.owners:  # generates each owner's local load up to ``until``
                owner.prepare(now, until)
            return self._slot_cache.slots(model.owners, now, until, nodes)
        offers = [owner.offer(now, until) for owner in model.owners]
        node, a, b = (np.concatenate([o[k] for o in offers]) for k in range(3))
        return free_slots(
            model.node_ids, model.node_price, model.node_performance, node, a, b, now, until
        )

    def cycle(self) -> None:
        """Run one scheduling cycle at the current model time: ask the policy, apply."""
        model, now = self.model, self.model.time
        self.cycles += 1
        self._pass_at = -math.inf  # an end at this time after this pass asks for another
        model.reprice(now)  # owners' pricing policies see the cycle that just ended
        model.review_owners(now)
        if self.patience is not None and self._arrived:
            self.patience.requeued([model.jobs[j] for j in self._arrived])
        arrived = self._arrived[:]
        if arrived:
            self._arrived.clear()
            self._waiting[arrived] = True
            self._waiting_count += len(arrived)
            order = self._order
            for j in arrived:  # trace order; arrivals are nearly always the latest jobs
                if not order or j > order[-1]:
                    order.append(j)
                else:
                    at = bisect.bisect_left(order, j)
                    if at == len(order) or order[at] != j:
                        order.insert(at, j)
        self.last_batch = self._waiting_count
        accounts = model.budget_period is not None
        state = CycleState(
            now,
            now + self.scheduling_interval,
            partial(self.slot_list, now),
            self._queue,
            self._reserved,
            owner=self._owner,
            arrived=[self._queued(j, model.jobs[j].budget) for j in arrived],
            freed=np.fromiter(self._freed, dtype=np.int64, count=len(self._freed))
            if self._freed
            else _NONE,
            refreshed=self._refreshed,
            left=np.asarray(self._left, dtype=np.int64) if self._left else _NONE,
            balance=model.user_balance if accounts else None,
            availability=(
                partial(self.execution.utilization_schedule, now) if model.availability else None
            ),
            processors=(
                partial(
                    self.execution.processors,
                    now,
                    now + self.scheduling_interval,
                    float(model.node_price[0]),
                    float(model.node_performance[0]),
                )
                if self._counted
                else None
            ),
        )
        self._freed.clear()
        self._left.clear()
        self._refreshed = False
        if self.replanner is not None:
            decisions = self.replanner.decide(self.scheduler, state)
        else:
            decisions = self.scheduler.decide(state)
        self.last_scheduled = self._apply(decisions, state)
        self.last_alternatives = decisions.stats.get("alternatives", len(decisions.reserve))
        self.last_ua = decisions.stats.get("ua", math.nan)
        self.last_vo_evaluation = decisions.stats.get("vo_evaluation", math.nan)
        self.last_vo_total = decisions.stats.get("vo_total", math.nan)
        model.record_cycle()

    def _queue(self) -> list[QueuedJob]:
        """The waiting jobs in queue (trace) order, with what each may spend now."""
        model = self.model
        if model.budget_period is None:  # budgets are fixed: one QueuedJob per job
            order, waiting, known = self._order, self._waiting, self._queued_jobs
            if len(order) != self._waiting_count:  # jobs that left the queue
                order[:] = [j for j in order if waiting[j]]
            out = []
            for j in order:
                q = known.get(j)
                if q is None:
                    q = known[j] = self._queued(j, float(model.job_budget[j]))
                out.append(q)
            return out
        index = np.flatnonzero(self._waiting)
        budget = model.job_budget[index]
        if model.budget_period is not None:
            balance = model.user_balance[model.job_user_index[index]]
            budget = np.minimum(budget, np.maximum(balance, 0.0))
        return [self._queued(j, b) for j, b in zip(index.tolist(), budget.tolist(), strict=True)]

    def _reserved(self) -> list[tuple[QueuedJob, Window]]:
        """The reservations not started yet, in queue (trace) order.

        Each job's budget is what it may spend on a new window in place of its reservation:
        ``C``; under per-period accounts ``min(C, window cost + balance)`` when the window's
        hold was taken in this budget period (cancelling returns it), else 0 (a hold of an
        earlier period is not returned, so a new window would be charged twice). Empty at
        no cost while no window was ever reserved ahead of its pass (FCFS, EASY).
        """
        if not self.execution._ahead:
            return []
        model, now = self.model, self.model.time
        ahead = sorted((j for j in self.execution.running if j.start > now), key=lambda j: j.index)
        if model.budget_period is None:
            return [(self._queued(j.index, j.budget), j.window) for j in ahead]
        balance, user = model.user_balance, model.job_user_index
        return [
            (
                self._queued(
                    j.index,
                    min(j.budget, j.window.cost + max(float(balance[user[j.index]]), 0.0))
                    if j.held_in == model.budget_periods
                    else 0.0,
                ),
                j.window,
            )
            for j in ahead
        ]

    def _queued(self, index: int, budget: float) -> QueuedJob:
        """The job at model ``index`` as a policy sees it (budget ``budget``, cost units)."""
        job = self.model.jobs[index]
        user = int(self.model.job_user_index[index]) if self.model.budget_period else -1
        return QueuedJob(index, job.n, job.volume, budget, job.criterion, job.submit_time, user)

    def _apply(self, decisions: Decisions, state: CycleState) -> int:
        """Apply a policy's decisions: cancellations, then reservations; returns reserved.

        A cancelled job reserved again has moved (its user is not evaluated again: it keeps
        the evaluation of its first window); one not reserved again waits in the queue.
        """
        model = self.model
        cancelled = {k: self.execution.cancel(model.jobs[k]) for k in decisions.cancel}
        scheduled, accounts = 0, model.budget_period is not None
        for k, window in decisions.reserve:
            job = model.jobs[k]
            if accounts and not self._affordable(job, window):
                continue
            moved = k in cancelled  # keeps the user evaluation of the window it had
            if not moved:
                choice, evals, scale = decisions.evaluations.get(k, _SINGLE)
                job.alternatives = len(evals)
                job.user_evaluation = float(evals[choice])
            self.execution.reserve(job, window, state.availability)
            if not moved:
                model.user_agent[job.user].evaluate(
                    job, job.user_evaluation / scale, job.start - job.submit_time
                )
            cancelled.pop(k, None)
            if self._waiting[k]:
                self._waiting[k] = False
                self._waiting_count -= 1
            scheduled += 1
        if not hasattr(self.scheduler, "last_code"):
            self._reasons.update(decisions.reasons)
        self._arrived.extend(cancelled)  # cancelled and not moved: waits again
        return scheduled

    def _affordable(self, job: Job, window: Window) -> bool:
        """Whether ``job``'s user can still pay ``window`` from this period's balance (accounts).

        A policy decides with ``min(C, balance)`` per job; jobs of one user reserved in one
        cycle may together exceed the balance, and the later ones wait. (VO Preferences §4:
        users' budgets; the per-period account is vosim's extension.)
        """
        model = self.model
        balance = float(model.user_balance[model.job_user_index[job.index]])
        if window.cost <= balance * (1 + 1e-9):
            return True
        self._reasons[job.index] = (
            f"user's balance {balance:.6g} below the window's cost {window.cost:.6g} after "
            "this cycle's other reservations"
        )
        return False

    def request_pass(self) -> None:
        """Schedule a pass at the current time after its other events (event driven)."""
        now = self.model.time
        if self.event_driven and self._pass_at != now:
            self._pass_at = now
            self.model.schedule_event(self.cycle, at=now, priority=mesa.time.Priority.LOW)

    @property
    def queue_length(self) -> int:
        """Jobs waiting for a window, including those submitted since the last cycle."""
        return self._waiting_count + len(self._arrived)

    @property
    def fallbacks(self) -> FallbackLog:
        """Calls and fallbacks of the policy's fallback chains (empty if it has none)."""
        return getattr(self.scheduler, "fallbacks", None) or FallbackLog()

    def last_code(self, job: Job) -> tuple[int, str]:
        """The screening or allocator code of ``job``'s last search, with the reason.

        Asks the policy when it keeps its own record (``last_code(index)``, as the cyclic
        scheme does); else the reason the policy gave last (``ALLOCATOR_FAILED``), or
        ``(0, "")`` if it gave none.
        """
        own = getattr(self.scheduler, "last_code", None)
        if own is not None:
            return own(job.index)
        reason = self._reasons.get(job.index, "")
        return (ALLOCATOR_FAILED if reason else 0), reason

    def wait_reason(self, job: Job) -> str:
        """Why ``job`` got no window in the last cycle that searched it ("" if never searched)."""
        if job.state != "waiting":
            return ""
        code, reason = self.last_code(job)
        if code == ALLOCATOR_FAILED:
            return reason
        return SCREEN_REASONS.get(code, "")
