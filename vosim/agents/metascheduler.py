"""MetaschedulerAgent: the cyclic scheduling scheme of the VO."""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from functools import partial

import mesa
import numpy as np

from vosim.agents.request_classes import RequestClasses
from vosim.allocators.availability_window import max_availability_window
from vosim.allocators.base import Allocation, ResourceRequest, Window, allocate_window
from vosim.allocators.csa import BatchAlternatives, batch_alternatives
from vosim.allocators.css import VOPolicy, choose_alternatives
from vosim.allocators.fallback import FallbackLog
from vosim.allocators.screen import FITS_MAYBE, SCREEN_REASONS, screen_requests
from vosim.market.availability import UtilizationSchedule
from vosim.market.slot_cache import SlotListCache
from vosim.market.slots import SlotList, free_slots
from vosim.market.uncertainty import local_jobs_schedule, sample_interruption
from vosim.market.workload import Job
from vosim.policies.base import CycleState, Policy, QueuedJob

__all__ = ["MetaschedulerAgent", "DEFAULT_CRITERION_ALLOCATORS"]

#: Code of a job the allocator tried and found no window for (its reason is job.last_reason).
ALLOCATOR_FAILED = 3

#: Window criterion used for each user criterion (AEP §2.2): the exact minFinish, minRuntime
#: and minCost, and the maximum ``P_a^w`` window (ICCS 2021) for availability.
DEFAULT_CRITERION_ALLOCATORS: dict[str, str] = {
    "finish": "min_finish",
    "runtime": "min_runtime",
    "cost": "min_cost",
    "availability": "max_availability",
}


#: Jobs searched at a time in a first-fit cycle before the rest are screened again.
_CHUNK = 64
#: User evaluations of a job with a single alternative (or none), shared read-only.
_ONE_ZERO, _NO_EVALS = np.zeros(1), np.zeros(0)
_ONE_ZERO.flags.writeable = _NO_EVALS.flags.writeable = False


