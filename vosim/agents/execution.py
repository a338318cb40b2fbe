"""The VO's jobs holding windows: reserved at the owners, run, then completed or interrupted."""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections.abc import Callable, Iterator, Sequence

import mesa
import numpy as np
import pandas as pd

from vosim.agents.callbacks import callback
from vosim.agents.task_log import TaskLog
from vosim.allocators.base import Window
from vosim.core.windows import Spans, distinct
from vosim.market.binding import idle_processors, idle_processors_in_order, pack
from vosim.market.free_time import members_of
from vosim.market.uncertainty import (
    local_chains_schedule,
    sample_interruptions,
    window_availability,
)
from vosim.market.utilization_schedule import UtilizationSchedule
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
        Asks for a scheduling pass now (event-driven cycles); called as the last act of an
        event, since the pass may run at once.

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
        #: The jobs holding a window (reserved or running), by job index, in the order their
        #: windows were reserved: ``O(1)`` to add and remove.
        self.running: dict[int, Job] = {}
        self._unstarted: set[int] = set()  # windows reserved to start later: see unstarted()
        # busy_nodes: +1/-1 events at task starts and ends, (time, delta, job index, attempt)
        self._busy_events: list[tuple[float, int, int, int]] = []
        # stopped (cancelled or interrupted) attempts: when; each forgotten once its last busy
        # event has passed
        self._stopped: dict[tuple[int, int], float] = {}
        self._lapsing: list[tuple[float, int, int]] = []  # (last busy event, index, attempt)
        self._busy = 0
        self._busy_at = -math.inf
        self._completions: list[tuple[float, int, int, Job]] = []
        self._due: set[float] = set()  # times with a complete_due event scheduled
        self._complete_due = callback(self, "complete_due")  # what those events call
        self._fail_due = callback(self, "fail_due")
        #: Each node's reserved end of its VO task (``-inf``: never reserved), by node id.
        self.reserved_until = np.full(model.node_count, -math.inf)
        self._changes = 0  # writes to reserved_until so far (processors' staleness guard)
        self.ahead = False  # a window was ever reserved to start after its pass
        self._failures: list[tuple[float, int, int, Job]] = []
        self._attempt_row: dict[int, int] = {}  # job index -> row of model.attempts
        self.tasks = TaskLog()  # the tasks that ran, logged as their windows end
        #: The owner of each node (position in ``model.owners``), by node id.
        self._owner_id = np.array([o.owner_id for o in model.owner_of_node], dtype=np.int64)
        # the last utilization schedule, and what it was built from (owners' local job
        # versions, global probabilities): reused while they are unchanged
        self._uncertain: UtilizationSchedule | None = None
        self._uncertain_key: tuple = ()

    def cancel(self, job: Job, displaced: bool = False) -> None:
        """Cancel ``job``'s unstarted reservation: nodes released, nothing paid.

        Under per-period accounts the window's cost held on the user's balance is returned.
        ``displaced``: an owner's arriving local job took processors of the reservation
        (:meth:`JobLedger.cancel <vosim.agents.ledger.JobLedger.cancel>` counts it).
        """
        model, ledger, i = self.model, self.model.ledger, job.index
        del self.running[i]
        self._unstarted.discard(i)
        self._stop(i, ledger.attempt[i], model.time, ledger.task_ends[i])  # its events lapse
        window = ledger.window[i]
        spans = window.spans
        self._release(job, spans.start)
        self.freed.update(spans.node.tolist())
        self._return_hold(job, window.cost)
        row = self._attempt_row.pop(job.index, None)
        if row is not None:  # its draw never comes: the attempt moved, it did not fail
            model.attempts[row] = (*model.attempts[row][:4], False, math.inf, True)
        model.ledger.cancel(job, displaced)  # a new attempt: its completion event lapses

    def utilization_schedule(self, now: float) -> UtilizationSchedule:
        """Owners' local jobs as uncertain event chains plus each node's global event.

        The chains of every owner's local jobs that can still matter at ``now`` (model time
        units), owner after owner, each in the order placed: what
        :func:`~vosim.market.uncertainty.local_jobs_schedule` gives for them, bit for bit.
        Built incrementally: each local job's chain is derived once, when it is placed, and
        the schedule of the last call is returned again while no owner added or forgot a
        local job (a cycle with neither costs O(owners)). Do not modify its arrays.

        References
        ----------
        vosim's rule: the chains are kept across cycles (rebuilding them from every local job
        each cycle made runs with availability and a local trace 30-70 times slower); ICCS
        2023 §2.1-2.2.
        """
        model = self.model
        jobs = [owner.local_chains(now) for owner in model.owners]
        key = (model.node_global_p, *(j.version for j in jobs))
        cached = self._uncertain_key
        if (
            self._uncertain is None
            or len(key) != len(cached)
            or key[0] is not cached[0]
            or key[1:] != cached[1:]
        ):
            self._uncertain = local_chains_schedule(model.node_count, jobs, model.node_global_p)
            self._uncertain_key = key
        return self._uncertain

    def _realise(self, job: Job, window: Window, uncertain: UtilizationSchedule) -> float:
        """Predict the window's ``P_a^w`` and draw when (if ever) one of its nodes is taken."""
        model = self.model
        predicted = window_availability(window, uncertain)
        model.ledger.predict(job, predicted)
        spans = window.spans
        ends = np.minimum(spans.end, np.asarray(model.ledger.task_ends[job.index], dtype=float))
        fail = float(
            sample_interruptions(uncertain, spans.node, window.start, ends, model.rng).min(
                initial=math.inf
            )
        )
        self._attempt_row[job.index] = len(model.attempts)
        model.attempts.append(
            (job.job_id, float(model.time), window.start, predicted, math.isinf(fail), fail, False)
        )
        return fail

    def reserve(
        self, job: Job, window: Window, uncertain: UtilizationSchedule | None = None
    ) -> None:
        """Reserve ``window`` for ``job`` at the owners and schedule its end or interruption.

        Nothing is paid yet: the user pays for what runs when the job ends
        (:meth:`_settle`). Under per-period accounts the window's cost is held on the user's
        balance now (so that one balance is not promised twice) and the unused part returned
        at the end. A task on node ``i`` takes ``run_time * p_ref / p_i``; the job ends with
        its slowest task. With ``uncertain`` (owners' local jobs as event chains) the window's
        ``P_a^w`` is predicted and when one of its nodes is taken is drawn from the model's
        ``rng``. A window of a count view is bound to processors first (:meth:`bind`,
        :meth:`bind_in_order`).
        """
        model = self.model
        held_in = None
        if model.budget_period is not None:  # per-period account (vosim's extension)
            model.users[model.job_user_index[job.index]].charge(window.cost)
            held_in = model.budget_periods
        if not isinstance(window.slots, Spans):  # held as columns from here on
            window = dataclasses.replace(window, slots=window.spans)
        # The job runs run_time on a reference-performance node; on node i it takes
        # run_time * p_ref / p_i, and the job ends with its slowest task.
        work = job.run_time * model.reference_performance
        start, spans = window.start, window.spans
        nodes = spans.node
        ends = start + work / spans.performance
        task_ends = ends.tolist()
        ledger, i = model.ledger, job.index
        ledger.reserve(job, window, task_ends, held_in)
        finish, attempt = ledger.finish[i], ledger.attempt[i]
        self.reserved_until[nodes] = spans.end
        self._changes += 1
        if start > model.time:
            self.ahead = True
            self._unstarted.add(i)
        model.busy_time.reserve(nodes, start, spans.end, i)  # VO Preferences §2: at the owners
        self.running[i] = job
        # tasks keep their nodes busy over [start, end): one event per job start and per
        # distinct task end, carrying the count
        events, key = self._busy_events, (i, attempt)
        heapq.heappush(events, (start, nodes.size, *key))
        if finish == min(task_ends):
            heapq.heappush(events, (finish, -nodes.size, *key))
        else:
            distinct, counts = np.unique(ends, return_counts=True)
            for end, count in zip(distinct.tolist(), counts.tolist(), strict=True):
                heapq.heappush(events, (end, -count, *key))
        fail = self._realise(job, window, uncertain) if uncertain is not None else math.inf
        if fail < finish:
            heapq.heappush(self._failures, (fail, i, attempt, job))
            model.schedule_event(self._fail_due, at=fail)
        else:
            heapq.heappush(self._completions, (finish, i, attempt, job))
            # event driven: every end at a time comes before that time's arrivals and pass;
            # one event per distinct end time (complete_due ends every job due by then)
            if finish not in self._due:
                self._due.add(finish)
                priority = (
                    mesa.time.Priority.HIGH if self.event_driven else mesa.time.Priority.DEFAULT
                )
                model.schedule_event(self._complete_due, at=finish, priority=priority)

    def bind(self, window: Window) -> Window | None:
        """``window`` (node ids of the count view) on processors free for all of its spans.

        Per pool of the window: its node ids are kept if no busy row (local job, started
        task or reservation) holds those processors over the spans; else the pool's lowest
        processors that none holds are taken (both by
        :func:`~vosim.market.binding.idle_processors`); otherwise the pool's unstarted reservations
        and the window's tasks are packed again (:meth:`_packed`), and every reservation
        whose processors changed is re-bound at the owners and in the ledger. Returns the
        window on its processors, or ``None`` (nothing changed) when no packing was found:
        local jobs placed ahead on part of a pool can forbid the one the counts allow.
        Raises nothing.

        References
        ----------
        Mu'alem & Feitelson (2001), §2 (processors counted, not named); the packing rule is
        vosim's (:mod:`vosim.market.binding`).
        """
        model, busy = self.model, self.model.busy_time
        pool = model.free_time.pool
        first, members = members_of(pool)
        spans = window.spans
        nodes, left = idle_processors(
            spans.node, spans.end, window.start, model.time, pool, first, members,
            busy.reservations.intervals()[:3], busy.local_rows(spans.node),
        )  # fmt: skip
        moves: dict[int, dict[int, int]] = {}  # job index -> {old node: new node}
        if left.size:  # too few processors free over a pool's span: pack it
            of = pool[nodes]
            for p in left.tolist():
                at = np.flatnonzero(of == p)
                got = self._packed(
                    p, np.full(at.size, window.start), spans.end[at], nodes[at], moves
                )
                if got is None:
                    return None
                nodes[at] = got
        for j, change in moves.items():
            self._rebind(j, change)
        return _on(window, nodes)

    def bind_in_order(self, windows: Sequence[Window]) -> list[Window]:
        """The first of ``windows`` on processors as :meth:`bind` binds each, in one call.

        Each window is bound as :meth:`bind` binds it once the ones before it are reserved,
        and none moves another reservation. ``windows``: count-view windows in the order
        they are reserved. Binding stops before the first window with a pool that only a
        packing can place (:meth:`bind` places it, and may move other reservations).
        Returns the bound windows, a prefix of ``windows`` in order; nothing is reserved or
        changed. Raises ``IndexError`` for a processor beyond the pools. Source: Mu'alem &
        Feitelson (2001), §2 (processors counted, not named); the rule is vosim's
        (:mod:`vosim.market.binding`).
        """
        if not windows:
            return []
        model, busy = self.model, self.model.busy_time
        pool = model.free_time.pool
        spans = [window.spans for window in windows]
        got, left = idle_processors_in_order(
            [(s.node, s.end, window.start) for s, window in zip(spans, windows, strict=True)],
            model.time, (pool, *members_of(pool)), busy.reservations.intervals()[:3],
            busy.local_rows(np.concatenate([s.node for s in spans])),
        )  # fmt: skip
        placed = len(got) - (1 if left.size else 0)
        return [_on(window, nodes) for window, nodes in zip(windows, got[:placed], strict=False)]

    def repack(self, resources: np.ndarray) -> bool:
        """Pack the unstarted reservations of the pools of ``resources`` again, if they can be.

        After an owner's local job took ``resources`` (ids, shape (k,)), reservations held
        there may fit on other processors of their pools; :func:`~vosim.market.binding.pack`
        is tried for each pool, and only if every pool packs are the reservations re-bound.
        Returns whether they were (``False``: nothing changed; the caller displaces them).
        Mu'alem & Feitelson (2001), §2 (counted processors); the rule is vosim's.
        """
        pool = self.model.free_time.pool
        moves: dict[int, dict[int, int]] = {}
        none = np.empty(0)
        for p in distinct(pool[np.asarray(resources, dtype=np.int64)]).tolist():
            if self._packed(p, none, none, np.empty(0, dtype=np.int64), moves) is None:
                return False
        for j, change in moves.items():
            self._rebind(j, change)
        return True

    def _packed(
        self,
        p: int,
        start: np.ndarray,
        end: np.ndarray,
        prefer: np.ndarray,
        moves: dict[int, dict[int, int]],
    ) -> np.ndarray | None:
        """Processors for ``k`` new tasks of pool ``p`` (shape (k,) each), the pool re-packed.

        The pool's unstarted reservations and the tasks (``prefer``: each one's processor
        now) are packed together onto what its fixed busy time (started tasks, local jobs)
        leaves free (:func:`~vosim.market.binding.pack`), and the reservations' changes are
        added to ``moves`` (job index -> {old node: new node}). With no task the reservations are
        packed again (a local job may have taken some of their processors). Returns the
        tasks' processors, or ``None`` (``moves`` unchanged) if no packing was found.
        """
        model, busy, now = self.model, self.model.busy_time, self.model.time
        pool = model.free_time.pool
        first, members = members_of(pool)
        ids = members[first[p] : first[p + 1]]
        vnode, va, vb, vtag = busy.reservations.intervals()
        lnode, la, lb, _ = busy.local[int(self._owner_id[ids[0]])].intervals()
        mine = (pool[lnode] == p) & (lb > now)
        rows = (pool[vnode] == p) & (vb > now)
        started = rows & (va <= now)
        ahead = np.flatnonzero(rows & (va > now))
        fixed = (
            np.concatenate([lnode[mine], vnode[started]]),
            np.concatenate([la[mine], va[started]]),
            np.concatenate([lb[mine], vb[started]]),
        )
        held = (vnode[ahead], va[ahead], vb[ahead])
        got = pack(
            ids,
            fixed,
            np.concatenate([held[1], start]),
            np.concatenate([held[2], end]),
            np.concatenate([held[0], prefer]),
        )
        if got is None:
            return None
        for k in np.flatnonzero(got[: ahead.size] != held[0]).tolist():
            moves.setdefault(int(vtag[ahead[k]]), {})[int(held[0][k])] = int(got[k])
        return got[ahead.size :]

    def _rebind(self, i: int, change: dict[int, int]) -> None:
        """Move job ``i``'s unstarted tasks from node ``k`` to ``change[k]`` (same spans)."""
        model = self.model
        old = model.ledger.window[i]
        spans = old.spans
        nodes = np.array([change.get(k, k) for k in spans.node.tolist()], dtype=np.int64)
        moved = nodes != spans.node
        model.busy_time.reservations.move(i, spans.node[moved], nodes[moved])
        self.freed.update(spans.node[moved].tolist())
        bound = Spans(nodes, spans.start, spans.end, spans.price, spans.performance)
        model.ledger.rebind(model.jobs[i], dataclasses.replace(old, slots=bound))

    def fail_due(self) -> None:
        """Interrupt every job one of whose nodes was taken by now, and requeue it.

        :meth:`interrupt` for each; then a pass is asked for.
        """
        now, failed, ledger = self.model.time, False, self.model.ledger
        while self._failures and self._failures[0][0] <= now:
            _, i, attempt, job = heapq.heappop(self._failures)
            if ledger.attempt[i] != attempt or ledger.state[i] != "scheduled":
                continue
            failed = True
            self.interrupt(job, now)
        if failed:
            self.request_pass()  # last: the pass may run at once

    def interrupt(self, job: Job, now: float) -> float:
        """Stop the running (or reserved) ``job`` at ``now`` and requeue it.

        The user pays only for what ran (:meth:`_settle`): each task's price times its time
        from the window start to ``now``, or to its own end if it ended before; the rest of
        the reservation is released. Used when a window fails (availability realised) and
        when an owner's local job preempts a VO task.

        Parameters
        ----------
        job : Job
            A job in state ``scheduled``.
        now : float
            The interruption, model time units.

        Returns
        -------
        float
            Work lost: the processor time its tasks ran before ``now``, resource x time units.
        """
        ledger, i = self.model.ledger, job.index
        del self.running[i]
        self._unstarted.discard(i)
        attempt, start, task_ends = ledger.attempt[i], ledger.start[i], ledger.task_ends[i]
        spans = ledger.window[i].spans
        self._stop(i, attempt, now, task_ends)  # its later busy events lapse
        for end in task_ends:
            if start <= now < end:
                heapq.heappush(self._busy_events, (now, -1, i, attempt))
        ran = max(now, start)
        stops = np.minimum(np.minimum(spans.end, task_ends), ran)
        lost = float(np.sum(stops - start))
        paid = self._settle(job, stops)
        # [stop, s.end) is free again, as after an early end: waiting jobs may fit
        self.freed.update(spans.node[spans.end > stops].tolist())
        row = self._attempt_row.pop(job.index, None)
        if row is not None and math.isinf(self.model.attempts[row][5]):  # taken, not drawn
            self.model.attempts[row] = (*self.model.attempts[row][:4], False, float(now), False)
        self.model.ledger.interrupt(job, paid)
        self.queue.append(job.index)
        return lost

    def complete_due(self) -> None:
        """Complete every job whose finish time has come; it pays for what its tasks used."""
        now, completed, ledger = self.model.time, False, self.model.ledger
        self._due.discard(now)
        while self._completions and self._completions[0][0] <= now:
            _, i, attempt, job = heapq.heappop(self._completions)
            if ledger.attempt[i] != attempt or ledger.state[i] != "scheduled":
                continue
            completed = True
            del self.running[i]
            self._unstarted.discard(i)
            # Task on node i ends after run_time * p_ref / p_i, never past its slot.
            spans = ledger.window[i].spans
            ledger.complete(job, self._settle(job, np.minimum(spans.end, ledger.task_ends[i])))
            # [now, s.end) is free again: waiting jobs may fit
            self.freed.update(spans.node[spans.end > now].tolist())
        if completed:
            self.request_pass()  # last: the pass may run at once

    def _settle(self, job: Job, ends: np.ndarray) -> float:
        """End ``job``'s tasks at ``ends`` (one per window slot, shape (n,)): pay, log, release.

        Each task occupied its node over ``[window start, end)``; its cost is the node's price
        times that time, paid to the node's owner. Under per-period accounts the user gets
        back what was held beyond the sum (within the hold's budget period). The tasks are
        logged (:meth:`task_frame`) and the rest of each reserved span is released. Returns
        the sum paid, cost units.

        References
        ----------
        vosim's rule (a user pays for what ran; no slot time is sold twice); VO
        Preferences §2 (a window's cost is the sum of its slots' price times time).
        """
        ledger = self.model.ledger
        window = ledger.window[job.index]
        spans, start = window.spans, window.start
        costs = spans.price * (ends - start)
        groups = self._by_owner(spans.node, costs)
        for owner, amount in groups:
            owner.earn(amount)
        paid = groups[0][1] if len(groups) == 1 else math.fsum(costs.tolist())
        self._return_hold(job, window.cost - paid)
        self.tasks.add(
            job.job_id,
            job.index,
            job.user,
            ledger.attempt[job.index],
            start,
            spans.node,
            ends,
            spans.price,
            costs,
        )
        self._release(job, ends)
        return paid

    def _return_hold(self, job: Job, amount: float) -> None:
        """Give ``amount`` (cost units) of ``job``'s held window cost back to its user.

        Under per-period accounts only, and only within the budget period the hold was
        taken in: a period's unused allowance does not carry over, so neither does a hold
        returned after the balance was reset. A returned amount wakes the waiting jobs the
        balance held back (:meth:`MetaschedulerAgent.budgets_refreshed`).
        """
        model = self.model
        if (
            model.budget_period is not None
            and model.ledger.held_in[job.index] == model.budget_periods
        ):
            model.users[model.job_user_index[job.index]].charge(-amount)
            if amount > 0:  # the balance grew: jobs that could not pay may now
                model.metascheduler.budgets_refreshed()

    def _by_owner(self, nodes: np.ndarray, costs: np.ndarray) -> list[tuple[mesa.Agent, float]]:
        """A window's task costs summed per owner: ``(owner, sum)``, cost units.

        ``nodes`` are the slots' node ids in window order and ``costs`` one amount per slot,
        shape (n,) each, summed exactly (``math.fsum``) per owner. Owners come in the order
        of their first slot.
        """
        model = self.model
        ids = None if len(model.owners) == 1 else self._owner_id[nodes]
        if ids is None or (ids == ids[0]).all():  # one owner: no grouping
            return [(model.owners[0 if ids is None else int(ids[0])], math.fsum(costs.tolist()))]
        return [
            (model.owners[o], math.fsum(costs[ids == o].tolist()))
            for o in dict.fromkeys(ids.tolist())  # owners in the order of their first slot
        ]

    def _release(self, job: Job, ends: np.ndarray) -> None:
        """End ``job``'s reserved spans at ``ends`` (one per window slot, shape (n,))."""
        window = self.model.ledger.window[job.index]
        nodes = window.spans.node
        self.reserved_until[nodes] = ends
        self._changes += 1
        model = self.model
        model.busy_time.release(job.index, nodes, ends, model.time)

    def task_frame(
        self, *, release: bool = False, columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """One row per task that ran (completed or interrupted), in the order they ended.

        Columns: ``job_id``, ``job`` (the job's position in the trace: its row in
        ``VOModel.job_frame()``, which tells jobs apart where SWF ids repeat), ``user`` (the
        job's user, SWF field 12), ``attempt`` (1 for a job's first window), ``resource`` (the
        slot's resource id: a processor's, or a node's when resources are whole nodes),
        ``node`` (its physical node, ``model.resource_node``), ``owner``, ``start`` and ``end``
        (model time units: when the task occupied its resource; ``end`` is its own end, never
        past its reserved slot, or the interruption), ``price`` (cost units per time unit) and
        ``cost`` = ``price * (end - start)``, cost units. Owners' revenue is the sum of
        ``cost`` (tested); :func:`vosim.analysis.network.market_graph` reads the user-owner
        market from it. ``release`` hands the log's columns to the table
        (:meth:`~vosim.agents.task_log.TaskLog.frame`; a later call raises ``RuntimeError``);
        ``columns`` builds only those (``ValueError`` for a name that is not a column).
        """
        return self.tasks.frame(
            self.model.resource_node, self._owner_id, release=release, columns=columns
        )

    def task_frames(self, rows: int, *, release: bool = False) -> Iterator[pd.DataFrame]:
        """:meth:`task_frame` as consecutive frames of whole windows, ~``rows`` rows each.

        :meth:`~vosim.agents.task_log.TaskLog.frames` (``ValueError`` for ``rows`` < 1,
        ``RuntimeError`` once released): what a writer of row groups reads. ``rows``: tasks
        per frame (int >= 1). Source: no paper (Apache Parquet's row groups).
        """
        return self.tasks.frames(self.model.resource_node, self._owner_id, rows, release=release)

    def processors(self, now: float, until: float) -> tuple | None:
        """The free slots of ``[now, until)`` in count form, from the VO's reservations alone.

        Valid when every node is identical (node 0's price and performance are every node's)
        and holds no busy time but VO tasks, as on the traced machine; the caller checks
        that. Returns
        ``(until, price, performance, free, later)`` as
        :attr:`~vosim.policies.base.CycleState.processors` describes it (``O(m)`` numpy work
        for ``m`` nodes; ``later`` a callable returning ``(later_start, later_node)``, sorted
        when first called), or ``None`` once a window was ever reserved to start after its pass
        (a node may then hold two reservations, which one end per node does not describe) or
        for an infinite ``until``.
        """
        if self.ahead or not math.isfinite(until):
            return None
        price = float(self.model.node_price[0])
        performance = float(self.model.node_performance[0])
        ends, changes = self.reserved_until, self._changes
        free = (ends <= now).nonzero()[0]

        def later() -> tuple[np.ndarray, np.ndarray]:
            # read by EASY's shadow time only, a small share of the passes: sorted on demand,
            # from the ends as at this pass (no copy: a read after a change is refused)
            if self._changes != changes:
                raise RuntimeError("processors: later() read after reservations changed")
            at = ((ends > now) & (ends < until)).nonzero()[0]
            at = at[np.argsort(ends[at], kind="stable")]  # by release time, ties by id
            return ends[at], at

        return until, price, performance, free, later

    def unstarted(self) -> list[int]:
        """The jobs whose reserved window has not started by now: their indices, ascending.

        Kept incrementally: a window reserved to start after its pass is noted when reserved
        and forgotten when it is cancelled, interrupted or completed, or once its start has
        passed (a start never moves but by a new reservation). ``O(u log u)`` for the ``u``
        noted, not ``O(running)``. Raises nothing. Source: Mu'alem & Feitelson (2001), §2 (the
        reservations compression may move are those not started).
        """
        now, start, noted = self.model.time, self.model.ledger.start, self._unstarted
        started = [i for i in noted if start[i] <= now]
        noted.difference_update(started)
        return sorted(noted)

    def _stop(self, i: int, attempt: int, now: float, task_ends: tuple[float, ...]) -> None:
        """Attempt ``attempt`` of job ``i`` stopped at ``now``: its busy events after it lapse.

        Kept until :meth:`busy_nodes` has passed the attempt's last busy event (its last task
        end, model time units), so the record of stopped attempts stays as small as the
        attempts whose events are still pending.
        """
        self._stopped[i, attempt] = now
        heapq.heappush(self._lapsing, (max(task_ends, default=now), i, attempt))

    def busy_nodes(self, now: float) -> int:
        """Number of nodes running a VO task at ``now`` (tasks on faster nodes end earlier).

        Kept up to date from task start and end events as model time advances (``O(log r)``
        per event); an earlier ``now`` is counted over the running jobs.
        """
        if now < self._busy_at:
            ledger = self.model.ledger
            return sum(
                1
                for job in self.running.values()
                if ledger.start[job.index] <= now
                for end in ledger.task_ends[job.index]
                if now < end
            )
        events = self._busy_events
        while events and events[0][0] <= now:
            t, delta, index, attempt = heapq.heappop(events)
            stopped = self._stopped.get((index, attempt))
            if stopped is None or t <= stopped:
                self._busy += delta
        lapsing = self._lapsing
        while lapsing and lapsing[0][0] <= now:  # every event of that attempt has passed
            _, index, attempt = heapq.heappop(lapsing)
            del self._stopped[index, attempt]
        self._busy_at = now
        return self._busy


def _on(window: Window, nodes: np.ndarray) -> Window:
    """``window`` with its spans on processors ``nodes`` (itself when they are its own)."""
    spans = window.spans
    # the bytes compared: ``np.array_equal``'s checks cost ~20x more on a window's ids
    if nodes.tobytes() == spans.node.tobytes() and isinstance(window.slots, Spans):
        return window
    return dataclasses.replace(
        window, slots=Spans(nodes, spans.start, spans.end, spans.price, spans.performance)
    )
