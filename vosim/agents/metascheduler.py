"""MetaschedulerAgent: each scheduling cycle asks the VO's policy and applies its decisions."""

from __future__ import annotations

import math
from functools import partial

import mesa
import numpy as np

from vosim.agents.callbacks import callback
from vosim.agents.event_list import earliest_time
from vosim.agents.execution import Execution
from vosim.agents.ledger import JobStateError
from vosim.agents.offers import Offers
from vosim.agents.patience import Patience
from vosim.agents.queue import JobQueue
from vosim.allocators.base import Window
from vosim.allocators.fallback import FallbackLog
from vosim.allocators.request_screen import ALLOCATOR_FAILED, SCREEN_REASONS
from vosim.core.slots import SlotList
from vosim.market.workload import Job
from vosim.policies.base import CycleState, Decisions, Policy
from vosim.policies.cyclic_scheme import DEFAULT_CRITERION_ALLOCATORS
from vosim.policies.replan import REPLAN_MODES, Replanner

__all__ = ["MetaschedulerAgent", "DEFAULT_CRITERION_ALLOCATORS"]

#: A reserved job with no choice made: one alternative, user evaluation 0 (scale 1).
_SINGLE = (0, np.zeros(1), 1.0)
_NONE = np.empty(0, dtype=np.int64)  # no node freed since the last cycle
_NONE.flags.writeable = False