class MetaschedulerAgent(mesa.Agent):
    """The VO metascheduler: the cyclic scheduling scheme (CSS) with a VO policy.

    Each cycle (a recurring Mesa event) it takes the batch of waiting jobs, asks the owners for
    their node schedules over the scheduling interval ``[t, t + L)`` and builds the slot list.
    Step 1 finds up to ``policy.max_alternatives`` alternatives per job, in queue order, by the
    allocator matching the user's criterion, cutting each one out of the slot list so no two
    alternatives conflict. Step 2 picks one alternative per job under the VO policy (e.g.
    ``C -> max`` with the users' evaluations bounded by ``U_a``). The chosen windows are
    reserved at the owners; jobs without an alternative wait for the next cycle.

    On a static market (fixed prices, no owner leaving, no availability uncertainty) with first
    fit, the cycle works on classes of identical requests instead of jobs
    (:mod:`vosim.agents.request_classes`): the same windows for the same jobs, at a cost that
    does not grow with the queue.

    Parameters
    ----------
    model : VOModel
        The model (provides ``owners``, ``node_price``, ``node_performance``).
    scheduling_interval : float
        Length ``L`` of the scheduling interval, model time units.
    criterion_allocators : mapping of str to str
        User criterion -> registered window criterion (default
        :data:`DEFAULT_CRITERION_ALLOCATORS`).
    policy : VOPolicy, optional
        The VO policy of step 2; default ``VOPolicy(max_alternatives=1)``: first fit, one
        alternative per job, nothing to choose.
    scheduler : Policy, optional
        A registered scheduling policy (:mod:`vosim.policies`, e.g. EASY) that decides each
        pass instead of the cyclic scheme; the agent builds its
        :class:`~vosim.policies.base.CycleState` and applies its decisions.
    event_driven : bool
        Run a pass at every time a job ends or arrives (all ends at ``t`` first, then all
        arrivals at ``t``, then one pass), as batch systems do, instead of periodic cycles.

    References
    ----------
    VO Preferences §2 (CSS: step 1 first fit in queue order with slot reservation, step 2 the
    combination) and §3 (user evaluations, ``U_a``, the VO evaluation ``A``); AEP §1.
    """

    def __init__(
        self,
        model: mesa.Model,
        scheduling_interval: float,
        criterion_allocators: Mapping[str, str] | None = None,
        policy: VOPolicy | None = None,
        scheduler: Policy | None = None,
        event_driven: bool = False,
    ) -> None:
        super().__init__(model)
        self.scheduling_interval = scheduling_interval
        self.criterion_allocators = dict(criterion_allocators or DEFAULT_CRITERION_ALLOCATORS)
        self.vo_policy = policy or VOPolicy(max_alternatives=1)
        #: The registered scheduling policy deciding each pass (``None``: the CSS below).
        self.scheduler = scheduler
        #: Passes run at every job end and arrival (``cycle_period`` 0) instead of periodically.
        self.event_driven = event_driven
        self._pass_at = -math.inf  # time of the pass already scheduled (event driven)
        #: Calls and fallbacks of every fallback chain searched (``summary.json``).
        self.fallbacks = FallbackLog()
        self._queue = np.empty(0, dtype=np.int64)  # see the queue property
        self._queue_fresh = True
        self._submitted: list[int] = []  # submitted since the last cycle, in order
        self._requeued: list[int] = []  # failed jobs to put back in the queue
        #: Jobs grouped by identical request (see vosim.agents.request_classes).
        self.classes = RequestClasses(
            len(model.jobs), model.node_performance, model.node_price, scheduling_interval
        )
        # On a static market first fit searches request classes, not jobs, and a class that
        # found no window sleeps until capacity it could use may appear (_cycle_classes).
        self._fast = (
            model.pricing_policy == "fixed"
            and model.owner_exit_revenue is None
            and not model.availability
            and self.vo_policy.max_alternatives == 1
            and scheduler is None
        )
        self._slot_cache = (
            SlotListCache(model.node_price, model.node_performance)
            if model.pricing_policy == "fixed" and model.owner_exit_revenue is None
            else None
        )
        # Fixed prices: the cheapest window of n tasks of volume V costs V times the sum of
        # the n least costs per unit of work, so _budget_reason is O(1) per job.
        self._least_per_work = (
            np.cumsum(np.sort(model.node_price / model.node_performance)).tolist()
            if model.pricing_policy == "fixed"
            else None
        )
        self._changed = True  # every waiting job is searched next cycle (_cycle_jobs)
        self._freed: set[int] = set()  # nodes with reserved time released since the last cycle
        self.wait_code = np.zeros(len(model.jobs), dtype=np.int8)
        self._job_stamp = np.full(len(model.jobs), -1, dtype=np.int64)  # cycle of wait_code
        self.running: list[Job] = []
        # busy_nodes: +1/-1 events at task starts and ends, (time, delta, job id, attempt)
        self._busy_events: list[tuple[float, int, int, int]] = []
        self._stopped: dict[tuple[int, int], float] = {}  # interrupted attempts: when
        self._busy = 0
        self._busy_at = -math.inf
        self._completions: list[tuple[float, int, int, Job]] = []
        self._failures: list[tuple[float, int, int, Job]] = []
        # Without uncertainty every node is available (P_a = 1) for the availability criterion.
        self._certain = UtilizationSchedule.from_chains(model.node_count)
        self.completed = 0
        self.rejected = 0
        self.cycles = 0
        self.last_batch = 0
        self.last_scheduled = 0
        self.last_alternatives = 0
        self.last_ua = math.nan
        self.last_vo_evaluation = math.nan
        self.last_vo_total = math.nan

    # -- submissions -------------------------------------------------------------------------
    def submit(self, job: Job) -> None:
        """Accept ``job`` into the queue, or reject it at once if it can never run.

        Rejected: a job marked unusable when it was mapped, and a job whose budget is below the
        cheapest window the whole domain could ever offer (the ``n`` cheapest nodes whose
        ``T_i`` fits the scheduling interval; prices are fixed).
        """
        if not job.reason:
            job.reason = self._budget_reason(job)
        if job.reason:
            job.state = "rejected"
            self.rejected += 1
            return
        job.state = "waiting"
        model = self.model
        model.job_budget[job.index] = job.budget
        user = int(model.job_user_index[job.index]) if model.budget_period is not None else -1
        self.classes.assign(job.index, job.n, job.volume, job.budget, job.criterion, user)
        self._submitted.append(job.index)
        self.request_pass()

    def _budget_reason(self, job: Job) -> str:
        model = self.model
        if model.node_price.size < job.n:
            return f"needs {job.n} nodes, more than the domain's {model.node_price.size}"
        if self._least_per_work is not None:  # equal to the sort below up to rounding
            floor = job.volume * self._least_per_work[job.n - 1]
        else:
            cost = np.sort(model.node_price * (job.volume / model.node_performance))
            floor = float(cost[: job.n].sum())
        if floor > job.budget * (1 + 1e-9):
            return f"budget C={job.budget:.6g} below the cheapest possible window ({floor:.6g})"
        return ""

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
        """Run one scheduling cycle at the current model time (a recurring event)."""
        now = self.model.time
        self.cycles += 1
        self._pass_at = -math.inf  # an end at this time after this pass asks for another
        self.model.reprice(now)  # owners' pricing policies see the cycle that just ended
        self.model.review_owners(now)
        self._merge_queue()
        self.last_batch = self.classes.total if self._fast else self._queue.size
        self.last_alternatives = 0
        self.last_ua = self.last_vo_evaluation = self.last_vo_total = math.nan
        scheduled = 0
        if self.scheduler is not None:
            scheduled = self._cycle_policy(now)
        elif self.last_batch:
            if self._fast and not self._changed:
                scheduled = self._cycle_classes(now)
            else:
                scheduled = self._cycle_jobs(now)
        self._freed.clear()
        self.last_scheduled = scheduled
        self.model.record_cycle()

    def _cycle_policy(self, now: float) -> int:
        """One pass of the registered scheduling policy; returns the jobs started or reserved.

        The policy sees the slot list, the waiting jobs in queue order and the reservations not
        yet started; this agent applies its decisions: cancellations first, then reservations
        (a cancelled job reserved again has moved; one not reserved again waits in the queue).
        """
        model = self.model
        until = now + self.scheduling_interval
        index = self.queue
        budget = self._budgets(index)
        queue = [self._queued(j, b) for j, b in zip(index.tolist(), budget.tolist(), strict=True)]
        ahead = sorted((j for j in self.running if j.start > now), key=lambda j: j.index)
        reserved = [(self._queued(j.index, j.budget), j.window) for j in ahead]
        if not queue and not reserved:
            return 0
        owner = np.array([o.owner_id for o in model.owner_of_node], dtype=np.int64)
        state = CycleState(now, until, self.slot_list(now), queue, reserved, owner=owner)
        decisions = self.scheduler.decide(state)
        cancelled = {k: self._cancel(model.jobs[k]) for k in decisions.cancel}
        taken = np.zeros(index.size, dtype=bool)
        position = {j: k for k, j in enumerate(index.tolist())}
        scheduled = 0
        for k, window in decisions.reserve:
            job = model.jobs[k]
            if not self._affordable(job, window):
                continue
            job.alternatives = 1
            job.user_evaluation = 0.0
            self._reserve(job, window)
            self._tell_user(job, _ONE_ZERO)
            cancelled.pop(k, None)
            if k in position:
                taken[position[k]] = True
            scheduled += 1
        for k, reason in decisions.reasons.items():
            model.jobs[k].last_reason = reason
            self.wait_code[k] = ALLOCATOR_FAILED
        self._job_stamp[index] = self.cycles
        self._requeued.extend(cancelled)  # cancelled and not moved: waits again
        self.last_alternatives = len(decisions.reserve)
        if scheduled:
            self._dequeue(taken)
        return scheduled

    def _queued(self, index: int, budget: float) -> QueuedJob:
        """The job at model ``index`` as a policy sees it (budget ``budget``, cost units)."""
        job = self.model.jobs[index]
        return QueuedJob(index, job.n, job.volume, budget, job.criterion, job.submit_time)

    def _cancel(self, job: Job) -> None:
        """Cancel ``job``'s unstarted reservation: nodes released, payment refunded."""
        model = self.model
        self.running.remove(job)
        self._stopped[job.job_id, job.attempt] = model.time  # its busy events lapse
        accounts = model.budget_period is not None
        self._release(job, [s.start for s in job.window.slots])
        for s in job.window.slots:
            model.owner_of_node[s.node].refund(s.price * (s.end - s.start))
            self._freed.add(s.node)
        if accounts:
            model.users[model.job_user_index[job.index]].charge(-job.window.cost)
        job.attempt += 1  # its completion event lapses
        job.state = "waiting"
        job.window = None
        job.start = job.finish = math.nan
        job.task_ends = ()

    def request_pass(self) -> None:
        """Schedule a pass at the current time after its other events (event driven)."""
        now = self.model.time
        if self.event_driven and self._pass_at != now:
            self._pass_at = now
            self.model.schedule_event(self.cycle, at=now, priority=mesa.time.Priority.LOW)

    def _cycle_jobs(self, now: float) -> int:
        """The cycle over every waiting job in queue order (steps 1 and 2); jobs scheduled."""
        model = self.model
        index = self.queue
        slots = self.slot_list(now)
        # O(1)-per-job necessary conditions first; the allocator runs only where a window
        # may exist. Cuts only shrink slots, so a job screened out stays out this cycle.
        budget = self._budgets(index)
        code = screen_requests(slots, model.job_n[index], model.job_volume[index], budget)
        self.wait_code[index] = code
        self._job_stamp[index] = self.cycles
        fits = np.flatnonzero(code == FITS_MAYBE)
        uncertain = self.utilization_schedule(now) if model.availability else None
        # Step 1: alternatives in queue order, each cut out of the slot list.
        fits, jobs, found = self._step1(slots, index, fits, budget, uncertain)
        self.last_alternatives = sum(len(w) for w in found.windows)
        # Step 2: one alternative per job under the VO policy.
        choice, evals = self._choose(jobs, found.windows, uncertain)
        taken = np.zeros(index.size, dtype=bool)
        declined = False
        scheduled = 0
        for k in np.flatnonzero(choice < 0).tolist():
            jobs[k].last_reason = found.reasons[k]
            self.wait_code[jobs[k].index] = ALLOCATOR_FAILED
        for k in np.flatnonzero(choice >= 0).tolist():
            job, alts = jobs[k], found.windows[k]
            if not self._affordable(job, alts[choice[k]]):
                declined = True  # retried next cycle with what is left of the balance
                continue
            job.alternatives = len(alts)
            job.user_evaluation = float(evals[k][choice[k]])
            self._reserve(job, alts[choice[k]], uncertain)
            self._tell_user(job, evals[k])
            taken[fits[k]] = True
            scheduled += 1
        if scheduled:
            self._dequeue(taken)
        # Alternatives not chosen were cut from found.slots but stay free at the owners:
        # the bounds of RequestClasses.sleep hold only when every alternative found was reserved.
        unchosen = self.vo_policy.max_alternatives > 1 and any(
            len(alts) > (k >= 0) for alts, k in zip(found.windows, choice, strict=True)
        )
        self._changed = unchosen or declined
        if self._fast and not self._changed:  # every class left in the queue found nothing
            self._sleep(np.flatnonzero(self.classes.count > 0), found.slots, now)
        return scheduled

    def _cycle_classes(self, now: float) -> int:
        """First fit over request classes on a static market; returns the jobs scheduled.

        The same windows as :meth:`_cycle_jobs`, found with far fewer searches and no work per
        waiting job: only classes awake at ``now`` are screened and searched; a class is
        searched job by job in queue order until one of its jobs finds no window, since every
        later job of the class would find none either (same request, a slot list that only
        shrinks); and a class that found no window sleeps (:meth:`RequestClasses.sleep`) until
        a window may exist, or until reserved time is freed where it could run
        (:meth:`RequestClasses.wake_freed`).
        """
        model, classes = self.model, self.classes
        if self._freed:  # only the freed nodes' slots matter here: the full list may wait
            freed = np.fromiter(self._freed, dtype=np.int64, count=len(self._freed))
            budget = np.full(len(classes), np.inf)
            live = np.flatnonzero(classes.count > 0)
            budget[live] = self._class_budgets(live)
            classes.wake_freed(freed, budget, self.slot_list(now, freed), now)
        live = classes.awake(now)
        if live.size == 0:
            return 0
        slots = self.slot_list(now)
        budget = self._class_budgets(live)
        code = screen_requests(slots, classes.n[live], classes.volume[live], budget)
        out = code != FITS_MAYBE
        for c in np.unique(code[out]).tolist():
            classes.set_code(live[out][code[out] == c], c, self.cycles)
        failed = [live[out]]
        # the next job of every class that may fit, merged in queue (job index) order
        heap = [
            (classes.members[c][classes.head[c]], classes.head[c], c, b)
            for c, b in zip(live[~out].tolist(), budget[~out].tolist(), strict=True)
        ]
        heapq.heapify(heap)
        taken, found = [], 0
        while heap:
            j, k, c, b = heapq.heappop(heap)
            job = model.jobs[j]
            request = job.request()
            if request.budget != b:  # per-period account: min(C, balance)
                request = ResourceRequest(n=request.n, volume=request.volume, budget=b)
            search = self._search(job, None)
            result = (
                search(slots, request)
                if callable(search)
                else allocate_window(slots, request, search)
            )
            if result.window is None:  # and none for the class's later jobs either
                classes.set_code(np.array([c]), ALLOCATOR_FAILED, self.cycles, result.reason)
                failed.append(np.array([c]))
                continue
            found += 1
            slots = slots.cut(result.window)
            if k + 1 < len(classes.members[c]):
                heapq.heappush(heap, (classes.members[c][k + 1], k + 1, c, b))
            if not self._affordable(job, result.window):
                self._changed = True  # retried next cycle with what is left of the balance
                continue
            job.alternatives = 1
            job.user_evaluation = 0.0
            self._reserve(job, result.window)
            self._tell_user(job, _ONE_ZERO)
            taken.append(j)
        self.last_alternatives = found
        if taken:
            classes.remove(np.array(taken, dtype=np.int64))
            self._queue_fresh = False
        if not self._changed:
            self._sleep(np.concatenate(failed), slots, now)
        return len(taken)

    def _dequeue(self, taken: np.ndarray) -> None:
        """Remove the queue positions where ``taken`` (bool, shape like the queue) is set."""
        queue = self.queue
        if self._fast:
            self.classes.remove(queue[taken])
        self._queue = queue[~taken]

    def _budgets(self, jobs: np.ndarray) -> np.ndarray:
        """What each job (indices, shape (k,)) may spend: ``C``, or ``min(C, balance)``."""
        model = self.model
        budget = model.job_budget[jobs]
        if model.budget_period is None:
            return budget
        balance = model.user_balance[model.job_user_index[jobs]]
        return np.minimum(budget, np.maximum(balance, 0.0))

    def _class_budgets(self, classes: np.ndarray) -> np.ndarray:
        """:meth:`_budgets` for request classes (ids, shape (k,))."""
        budget = self.classes.budget[classes]
        if self.model.budget_period is None:
            return budget
        balance = self.model.user_balance[self.classes.user[classes]]
        return np.minimum(budget, np.maximum(balance, 0.0))

    def _sleep(self, classes: np.ndarray, slots: SlotList, now: float) -> None:
        """Put request ``classes`` that found no window at ``now`` to sleep (static market)."""
        self.classes.sleep(classes, self._class_budgets(classes), slots, now)

    def _step1(
        self,
        slots: SlotList,
        index: np.ndarray,
        fits: np.ndarray,
        budget: np.ndarray,
        uncertain: UtilizationSchedule | None,
    ) -> tuple[np.ndarray, list[Job], BatchAlternatives]:
        """Step 1 of the CSS for the queued jobs at positions ``fits`` of ``index``.

        Returns the positions actually searched, their jobs and what
        :func:`~vosim.allocators.csa.batch_alternatives` found. With one alternative per job
        (first fit, a single pass) the jobs go in chunks of :data:`_CHUNK`, and after a chunk
        that reserved something the rest are screened again as arrays: a long queue of jobs
        that all passed the screen (e.g. thousands waiting for the same long slot) then costs
        numpy work, not a Python object per job. The windows are those of one call.
        """
        model = self.model
        single = self.vo_policy.max_alternatives == 1
        chunk = _CHUNK if single else max(fits.size, 1)
        searched, jobs, windows, reasons = [], [], [], []
        pending = fits
        while pending.size:
            part, pending = pending[:chunk], pending[chunk:]
            part_jobs = [model.jobs[i] for i in index[part].tolist()]
            found = batch_alternatives(
                slots,
                self._requests(part_jobs, budget[part]),
                [self._search(job, uncertain) for job in part_jobs],
                self.vo_policy.max_alternatives,
            )
            slots = found.slots
            searched.append(part)
            jobs += part_jobs
            windows += found.windows
            reasons += found.reasons
            if pending.size and any(found.windows):
                rest = index[pending]
                code = screen_requests(
                    slots, model.job_n[rest], model.job_volume[rest], budget[pending]
                )
                self.wait_code[rest] = code
                pending = pending[code == FITS_MAYBE]
        searched = np.concatenate(searched) if searched else fits
        return searched, jobs, BatchAlternatives(windows, slots, reasons)

    def _requests(self, jobs: list[Job], budget: np.ndarray) -> list[ResourceRequest]:
        """The jobs' resource requests, with budget ``min(C, balance)`` under accounts."""
        requests = [job.request() for job in jobs]
        if self.model.budget_period is None:
            return requests
        # the cached request carries C; a lower balance needs its own
        return [
            r if r.budget == b else ResourceRequest(n=r.n, volume=r.volume, budget=b)
            for r, b in zip(requests, budget.tolist(), strict=True)
        ]

    @property
    def queue(self) -> np.ndarray:
        """Indices into ``model.jobs`` of the waiting jobs in queue (submission) order, (k,).

        On a static market the request classes hold the queue and this array is built on
        demand; read it, do not modify it.
        """
        if not self._queue_fresh:
            self._queue = self.classes.waiting()
            self._queue_fresh = True
        return self._queue

    @property
    def queue_length(self) -> int:
        """Jobs waiting for a window, including those submitted since the last cycle."""
        waiting = self.classes.total if self._fast else self._queue.size
        return waiting + len(self._submitted) + len(self._requeued)

    def _merge_queue(self) -> None:
        """Add the jobs submitted or requeued since the last cycle, keeping trace order."""
        new = self._submitted + self._requeued
        if not new:
            return
        self._submitted.clear()
        self._requeued.clear()
        new = np.asarray(new, dtype=np.int64)
        if self._fast:  # the classes hold the queue
            self.classes.add(new)
            self._queue_fresh = False
            return
        queue = np.concatenate([self._queue, new])
        # Trace order is submission order; only same-time submissions or requeued jobs
        # arrive out of it.
        if (np.diff(new) < 0).any() or (self._queue.size and new.min() < self._queue[-1]):
            queue.sort(kind="stable")
        self._queue = queue

    def _search(self, job: Job, uncertain: UtilizationSchedule | None):
        """The window search for ``job``: a registered criterion name, or a P_a^w search."""
        criterion = self.criterion_allocators[job.criterion]
        if criterion != "max_availability":
            if ">" not in criterion:
                return criterion
            return partial(self._chain, criterion)
        p_avail = (uncertain or self._certain).p_avail
        method = self.model.availability_method

        def search(slots: SlotList, request: ResourceRequest) -> Allocation:
            return max_availability_window(slots, request, p_avail, method)

        return search

    def _chain(self, chain: str, slots: SlotList, request: ResourceRequest) -> Allocation:
        """A window search by a fallback chain such as ``"min_cost>amp"``.

        The chain's exact link runs under ``model.fallback_after``; the result is counted in
        :attr:`fallbacks`.
        """
        result = allocate_window(slots, request, chain, fallback_after=self.model.fallback_after)
        self.fallbacks.record(result)
        return result

    def _choose(
        self,
        jobs: list[Job],
        windows: list[list[Window]],
        uncertain: UtilizationSchedule | None,
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Step 2: the chosen alternative per job (-1: none) and each alternative's ``U``."""
        if self.vo_policy.max_alternatives == 1:
            choice = np.array([0 if w else -1 for w in windows], dtype=np.int64)
            return choice, [_ONE_ZERO if w else _NO_EVALS for w in windows]
        criteria = [job.criterion for job in jobs]
        availability = None
        if "availability" in criteria:
            schedule = uncertain or self._certain
            availability = [[self.window_availability(w, schedule) for w in ws] for ws in windows]
        result = choose_alternatives(windows, criteria, self.vo_policy, availability)
        self.last_ua = result.ua
        self.last_vo_evaluation = result.vo_evaluation
        self.last_vo_total = result.vo_total
        return result.choice, result.user_evals

    def _tell_user(self, job: Job, evals: np.ndarray) -> None:
        """Report to the job's user how it went: ``U`` scaled to [0, 1] and the wait."""
        top = 100.0 if self.vo_policy.evaluation == "relative" else max(len(evals) - 1, 1)
        self.model.user_agent[job.user].evaluate(
            job, job.user_evaluation / top, job.start - job.submit_time
        )

    def last_code(self, job: Job) -> tuple[int, str]:
        """The screening or allocator code of ``job``'s last search, with the allocator reason.

        The newest of the job's own record (a cycle over every job) and its request class's
        (a cycle over classes, see :meth:`_cycle_classes`); ``(0, "")`` if never searched.
        """
        c = int(self.classes.of[job.index])
        if c >= 0 and self.classes.stamp[c] > self._job_stamp[job.index]:
            return int(self.classes.code[c]), self.classes.reason[c]
        return int(self.wait_code[job.index]), job.last_reason

    def wait_reason(self, job: Job) -> str:
        """Why ``job`` got no window in the last cycle that searched it ("" if never searched).

        A job whose request class was asleep was not searched in the cycles since: they could
        not have found it a window (:meth:`RequestClasses.sleep`).
        """
        if job.state != "waiting":
            return ""
        code, reason = self.last_code(job)
        if code == ALLOCATOR_FAILED:
            return reason
        return SCREEN_REASONS.get(code, "")

    def utilization_schedule(self, now: float) -> UtilizationSchedule:
        """Owners' local jobs as uncertain event chains plus each node's global event."""
        parts = [owner.local_job_arrays(now) for owner in self.model.owners]
        node, start, end = (np.concatenate([p[k] for p in parts]) for k in range(3))
        return local_jobs_schedule(
            self.model.node_count, node, start, end, self.model.node_global_p
        )

    @staticmethod
    def window_availability(window: Window, schedule: UtilizationSchedule) -> float:
        """Predicted ``P_a^w`` of ``window`` in [0, 1] (ICCS 2023 eq. (3), no groups)."""
        predicted = 1.0
        for d in sorted({s.length for s in window.slots}):
            nodes = [s.node for s in window.slots if s.length == d]
            predicted *= schedule.window_availability(nodes, window.start, d)
        return predicted

    def _realise(self, job: Job, window, uncertain: UtilizationSchedule) -> float:
        """Predict the window's ``P_a^w`` and draw when (if ever) one of its nodes is taken."""
        model = self.model
        predicted = self.window_availability(window, uncertain)
        job.predicted_availability = predicted
        fail = math.inf
        for s, end in zip(window.slots, job.task_ends, strict=True):
            fail = min(
                fail,
                sample_interruption(uncertain, s.node, window.start, min(s.end, end), model.rng),
            )
        model.attempts.append(
            (job.job_id, float(model.time), window.start, predicted, math.isinf(fail), fail)
        )
        return fail

    def _affordable(self, job: Job, window: Window) -> bool:
        """Whether ``job``'s user can still pay for ``window`` from this period's balance.

        Every job of a cycle was searched with ``min(C, balance)``; an earlier job of the same
        user reserved in this cycle may have spent part of it. A job that cannot pay waits.
        (VO Preferences §4: users' budgets; the per-period account is vosim's extension.)
        """
        if self.model.budget_period is None:
            return True
        balance = float(self.model.user_balance[self.model.job_user_index[job.index]])
        if window.cost <= balance * (1 + 1e-9):
            return True
        job.last_reason = (
            f"user's balance {balance:.6g} below the window's cost {window.cost:.6g} after "
            "this cycle's other reservations"
        )
        self.wait_code[job.index] = ALLOCATOR_FAILED
        return False

    def _reserve(self, job: Job, window, uncertain: UtilizationSchedule | None = None) -> None:
        model = self.model
        if model.budget_period is not None:  # per-period account (vosim's extension)
            model.users[model.job_user_index[job.index]].charge(window.cost)
        job.window = window
        job.state = "scheduled"
        job.start = window.start
        # The job runs run_time on a reference-performance node; on node i it takes
        # run_time * p_ref / p_i, and the job ends with its slowest task.
        work = job.run_time * model.reference_performance
        job.task_ends = tuple(window.start + work / s.performance for s in window.slots)
        job.finish = max(job.task_ends)
        for s in window.slots:
            owner = model.owner_of_node[s.node]
            owner.reserve(s.node, s.start, s.end, job.job_id, s.price * (s.end - s.start))
        self.running.append(job)
        job.attempt += 1
        for end in job.task_ends:  # a task keeps its node busy over [start, end)
            heapq.heappush(self._busy_events, (job.start, 1, job.job_id, job.attempt))
            heapq.heappush(self._busy_events, (end, -1, job.job_id, job.attempt))
        fail = self._realise(job, window, uncertain) if uncertain is not None else math.inf
        if fail < job.finish:
            heapq.heappush(self._failures, (fail, job.job_id, job.attempt, job))
            model.schedule_event(self.fail_due, at=fail)
        else:
            heapq.heappush(self._completions, (job.finish, job.job_id, job.attempt, job))
            # event driven: every end at a time comes before that time's arrivals and pass
            priority = mesa.time.Priority.HIGH if self.event_driven else mesa.time.Priority.DEFAULT
            model.schedule_event(self.complete_due, at=job.finish, priority=priority)

    def fail_due(self) -> None:
        """Interrupt every job one of whose nodes was taken by now, and requeue it.

        The user pays only for what ran: each node's price times the time from the window
        start to the interruption; the rest of the reservation is refunded and released.
        """
        now = self.model.time
        while self._failures and self._failures[0][0] <= now:
            _, _, attempt, job = heapq.heappop(self._failures)
            if job.attempt != attempt or job.state != "scheduled":
                continue
            self.running.remove(job)
            ran = max(0.0, now - job.start)
            self._stopped[job.job_id, job.attempt] = now  # its later busy events lapse
            for end in job.task_ends:
                if job.start <= now < end:
                    heapq.heappush(self._busy_events, (now, -1, job.job_id, job.attempt))
            accounts = self.model.budget_period is not None
            for s in job.window.slots:
                owner = self.model.owner_of_node[s.node]
                unused = s.price * max(0.0, s.end - s.start - ran)
                owner.refund(unused)
                if accounts:  # the user gets the unused part back on this period's balance
                    self.model.users[self.model.job_user_index[job.index]].charge(-unused)
                job.paid_for_failures += s.price * min(ran, s.end - s.start)
            self._release(job, [min(s.end, s.start + ran) for s in job.window.slots])
            job.failures += 1
            job.state = "waiting"
            job.window = None
            job.start = job.finish = math.nan
            job.task_ends = ()
            self._requeued.append(job.index)
            self.request_pass()

    def complete_due(self) -> None:
        """Complete every job whose finish time has come and release the rest of its window."""
        now = self.model.time
        while self._completions and self._completions[0][0] <= now:
            _, _, attempt, job = heapq.heappop(self._completions)
            if job.attempt != attempt or job.state != "scheduled":
                continue
            job.state = "completed"
            self.completed += 1
            self.running.remove(job)
            # Task on node i ends after run_time * p_ref / p_i, never past its slot.
            ends = [min(s.end, end) for s, end in zip(job.window.slots, job.task_ends, strict=True)]
            self._release(job, ends)
            for s in job.window.slots:
                if s.end > now:  # [now, s.end) is free again: waiting jobs may fit
                    self._freed.add(s.node)
            self.request_pass()

    def _release(self, job: Job, ends: list[float]) -> None:
        """End ``job``'s reserved spans at ``ends`` (one per window slot), owner by owner."""
        by_owner: dict[int, tuple[list[int], list[float]]] = {}
        for s, end in zip(job.window.slots, ends, strict=True):
            nodes, at = by_owner.setdefault(self.model.owner_of_node[s.node].owner_id, ([], []))
            nodes.append(s.node)
            at.append(end)
        for k, (nodes, at) in by_owner.items():
            self.model.owners[k].release(nodes, job.job_id, at)

    def busy_nodes(self, now: float) -> int:
        """Number of nodes running a VO task at ``now`` (tasks on faster nodes end earlier).

        Kept up to date from task start and end events as model time advances (``O(log r)``
        per event); an earlier ``now`` is counted over the running jobs.
        """
        if now < self._busy_at:
            return sum(
                1 for job in self.running if job.start <= now for end in job.task_ends if now < end
            )
        events = self._busy_events
        while events and events[0][0] <= now:
            t, delta, job_id, attempt = heapq.heappop(events)
            stopped = self._stopped.get((job_id, attempt))
            if stopped is None or t <= stopped:
                self._busy += delta
        self._busy_at = now
        return self._busy
