"""The cyclic scheduling scheme (CSS) as a policy: alternatives per job, then the VO's choice.

Registered as ``css`` (each user's criterion picks the window search) and ``availability``
(every job searched for its maximum-availability window, ICCS 2021).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np

from vosim.allocators.aep import CRITERION_CODES, FOUND, budget_limit, refusal_reason
from vosim.allocators.availability_window import max_availability_window
from vosim.allocators.base import Allocation, ResourceRequest, Window, allocate_window
from vosim.allocators.csa import BatchAlternatives, batch_alternatives
from vosim.allocators.fallback import FallbackBudget, FallbackLog
from vosim.allocators.request_screen import ALLOCATOR_FAILED, FITS_MAYBE, screen_requests
from vosim.allocators.vo_choice import VOPolicy, choose_alternatives
from vosim.core import SlotList
from vosim.core.code_path import kernels, reference
from vosim.core.windows import Spans, distinct
from vosim.errors import ParameterError
from vosim.market.free_time import members_of
from vosim.market.uncertainty import window_availability
from vosim.market.utilization_schedule import UtilizationSchedule
from vosim.policies.base import CycleState, Decisions, Policy, register_policy
from vosim.policies.batch_windows import cut_window
from vosim.policies.request_classes import RequestClasses

__all__ = ["CyclicScheme", "DEFAULT_CRITERION_ALLOCATORS", "availability_scheme", "one_criterion"]

#: Window criterion used for each user criterion (AEP §2.2): the exact minFinish, minRuntime
#: and minCost, and the maximum ``P_a^w`` window (ICCS 2021) for availability.
DEFAULT_CRITERION_ALLOCATORS: dict[str, str] = {
    "finish": "min_finish",
    "runtime": "min_runtime",
    "cost": "min_cost",
    "availability": "max_availability",
}


def one_criterion(name: str) -> dict[str, str]:
    """Criterion allocators with the finish, runtime and cost users all searched by ``name``.

    What ``vosim run --allocator NAME`` and the live page's allocator input set
    (``criterion_allocators``); availability users keep the maximum-``P_a^w`` window.
    ``name`` is a registered window criterion or a fallback chain (checked where it is used).
    Source: AEP §2.2 (the criteria); vosim's alias.
    """
    return dict(DEFAULT_CRITERION_ALLOCATORS, finish=name, runtime=name, cost=name)


#: Jobs searched at a time in a first-fit pass before the rest are screened again.
_CHUNK = 64
#: Jobs of a request class passed at once to the compiled first fit (a class that takes them
#: all is passed its next ones).
_FIT_JOBS = 32
#: Why the compiled first fit returned: every job searched, a class's next jobs wanted, or a
#: job for the plain loop (``first_fit_kernels.first_fit``).
DONE, REFILL, PLAIN = 0, 1, 2
#: User evaluations of a job with a single alternative (or none), shared read-only.
_ONE_ZERO, _NO_EVALS = np.zeros(1), np.zeros(0)
_ONE_ZERO.flags.writeable = _NO_EVALS.flags.writeable = False
#: The compiled first fit's pool arrays when the slots are not a count view.
_NO_POOL = np.empty(0, dtype=np.int64)


#: The model values the cyclic scheme takes (:data:`~vosim.policies.base.MODEL_VALUES`).
_SCHEME_OPTIONS = (
    "jobs",
    "price",
    "performance",
    "scheduling_interval",
    "criterion_allocators",
    "vo_policy",
    "static",
    "availability_method",
    "fallback_after",
    "look_ahead",
    "reference_performance",
)


@register_policy("css", options=_SCHEME_OPTIONS)
class CyclicScheme(Policy):
    """The cyclic scheduling scheme (CSS) of the VO, one scheduling cycle per :meth:`decide`.

    Step 1 finds up to ``vo_policy.max_alternatives`` alternatives per waiting job, in queue
    order, by the window criterion matching the user's criterion, cutting each one out of the
    slot list so no two alternatives conflict. Step 2 picks one alternative per job under the
    VO policy (e.g. ``C -> max`` with the users' evaluations bounded by ``U_a``). Jobs whose
    user cannot pay the chosen window from this period's balance are not reserved (they wait).

    The scheme keeps its queue between cycles (fed by ``CycleState.arrived``, emptied by its
    own reservations). On a static market (fixed prices and owners) with first fit it works on
    classes of identical requests instead of jobs (:mod:`vosim.policies.request_classes`): the
    same windows for the same jobs, at a cost that does not grow with the queue.
    ``classes=False`` searches every waiting job every cycle: the plain path, kept as the test
    oracle of the classes.

    Windows that can fail (a cycle's ``state.availability``) leave the market static for the
    classes' bounds: free time still appears only where reserved time is freed (an early
    end, a cancellation, the rest of a failed window). A maximum-``P_a^w`` search that failed
    after reading ``P_a`` (no ``n`` nodes within budget of positive availability) may succeed
    at a later cycle on the same slots, as the chains move with time, so its class is searched
    again at the next cycle instead of sleeping; one that failed for want of slots alone
    (``stats["geometric"]``) sleeps as on a market without uncertainty.

    Parameters
    ----------
    jobs : int
        Number of jobs of the model; the queue's job indices are ``0 .. jobs - 1``.
    price, performance : numpy.ndarray of float, shape (N,)
        Every node's price (cost per time unit) and performance, by node id; used by the
        request classes' wake-up bounds, which hold only while ``static``.
    scheduling_interval : float
        Length ``L`` of the scheduling interval, model time units (> 0).
    criterion_allocators : mapping of str to str, optional
        User criterion -> registered window criterion (default
        :data:`DEFAULT_CRITERION_ALLOCATORS`); a chain such as ``"min_cost>amp"`` runs under
        ``fallback_after``; ``"max_availability"`` is the maximum ``P_a^w`` search.
    vo_policy : VOPolicy, optional
        The VO policy of step 2; default ``VOPolicy(max_alternatives=1)``: first fit.
    static : bool
        Prices and owners never change (fixed pricing, no owner exit): request classes may
        sleep.
    availability_method : str
        Method of the maximum-availability search (:func:`max_availability_window`).
    fallback_after : FallbackBudget, str, float, int or None
        Budget of the exact link of fallback chains (:class:`FallbackBudget`).
    classes : bool
        Use request classes where ``static`` and first fit allow (default); ``False`` (or
        ``VOSIM_REFERENCE=1`` when the scheme is made): the plain per-job cycle.
    look_ahead : float
        How far ahead a job's windows may lie, in its own requested times: job ``j``'s
        windows are searched in ``[t, t + L_j)`` with ``L_j = min(L, look_ahead * T_j)``,
        ``T_j = V_j / reference_performance`` (> 0). ``inf`` (default): every job searches
        the whole interval ``L``, as in the papers.
    reference_performance : float, optional
        Performance at which a job's requested time holds (``V = T * p``); needed with a
        finite ``look_ahead``.

    Attributes
    ----------
    fallbacks : FallbackLog
        Calls and fallbacks of every fallback chain searched.

    Raises
    ------
    ParameterError
        A malformed ``fallback_after``.

    Notes
    -----
    The papers search one interval ``L`` for every job of a batch, and their jobs are all of
    one scale (VO Preferences §4: ``L = 600``, ``T`` in [100, 500] on the slowest node). On a
    real trace, whose requested times span minutes to days, one ``L`` long enough for the
    longest job lets a short job's user choose a window days ahead: the wait users choose then
    grows with ``L``, a value no paper gives for real traces. ``look_ahead`` bounds each job's
    interval by its own length instead. At 6 (the §4 interval over its shortest ``T``:
    600 / 100; the papers' ``T`` is on the slowest node, their reference performance) every
    job of the papers' experiments keeps the whole interval, so they are unchanged.

    References
    ----------
    VO Preferences §2 (CSS: step 1 first fit in queue order with slot reservation, step 2 the
    combination), §3 (user evaluations, ``U_a``, the VO evaluation ``A``) and §4 (the interval
    and the jobs' reservation times); AEP §1, §2 (a deadline as an additional restriction of a
    window).
    """

    name = "css"

    records_searches = True

    def __init__(
        self,
        jobs: int,
        price: np.ndarray,
        performance: np.ndarray,
        scheduling_interval: float,
        criterion_allocators: Mapping[str, str] | None = None,
        vo_policy: VOPolicy | None = None,
        static: bool = True,
        availability_method: str = "knapsack_p",
        fallback_after: FallbackBudget | str | float | int | None = None,
        classes: bool = True,
        look_ahead: float = math.inf,
        reference_performance: float | None = None,
    ) -> None:
        if not look_ahead > 0:
            raise ParameterError(f"look_ahead must be > 0, got {look_ahead!r}")
        if math.isfinite(look_ahead) and not (reference_performance or 0) > 0:
            raise ParameterError(
                "a finite look_ahead needs reference_performance > 0, got "
                f"{reference_performance!r}"
            )
        self.criterion_allocators = dict(criterion_allocators or DEFAULT_CRITERION_ALLOCATORS)
        self.vo_policy = vo_policy or VOPolicy(max_alternatives=1)
        self.availability_method = availability_method
        self.fallback_after = FallbackBudget.coerce(fallback_after)
        self.fallbacks = FallbackLog()
        self.classes = RequestClasses(jobs, performance, price, scheduling_interval)
        # the classes are a speed-up of the per-job cycle: VOSIM_REFERENCE=1 runs the latter
        self.fast = classes and static and self.vo_policy.max_alternatives == 1 and not reference()
        # Without uncertainty every node is available (P_a = 1) for the availability criterion.
        self._certain = UtilizationSchedule.from_chains(np.asarray(price).size)
        self._n = np.zeros(jobs, dtype=np.int64)
        self._volume = np.zeros(jobs)
        self._budget = np.zeros(jobs)
        #: Each job's own interval ``L_j`` (model time units; see ``look_ahead``).
        self._reach = np.full(jobs, math.inf)
        # inf without a bound (no reference performance needed: inf / inf would be NaN)
        self._reach_per_volume = (
            look_ahead / reference_performance if math.isfinite(look_ahead) else math.inf
        )
        self._user = np.full(jobs, -1, dtype=np.int64)
        self._criterion = [""] * jobs
        self._request: list[ResourceRequest | None] = [None] * jobs
        self._queue = np.empty(0, dtype=np.int64)  # see _waiting
        self._queue_fresh = True
        self._changed = True  # every waiting job is searched next cycle (_cycle_jobs)
        self._cycles = 0
        self.wait_code = np.zeros(jobs, dtype=np.int8)
        self._job_stamp = np.full(jobs, -1, dtype=np.int64)  # cycle of wait_code
        self._reason = [""] * jobs
        self._balance: np.ndarray | None = None
        #: Classes whose search this cycle failed on ``P_a``: searched again next cycle.
        self._awake: set[int] = set()
        #: This cycle's failed search per request class: the slot list it ran on, the request
        #: and the result (:meth:`_noting` gives it again on the same list).
        self._failed: dict[int, tuple[SlotList, ResourceRequest, Allocation]] = {}
        #: The last window :meth:`_fused` found and the slots it cut it from.
        self._cut_by_fit: tuple[Window, SlotList] | None = None

    # -- one cycle ---------------------------------------------------------------------------
    def decide(self, state: CycleState) -> Decisions:
        """Run one cycle of the scheme at ``state.time`` over the jobs waiting in its queue.

        ``state.arrived`` joins the queue first. Returns the windows to reserve in the order
        decided, each reserved job's alternatives and user evaluations
        (``Decisions.evaluations``), and ``stats`` ``alternatives`` (found), ``ua``,
        ``vo_evaluation`` and ``vo_total`` (step 2; NaN without a choice).
        """
        self._cycles += 1
        self._awake.clear()
        self._failed.clear()
        self._arrive(state.arrived)
        if state.left.size:  # withdrawn by their users
            index = self._waiting()
            self._dequeue(index, np.isin(index, state.left))
        if state.refreshed:
            self._changed = True  # balances grew: jobs that could not pay may now
        self._balance = None if state.balance is None else state.balance.copy()
        decisions = Decisions()
        waiting = self.classes.total if self.fast else self._queue.size
        if waiting:
            if self.fast and not self._changed:
                self._cycle_classes(state, decisions)
            else:
                self._cycle_jobs(state, decisions)
        return decisions.settle("no waiting job found a window")

    def _arrive(self, arrived: Sequence[ResourceRequest]) -> None:
        """Queue the jobs that arrived since the last cycle (their requests with budget C)."""
        if not arrived:
            return
        for job in arrived:
            j = job.index
            if self._request[j] is None:  # first arrival: its request and class
                self._n[j], self._volume[j], self._budget[j] = job.n, job.volume, job.budget
                self._reach[j] = self._reach_per_volume * job.volume
                self._user[j], self._criterion[j] = job.account, job.criterion
                self._request[j] = job  # its request, with budget C
                self.classes.assign(
                    j, job.n, job.volume, job.budget, job.criterion, job.account, self._reach[j]
                )
        new = np.fromiter((job.index for job in arrived), dtype=np.int64, count=len(arrived))
        if self.fast:  # the classes hold the queue
            self.classes.add(new)
            self._queue_fresh = False
            return
        queue = np.concatenate([self._queue, new])
        # Trace order is submission order; only same-time submissions or requeued jobs
        # arrive out of it.
        if (np.diff(new) < 0).any() or (self._queue.size and new.min() < self._queue[-1]):
            queue.sort(kind="stable")
        self._queue = queue

    def _waiting(self) -> np.ndarray:
        """Indices of the waiting jobs in queue (index) order, shape (k,); do not modify."""
        if not self._queue_fresh:
            self._queue = self.classes.waiting()
            self._queue_fresh = True
        return self._queue

    def _cycle_jobs(self, state: CycleState, decisions: Decisions) -> None:
        """The cycle over every waiting job in queue order (steps 1 and 2)."""
        index = self._waiting()
        slots = state.slots
        # O(1)-per-job necessary conditions first; the allocator runs only where a window
        # may exist. Cuts only shrink slots, so a job screened out stays out this cycle.
        budget = self._budgets(index)
        code = screen_requests(slots, self._n[index], self._volume[index], budget)
        self.wait_code[index] = code
        self._job_stamp[index] = self._cycles
        fits = np.flatnonzero(code == FITS_MAYBE)
        uncertain = state.availability
        # Step 1: alternatives in queue order, each cut out of the slot list.
        earliest: dict[int, float] = {}
        fits, jobs, found = self._step1(slots, index, fits, budget, uncertain, state, earliest)
        decisions.stats["alternatives"] = sum(len(w) for w in found.windows)
        # Step 2: one alternative per job under the VO policy.
        choice, evals = self._choose(jobs, found.windows, uncertain, decisions.stats)
        taken = np.zeros(index.size, dtype=bool)
        declined = False
        for k in np.flatnonzero(choice < 0).tolist():
            self._reason[jobs[k]] = found.reasons[k]
            self.wait_code[jobs[k]] = ALLOCATOR_FAILED
            decisions.reasons[jobs[k]] = found.reasons[k]
        for k in np.flatnonzero(choice >= 0).tolist():
            j, alts = jobs[k], found.windows[k]
            if not self._pay(j, alts[choice[k]]):
                declined = True  # retried next cycle with what is left of the balance
                continue
            decisions.reserve.append((j, alts[choice[k]]))
            decisions.evaluations[j] = (int(choice[k]), evals[k], self._scale(len(alts)))
            decisions.earliest[j] = earliest[j]
            taken[fits[k]] = True
        if taken.any():
            self._dequeue(index, taken)
        # Alternatives not chosen were cut from found.slots but stay free at the owners:
        # the bounds of RequestClasses.sleep hold only when every alternative found was reserved.
        unchosen = self.vo_policy.max_alternatives != 1 and any(
            len(alts) > (k >= 0) for alts, k in zip(found.windows, choice, strict=True)
        )
        self._changed = unchosen or declined
        if self.fast and not self._changed:  # every class left in the queue found nothing
            self._sleep(np.flatnonzero(self.classes.count > 0), found.slots, state.time)

    def _cycle_classes(self, state: CycleState, decisions: Decisions) -> None:
        """First fit over request classes on a static market.

        The same windows as :meth:`_cycle_jobs`, found with far fewer searches and no work per
        waiting job: only classes awake at ``t`` are screened and searched; a class is
        searched job by job in queue order until one of its jobs finds no window, since every
        later job of the class would find none either (same request, a slot list that only
        shrinks); and a class that found no window sleeps (:meth:`RequestClasses.sleep`) until
        a window may exist, or until reserved time is freed where it could run
        (:meth:`RequestClasses.wake_freed`); a multi-node class that freed time woke waits on
        until its tasks can run together (:meth:`RequestClasses.hold_back`). Without
        per-period accounts the first fit runs compiled (:meth:`_first_fit_compiled`) as far
        as it can, and the plain loop below goes on from there (``VOSIM_REFERENCE=1``: the
        plain loop throughout).
        """
        classes, now = self.classes, state.time
        woken = np.empty(0, dtype=np.int64)
        if state.freed.size:  # only the freed nodes' slots matter here: the full list may wait
            budget = np.full(len(classes), np.inf)
            live = np.flatnonzero(classes.count > 0)
            budget[live] = self._class_budgets(live)
            asleep = live[classes.wake[live] > now]
            classes.wake_freed(state.freed, budget, state.slots_of(state.freed), now)
            woken = asleep[classes.wake[asleep] <= now]
        live = classes.awake(now)
        if live.size == 0:
            return
        slots = state.slots
        if woken.size:  # woken by one freed node: multi-node ones may still lack the rest
            kept = classes.hold_back(woken, self._class_budgets(woken), slots, now)
            if kept.size < woken.size:
                asleep = classes.wake[live] > now  # held back: their wake moved on
                live = live[~asleep]
                if live.size == 0:
                    return
        budget = self._class_budgets(live)
        code = screen_requests(slots, classes.n[live], classes.volume[live], budget)
        out = code != FITS_MAYBE
        for c in distinct(code[out]).tolist():
            classes.set_code(live[out][code[out] == c], c, self._cycles)
        failed = [live[out]]
        fit, fit_budget = live[~out].tolist(), budget[~out].tolist()
        taken: list[int] = []
        found = 0
        if self._balance is None and not reference():
            slots, found, heap = self._first_fit_compiled(
                fit, fit_budget, slots, state, decisions, failed, taken
            )
        else:  # the next job of every class that may fit, merged in queue (job index) order
            heap = [
                (classes.members[c][classes.head[c]], classes.head[c], c, b)
                for c, b in zip(fit, fit_budget, strict=True)
            ]
        heapq.heapify(heap)
        while heap:
            j, k, c, b = heapq.heappop(heap)
            search = self._search(j, state.availability, state)
            request = self._requests([j], [b])[0]
            result = _searched(slots, request, search)
            if result.window is None:  # and none for the class's later jobs either
                classes.set_code(np.array([c]), ALLOCATOR_FAILED, self._cycles, result.reason)
                decisions.reasons[j] = result.reason
                self._note_failure(j, result, state)
                failed.append(np.array([c]))
                continue
            found += 1
            start = self._earliest(j, slots, request, state, result.window)
            slots = cut_window(slots, result.window, state.pool)
            if k + 1 < len(classes.members[c]):
                heapq.heappush(heap, (classes.members[c][k + 1], k + 1, c, b))
            if not self._pay(j, result.window):
                self._changed = True  # retried next cycle with what is left of the balance
                continue
            decisions.reserve.append((j, result.window))
            decisions.earliest[j] = start
            taken.append(j)
        decisions.stats["alternatives"] = found
        if taken:
            classes.remove(np.array(taken, dtype=np.int64))
            self._queue_fresh = False
        if not self._changed:
            self._sleep(np.concatenate(failed), slots, now)

    def _first_fit_compiled(
        self,
        fit: list[int],
        budget: list[float],
        slots: SlotList,
        state: CycleState,
        decisions: Decisions,
        failed: list[np.ndarray],
        taken: list[int],
    ) -> tuple[SlotList, int, list[tuple[int, int, int, float]]]:
        """:meth:`_cycle_classes`' first fit by ``first_fit_kernels.first_fit``, as far as it goes.

        ``fit``: the classes that may fit, with their ``budget`` (cost units); ``slots``: the
        pass's free slots (a count view when ``state.pool`` is set); no per-period accounts.
        Each job the kernel searched is recorded as the plain loop records it
        (``decisions``, ``failed``, ``taken``, the classes' codes). Returns the slots after
        its cuts, the windows found and the plain loop's heap for the jobs it left (empty if
        none): the plain loop goes on from there with the same state. Raises nothing of its
        own. Source: VO Preferences §2; AEP §2.1-2.2.
        """
        classes = self.classes
        count = len(fit)
        # a class's request is its jobs'
        heads = [classes.members[c][classes.head[c]] for c in fit]
        requests = self._fit_requests(heads, budget, state)
        head = [classes.head[c] for c in fit]  # each class's next job, as the pass goes
        dead = np.zeros(count, dtype=np.bool_)  # its search failed
        found, stop = 0, REFILL
        while stop == REFILL:
            chunks = [classes.members[c][h : h + _FIT_JOBS] for c, h in zip(fit, head, strict=True)]
            more = [len(classes.members[c]) > h + _FIT_JOBS for c, h in zip(fit, head, strict=True)]
            stop, ptr, ev, buf, columns = self._fit(chunks, more, requests, dead, slots, state)
            windows = self._fitted(fit, budget, requests[0], ev, buf, decisions, failed, taken)
            if windows:
                slots = SlotList.trusted(*columns)
            found += windows
            head = [h + int(k) for h, k in zip(head, ptr.tolist(), strict=True)]
        heap = []
        if stop == PLAIN:  # the plain loop goes on from each class's next job
            for i, c in enumerate(fit):
                if not dead[i] and head[i] < len(classes.members[c]):
                    heap.append((classes.members[c][head[i]], head[i], c, budget[i]))
        return slots, found, heap

    def _fitted(
        self,
        fit: list[int],
        budget: list[float],
        n: np.ndarray,
        ev: list[np.ndarray],
        buf: list[np.ndarray],
        decisions: Decisions,
        failed: list[np.ndarray],
        taken: list[int],
    ) -> int:
        """Record the compiled first fit's events as the plain loop records each job.

        ``ev``: the events' columns, ``buf`` their spans (:meth:`_fit`); ``fit``,
        ``budget``, ``n``: the classes of the pass, their budgets and tasks. Returns the
        windows found. Raises nothing. Source: VO Preferences §2.
        """
        found = 0
        for j, i, window, earliest, reason in _events(ev, buf, n, budget):
            if window is None:
                self.classes.set_code(np.array([fit[i]]), ALLOCATOR_FAILED, self._cycles, reason)
                decisions.reasons[j] = reason
                failed.append(np.array([fit[i]]))
                continue
            found += 1
            decisions.reserve.append((j, window))
            decisions.earliest[j] = earliest
            taken.append(j)
        return found

    def _fit_requests(
        self, jobs: list[int], budget: list[float], state: CycleState
    ) -> tuple[np.ndarray, ...]:
        """The compiled first fit's request columns for ``jobs`` searched with ``budget``.

        Returns ``(n, volume, limit, crit, own_end)``, shape (k,) each: tasks, volume, the
        budget with its rounding tolerance (cost units), the criterion's code
        (``aep.CRITERION_CODES``; ``-1``: the plain search's) and the end of the job's own
        interval (``inf``: the pass's). Raises nothing. Source: AEP §2.1-2.2.
        """
        count = len(jobs)
        n = np.empty(count, dtype=np.int64)
        volume, limit, own_end = np.empty(count), np.empty(count), np.empty(count)
        crit = np.empty(count, dtype=np.int64)
        for i, (j, b) in enumerate(zip(jobs, budget, strict=True)):
            request = self._request[j]
            n[i], volume[i] = request.n, request.volume
            limit[i] = budget_limit(b)
            plain = request.time is not None or request.min_performance != 0
            name = self.criterion_allocators[self._criterion[j]]
            crit[i] = -1 if plain else CRITERION_CODES.get(name, -1)
            end = self._own_end(j, state)
            own_end[i] = math.inf if end is None else end
        return n, volume, limit, crit, own_end

    def _fit(
        self,
        chunks: list[list[int]],
        more: list[bool],
        requests: tuple[np.ndarray, ...],
        dead: np.ndarray,
        slots: SlotList,
        state: CycleState,
    ) -> tuple[int, np.ndarray, list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
        """One call of ``first_fit_kernels.first_fit`` on ``slots``.

        ``chunks``: each class's next jobs (increasing job indices), ``more``: whether it has
        others after them, ``requests``: :meth:`_fit_requests` of the classes, ``dead``
        (bool, shape (k,), updated): whether a class's search failed. Returns the kernel's
        stop code, the jobs taken per class, the event columns, their spans and the free
        slots' columns after the cuts. Raises nothing of its own. Source: VO Preferences §2.
        """
        count = len(chunks)
        off = np.zeros(count + 1, dtype=np.int64)
        off[1:] = np.cumsum([len(chunk) for chunk in chunks])
        jobs = np.fromiter((j for chunk in chunks for j in chunk), dtype=np.int64, count=off[-1])
        events = int(off[-1]) + count
        ptr = np.zeros(count, dtype=np.int64)
        ev = [np.empty(events, dtype=t) for t in "qqqddddqdq"]  # job .. floor, spans
        ev[-1] = np.empty(events + 1, dtype=np.int64)
        buf = [np.empty(int(np.dot(np.diff(off), requests[0])), dtype=t) for t in "qdddd"]
        pool = first = members = _NO_POOL  # not a count view: a plain cut
        if state.pool is not None:
            pool = np.asarray(state.pool, dtype=np.int64)
            first, members = members_of(pool)
        stop, e, *columns = kernels("vosim.policies.first_fit_kernels").first_fit(
            slots.node, slots.start, slots.end, slots.price, slots.performance, pool, first,
            members, off, jobs, np.array(more, dtype=np.bool_), *requests,
            float(state.time), ptr, dead, *ev, *buf,
        )  # fmt: skip
        return int(stop), ptr, [column[:e] for column in ev[:-1]] + [ev[-1]], buf, columns

    # -- queue, budgets, payment -------------------------------------------------------------
    def _dequeue(self, index: np.ndarray, taken: np.ndarray) -> None:
        """Remove the queue positions where ``taken`` (bool, shape like ``index``) is set."""
        if self.fast:
            self.classes.remove(index[taken])
        self._queue = index[~taken]

    def _budgets(self, jobs: np.ndarray) -> np.ndarray:
        """What each job (indices, shape (k,)) may spend: ``C``, or ``min(C, balance)``."""
        budget = self._budget[jobs]
        if self._balance is None:
            return budget
        return np.minimum(budget, np.maximum(self._balance[self._user[jobs]], 0.0))

    def _class_budgets(self, classes: np.ndarray) -> np.ndarray:
        """:meth:`_budgets` for request classes (ids, shape (k,))."""
        budget = self.classes.budget[classes]
        if self._balance is None:
            return budget
        return np.minimum(budget, np.maximum(self._balance[self.classes.user[classes]], 0.0))

    def _pay(self, job: int, window: Window) -> bool:
        """Whether job ``job``'s user can pay ``window`` from this period's balance; if so, pay.

        Every job of a cycle was searched with ``min(C, balance)``; an earlier job of the same
        user reserved in this cycle may have spent part of it. A job that cannot pay waits.
        (VO Preferences §4: users' budgets; the per-period account is vosim's extension.)
        """
        if self._balance is None:
            return True
        user = self._user[job]
        balance = float(self._balance[user])
        if window.cost <= balance * (1 + 1e-9):
            self._balance[user] -= window.cost
            return True
        self._reason[job] = (
            f"user's balance {balance:.6g} below the window's cost {window.cost:.6g} after "
            "this cycle's other reservations"
        )
        self.wait_code[job] = ALLOCATOR_FAILED
        return False

    def _sleep(self, classes: np.ndarray, slots: SlotList, now: float) -> None:
        """Put request ``classes`` that found no window at ``now`` to sleep (static market).

        Those whose search failed on ``P_a`` this cycle are searched again at the next one.
        """
        self.classes.sleep(classes, self._class_budgets(classes), slots, now)
        if self._awake:
            self.classes.wake[np.fromiter(self._awake, dtype=np.int64)] = -math.inf

    # -- step 1 and step 2 -------------------------------------------------------------------
    def _step1(
        self,
        slots: SlotList,
        index: np.ndarray,
        fits: np.ndarray,
        budget: np.ndarray,
        uncertain: UtilizationSchedule | None,
        state: CycleState,
        earliest: dict[int, float],
    ) -> tuple[np.ndarray, list[int], BatchAlternatives]:
        """Step 1 of the CSS for the queued jobs at positions ``fits`` of ``index``.

        Returns the positions actually searched, their job indices and what
        :func:`~vosim.allocators.csa.batch_alternatives` found. With one alternative per job
        (first fit, a single pass) the jobs go in chunks of :data:`_CHUNK`, and after a chunk
        that reserved something the rest are screened again as arrays: a long queue of jobs
        that all passed the screen (e.g. thousands waiting for the same long slot) then costs
        numpy work, not a Python object per job. The windows are those of one call.
        ``earliest`` receives, per job that found a window, :meth:`_earliest` on the slots
        its first search saw.
        """
        single = self.vo_policy.max_alternatives == 1
        chunk = _CHUNK if single else max(fits.size, 1)
        searched, jobs, windows, reasons = [], [], [], []
        pending = fits
        while pending.size:
            part, pending = pending[:chunk], pending[chunk:]
            part_jobs = index[part].tolist()
            found = batch_alternatives(
                slots,
                self._requests(part_jobs, budget[part].tolist()),
                [
                    partial(self._noting, j, self._search(j, uncertain, state), state, earliest)
                    for j in part_jobs
                ],
                self.vo_policy.max_alternatives,
                partial(self._cut, pool=state.pool),
            )
            slots = found.slots
            searched.append(part)
            jobs += part_jobs
            windows += found.windows
            reasons += found.reasons
            if pending.size and any(found.windows):
                rest = index[pending]
                code = screen_requests(slots, self._n[rest], self._volume[rest], budget[pending])
                self.wait_code[rest] = code
                pending = pending[code == FITS_MAYBE]
        searched = np.concatenate(searched) if searched else fits
        return searched, jobs, BatchAlternatives(windows, slots, reasons)

    def _noting(
        self,
        job: int,
        search: str | Callable[[SlotList, ResourceRequest], Allocation],
        state: CycleState,
        earliest: dict[int, float],
        slots: SlotList,
        request: ResourceRequest,
    ) -> Allocation:
        """``search`` for job ``job``, noting :meth:`_earliest` at its first window found.

        A job whose request class already failed this cycle on this very slot list (no window
        was cut out since) gets that failure again without a search: the same request and
        search on the same slots give the same result (a fallback chain's is counted again,
        as its search would count it). A burst of identical jobs then costs one search per
        cut, not one per job. ``VOSIM_REFERENCE=1`` searches every job.
        """
        c = int(self.classes.of[job])
        seen = self._failed.get(c)
        same = seen is not None and seen[0] is slots and seen[1].asks == request.asks
        if same and not reference():
            result = seen[2]
            if ">" in self.criterion_allocators[self._criterion[job]]:
                self.fallbacks.record(result)
        else:
            result = self._fused(job, state, earliest, slots, request)
            if result is None:
                result = _searched(slots, request, search)
        if result.window is None:
            self._failed[c] = (slots, request, result)
            self._note_failure(job, result, state)
        elif job not in earliest:
            earliest[job] = self._earliest(job, slots, request, state, result.window)
        return result

    def _fused(
        self,
        job: int,
        state: CycleState,
        earliest: dict[int, float],
        slots: SlotList,
        request: ResourceRequest,
    ) -> Allocation | None:
        """Job ``job``'s search, AMP's earliest start and cut by the compiled first fit.

        The window (or the refusal) the job's criterion gives on ``slots`` for ``request``;
        the earliest start is noted in ``earliest`` and the slots after the cut are kept for
        :meth:`_cut`. ``None`` where the plain search must run: per-period accounts, several
        alternatives, ``VOSIM_REFERENCE=1``, or a search the kernel leaves to it. Raises
        nothing of its own. Source: VO Preferences §2; AEP §2.1-2.2.
        """
        if reference() or self._balance is not None or self.vo_policy.max_alternatives != 1:
            return None
        requests = self._fit_requests([job], [request.budget], state)
        if requests[3][0] < 0:
            return None
        dead = np.zeros(1, dtype=np.bool_)
        stop, _, ev, buf, columns = self._fit([[job]], [False], requests, dead, slots, state)
        if stop == PLAIN:
            return None
        ((_, _, window, start, reason),) = _events(ev, buf, requests[0], [request.budget])
        name = self.criterion_allocators[self._criterion[job]]
        if window is None:
            return Allocation(None, reason, name, {"slots": len(slots)})
        self._cut_by_fit = (window, SlotList.trusted(*columns))
        earliest[job] = start
        return Allocation(window, "", name, {"slots": len(slots)}, exact=True)

    def _cut(self, slots: SlotList, window: Window, pool: np.ndarray | None) -> SlotList:
        """``cut_window(slots, window, pool)``, or the slots :meth:`_fused` cut it from.

        Raises what :func:`~vosim.policies.batch_windows.cut_window` raises.
        """
        kept, self._cut_by_fit = self._cut_by_fit, None
        if kept is not None and kept[0] is window:
            return kept[1]
        return cut_window(slots, window, pool)

    def _note_failure(self, job: int, result: Allocation, state: CycleState) -> None:
        """Keep job ``job``'s class awake if its failed search read ``P_a`` (see the class)."""
        if (
            state.availability is not None
            and result.criterion == "max_availability"
            and not result.stats.get("geometric", False)
        ):
            self._awake.add(int(self.classes.of[job]))

    def _earliest(
        self,
        job: int,
        slots: SlotList,
        request: ResourceRequest,
        state: CycleState,
        found: Window,
    ) -> float:
        """The earliest start of any window job ``job`` can afford in its own interval.

        AMP (AEP §2.2: the first window within budget ``C`` in start order) on the job's
        slots; ``found``, a window its criterion found there, is within budget, so AMP's
        starts no later (and is ``found``'s own start when that is the pass time). Model
        time units (NaN if none).
        """
        if found.start <= state.time:
            return found.start
        end = self._own_end(job, state)
        if end is not None:
            slots = slots.until(end)
        window = allocate_window(slots, request, "amp").window
        return math.nan if window is None else window.start

    def _requests(self, jobs: list[int], budget: list[float]) -> list[ResourceRequest]:
        """The jobs' resource requests, with budget ``min(C, balance)`` under accounts."""
        requests = [self._request[j] for j in jobs]
        # the kept request carries C; a lower balance needs its own
        return [
            r if r.budget == b else replace(r, budget=b)
            for r, b in zip(requests, budget, strict=True)
        ]

    def _search(
        self, job: int, uncertain: UtilizationSchedule | None, state: CycleState
    ) -> str | Callable[[SlotList, ResourceRequest], Allocation]:
        """The window search for job ``job``: a criterion name, a chain or a P_a^w search.

        Searches the slots of the job's own interval ``[t, t + L_j)`` when it ends before
        the pass's (``look_ahead``).
        """
        criterion = self.criterion_allocators[self._criterion[job]]
        if criterion == "max_availability":
            p_avail = (uncertain or self._certain).p_avail
            search = partial(_max_availability, p_avail=p_avail, method=self.availability_method)
        elif ">" in criterion:
            search = partial(self._chain, criterion)
        else:
            search = criterion
        end = self._own_end(job, state)
        return search if end is None else partial(_within, search=search, end=end)

    def _own_end(self, job: int, state: CycleState) -> float | None:
        """Where job ``job``'s own interval ends if before the pass's interval; else None."""
        end = state.time + self._reach[job]
        return end if end < state.until else None

    def _chain(self, chain: str, slots: SlotList, request: ResourceRequest) -> Allocation:
        """A window search by a fallback chain such as ``"min_cost>amp"``.

        The chain's exact link runs under ``fallback_after``; the result is counted in
        :attr:`fallbacks`.
        """
        result = allocate_window(slots, request, chain, fallback_after=self.fallback_after)
        self.fallbacks.record(result)
        return result

    def _choose(
        self,
        jobs: list[int],
        windows: list[list[Window]],
        uncertain: UtilizationSchedule | None,
        stats: dict[str, Any],
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Step 2: the chosen alternative per job (-1: none) and each alternative's ``U``."""
        if self.vo_policy.max_alternatives == 1:
            choice = np.array([0 if w else -1 for w in windows], dtype=np.int64)
            return choice, [_ONE_ZERO if w else _NO_EVALS for w in windows]
        criteria = [self._criterion[j] for j in jobs]
        availability = None
        if "availability" in criteria:
            schedule = uncertain or self._certain
            availability = [[window_availability(w, schedule) for w in ws] for ws in windows]
        result = choose_alternatives(windows, criteria, self.vo_policy, availability)
        stats.update(ua=result.ua, vo_evaluation=result.vo_evaluation, vo_total=result.vo_total)
        return result.choice, result.user_evals

    # -- why a job waits ---------------------------------------------------------------------
    def last_code(self, index: int) -> tuple[int, str]:
        """The screening or allocator code of job ``index``'s last search, with the reason.

        The newest of the job's own record (a cycle over every job) and its request class's
        (a cycle over classes); ``(0, "")`` if never searched. Codes:
        :data:`~vosim.allocators.request_screen.SCREEN_REASONS` and ``ALLOCATOR_FAILED``.
        """
        c = int(self.classes.of[index])
        if c >= 0 and self.classes.stamp[c] > self._job_stamp[index]:
            return int(self.classes.code[c]), self.classes.reason[c]
        return int(self.wait_code[index]), self._reason[index]

    def _scale(self, alternatives: int) -> float:
        """What a user evaluation ``U`` is divided by to lie in [0, 1] (VO Preferences §3).

        100 for relative evaluations (percent), else the last rank ``alternatives - 1``.
        """
        if self.vo_policy.evaluation == "relative":
            return 100.0
        return float(max(alternatives - 1, 1))


def _events(
    ev: list[np.ndarray], buf: list[np.ndarray], n: np.ndarray, budget: list[float]
) -> Iterator[tuple[int, int, Window | None, float, str]]:
    """The compiled first fit's events: job, class, window (``None``: none), AMP's start, reason.

    ``ev``, ``buf``: the event and span columns of ``first_fit_kernels.first_fit``; ``n``,
    ``budget``: the classes' tasks and budgets (cost units), for the reasons. Raises nothing.
    """
    job, klass, kind, t, runtime, cost, earliest, usable, floor, at = ev
    for k in range(job.size):
        j, i = int(job[k]), int(klass[k])
        if kind[k] != FOUND:
            reason = refusal_reason(int(kind[k]), int(n[i]), budget[i], usable[k], floor[k])
            yield j, i, None, math.nan, reason
            continue
        a, z = int(at[k]), int(at[k + 1])
        window = Window(
            slots=Spans(*(column[a:z].copy() for column in buf)),
            start=float(t[k]),
            runtime=float(runtime[k]),
            cost=float(cost[k]),
        )
        yield j, i, window, float(earliest[k]), ""


def _within(
    slots: SlotList,
    request: ResourceRequest,
    search: str | Callable[[SlotList, ResourceRequest], Allocation],
    end: float,
) -> Allocation:
    """``search`` over the slots of the shorter interval ending at ``end`` (a job's own)."""
    return _searched(slots.until(end), request, search)


def _searched(
    slots: SlotList,
    request: ResourceRequest,
    search: str | Callable[[SlotList, ResourceRequest], Allocation],
) -> Allocation:
    """Run ``search``: a ``(slots, request)`` callable, or a criterion name or chain."""
    if callable(search):
        return search(slots, request)
    return allocate_window(slots, request, search)


def _max_availability(
    slots: SlotList, request: ResourceRequest, p_avail: Callable, method: str
) -> Allocation:
    """The maximum-``P_a^w`` window search (ICCS 2021) as a ``(slots, request)`` search."""
    return max_availability_window(slots, request, p_avail, method)


@register_policy("availability", options=_SCHEME_OPTIONS)
def availability_scheme(**options: Any) -> CyclicScheme:
    """The cyclic scheme with every job searched for its maximum-``P_a^w`` window.

    Options as :class:`CyclicScheme` (``criterion_allocators`` is set here).

    References
    ----------
    ICCS 2021 (the maximum-availability window); VO Preferences §2 (the cyclic scheme).
    """
    mapping = dict.fromkeys(DEFAULT_CRITERION_ALLOCATORS, "max_availability")
    return CyclicScheme(**{**options, "criterion_allocators": mapping})
