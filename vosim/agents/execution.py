"""The VO's jobs holding windows: reserved at the owners, run, then completed or interrupted."""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Callable

import mesa
import numpy as np

from vosim.allocators.base import Window
from vosim.market.availability import UtilizationSchedule
from vosim.market.uncertainty import local_jobs_schedule, sample_interruption, window_availability
from vosim.market.workload import Job

__all__ = ["Execution"]


class Execution:
    """The metascheduler's running and reserved jobs, from reservation to their end.

    Applies what a policy decided: windows reserved at their nodes' owners (users charged
    under per-period accounts), unstarted reservations cancelled (refunded and released),
    completion and interruption events scheduled on the model, and the rest of a window
    released when its job ends early. Keeps the number of busy nodes up to date.

    Parameters
    ----------
    model : VOModel
        The model (owners, users, ``rng``, ``schedule_event``).
    event_driven : bool
        Ends at a time come before that time's arrivals and pass (``Priority.HIGH``).
    queue : list of int
        Where interrupted and cancelled jobs go back (job indices), shared with the
        metascheduler, which queues them at its next cycle.
    freed : set of int
        Where nodes whose reserved time was released are noted, shared with the metascheduler.
    request_pass : callable () -> None
        Asks for a scheduling pass now (event-driven cycles).

    References
    ----------
    VO Preferences §2 (windows reserved in the owners' schedules); ICCS 2023 §2.2 (windows
    fail when owners' local jobs take their nodes).
    """

    def __init__(
        self,
        model: mesa.Model,
        event_driven: bool,
        queue: list[int],
        freed: set[int],
        request_pass: Callable[[], None],
    ) -> None:
        self.model = model
        self.event_driven = event_driven
        self.queue = queue
        self.freed = freed
        self.request_pass = request_pass
        self.running: list[Job] = []
        self.completed = 0
        # busy_nodes: +1/-1 events at task starts and ends, (time, delta, job id, attempt)
        self._busy_events: list[tuple[float, int, int, int]] = []
        self._stopped: dict[tuple[int, int], float] = {}  # interrupted attempts: when
        self._busy = 0
        self._busy_at = -math.inf
        self._completions: list[tuple[float, int, int, Job]] = []
        self._due: set[float] = set()  # times with a complete_due event scheduled
        #: Each node's reserved end of its VO task (``-inf``: never reserved), by node id.
        self.reserved_until = np.full(model.node_count, -math.inf)
        self._ahead = False  # a window was ever reserved to start after its pass
        self._failures: list[tuple[float, int, int, Job]] = []

    def cancel(self, job: Job) -> None:
        """Cancel ``job``'s unstarted reservation: nodes released, payment refunded."""
        model = self.model
        self.running.remove(job)
        self._stopped[job.job_id, job.attempt] = model.time  # its busy events lapse
        self._release(job, [s.start for s in job.window.slots])
        for s in job.window.slots:
            model.owner_of_node[s.node].refund(s.price * (s.end - s.start))
            self.freed.add(s.node)
        if model.budget_period is not None:
            model.users[model.job_user_index[job.index]].charge(-job.window.cost)
        job.attempt += 1  # its completion event lapses
        job.state = "waiting"
        job.window = None
        job.start = job.finish = math.nan
        job.task_ends = ()

    def utilization_schedule(self, now: float) -> UtilizationSchedule:
        """Owners' local jobs as uncertain event chains plus each node's global event."""
        parts = [owner.local_job_arrays(now) for owner in self.model.owners]
        node, start, end = (np.concatenate([p[k] for p in parts]) for k in range(3))
        return local_jobs_schedule(
            self.model.node_count, node, start, end, self.model.node_global_p
        )

    def _realise(self, job: Job, window: Window, uncertain: UtilizationSchedule) -> float:
        """Predict the window's ``P_a^w`` and draw when (if ever) one of its nodes is taken."""
        model = self.model
        predicted = window_availability(window, uncertain)
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

    def reserve(
        self, job: Job, window: Window, uncertain: UtilizationSchedule | None = None
    ) -> None:
        """Reserve ``window`` for ``job`` at the owners and schedule its end or interruption.

        Under per-period accounts the user pays the window now (a failure refunds the unused
        part). A task on node ``i`` takes ``run_time * p_ref / p_i``; the job ends with its
        slowest task. With ``uncertain`` (owners' local jobs as event chains) the window's
        ``P_a^w`` is predicted and when one of its nodes is taken is drawn from the model's
        ``rng``.
        """
        model = self.model
        if model.budget_period is not None:  # per-period account (vosim's extension)
            model.users[model.job_user_index[job.index]].charge(window.cost)
        job.window = window
        job.state = "scheduled"
        job.start = window.start
        # The job runs run_time on a reference-performance node; on node i it takes
        # run_time * p_ref / p_i, and the job ends with its slowest task.
        work = job.run_time * model.reference_performance
        start, slots = window.start, window.slots
        ends = [start + work / s.performance for s in slots]
        job.task_ends = tuple(ends)
        job.finish = max(ends)
        nodes = [s.node for s in slots]
        self.reserved_until[nodes] = [s.end for s in slots]
        self._ahead = self._ahead or start > model.time
        owner_of = model.owner_of_node
        owner = owner_of[nodes[0]]
        if len(model.owners) == 1 or all(owner_of[k] is owner for k in nodes):
            costs = [s.price * (s.end - s.start) for s in slots]
            owner.reserve_many(nodes, start, [s.end for s in slots], job.job_id, costs)
        else:
            for s in slots:
                cost = s.price * (s.end - s.start)
                owner_of[s.node].reserve(s.node, s.start, s.end, job.job_id, cost)
        self.running.append(job)
        job.attempt += 1
        # tasks keep their nodes busy over [start, end): one event per job start and per
        # distinct task end, carrying the count
        events, key = self._busy_events, (job.job_id, job.attempt)
        heapq.heappush(events, (start, len(ends), *key))
        for end, count in (
            [(ends[0], len(ends))] if ends.count(ends[0]) == len(ends) else Counter(ends).items()
        ):
            heapq.heappush(events, (end, -count, *key))
        fail = self._realise(job, window, uncertain) if uncertain is not None else math.inf
        if fail < job.finish:
            heapq.heappush(self._failures, (fail, job.job_id, job.attempt, job))
            model.schedule_event(self.fail_due, at=fail)
        else:
            heapq.heappush(self._completions, (job.finish, job.job_id, job.attempt, job))
            # event driven: every end at a time comes before that time's arrivals and pass;
            # one event per distinct end time (complete_due ends every job due by then)
            if job.finish not in self._due:
                self._due.add(job.finish)
                priority = (
                    mesa.time.Priority.HIGH if self.event_driven else mesa.time.Priority.DEFAULT
                )
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
            self.queue.append(job.index)
            self.request_pass()

    def complete_due(self) -> None:
        """Complete every job whose finish time has come and release the rest of its window."""
        now = self.model.time
        self._due.discard(now)
        while self._completions and self._completions[0][0] <= now:
            _, _, attempt, job = heapq.heappop(self._completions)
            if job.attempt != attempt or job.state != "scheduled":
                continue
            job.state = "completed"
            self.completed += 1
            self.running.remove(job)
            # Task on node i ends after run_time * p_ref / p_i, never past its slot.
            slots = job.window.slots
            ends = [min(s.end, end) for s, end in zip(slots, job.task_ends, strict=True)]
            self._release(job, ends)
            # [now, s.end) is free again: waiting jobs may fit
            self.freed.update([s.node for s in slots if s.end > now])
            self.request_pass()

    def _release(self, job: Job, ends: list[float]) -> None:
        """End ``job``'s reserved spans at ``ends`` (one per window slot), owner by owner."""
        self.reserved_until[[s.node for s in job.window.slots]] = ends
        owners = self.model.owners
        if len(owners) == 1:  # one owner (the traced machine): one call, no grouping
            owners[0].release([s.node for s in job.window.slots], job.job_id, ends)
            return
        by_owner: dict[int, tuple[list[int], list[float]]] = {}
        for s, end in zip(job.window.slots, ends, strict=True):
            nodes, at = by_owner.setdefault(self.model.owner_of_node[s.node].owner_id, ([], []))
            nodes.append(s.node)
            at.append(end)
        for k, (nodes, at) in by_owner.items():
            self.model.owners[k].release(nodes, job.job_id, at)

    def processors(
        self, now: float, until: float, price: float, performance: float
    ) -> tuple | None:
        """The free slots of ``[now, until)`` in count form, from the VO's reservations alone.

        Valid when every node is identical (one ``price``, one ``performance``) and holds no
        busy time but VO tasks, as on the traced machine; the caller checks that. Returns
        ``(until, price, performance, free, (later_start, later_node))`` as
        :attr:`~vosim.policies.base.CycleState.processors` describes it (``O(m)`` numpy work
        for ``m`` nodes), or ``None`` once a window was ever reserved to start after its pass
        (a node may then hold two reservations, which one end per node does not describe) or
        for an infinite ``until``.
        """
        if self._ahead or not math.isfinite(until):
            return None
        ends = self.reserved_until
        free = np.flatnonzero(ends <= now)
        later = np.flatnonzero((ends > now) & (ends < until))
        order = np.argsort(ends[later], kind="stable")  # by release time, ties by id
        later = later[order]
        return until, price, performance, free, (ends[later], later)

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
