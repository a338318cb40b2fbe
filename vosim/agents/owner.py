"""ResourceOwnerAgent: owns nodes, prices them, runs a local job flow and earns VO revenue."""

from __future__ import annotations

import math
from collections.abc import Sequence

import mesa
import numpy as np

from vosim.market.nodes import Node
from vosim.market.pricing import DemandPricing
from vosim.market.schedule import LOCAL
from vosim.market.uncertainty import LocalJobChains
from vosim.market.workload import LocalJobFlow

__all__ = ["ResourceOwnerAgent"]


class ResourceOwnerAgent(mesa.Agent):
    """A resource owner: its nodes, their prices and local jobs, and its VO revenue.

    The nodes' busy time lives in the domain's :class:`~vosim.market.busy_time.BusyTime`
    (``model.busy_time``): the owner places its local jobs in its part of it and reads its
    nodes' rows, its local jobs and the VO's reservations on them, from it
    (:meth:`intervals`); the VO's reservations are written there once, not kept a second
    time per owner.

    Parameters
    ----------
    model : VOModel
        The model.
    owner_id : int
        Owner index.
    nodes : sequence of Node
        The owner's resources, whole nodes or processors (their ``price`` is this owner's
        pricing); ``model.resource_node`` gives the physical node of each.
    local_load : LocalJobFlow or None
        The ``"interval"`` local-load model's flow, drawn one scheduling interval ahead
        (:class:`~vosim.market.workload.HypergeometricLocalLoad` or
        :class:`~vosim.market.local_trace.TraceLocalFlow`), generated per physical node (a
        local job occupies every processor of its node); ``None`` for dedicated nodes or the
        ``"online"`` model, whose jobs :class:`~vosim.agents.local.LocalJobs` places through
        :meth:`run_local` as they arrive.
    pricing : DemandPricing or None
        Repricing rule (``None``: the fixed prices of VO Preferences §4).

    References
    ----------
    VO Preferences §2 and AEP §1: owners provide node schedules whose free slots the
    metascheduler co-allocates; local jobs have priority and are placed first.
    """

    def __init__(
        self,
        model: mesa.Model,
        owner_id: int,
        nodes: Sequence[Node],
        local_load: LocalJobFlow | None,
        pricing: DemandPricing | None = None,
    ) -> None:
        super().__init__(model)
        self.pricing = pricing
        self.node_ids = np.array([n.id for n in nodes], dtype=np.int64)
        # the market's base price of each node: the centre of the band demand pricing keeps to
        self.base_price = np.asarray(
            model.pricing.base_price(np.array([n.performance for n in nodes], dtype=float))
        )
        self.utilization = 0.0
        self.active = True
        self.left_at = math.nan
        self._revenue_log: list[tuple[float, float]] = [(0.0, 0.0)]
        self.owner_id = owner_id
        self.nodes = list(nodes)
        self.local_load = local_load
        # the interval model's local load draws from the owner's own stream, spawned from the
        # model's seed: the same load whatever the policy reads when (as the online flows)
        self._local_rng = model.rng.spawn(1)[0] if local_load is not None else None
        self.revenue = 0.0
        self._load_until = 0.0
        # local jobs (node, expected start, end) as event chains, kept across cycles
        self._local_chains = LocalJobChains()
        self._local_spans: list[tuple[float, float]] = []  # every local job: (start, end)
        # the local flow runs on physical nodes: their ids, and each one's resources
        host = np.asarray(model.resource_node)[self.node_ids]
        self._hosts = list(dict.fromkeys(host.tolist()))
        self._members = {h: self.node_ids[host == h].tolist() for h in self._hosts}

    @property
    def known_until(self) -> float:
        """Time up to which this owner's local job flow is generated (``inf``: no local load).

        Busy time before it only changes by VO reservations and releases.
        """
        return self._load_until if self.local_load is not None else math.inf

    def intervals(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The busy intervals ``(node, a, b, tag)`` of the owner's nodes, shape (r,) each.

        :meth:`BusyTime.owner_intervals <vosim.market.busy_time.BusyTime.owner_intervals>`:
        resource id, start and end (model time units), tag (:data:`~vosim.market.schedule.LOCAL`
        or below for local jobs, a VO job's index otherwise). Read them before the next
        change of busy time (they may be views of the schedule's columns).
        """
        return self.model.busy_time.owner_intervals(self.owner_id)

    def prepare(self, until: float) -> None:
        """Generate the local job flow up to ``until`` (model time units) for a slot list.

        Local jobs have priority, so they are placed before any VO reservation in that time;
        VO reservations never reach past generated local load, so they never clash. The flow
        draws local jobs per physical node, as it did per node when nodes were the resources
        (the same draws); each occupies all of its node's processors for the same interval,
        one row of its local jobs' schedule and one span of :meth:`local_busy` per processor.
        """
        if self.local_load is not None:
            rng = self._local_rng
            members = self._members
            add_chain = self._local_chains.add
            busy = self.model.busy_time.local[self.owner_id]
            while self._load_until < until:
                for h, a, b in self.local_load.occupy(self._hosts, self._load_until, rng):
                    for k in members[h]:  # every processor of physical node h
                        busy.add(k, a, b, LOCAL)
                        add_chain(k, a, b)
                        self._local_spans.append((a, b))
                self._load_until += self.local_load.period

    def run_local(self, resources: np.ndarray, start: float, end: float, tag: int) -> None:
        """Occupy ``resources`` (this owner's resource ids) over ``[start, end)`` by a local job.

        The online local job flow's placement (:class:`~vosim.agents.local.LocalJobs`) has
        already cleared the VO work in its way. ``tag`` (< 0) names the local job in the
        schedule; model time units.
        """
        resources = np.asarray(resources, dtype=np.int64)
        local = self.model.busy_time.local[self.owner_id]
        local.add_many(resources, start, np.full(resources.size, float(end)), tag)
        for k in resources.tolist():
            self._local_chains.add(k, start, end)
        self._local_spans.extend([(start, end)] * resources.size)

    def local_busy(self, start: float, end: float) -> float:
        """Resource time the owner's local jobs occupied within ``[start, end)``.

        In resource x time units (a local job on a node of ``c`` processors counts ``c`` times
        its length when processors are the resources). Counts every local job generated so
        far (they are generated ahead of the cycles, up to one scheduling interval past the
        last one), clipped to the period.
        """
        if not self._local_spans:
            return 0.0
        a, b = np.asarray(self._local_spans).T
        return float(np.clip(np.minimum(b, end) - np.maximum(a, start), 0.0, None).sum())

    def reprice(self, now: float, window: float) -> np.ndarray | None:
        """Apply the pricing rule to this owner's nodes after the window ``[now - window, now)``.

        The owner's utilization is the share of its node time in the window taken by VO
        reservations (local jobs excluded), in [0, 1]. Returns the new prices (cost per time
        unit, one per node of ``node_ids``), or ``None`` for fixed prices. Call before
        :meth:`Offers.prepare <vosim.agents.offers.Offers.prepare>` prunes the intervals
        that ended by ``now``.
        """
        if self.pricing is None:
            return None
        _, a, b, tag = self.intervals()
        vo = tag >= 0
        busy = np.maximum(np.minimum(b[vo], now) - np.maximum(a[vo], now - window), 0.0)
        self.utilization = float(busy.sum() / (self.node_ids.size * window))
        current = self.model.node_price[self.node_ids]
        return self.pricing.update(current, self.base_price, self.utilization)

    def review(self, now: float, window: float, threshold: float) -> bool:
        """Decide whether to stay in the VO; ``True`` if the owner leaves now.

        The owner leaves when, after at least ``window`` time units in the VO, its revenue
        over the last ``window`` per node and per day (86,400 time units) is below
        ``threshold`` (cost units). Its nodes then leave the domain; reservations already
        made are honoured.
        """
        self._revenue_log.append((now, self.revenue))
        if not self.active or now < window:
            return False
        # the last record at or before now - window is the baseline of the window
        start = now - window
        k = max(i for i, (t, _) in enumerate(self._revenue_log) if t <= start)
        self._revenue_log = self._revenue_log[k:]
        earned = self.revenue - self._revenue_log[0][1]
        per_node_day = earned / len(self.nodes) / (window / 86400.0)
        if per_node_day < threshold:
            self.active = False
            self.left_at = float(now)
            return True
        return False

    @property
    def local_jobs(self) -> list[tuple[int, float, float]]:
        """Local jobs known, ``(node, expected start, expected end)`` in the order placed.

        Every local job placed so far except those :meth:`local_chains` forgot (model time
        units; a new list each time).
        """
        return self._local_chains.jobs()

    def local_chains(self, now: float) -> LocalJobChains:
        """Local jobs that can still matter at ``now``, as event chains kept across cycles.

        Local jobs whose expected end lies more than one job length before ``now`` (ten
        release standard deviations) are forgotten. The chains are derived once per local
        job and kept in the order placed; their ``version`` changes only when a job is added
        or forgotten (the availability schedule is reused until then).
        """
        self._local_chains.update(now)
        return self._local_chains

    def local_job_arrays(self, now: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Local jobs that can still matter, as arrays ``(node, expected start, expected end)``.

        Those of :meth:`local_chains` (jobs forgotten the same way), shape (J,) each; the
        arrays are the kept columns themselves: do not modify them.
        """
        chains = self.local_chains(now)
        return chains.node, chains.chains.table.alloc_time, chains.chains.release_time

    def earn(self, amount: float) -> None:
        """Add a payment for VO tasks that ran on this owner's nodes (cost units, >= 0).

        Users pay for what their tasks used when they end (nothing at reservation), so the
        revenue is the sum of the payments exactly and no reserved time is sold twice.
        """
        self.revenue += amount
