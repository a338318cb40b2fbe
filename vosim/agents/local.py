"""The owners' local resource managers: online local jobs and their priority over the VO."""

from __future__ import annotations

import heapq
import math

import mesa
import numpy as np
import pandas as pd

from vosim.agents.callbacks import callback
from vosim.market.local_placement import place_on_owner

__all__ = ["LOCAL_JOB_COLUMNS", "LocalJobs"]

#: Columns of ``local_jobs.parquet`` (:meth:`LocalJobs.frame`), one row per local job.
LOCAL_JOB_COLUMNS: dict[str, str] = {
    "local_id": "local job number, in order of arrival",
    "owner": "owner whose local user submitted it",
    "arrival": "arrival, model time units (s)",
    "start": "start, s (NaN if it never got processors: larger than its owner)",
    "end": "end, s",
    "wait": "start - arrival, s",
    "size": "processors",
    "resources": "resource ids (processors) it occupied",
    "displaced": "VO reservations not yet started that it took processors from",
    "killed": "running VO jobs it preempted (local_priority='preempt')",
    "lost_work": "processor-seconds of the VO jobs it preempted that were lost",
    "state": "at the end of the run: completed, running, waiting, or never started (larger "
    "than its owner)",
}


class LocalJobs:
    """Every owner's online local job flow, placed by the owners' priority rule as it arrives.

    Each owner has its own flow (:mod:`vosim.market.local_flow`); the arrivals of all owners
    are one event stream. At an arrival the owner's local resource manager places the job
    (:func:`~vosim.market.local_placement.place_on_owner`) in the owner's schedule: the VO
    learns of it at its next cycle, from the slot list. Reservations in its way are cancelled
    (``displaced``) and running VO jobs in its way (``preempt``) interrupted; both go back to
    the VO's queue and are re-planned at the next cycle.

    Parameters
    ----------
    model : VOModel
        The model (``owners``, ``metascheduler``, ``jobs``, ``availability``).
    flows : list
        One flow per owner (``next() -> (arrival, size, length) | None``), shape (owners,).
    priority : str
        The owners' priority rule (:data:`~vosim.market.local_placement.LOCAL_PRIORITIES`).

    Attributes
    ----------
    displaced : int
        VO reservations cancelled by local jobs so far.
    killed : int
        Running VO jobs interrupted by local jobs so far.
    lost_work : float
        Processor-seconds of VO work lost to preemption so far.

    References
    ----------
    AEP §1 (slot sets updated each cycle from the local resource managers); VO Preferences §2
    (owners' local jobs have priority); ICCS 2021 §4.1 (local job flows).
    """

    def __init__(self, model: mesa.Model, flows: list, priority: str) -> None:
        self.model = model
        self.priority = priority
        self.flows = flows
        self.displaced = self.killed = 0
        self.lost_work = 0.0
        self._rows: list[tuple] = []
        self._waiting: list[float] = []  # starts of local jobs that wait (heap)
        self._next: list[tuple[float, int, int, float]] = []  # (arrival, owner, size, length)
        #: What the arrival events call (:class:`~vosim.agents.periodic.PeriodicCycles`
        #: does not stop a skip at them).
        self.arrivals = callback(self, "due")
        self._scheduled_at = math.inf
        for k, flow in enumerate(flows):
            self._push(k, flow)
        self._schedule()

    def _push(self, owner: int, flow) -> None:
        nxt = flow.next()
        if nxt is not None:
            heapq.heappush(self._next, (nxt[0], owner, nxt[1], nxt[2]))

    def _schedule(self) -> None:
        """An event at the next arrival (one event at a time for every owner's flow)."""
        if self._next and self._next[0][0] < self._scheduled_at:
            self._scheduled_at = self._next[0][0]
            # HIGH: a local job arriving at a cycle's time is placed before that cycle
            self.model.schedule_event(
                self.arrivals, at=self._scheduled_at, priority=mesa.time.Priority.HIGH
            )

    def due(self) -> None:
        """Place every local job arrived by now; requeue the VO jobs in their way."""
        model = self.model
        now = model.time
        self._scheduled_at = math.inf
        requeued = False
        while self._next and self._next[0][0] <= now:
            arrival, k, size, length = heapq.heappop(self._next)
            requeued |= self._place(k, arrival, size, length)
            self._push(k, self.flows[k])
        self._schedule()
        if requeued:
            if model.periodic is not None:  # a skip may have passed this time: come back
                model.periodic.wake()
            model.metascheduler.request_pass()  # last: the pass may run at once

    def _place(self, k: int, arrival: float, size: int, length: float) -> bool:
        """Place one local job of owner ``k``; ``True`` if VO jobs were requeued."""
        model = self.model
        owner = model.owners[k]
        ms = model.metascheduler
        execution = ms.execution
        p = place_on_owner(
            model.busy_time, owner.owner_id, owner.node_ids, arrival, size, length, self.priority
        )
        local_id = len(self._rows)
        if p is None:  # larger than the owner: never runs
            self._rows.append((local_id, k, arrival, math.nan, math.nan, size, (), 0, 0, 0.0))
            return False
        lost = 0.0
        end = p.start + length
        displaced = p.displaced
        if ms.offers.pooled and displaced.size:  # held by count: they may fit beside it
            owner.run_local(p.resources, p.start, end, tag=-2 - local_id)
            if execution.repack(p.resources):
                displaced = displaced[:0]
        for tag in displaced.tolist():
            execution.cancel(model.jobs[tag], displaced=True)
            ms.queue.arrived.append(tag)
        for tag in p.killed.tolist():
            lost += execution.interrupt(model.jobs[tag], arrival)
        self.displaced += displaced.size
        self.killed += p.killed.size
        self.lost_work += lost
        if not (ms.offers.pooled and p.displaced.size):
            owner.run_local(p.resources, p.start, end, tag=-2 - local_id)
        if p.start > arrival:
            heapq.heappush(self._waiting, p.start)
        self._rows.append(
            (
                local_id,
                k,
                arrival,
                p.start,
                end,
                size,
                tuple(p.resources.tolist()),
                displaced.size,
                p.killed.size,
                lost,
            )
        )
        return bool(displaced.size or p.killed.size)

    def counts(self, now: float) -> tuple[int, int, int, int, float]:
        """``(arrived, waiting now, displaced, killed, lost work)`` at ``now`` (cycle rows)."""
        waiting = self._waiting
        while waiting and waiting[0] <= now:
            heapq.heappop(waiting)
        return len(self._rows), len(waiting), self.displaced, self.killed, self.lost_work

    def frame(self) -> pd.DataFrame:
        """One row per local job arrived (columns :data:`LOCAL_JOB_COLUMNS`).

        ``state`` is read at the model's current time. Times in model time units.
        """
        names = [c for c in LOCAL_JOB_COLUMNS if c not in ("wait", "state")]
        df = pd.DataFrame.from_records(self._rows, columns=names)
        df.insert(5, "wait", df["start"] - df["arrival"])
        df["resources"] = [list(r) for r in df["resources"]]
        now = float(self.model.time)
        state = np.select(
            [df["start"].isna(), df["end"] <= now, df["start"] <= now],
            ["never started", "completed", "running"],
            "waiting",
        )
        df["state"] = pd.Categorical(
            state, categories=["completed", "running", "waiting", "never started"]
        )
        return df.astype(
            {
                "local_id": np.int64,
                "owner": np.int64,
                "size": np.int64,
                "displaced": np.int64,
                "killed": np.int64,
                "arrival": float,
                "start": float,
                "end": float,
                "lost_work": float,
            }
        )

    def summary(self) -> dict:
        """Local jobs' totals for ``summary.json``: count, waits, displacements, lost work."""
        df = self.frame()
        wait = df["wait"].dropna().to_numpy()
        return {
            "local_jobs": len(df),
            "local_jobs_never_started": int(df["start"].isna().sum()),
            "local_mean_wait": float(wait.mean()) if wait.size else math.nan,
            "local_p95_wait": float(np.percentile(wait, 95)) if wait.size else math.nan,
            "local_waited_share": float((wait > 0).mean()) if wait.size else math.nan,
            "displaced": self.displaced,
            "preempted": self.killed,
            "lost_work": self.lost_work,
        }