class MetaschedulerAgent(mesa.Agent):
    """The VO metascheduler: one scheduling cycle that asks a policy and applies its decisions.

    Each cycle (periodic, :class:`~vosim.agents.periodic.PeriodicCycles`, or with
    ``event_driven`` a pass after every job end and arrival that may change something:
    :meth:`request_pass`) builds the :class:`~vosim.policies.base.CycleState` (the free slots
    of ``[t, t + L)``, the queue, the unstarted reservations; each only if the policy reads
    it), calls the policy (:mod:`vosim.policies`: ``css``, ``fcfs``, ``easy``, ...; what to
    decide is its alone) and applies its decisions: cancellations (refunded, released), then
    reservations at the owners (charged, realised: a window can fail), then the end events.

    Parameters
    ----------
    model : VOModel
        The model (provides ``owners``, ``jobs``, ``node_price``, ``node_performance``).
    scheduling_interval : float
        Length ``L`` of the scheduling interval, model time units.
    scheduler : Policy
        The policy deciding each cycle (e.g. :class:`~vosim.policies.cyclic_scheme.CyclicScheme`).
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
    VO Preferences §2 (the cycle over the slot list of the scheduling interval); AEP §1;
    Mu'alem & Feitelson (2001) §2 and vosim's rule of re-planning every policy's reservations
    (:mod:`vosim.policies.replan`).
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
        #: Whether a pass acts even with nothing waiting: it reprices, or reviews owners.
        self._passes_act = model.pricing_policy != "fixed" or model.owner_exit_revenue is not None
        #: Re-plans unstarted reservations before each pass (``None``: never, or the policy
        #: does it itself). Static: only the VO's early ends free time before a reservation;
        #: only those that may move are searched (with availability too: see Replanner).
        replans = replan == "always" and not scheduler.replans
        self.replanner = Replanner(static=not self._passes_act) if replans else None
        self._pass_at, self._cycle = -math.inf, callback(self, "cycle")  # pass: when, what
        #: The waiting jobs, arrivals and leavers between cycles.
        self.queue = JobQueue(model)
        self._freed: set[int] = set()  # nodes with reserved time released since the last cycle
        self._refreshed = False  # users' balances replenished since the last cycle
        self._reasons: dict[int, str] = {}  # why a job got no window (policy without a record)
        self._owner = np.array([o.owner_id for o in model.owner_of_node], dtype=np.int64)
        #: The owners' free slots, read each cycle.
        self.offers = Offers(model)
        #: The jobs holding windows: reservation, run, completion or interruption.
        self.execution = Execution(
            model, event_driven, self.queue.arrived, self._freed, self.request_pass
        )
        #: Withdraws jobs not started ``model.patience`` after submission (None: never).
        self.patience = (
            Patience(model, model.patience, self.withdraw) if model.patience is not None else None
        )
        self.cycles = 0
        self.last_batch = self.last_scheduled = self.last_alternatives = 0
        self.last_ua = self.last_vo_evaluation = self.last_vo_total = math.nan

    # -- submissions -------------------------------------------------------------------------
    def submit(self, job: Job) -> bool:
        """Accept ``job`` into the queue, or reject it at once if it can never run.

        Returns whether it was accepted (:meth:`JobQueue.admit
        <vosim.agents.queue.JobQueue.admit>` says what is rejected); the submitting event
        then asks for the pass (:meth:`request_pass`).
        """
        if not self.queue.admit(job):
            return False
        if self.patience is not None:
            self.patience.watch(job)
        return True

    def withdraw(self, job: Job, at: float, reason: str) -> None:
        """Take the waiting ``job`` out of the queue: ``withdrawn`` at time ``at``, ``reason``.

        The policy learns it at the next cycle (``CycleState.left``).

        Raises
        ------
        JobStateError
            ``job`` is not waiting (a ``ValueError``).
        """
        state = self.model.ledger.state[job.index]
        if state != "waiting":
            raise JobStateError(
                f"job {job.job_id} (trace row {job.index}) is {state}, not waiting: it "
                "cannot be withdrawn from the queue"
            )
        self.queue.withdraw(job.index)
        self.model.ledger.withdraw(job, reason, at)

    def budgets_refreshed(self) -> None:
        """Tell the next cycle that users' balances were replenished (jobs may now pay)."""
        self._refreshed = True

    # -- the scheduling cycle ----------------------------------------------------------------
    def slot_list(self, now: float, nodes: np.ndarray | None = None) -> SlotList:
        """Free slots of all owners' nodes over ``[now, now + L)``.

        ``nodes`` (node ids, shape (r,)): only those nodes' slots (a fraction of the cost).
        """
        return self.offers.slot_list(now, now + self.scheduling_interval, nodes)

    def cycle(self) -> None:
        """Run one scheduling cycle at the current model time: ask the policy, apply."""
        model, now = self.model, self.model.time
        self.cycles += 1
        self._pass_at = -math.inf  # an end at this time after this pass asks for another
        model.reprice(now)  # owners' pricing policies see the cycle that just ended
        model.review_owners(now)
        queue = self.queue
        if self.patience is not None and queue.arrived:
            self.patience.requeued([model.jobs[j] for j in queue.arrived])
        arrived = queue.take_arrivals()
        self.last_batch = queue.count
        self.offers.prepare(now, now + self.scheduling_interval)  # reading the state: no effect
        freed = np.fromiter(self._freed, dtype=np.int64, count=len(self._freed))
        if freed.size and self.offers.pooled:  # a pool's time is freed as a count
            freed = model.free_time.members(freed)
        state = CycleState(
            now,
            now + self.scheduling_interval,
            partial(self.slot_list, now),
            queue.jobs,
            partial(queue.reserved, self.execution.unstarted),
            owner=self._owner,
            arrived=partial(queue.views, arrived),
            freed=freed if freed.size else _NONE,
            refreshed=self._refreshed,
            left=queue.take_left(),
            balance=model.user_balance if model.budget_period is not None else None,
            availability=(
                partial(self.execution.utilization_schedule, now) if model.availability else None
            ),
            processors=(
                partial(self.execution.processors, now, now + self.scheduling_interval)
                if self.offers.counted
                else None
            ),
            pool=model.free_time.pool if self.offers.pooled else None,
            held=model.ledger.held,
        )
        self._freed.clear()
        self._refreshed = False
        rp = self.replanner  # re-plans, then asks the policy
        decisions = rp.decide(self.scheduler, state) if rp else self.scheduler.decide(state)
        self.last_scheduled = self._apply(decisions, state)
        self.last_alternatives = decisions.stats.get("alternatives", len(decisions.reserve))
        self.last_ua = decisions.stats.get("ua", math.nan)
        self.last_vo_evaluation = decisions.stats.get("vo_evaluation", math.nan)
        self.last_vo_total = decisions.stats.get("vo_total", math.nan)
        model.record_cycle()

    def _apply(self, decisions: Decisions, state: CycleState) -> int:
        """Apply a policy's decisions: cancellations, then reservations; returns reserved.

        A cancelled job reserved again has moved (its user is not evaluated again: it keeps
        the evaluation of its first window); one not reserved again waits in the queue. A
        window decided but not taken (over the balance, or no packing binds it) leaves free
        time the pass's later searches saw as taken: its nodes join ``freed``, so that the
        searches that found nothing because of it are made again (the static market's
        shortcut and sleeping request classes look only where time was freed).
        """
        model = self.model
        cancelled = {k: self.execution.cancel(model.jobs[k]) for k in decisions.cancel}
        scheduled, accounts = 0, model.budget_period is not None
        pooled = self.offers.pooled
        # Without accounts every window bound is reserved, so windows are bound in one call
        # as bind binds each after the earlier are reserved; a window only a packing places
        # is bound alone, and the next call starts after it.
        windows = [window for _, window in decisions.reserve]
        ahead: dict[int, Window] = {}
        batch = 0 if pooled and not accounts else len(windows)
        for i, (k, window) in enumerate(decisions.reserve):
            if i == batch:
                got = self.execution.bind_in_order(windows[i:])
                ahead = dict(enumerate(got, start=i))
                batch = i + len(got) + 1
            job = model.jobs[k]
            if accounts and (short := self.queue.unaffordable(job, window)):
                self._reasons[job.index] = short  # waits for what is left of the balance
                self._not_taken(window)
                continue
            moved = k in cancelled  # keeps the user evaluation of the window it had
            if pooled:  # the count view's window on processors, if it can be
                bound = ahead[i] if i in ahead else self.execution.bind(window)
                if bound is None:  # waits: local work ahead on its pools forbids a packing
                    self._reasons[job.index] = "no packing of its pools' processors holds it"
                    self._not_taken(window)
                    if not moved:  # back to the policy as arrived (a moved job is already)
                        self.queue.remove(k)
                        self.queue.arrived.append(k)
                    continue
                window = bound
            if not moved:
                choice, evals, scale = decisions.evaluations.get(k, _SINGLE)
                earliest = decisions.earliest.get(k, window.start)
                model.ledger.choose(job, len(evals), float(evals[choice]), earliest)
            self.execution.reserve(job, window, state.availability)
            if not moved:
                model.user_agent[job.user].evaluate(
                    job,
                    model.ledger.user_evaluation[k] / scale,
                    model.ledger.start[k] - job.submit_time,
                )
            cancelled.pop(k, None)
            self.queue.remove(k)
            scheduled += 1
        if not self.scheduler.records_searches:
            self._reasons.update(decisions.reasons)
        self.queue.arrived.extend(cancelled)  # cancelled and not moved: waits again
        return scheduled

    def _not_taken(self, window: Window) -> None:
        """Return the nodes of a decided ``window`` that was not taken to ``freed``.

        On the count view a window's node ids stand for their pools; the next cycle reads
        ``freed`` by pools (as it reads every release).
        """
        self._freed.update(window.spans.node.tolist())

    def can_act(self) -> bool:
        """Whether a cycle now could decide or change anything.

        Jobs wait, arrived or left; nodes were freed; balances grew; a reservation has not
        started; or every pass reprices or reviews owners. If not, periodic cycles skip ahead.
        """
        pending = self._passes_act or self._freed or self._refreshed or not self.queue.settled
        return bool(pending or self.execution.unstarted())

    def request_pass(self) -> None:
        """A pass now, after this time's other events (event driven; call it last in an event).

        At once if no other event waits at this time; none if it cannot act (nothing waits,
        none was reserved to start later, no pass reprices or reviews owners).
        """
        now = self.model.time
        if not (self.queue or self.execution.ahead or self._passes_act):
            return
        if self.event_driven and self._pass_at != now:
            self._pass_at = now
            first = earliest_time(self.model)
            if first is not None and first <= now:  # others first (a cancelled one: harmless)
                self.model.schedule_event(self._cycle, at=now, priority=mesa.time.Priority.LOW)
            else:
                self._cycle()

    @property
    def queue_length(self) -> int:
        """Jobs waiting for a window, including those submitted since the last cycle."""
        return len(self.queue)

    @property
    def fallbacks(self) -> FallbackLog:
        """Calls and fallbacks of the policy's fallback chains (empty if it has none)."""
        return self.scheduler.fallbacks or FallbackLog()

    def last_code(self, job: Job) -> tuple[int, str]:
        """The screening or allocator code of ``job``'s last search, with the reason.

        Asks the policy when it keeps its own record (``last_code(index)``, as the cyclic
        scheme does); else the reason the policy gave last (``ALLOCATOR_FAILED``), or
        ``(0, "")`` if it gave none.
        """
        if self.scheduler.records_searches:
            return self.scheduler.last_code(job.index)
        reason = self._reasons.get(job.index, "")
        return (ALLOCATOR_FAILED if reason else 0), reason

    def wait_reason(self, job: Job) -> str:
        """Why ``job`` got no window in the last cycle that searched it ("" if never searched)."""
        if self.model.ledger.state[job.index] != "waiting":
            return ""
        code, reason = self.last_code(job)
        if code == ALLOCATOR_FAILED:
            return reason
        return SCREEN_REASONS.get(code, "")
