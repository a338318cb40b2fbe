"""VOModel: users, resource owners and the metascheduler of a virtual organization (Mesa)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import mesa
import numpy as np
import pandas as pd

from vosim.agents import MetaschedulerAgent, ResourceOwnerAgent, UserAgent
from vosim.agents.cycle_log import CycleLog
from vosim.agents.ledger import JobLedger
from vosim.agents.local import LocalJobs
from vosim.agents.periodic import PeriodicCycles
from vosim.agents.replay import replay
from vosim.agents.user import USER_CRITERIA
from vosim.allocators.fallback import FallbackBudget
from vosim.allocators.request_screen import BUDGET_TOO_LOW
from vosim.allocators.vo_choice import VOPolicy
from vosim.analysis import metrics, network
from vosim.core.gc_pause import deferred_full_collections
from vosim.data import DEFAULT_TRACE, SYNTHETIC_TRACES, trace_path
from vosim.errors import ParameterError
from vosim.market.busy_time import BusyTime
from vosim.market.free_time import FreeTime, pools_of
from vosim.market.local_flow import PoissonLocalJobs, fitted_lengths, trace_local_jobs
from vosim.market.local_trace import TraceLocalFlow
from vosim.market.nodes import (
    MAX_RESOURCES,
    Node,
    expand_processors,
    generate_nodes,
    processor_counts,
    site_nodes,
)
from vosim.market.pricing import DemandPricing, ExponentialPricing
from vosim.market.sites import Sites, trace_sites
from vosim.market.swf import header_int, read_swf
from vosim.market.synthetic import load_trace
from vosim.market.workload import (
    HypergeometricLocalLoad,
    Job,
    LocalJobFlow,
    jobs_from_trace,
    scale_to_load,
)
from vosim.policies import make_policy, policy_options
from vosim.scenario import (
    MAX_LOCAL_ARRIVALS,
    MAX_LOCAL_DRAWS,
    MAX_PERIODS,
    PARAMETERS,
    check_combination,
    check_parameters,
    parameter_docs,
)

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["VOModel", "CYCLE_COLUMNS"]

#: Columns of :meth:`VOModel.cycle_frame`, one row per scheduling cycle.
CYCLE_COLUMNS = (
    "time",
    "batch_size",
    "jobs_scheduled",
    "alternatives",
    "user_evaluation",
    "vo_evaluation",
    "queue_length",
    "running_jobs",
    "utilization",
    "revenue",
    "price_factor",
    "owners_active",
    "users_active",
    "mean_satisfaction",
    "completed",
    "mean_balance",
    "local_arrived",
    "local_waiting",
    "local_displaced",
    "local_preempted",
    "local_lost_work",
)


#: Each cycle column's type (``array`` codes: ``d`` float64, ``q`` int64), as ordered above.
_CYCLE_TYPES = "dqqqddqqdddqqdqdqqqqd"

#: The local-job columns of a cycle row without online local jobs.
_NO_LOCAL = (0, 0, 0, 0, 0.0)

#: Fallback domain size when a trace header names neither MaxNodes nor MaxProcs.
_DEFAULT_NODES = 100


def _check_run_size(
    frame: pd.DataFrame,
    nodes: int,
    resources: int,
    *,
    cycle_period: float,
    scheduling_interval: float,
    budget_period: float | None,
    horizon: float | None,
    local_load: bool,
    passes_act: bool,
) -> None:
    """Refuse a run too large to build or too long to end, before anything is built.

    The bounds are declared once:
    :data:`~vosim.market.nodes.MAX_RESOURCES` (nodes, or processors after
    ``resources="processors"`` expansion), :data:`~vosim.scenario.MAX_PERIODS` (scheduling
    cycles that can act, budget periods) and :data:`~vosim.scenario.MAX_LOCAL_DRAWS` (draws of
    the owners' local load). Counts are estimated from
    the trace: its jobs are active over the union of ``[s, s + T]`` (``s`` a submit time,
    ``T`` the longest requested time, at most ``scheduling_interval``: longer jobs are
    rejected), clipped at the horizon; the run ends near ``E``, the last submission plus
    ``T``. Cycles that can act: the active time over ``cycle_period`` (idle stretches are
    skipped, :class:`~vosim.agents.periodic.PeriodicCycles`), or ``E / cycle_period`` when
    every pass acts (demand pricing, owners leaving). Budget periods: ``E / budget_period``
    (one reset each, from time 0). Local-load draws: ``nodes * (E + L) / L`` (every node's
    local jobs are drawn per interval ``L`` from time 0).

    Parameters
    ----------
    frame : pandas.DataFrame
        The jobs to run (:func:`~vosim.market.swf.read_swf` columns ``submit_time``,
        ``requested_time``, ``run_time``; seconds).
    nodes : int
        Physical nodes of the domain.
    resources : int
        Resources the slots are on: ``nodes``, or the processors of ``resources="processors"``.
    cycle_period, scheduling_interval : float
        As :class:`VOModel` takes them, model time units (``cycle_period`` 0: event driven,
        one pass per event, not bounded here).
    budget_period, horizon : float or None
        As :class:`VOModel` takes them (``None``: no accounts; the run drains).
    local_load : bool
        Whether owners run a local job flow (generated or replayed).
    passes_act : bool
        Whether every periodic pass acts (no idle stretch is skipped).

    Raises
    ------
    ParameterError
        One line naming the parameter, its value, the estimate and the bound.

    Examples
    --------
    >>> import pandas as pd
    >>> far = pd.DataFrame({"submit_time": [0, 1e15], "requested_time": [600, 600],
    ...                     "run_time": [60, 60]})
    >>> _check_run_size(far, 10, 10, cycle_period=300.0, scheduling_interval=604800.0,
    ...                budget_period=None, horizon=None, local_load=False, passes_act=False)
    >>> _check_run_size(far, 10, 10, cycle_period=300.0, scheduling_interval=604800.0,
    ...                budget_period=86400.0, horizon=None, local_load=False, passes_act=False)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    vosim.errors.ParameterError: budget_period 86400 makes about 1.16e+10 budget periods ...
    """
    if nodes > MAX_RESOURCES:
        raise ParameterError(
            f"nodes {nodes} is above the most resources a domain may have, "
            f"{MAX_RESOURCES} (vosim.market.nodes.MAX_RESOURCES)"
        )
    if resources > MAX_RESOURCES:
        raise ParameterError(
            f"resources='processors': nodes {nodes} of the trace's MaxProcs/MaxNodes processors "
            f"make {resources} processors, above the most a domain may have, {MAX_RESOURCES} "
            "(vosim.market.nodes.MAX_RESOURCES); use fewer nodes or resources='nodes'"
        )
    if not len(frame):
        return
    end = math.inf if horizon is None else float(horizon)
    submit = np.sort(frame["submit_time"].to_numpy(dtype=float))
    submit = submit[submit <= end] if np.isfinite(end) else submit
    asked = frame["requested_time"].where(frame["requested_time"] > 0, frame["run_time"])
    longest = min(
        max(float(asked.to_numpy(dtype=float).max(initial=0.0)), 0.0), scheduling_interval
    )
    last = float(submit[-1]) if submit.size else 0.0
    ends = min(last + longest, end)  # E: near the end of the run
    active = float(np.minimum(np.diff(submit), longest).sum()) + longest if submit.size else 0.0
    span = f"the trace's jobs reach t={last:.6g} s plus {longest:.6g} s requested"

    def refuse(name: str, value: float, count: float, what: str, why: str) -> None:
        raise ParameterError(
            f"{name} {value:g} makes about {count:.3g} {what} ({why}), above the bound of "
            f"{MAX_PERIODS} (vosim.scenario.MAX_PERIODS): use a longer {name} or fewer jobs"
        )

    if cycle_period > 0:
        every = ends if passes_act else min(active, ends)
        cycles = every / cycle_period
        if cycles > MAX_PERIODS:
            why = (
                f"every pass acts from 0 while {span}"
                if passes_act
                else f"the jobs are active for {active:.3g} s; idle stretches are skipped"
            )
            refuse("cycle_period", cycle_period, cycles, "scheduling cycles", why)
    if budget_period is not None and ends / budget_period > MAX_PERIODS:
        periods = ends / budget_period
        refuse("budget_period", budget_period, periods, "budget periods", span)
    draws = nodes * (ends + scheduling_interval) / scheduling_interval
    if local_load and draws > MAX_LOCAL_DRAWS:
        raise ParameterError(
            f"scheduling_interval {scheduling_interval:g} makes about {draws:.3g} draws of the "
            f"owners' local load ({nodes} nodes, one draw per interval from t=0 while {span}), "
            f"above the bound of {MAX_LOCAL_DRAWS} (vosim.scenario.MAX_LOCAL_DRAWS): shift the "
            "trace's submit times, use a longer scheduling_interval or no local load"
        )


class VOModel(mesa.Model):
    """A VO that co-allocates windows of concurrent slots for the jobs of a real trace.

    Time is event driven (Mesa's event list): each user submits its jobs at their submit
    times, the metascheduler runs a scheduling cycle at each multiple of ``cycle_period`` at
    which a cycle may act (idle stretches, where none can, are skipped to the next event:
    :class:`~vosim.agents.periodic.PeriodicCycles`), and job completions are events at their
    finish times; nothing happens between events, so a trace spanning months runs in seconds,
    and one with Unix-timestamp submit times too. One model time unit is one second of the
    trace.

    Each parameter but ``rng`` is declared, and documented, once in
    :class:`vosim.scenario.Scenario`; the entries before ``rng`` below are written into this
    docstring from there when the module is imported (:func:`vosim.scenario.parameter_docs`).

    Parameters
    ----------
    rng : int, numpy.random.Generator or None
        Seed (an integer >= 0, as numpy takes it); the same seed gives identical job records.

    Raises
    ------
    ParameterError
        A parameter outside its range (the message names it).
    TraceFormatError
        The trace cannot be read.
    UnknownAllocatorError
        ``criterion_allocators`` names an unregistered criterion.

    References
    ----------
    VO Preferences §2 (cyclic scheduling scheme) and §4 (domain, prices, budgets); AEP §2–3.
    The per-period budget accounts (``budget_period``) are vosim's extension of §4's users'
    budgets.

    Examples
    --------
    >>> m = VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=50, rng=1)
    >>> m.run()
    >>> counts = m.job_frame()["state"].value_counts()
    >>> int(counts.sum())
    50
    """

    # Complexity above 15: builds the model in dependency order (trace, domain, owners, users,
    # policy, events), each step checked where its inputs are known.
    def __init__(  # noqa: C901
        self,
        trace: str | Path | pd.DataFrame = DEFAULT_TRACE,
        jobs: int | None = 2000,
        first_job: int = 0,
        offered_load: float | None = None,
        nodes: int | None = None,
        resources: str = "processors",
        owners: int | str = 10,
        cycle_period: float = 300.0,
        scheduling_interval: float = 7 * 86400.0,
        look_ahead: float = 6.0,
        reference_performance: float = 6.0,
        performance_range: tuple[int, int] = (2, 10),
        budget_range: tuple[float, float] = (0.7, 1.6),
        local_load: tuple[float, float] | None = (0.05, 0.10),
        criterion_allocators: dict[str, str] | None = None,
        horizon: float | None = None,
        patience: float | None = 30 * 86400.0,
        availability: bool = False,
        global_load: float = 0.05,
        availability_method: str = "knapsack_p",
        user_criteria: tuple[str, ...] | None = None,
        vo_criterion: str | None = None,
        max_alternatives: int | None = 1,
        vo_objective: str = "cost",
        vo_limit: str = "user",
        user_evaluation: str = "relative",
        ua: float | None = None,
        pricing_policy: str = "fixed",
        owner_exit_revenue: float | None = None,
        user_exit_satisfaction: float | None = None,
        budget_period: float | None = None,
        budget_allowance: float = 1.0,
        local_trace: str | Path | pd.DataFrame | None = None,
        local_model: str | None = None,
        local_priority: str = "displace",
        local_length: float | None = None,
        policy: str = "css",
        replan: str = "always",
        machine: bool = False,
        utility_policy: int = 1,
        fallback_after: str | float | int | None = None,
        rng: int | np.random.Generator | None = None,
    ) -> None:
        # Each parameter's own range and the rules between parameters are declared once, in
        # vosim.scenario (which also generates vosim run's options, sweep keys and UI inputs);
        # only the rules that need the trace (owners <= nodes) are checked below.
        values = {name: value for name, value in locals().items() if name in PARAMETERS}
        check_parameters(values)
        check_combination(values)
        if not (rng is None or isinstance(rng, np.random.Generator)) and not (
            isinstance(rng, (int, np.integer)) and not isinstance(rng, bool) and rng >= 0
        ):
            raise ParameterError(f"seed (rng) must be an integer >= 0, got {rng!r}")
        super().__init__(rng=rng)
        # Time here jumps from event to event. Mesa 3.5 also schedules a default step every
        # 1.0 time unit, which would fire millions of empty steps over a trace of seconds;
        # stop it as Mesa's own event-driven simulator (mesa.experimental.devs) does.
        self._default_schedule.stop()
        if policy == "availability":  # the CSS with the VO's availability criterion
            vo_criterion = "availability"
        if local_model is None:
            local_model = "interval" if availability else "online"
        lo, hi = budget_range
        self.fallback_after = FallbackBudget.coerce(fallback_after)
        if user_criteria is None:
            user_criteria = ("finish", "runtime", "cost") + (
                ("availability",) if availability else ()
            )
        user_criteria = tuple(user_criteria)
        mapping = criterion_allocators or None
        if vo_criterion is not None:
            mapping = dict.fromkeys(USER_CRITERIA, "max_availability")
        self.vo_criterion = vo_criterion
        self.vo_policy = VOPolicy(vo_objective, vo_limit, user_evaluation, ua, max_alternatives)

        frame = load_trace(trace, None if jobs is None else first_job + jobs, self.rng)
        if first_job >= len(frame):
            raise ParameterError(
                f"first_job must be below the trace's {len(frame)} jobs, got {first_job!r}"
            )
        frame = frame.iloc[first_job : None if jobs is None else first_job + jobs]
        header = frame.attrs.get("header", {})
        self.trace_name = (
            str(trace) if not isinstance(trace, pd.DataFrame) else frame.attrs.get("path", "")
        )
        max_procs = header_int(header, "MaxProcs")
        max_nodes = header_int(header, "MaxNodes")
        # processors per physical node as a ratio (procs, nodes): the header's MaxProcs over
        # MaxNodes; one when either is unknown or the header gives fewer processors than nodes
        per_node = (max_procs, max_nodes) if max_procs and max_nodes else (1, 1)
        if per_node[0] < per_node[1]:
            per_node = (1, 1)
        if machine:  # the traced machine: its processors are the resources
            procs = frame[["requested_processors", "allocated_processors"]].max(axis=1)
            nodes = max_procs = max_procs or max(int(procs.to_numpy().max(initial=1)), 1)
            owners, local_load = 1, None
            per_node = (1, 1)  # its processors are its nodes: both resource modes coincide
            estimate = frame["requested_time"].where(frame["requested_time"] > 0, frame["run_time"])
            scheduling_interval = max(
                scheduling_interval, 2.0 * float(estimate.to_numpy().max(initial=0))
            )
        #: The trace's sites when ``owners="trace"`` (``None`` otherwise).
        self.sites: Sites | None = None
        self._recorded_tasks: pd.DataFrame | None = None  # where the trace ran each job
        if owners == "trace" and machine:  # the traced machine has one owner
            owners = 1
        elif owners == "trace":  # one owner per site, each a block of one-processor nodes
            self.sites = trace_sites(self._whole_trace(trace, frame, jobs, first_job))
            self._recorded_tasks = self._recorded_placement(frame)
            nodes = max_procs = self.sites.max_procs
            owners, per_node = len(self.sites), (1, 1)
        if nodes is None:
            nodes = max_nodes or max_procs or _DEFAULT_NODES
        if max_procs is None:
            procs = frame[["requested_processors", "allocated_processors"]].max(axis=1)
            max_procs = max(int(procs.max()), nodes)
        if owners > nodes:  # owners >= 1 is checked above
            raise ParameterError(f"owners must be an integer in [1, nodes={nodes}], got {owners!r}")
        # the domain's processors: round(N * MaxProcs / MaxNodes), at least N
        processors = max((2 * nodes * per_node[0] + per_node[1]) // (2 * per_node[1]), nodes)
        resource_count = processors if resources == "processors" else nodes
        #: Offered load of the jobs on the domain's processors as traced, and the factor their
        #: inter-arrival times were scaled by to reach ``offered_load`` (1: not scaled).
        self.offered_load_traced, self.arrival_scale = math.nan, 1.0
        if offered_load is not None:
            frame = scale_to_load(frame, processors, offered_load)
            self.offered_load_traced = frame.attrs["offered_load_traced"]
            self.arrival_scale = frame.attrs["arrival_scale"]
        _check_run_size(
            frame,
            nodes,
            resource_count,
            cycle_period=float(cycle_period),
            scheduling_interval=float(scheduling_interval),
            budget_period=budget_period,
            horizon=horizon,
            local_load=not machine
            and local_model == "interval"
            and (local_trace is not None or local_load is not None),
            passes_act=pricing_policy != "fixed" or owner_exit_revenue is not None,
        )

        self.cycle_period = float(cycle_period)
        self.scheduling_interval = float(scheduling_interval)
        self.look_ahead = float(look_ahead)
        self.reference_performance = float(reference_performance)
        self.pricing = ExponentialPricing()
        self.pricing_policy = pricing_policy
        self.budget_period = None if budget_period is None else float(budget_period)
        #: Budget periods begun (balances replenished) so far.
        self.budget_periods = 0
        #: Longest wait for a first start before a job is withdrawn (None: for ever).
        self.patience = None if patience is None else float(patience)
        self.budget_allowance = float(budget_allowance)
        self.owner_exit_revenue = owner_exit_revenue
        self.user_exit_satisfaction = user_exit_satisfaction
        performance_range = (int(performance_range[0]), int(performance_range[1]))
        #: Inclusive bounds of the nodes' integer performance (see ``performance_range``).
        self.performance_range = performance_range
        #: The traced system instead of a VO (see ``machine`` above).
        self.machine = bool(machine)
        if self.machine:  # identical processors at the reference performance, one price
            price = float(self.pricing.base_price(np.array([self.reference_performance]))[0])
            physical = [Node(k, self.reference_performance, price, 0) for k in range(nodes)]
        elif self.sites is not None:
            physical = site_nodes(
                self.sites.capacity,
                self.rng,
                performance_range=performance_range,
                pricing=self.pricing,
            )
        else:
            physical = generate_nodes(
                nodes, owners, self.rng, performance_range=performance_range, pricing=self.pricing
            )
        #: What the slots are on: "processors" or "nodes" (see ``resources`` above).
        self.resources = resources
        #: The physical nodes (performance, price, owner), ids ``0 .. N-1``.
        self.physical_nodes = physical
        if resource_count != nodes:
            resources_of, resource_node = expand_processors(
                physical, processor_counts(nodes, resource_count)
            )
        else:  # one resource per node: whole nodes, or nodes of one processor
            resources_of, resource_node = physical, np.arange(nodes, dtype=np.int64)
        #: The resources the slots are on (one Node record each, ids ``0 .. node_count - 1``):
        #: the physical nodes, or their processors (sharing their node's fields).
        self.nodes = resources_of
        #: Physical node of each resource, shape (node_count,), int64.
        self.resource_node = resource_node
        #: Resources of the domain (processors or nodes); ``physical_node_count``: nodes ``N``.
        self.node_count = len(resources_of)
        self.physical_node_count = nodes
        self.node_ids = np.arange(self.node_count)
        self.availability = bool(availability)
        self.availability_method = availability_method
        self.user_criteria = user_criteria
        # Global events: |N(0, global_load)| per physical node, capped at 1 (ICCS 2021 §4.1),
        # the same probability for each of its processors.
        self.node_global_p = (
            np.minimum(np.abs(self.rng.normal(0.0, global_load, size=nodes)), 1.0)[resource_node]
            if self.availability
            else np.zeros(self.node_count)
        )
        #: One row per reserved window: (job_id, decided at, start, predicted P_a^w, succeeded,
        #: interruption time or inf).
        self.attempts: list[tuple[int, float, float, float, bool, float]] = []
        self.node_price = np.array([n.price for n in self.nodes])
        self.node_performance = np.array([n.performance for n in self.nodes])
        #: The domain's busy time: the VO's reservations and each owner's local jobs, the one
        #: record the owners, the slot lists and the UI read.
        self.busy_time = BusyTime(
            [n.owner for n in self.nodes], self.node_price, self.node_performance
        )
        #: Every pool's free resources over time (the processors of one node, owner,
        #: performance and price make a pool; with availability every resource is a pool of
        #: its own, as ICCS 2023's ``P_a^w`` is per node), read from :attr:`busy_time`.
        self.free_time = FreeTime(
            np.arange(self.node_count)
            if self.availability
            else pools_of(
                [n.owner for n in self.nodes],
                self.node_performance,
                self.node_price,
                self.resource_node,
            ),
            self.busy_time,
        )

        load: LocalJobFlow | None = None
        local = None if local_trace is None else self._local_frame(local_trace)
        online = not machine and local_model == "online"
        if local is not None and not online:
            load = TraceLocalFlow.from_swf(local, nodes, period=self.scheduling_interval)
        elif local_load is not None and not online:
            load = HypergeometricLocalLoad(
                local_load[0], local_load[1], period=self.scheduling_interval
            )
        #: The owners' local job flow of the interval model (``None``: dedicated nodes, or
        #: the online model).
        self.local_flow = load
        #: The bounds of the owners' local load as given (``None``: none generated).
        self.local_load = local_load
        #: Owners run an online local job flow (:attr:`local_jobs`, made below).
        self.local_online = online and (local is not None or local_load is not None)
        #: The online flow's lengths (``None``: none generated), and a replayed local trace's
        #: jobs kept and dropped.
        self.local_lengths = None
        self.local_trace_jobs = self.local_trace_dropped = 0
        #: The local trace's path as read (``None``: no local trace).
        self.local_trace_name = None if local is None else str(local.attrs.get("path", ""))
        by_owner: dict[int, list] = defaultdict(list)
        for node in self.nodes:
            by_owner[node.owner].append(node)
        repricing = DemandPricing() if pricing_policy == "demand" else None
        self.owners = list(
            ResourceOwnerAgent.create_agents(
                self,
                owners,
                list(range(owners)),
                [by_owner[k] for k in range(owners)],
                load,
                repricing,
            )
        )
        self.node_base_price = np.asarray(self.pricing.base_price(self.node_performance))
        self._price_factor: float | None = None  # cached until prices change
        self.owner_of_node = [self.owners[n.owner] for n in self.nodes]

        self.jobs: list[Job] = jobs_from_trace(
            frame,
            domain_nodes=self.node_count,  # = nodes unless processors are the resources
            max_procs=max_procs,
            reference_performance=self.reference_performance,
            max_performance=float(self.node_performance.max()),
            scheduling_interval=self.scheduling_interval,
            # the traced machine's processors are its nodes: n = ceil(p * N / N) = p either way
            resources="nodes" if self.machine else resources,
        )
        #: The one writer of the jobs' states (submission to end) and their counts.
        self.ledger = JobLedger(self.jobs)
        # Request columns as arrays, so the metascheduler screens a whole batch at once.
        self.job_n = np.array([j.n for j in self.jobs], dtype=np.int64)
        self.job_volume = np.array([j.volume for j in self.jobs], dtype=float)
        #: Name of the scheduling policy (``"css"`` or a :mod:`vosim.policies` name).
        self.policy_name = policy
        self.metascheduler = MetaschedulerAgent(
            self,
            self.scheduling_interval,
            make_policy(policy, **self._policy_options(policy, utility_policy, mapping)),
            event_driven=self.cycle_period == 0,
            replan=replan,
        )

        #: The owners' online local jobs (``None``: the interval model or dedicated nodes).
        self.local_jobs: LocalJobs | None = None
        if self.local_online:
            self.local_jobs = self._online_local_jobs(
                frame, local, local_load, local_priority, local_length
            )

        # on the traced machine budgets never bind
        cost_per_work = (
            math.inf if self.machine else self.pricing.dearest_cost_per_work(performance_range)
        )
        by_user: dict[int, list[Job]] = defaultdict(list)
        for job in self.jobs:
            by_user[job.user].append(job)
        user_ids = sorted(by_user)
        factors = self.rng.uniform(lo, hi, size=len(user_ids))
        picks = self.rng.integers(0, len(user_criteria), size=len(user_ids))
        accounts = self.budget_period is not None
        #: Each user's satisfaction and membership, by position in ``users`` (UserAgent's
        #: ``satisfaction`` and ``active`` read and write them).
        self.user_satisfaction = np.ones(len(user_ids))
        self.user_active = np.ones(len(user_ids), dtype=bool)
        count = len(user_ids)
        self.users = list(
            UserAgent.create_agents(
                self,
                count,
                user_ids,
                [by_user[uid] for uid in user_ids],
                factors.tolist(),
                [user_criteria[c] for c in picks.tolist()],
                cost_per_work,
                position=list(range(count)),
            )
        )
        self.user_agent = {u.user_id: u for u in self.users}
        #: Per-period accounts (``budget_period``): each job's user position in ``users`` and
        #: each user's balance, cost units (all NaN without accounts).
        position = {u.user_id: k for k, u in enumerate(self.users)}
        self.job_user_index = np.array([position[j.user] for j in self.jobs], dtype=np.int64)
        self.user_balance = np.full(len(self.users), np.nan)
        if accounts:
            self._open_accounts()

        last_submit = max((j.submit_time for j in self.jobs), default=0.0)
        self.horizon = math.inf if horizon is None else float(horizon)  # None: drain
        self._last_submit = last_submit
        if accounts:
            # HIGH priority: a replenishment at a cycle's time comes before that cycle.
            self.schedule_recurring(
                self.replenish_budgets,
                mesa.time.Schedule(interval=self.budget_period, start=0.0),
                priority=mesa.time.Priority.HIGH,
            )
        #: The periodic cycles at multiples of ``cycle_period``, idle stretches skipped
        #: (``None`` with ``cycle_period`` 0: passes follow job ends and arrivals).
        self.periodic = PeriodicCycles(self, self.cycle_period) if self.cycle_period > 0 else None
        # Per-cycle records (columns CYCLE_COLUMNS), appended by the metascheduler at the end
        # of each cycle. Mesa's DataCollector did the same at ~50 us a cycle through getattr
        # on every reporter; a trace has tens of thousands of cycles.
        self._cycles = CycleLog(CYCLE_COLUMNS, _CYCLE_TYPES)
        #: Set by users when their satisfaction or membership changes (recomputed lazily).
        self.users_changed = True
        self._user_stats = (len(self.users), 1.0)

    @staticmethod
    def _whole_trace(
        trace: str | Path | pd.DataFrame, frame: pd.DataFrame, jobs: int | None, first_job: int
    ) -> pd.DataFrame:
        """The whole trace a site's capacity is estimated from (the run may use a window)."""
        whole = jobs is None and first_job == 0
        if whole or isinstance(trace, pd.DataFrame) or str(trace) in SYNTHETIC_TRACES:
            return frame
        return read_swf(trace_path(str(trace)))

    @staticmethod
    def _local_frame(local_trace: str | Path | pd.DataFrame) -> pd.DataFrame:
        """The local trace as an SWF frame (a bundled name, a path or a frame)."""
        if isinstance(local_trace, pd.DataFrame):
            return local_trace
        return read_swf(trace_path(str(local_trace)))

    def _online_local_jobs(
        self,
        frame: pd.DataFrame,
        local: pd.DataFrame | None,
        local_load: tuple[float, float] | None,
        priority: str,
        median: float | None,
    ) -> LocalJobs:
        """Each owner's online local job flow (generated, or replayed from ``local``).

        Every owner draws from its own stream, spawned from the model's seed (the flows are
        the same whatever the policy does, and the model's own draws are unchanged). A
        generated flow's share is uniform in ``local_load``; its sizes run up to the
        processors of the owner's smallest node; its lengths are :func:`fitted_lengths` of
        the trace's run times (``median`` overrides the median), capped at ``L``; arrivals
        begin at the trace's first submission. A run whose local jobs would exceed
        :data:`~vosim.scenario.MAX_LOCAL_ARRIVALS` is refused.
        """
        procs = [o.node_ids.size for o in self.owners]
        if local is not None:
            flows, self.local_trace_jobs, self.local_trace_dropped = trace_local_jobs(
                local, procs, cap=self.scheduling_interval
            )
            return LocalJobs(self, flows, priority)
        run = frame["run_time"].where(frame["run_time"] > 0, frame["requested_time"])
        lengths = fitted_lengths(
            run.to_numpy(dtype=float), cap=self.scheduling_interval, median=median
        )
        streams = self.rng.spawn(len(self.owners))
        submit = frame["submit_time"].to_numpy(dtype=float)
        first, last = (float(submit.min()), float(submit.max())) if submit.size else (0.0, 0.0)
        flows = []
        for owner, stream in zip(self.owners, streams, strict=True):
            hosts = np.bincount(self.resource_node[owner.node_ids])
            share = float(stream.uniform(local_load[0], local_load[1]))
            flows.append(
                PoissonLocalJobs(
                    share,
                    owner.node_ids.size,
                    int(hosts[hosts > 0].min()),
                    lengths,
                    stream,
                    start=first,
                )
            )
        rate = sum(f.rate for f in flows)
        expected = rate * (last - first + self.scheduling_interval)
        if expected > MAX_LOCAL_ARRIVALS:
            raise ParameterError(
                f"local_load {local_load} makes about {expected:.3g} online local jobs "
                f"({rate:.3g} a second while the trace's jobs arrive, t={first:.6g} to "
                f"{last:.6g} s, and one interval L), above "
                f"the bound of {MAX_LOCAL_ARRIVALS} (vosim.scenario.MAX_LOCAL_ARRIVALS): use "
                "fewer jobs, a lower local_load or a longer local_length"
            )
        #: The online flow's length distribution (``None`` for a replayed trace).
        self.local_lengths = lengths
        return LocalJobs(self, flows, priority)

    def _policy_options(
        self, policy: str, utility_policy: int, mapping: dict[str, str] | None
    ) -> dict:
        """The model values the registered policy ``policy`` declared it takes.

        From :data:`~vosim.policies.base.MODEL_VALUES`, offered alike to every policy; each
        policy's registration names its own (:func:`~vosim.policies.base.policy_options`).
        """
        static = self.pricing_policy == "fixed" and self.owner_exit_revenue is None
        offered = {
            "jobs": len(self.jobs),
            "price": self.node_price,
            "performance": self.node_performance,
            "scheduling_interval": self.scheduling_interval,
            "look_ahead": self.look_ahead,
            "criterion_allocators": mapping,
            "vo_policy": self.vo_policy,
            "static": static,
            "availability_method": self.availability_method,
            "fallback_after": self.fallback_after,
            "reference_performance": self.reference_performance,
            "utility_policy": utility_policy,
        }
        return {name: offered[name] for name in policy_options(policy)}

    # -- per-period budget accounts ----------------------------------------------------------
    def _open_accounts(self) -> None:
        """Set every user's allowance: its share of ``sum(C)`` per ``budget_period``."""
        submits = [j.submit_time for j in self.jobs]
        span = max(max(submits, default=0.0) - min(submits, default=0.0), self.budget_period)
        scale = self.budget_allowance * self.budget_period / span
        for user in self.users:
            rule = (user.budget_for(j) for j in user.jobs if not j.reason)
            user.allowance = scale * math.fsum(c for c in rule if c > 0)

    def replenish_budgets(self) -> None:
        """Reset every active user's balance to its allowance (a recurring event).

        Budgets only grow here, so the metascheduler's next cycle runs even on a static market
        (waiting jobs may now fit).

        References
        ----------
        VO Preferences §4: users' budgets; the per-period account is vosim's extension.
        """
        self.budget_periods += 1
        for user in self.users:
            if user.active:
                user.replenish()
        self.metascheduler.budgets_refreshed()

    @property
    def mean_balance(self) -> float:
        """Mean balance of the users still in the VO, cost units (NaN without accounts)."""
        if self.budget_period is None:
            return math.nan
        values = [self.user_balance[k] for k, u in enumerate(self.users) if u.active]
        return float(np.mean(values)) if values else math.nan

    # -- reporters ---------------------------------------------------------------------------
    @property
    def queue_length(self) -> int:
        """Jobs waiting for a window."""
        return self.metascheduler.queue_length

    @property
    def running_jobs(self) -> int:
        """Jobs scheduled and not yet completed (running or reserved ahead)."""
        return len(self.metascheduler.execution.running)

    @property
    def utilization(self) -> float:
        """Share of the domain's nodes running a VO job now, in [0, 1]."""
        return self.metascheduler.execution.busy_nodes(self.time) / self.node_count

    @property
    def revenue(self) -> float:
        """Owners' total revenue so far, cost units."""
        return float(sum(o.revenue for o in self.owners))

    @property
    def price_factor(self) -> float:
        """Mean node price over the market base price (1: base; fixed prices hover near 1)."""
        if self._price_factor is None:
            self._price_factor = float(np.mean(self.node_price / self.node_base_price))
        return self._price_factor

    @property
    def owners_active(self) -> int:
        """Owners still in the VO."""
        return sum(o.active for o in self.owners)

    @property
    def users_active(self) -> int:
        """Users still in the VO."""
        return self._users()[0]

    @property
    def mean_satisfaction(self) -> float:
        """Mean satisfaction in [0, 1] of the users still in the VO (NaN if none)."""
        return self._users()[1]

    def _users(self) -> tuple[int, float]:
        """(users active, their mean satisfaction), recomputed only after a user changed."""
        if self.users_changed:
            values = self.user_satisfaction[self.user_active]
            # np.mean's own sum and division, without its per-call overhead
            mean = float(np.add.reduce(values) / values.size) if values.size else math.nan
            self._user_stats = (values.size, mean)
            self.users_changed = False
        return self._user_stats

    def review_owners(self, now: float) -> None:
        """Let owners below ``owner_exit_revenue`` leave; their nodes leave the domain."""
        if self.owner_exit_revenue is None:
            return
        left = [
            o
            for o in self.owners
            if o.review(now, self.scheduling_interval, self.owner_exit_revenue)
        ]
        if left:
            self.node_ids = np.concatenate(
                [o.node_ids for o in self.owners if o.active] or [np.empty(0, dtype=np.int64)]
            )

    def reprice(self, now: float) -> None:
        """Let every owner apply its pricing policy (called at the start of each cycle)."""
        if self.pricing_policy == "fixed":
            return
        self._price_factor = None
        for owner in self.owners:
            new = owner.reprice(now, self.cycle_period)
            if new is not None:
                self.node_price[owner.node_ids] = new

    @property
    def completed(self) -> int:
        """Jobs completed so far."""
        return self.ledger.completed

    @property
    def done(self) -> bool:
        """``True`` when every job has completed or left (rejected or withdrawn)."""
        return self.ledger.settled

    def record_cycle(self) -> None:
        """Append one row of per-cycle data (called by the metascheduler)."""
        ms = self.metascheduler
        self._cycles.append(
            (
                float(self.time),
                ms.last_batch,
                ms.last_scheduled,
                ms.last_alternatives,
                ms.last_ua,
                ms.last_vo_evaluation,
                ms.queue_length,
                len(ms.execution.running),
                self.utilization,
                self.revenue,
                self.price_factor,
                self.owners_active,
                *self._users(),
                self.ledger.completed,
                self.mean_balance,
                *(self.local_jobs.counts(self.time) if self.local_jobs else _NO_LOCAL),
            )
        )

    def record_cycles(self, columns: Mapping[str, np.ndarray]) -> None:
        """Append many cycle rows at once (a replayed run's, :mod:`vosim.agents.replay`).

        ``columns`` maps each of ``time``, ``batch_size``, ``jobs_scheduled``,
        ``alternatives``, ``queue_length``, ``running_jobs``, ``utilization``, ``revenue``,
        ``users_active``, ``mean_satisfaction`` and ``completed`` to an array of shape (r,)
        (units as :meth:`cycle_frame`); the other columns take the values
        :meth:`record_cycle` reads now for every row (the evaluations NaN: no choice among
        alternatives). Raises ``KeyError`` for a missing column, ``ValueError`` for lengths
        that differ. Source: none (vosim's record of its cycles; VO Preferences §2's cyclic
        scheme).
        """
        rows = len(columns["time"])
        ms = self.metascheduler
        now = (
            ms.last_ua,
            ms.last_vo_evaluation,
            self.price_factor,
            self.owners_active,
            self.mean_balance,
            *(self.local_jobs.counts(self.time) if self.local_jobs else _NO_LOCAL),
        )
        fixed = dict(
            zip(
                ("user_evaluation", "vo_evaluation", "price_factor", "owners_active",
                 "mean_balance", *CYCLE_COLUMNS[-5:]),
                now,
                strict=True,
            )
        )  # fmt: skip
        self._cycles.extend(
            [
                columns[name] if name in columns else np.full(rows, fixed[name])
                for name in CYCLE_COLUMNS
            ]
        )

    # -- running -----------------------------------------------------------------------------
    def run(self, progress=None, chunks: int = 200, *, replayed: bool = True) -> None:
        """Run to the horizon (or until every job is done), in ``chunks`` slices of time.

        Parameters
        ----------
        progress : callable, optional
            Called after each slice with ``(jobs_done, jobs_total)``.
        chunks : int
            Number of time slices (>= 1) the run is split into for progress reports.
        replayed : bool
            Let a run that :func:`vosim.agents.replay.refusal` accepts (the traced machine
            under FCFS or EASY, event driven) run in one compiled loop, with the same
            tables (:mod:`vosim.agents.replay`); ``False`` steps the agents through every
            event, as ``VOSIM_REFERENCE=1`` does (what a test of the agents' passes needs).
        """
        step = max(self.run_span / max(chunks, 1), self.cycle_period, 1.0)
        if replayed and replay(self, step, progress):  # FCFS and EASY on the machine, compiled
            self.finish()
            return
        with deferred_full_collections():  # the run's records live to its end
            while not self.ended:
                self.run_until(min(self.horizon, self.time + step))
                if progress is not None:
                    ledger = self.ledger
                    progress(ledger.completed + ledger.rejected + ledger.withdrawn, len(self.jobs))
        self.finish()

    @property
    def run_span(self) -> float:
        """The time a run's progress is sliced over (model time units).

        The horizon, or when draining the last submission (the drained run ends later, when
        every job is done).
        """
        return self.horizon if math.isfinite(self.horizon) else self._last_submit

    @property
    def ended(self) -> bool:
        """Whether the run has nothing left to do.

        At the horizon, every job done, or a drain that can change nothing more
        (:meth:`_stalled`).
        """
        return self.time >= self.horizon or self.done or self._stalled()

    def _stalled(self) -> bool:
        """Whether a draining run with no patience can change nothing more.

        No job running or reserved, every job submitted, and a pass since the last submission
        started none. With a patience the run goes on instead: the jobs still waiting are
        withdrawn at their deadlines (or find windows as owners' local load moves).
        """
        ms = self.metascheduler
        return (
            self.patience is None
            and not math.isfinite(self.horizon)
            and not ms.execution.running
            and self.time > self._last_submit
            and ms.cycles > 0
            and ms.last_scheduled == 0
            and not ms.queue.arrived
        )

    def finish(self, interrupted: bool = False) -> None:
        """Mark every job not completed, rejected or withdrawn ``unfinished`` (end of the run).

        A submitted job's ``left_time`` is the end of the run (the horizon, or when a drain
        without patience stalled); one not yet submitted never entered the queue.

        Parameters
        ----------
        interrupted : bool
            The run was stopped before its end (Ctrl-C at the CLI): the reasons say so
            ("interrupted at t=...") instead of naming the horizon.
        """
        ledger = self.ledger
        for job in self.jobs:
            if not ledger.is_final(job):
                state = ledger.state[job.index]
                submitted = state != "pending"  # it leaves the queue now
                at = float(self.time) if submitted else math.nan
                why = ledger.reason[job.index]
                why = why or ("" if submitted else "not submitted before the horizon")
                why = why or self._balance_reason(job) or self.metascheduler.wait_reason(job)
                if interrupted:  # the run's end was Ctrl-C, not the horizon
                    reason = f"still {state} when the run was interrupted at t={self.time:g}"
                    reason += f" (last search: {why})" if why and state == "waiting" else ""
                else:
                    reason = why or f"still {state} at the horizon"
                self.ledger.end(job, reason, at)

    def _balance_reason(self, job: Job) -> str:
        """Why a waiting job's last screen failed on its user's balance ("" if not that)."""
        if self.budget_period is None or self.ledger.state[job.index] != "waiting":
            return ""
        code, _ = self.metascheduler.last_code(job)
        balance = float(self.user_balance[self.job_user_index[job.index]])
        budget = float(self.ledger.budget[job.index])
        if code != BUDGET_TOO_LOW or not balance < budget:
            return ""
        return (
            f"user's balance {balance:.6g} (below the job's budget C={budget:.6g}) below n "
            "tasks on the cheapest node with a slot long enough"
        )

    # -- results -----------------------------------------------------------------------------
    def job_frame(self) -> pd.DataFrame:
        """One row per job read; see :meth:`vosim.agents.ledger.JobLedger.table`."""
        return self.ledger.table(self.owner_of_node, workload_name=self.trace_name)

    def _recorded_placement(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The run's jobs as the traced grid placed them: one task row per job, on its site.

        Columns ``group``, ``owner``, ``start`` (0), ``end`` (the job's processor time as
        traced: run time x allocated processors, s) and ``cost`` (0); jobs without a recorded
        site or run time are left out.
        """
        part = frame["partition_id"].to_numpy(dtype=np.int64)
        run = frame["run_time"].to_numpy(dtype=float)
        procs = frame["allocated_processors"].to_numpy(dtype=float)
        known = np.isin(part, self.sites.partition) & (run >= 0)
        group = frame["group_id"] if "group_id" in frame else pd.Series(-1, index=frame.index)
        return pd.DataFrame(
            {
                "group": group.to_numpy(dtype=np.int64)[known],
                "owner": self.sites.owner_of(part[known]),
                "start": 0.0,
                "end": run[known] * np.maximum(procs[known], 1.0),
                "cost": 0.0,
            }
        )

    def _site_names(self) -> dict[int, str] | None:
        """Owner id -> its site's name under ``owners="trace"`` (``None`` otherwise)."""
        return None if self.sites is None else dict(enumerate(self.sites.name))

    def group_site_frame(self, tasks: pd.DataFrame | None = None) -> pd.DataFrame:
        """Which group of users (LCG-2005-1: the VO) bought from which owner (site).

        :func:`~vosim.analysis.network.group_sites` of :meth:`task_frame`, each task counted
        for its job's group, with ``placement = "run"``; with ``owners="trace"`` followed by
        the same jobs as the traced grid placed them (each on its site of SWF field 16,
        weighted by its traced run time x processors, ``money`` 0), ``placement =
        "trace"``. Shape (pairs, 7): ``placement``, ``group``, ``owner``, ``site``,
        ``processor_seconds`` (s), ``money`` (cost units), ``share`` (of the group's
        processor time in that placement). ``tasks`` is :meth:`task_frame` if already built
        (only its ``job``, ``owner``, ``start``, ``end`` and ``cost`` are read).

        References
        ----------
        Feitelson et al., the Standard Workload Format (fields 13, group, and 16, partition).
        """
        tasks = self.task_frame() if tasks is None else tasks
        group_of_job = np.fromiter((j.group for j in self.jobs), np.int64, len(self.jobs))
        run = pd.DataFrame(  # the columns read, not copied
            {c: tasks[c].to_numpy() for c in ("owner", "start", "end", "cost")}, copy=False
        ).assign(group=group_of_job[tasks["job"].to_numpy(dtype=np.int64)])
        frames = [network.group_sites(run, self._site_names())]
        if self._recorded_tasks is not None:
            frames.append(network.group_sites(self._recorded_tasks, self._site_names()))
        placements = ["run", "trace"][: len(frames)]
        return pd.concat(
            [f.assign(placement=p) for f, p in zip(frames, placements, strict=True)],
            ignore_index=True,
        )[["placement", *frames[0].columns]]

    def group_frame(
        self, jobs: pd.DataFrame | None = None, pairs: pd.DataFrame | None = None
    ) -> pd.DataFrame:
        """One row per group of users (LCG-2005-1: the VO): its jobs, waits and sites.

        Where the group's work ran in this run, and beside it where the traced grid ran it.
        :func:`~vosim.analysis.metrics.group_waits` of the jobs joined with
        :func:`~vosim.analysis.network.group_concentration` of :meth:`group_site_frame`
        (``sites``, ``site_hhi``, ``top_site``, ``top_site_share``; NaN for a group that
        bought nothing). With ``owners="trace"`` also the same four for the traced placement
        (``recorded_sites``, ``recorded_site_hhi``, ``recorded_top_site``,
        ``recorded_top_site_share``).

        Parameters
        ----------
        jobs, pairs : pandas.DataFrame, optional
            :meth:`job_frame` and :meth:`group_site_frame` if already built.

        Returns
        -------
        pandas.DataFrame
            Shape (groups, 18) (14 without ``owners="trace"``), sorted by group.

        References
        ----------
        Feitelson et al., the Standard Workload Format (fields 13 and 16); Herfindahl (1950),
        Hirschman (1945) (the HHI).
        """
        jobs = self.job_frame() if jobs is None else jobs
        pairs = self.group_site_frame() if pairs is None else pairs
        keep = ["group", "sites", "site_hhi", "top_site", "top_site_share"]
        frame = metrics.group_waits(jobs)
        for placement, prefix in (("run", ""), ("trace", "recorded_")):
            mine = pairs[pairs["placement"] == placement]
            if placement == "trace" and mine.empty:
                continue
            view = network.group_concentration(mine)[keep].set_index("group").add_prefix(prefix)
            frame = frame.merge(view, "left", left_on="group", right_index=True)
        return frame

    def summary(
        self,
        jobs: pd.DataFrame | None = None,
        cycles: pd.DataFrame | None = None,
        market: nx.Graph | None = None,
    ) -> dict:
        """The run's metrics (``summary.json``, sweep rows), from its job and cycle tables.

        :func:`~vosim.analysis.metrics.run_summary` with the owners' revenue and local load,
        :func:`~vosim.analysis.metrics.vo_evaluation_summary`, the market's concentration
        (:func:`~vosim.analysis.network.market_metrics`, keys prefixed ``market_``) and, with
        ``offered_load``, the load as traced and the arrival scale factor. ``jobs``,
        ``cycles`` and ``market`` are :meth:`job_frame`, :meth:`cycle_frame` and
        :meth:`market_graph` if already built. The period measured runs from the first
        submission to the end of the run.
        """
        jobs = self.job_frame() if jobs is None else jobs
        cycles = self.cycle_frame() if cycles is None else cycles
        market = self.market_graph() if market is None else market
        first = float(jobs["submission_time"].min()) if len(jobs) else 0.0
        end = float(self.time)
        summary = metrics.run_summary(
            jobs,
            self.node_count,
            [o.revenue for o in self.owners],
            local_busy=sum(o.local_busy(first, end) for o in self.owners),
            end=end,
            criteria=self.user_criteria,
        )
        concentration = {f"market_{k}": v for k, v in network.market_metrics(market).items()}
        load = {
            "offered_load_traced": self.offered_load_traced,
            "arrival_scale": self.arrival_scale,
        }
        local = self.local_jobs.summary() if self.local_jobs is not None else {}
        churn = self._churn_summary()
        return {
            **summary,
            **metrics.vo_evaluation_summary(cycles),
            **churn,
            **concentration,
            **load,
            **local,
        }

    def _churn_summary(self) -> dict:
        """Users who left the VO and why: their satisfaction's factors when they left.

        ``users_left``; ``users_left_choice_part``, ``users_left_wait_part`` and
        ``users_left_queue_part``: the means over those users of their
        :attr:`~vosim.agents.user.UserAgent.parts_at_leaving` (NaN if none left). A wait part
        far below the queue part says they left over delays they chose themselves.
        """
        parts = np.array([u.parts_at_leaving for u in self.users if u.parts_at_leaving])
        means = parts.mean(axis=0).tolist() if len(parts) else [math.nan] * 3
        return {
            "users_left": int(sum(not u.active for u in self.users)),
            **{
                f"users_left_{name}_part": value
                for name, value in zip(("choice", "wait", "queue"), means, strict=True)
            },
        }

    def market_graph(self, tasks: pd.DataFrame | None = None) -> nx.Graph:
        """The user-owner bipartite graph of the run so far.

        :func:`~vosim.analysis.network.market_graph` of ``tasks`` (default: :meth:`task_frame`,
        shape (r, 11)) with every user and owner of the model as nodes (those that never
        traded have no edges); weights in jobs, processor-seconds and cost units. Users carry
        their group (SWF field 13, of their first job), owners their site's name under
        ``owners="trace"``.
        """
        groups: dict[int, int] = {}
        for job in self.jobs:  # a user's group: that of its first job (SWF field 13)
            groups.setdefault(job.user, job.group)
        names = self._site_names()
        return network.market_graph(
            self.task_frame() if tasks is None else tasks,
            users=[u.user_id for u in self.users],
            owners=[o.owner_id for o in self.owners],
            groups=groups,
            names=names,
        )

    def task_frame(
        self, *, release: bool = False, columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """One row per VO task that ran; see :meth:`~vosim.agents.execution.Execution.task_frame`.

        The owners' revenue equals the sum of its ``cost`` column and of the jobs' ``cost``
        (tested). ``release=True`` is for a caller done with the run (a sweep's run): the
        model's task log is handed to the table, not copied, and a later call (or a further
        step of the run) raises ``RuntimeError``. ``columns``: only these, in that order
        (``ValueError`` names one that is not a column), e.g.
        :data:`vosim.analysis.network.TASK_COLUMNS` for :meth:`market_graph` and
        :meth:`group_site_frame`.
        """
        return self.metascheduler.execution.task_frame(release=release, columns=columns)

    def task_frames(self, rows: int, *, release: bool = False) -> Iterator[pd.DataFrame]:
        """:meth:`task_frame` as consecutive frames of whole windows, ~``rows`` rows each.

        For writing ``tasks.parquet`` one row group at a time (``vosim run``): only one
        frame's columns are built at once. ``release`` as in :meth:`task_frame`, the log
        taken when this is called; ``ValueError`` for ``rows`` < 1 (``rows``: tasks per
        frame). See :meth:`~vosim.agents.task_log.TaskLog.frames`. Source: no paper
        (Apache Parquet's row groups).
        """
        return self.metascheduler.execution.task_frames(rows, release=release)

    def attempt_frame(self) -> pd.DataFrame:
        """One row per reserved window: predicted ``P_a^w`` and whether it ran through.

        Columns ``job_id``, ``decided_at``, ``start``, ``predicted_availability`` (in [0, 1]),
        ``succeeded`` (bool), ``interrupted_at`` (model time, NaN if it ran through or
        moved), ``moved`` (bool: re-planned to an earlier window before it started, so
        neither succeeded nor interrupted). Empty unless ``availability`` is on.
        """
        cols = [
            "job_id",
            "decided_at",
            "start",
            "predicted_availability",
            "succeeded",
            "interrupted_at",
            "moved",
        ]
        df = pd.DataFrame.from_records(self.attempts, columns=cols)
        df["interrupted_at"] = df["interrupted_at"].replace(np.inf, np.nan)
        return df

    def cycle_frame(self) -> pd.DataFrame:
        """One row per scheduling cycle that ran (idle stretches are not rows).

        A row is the state at the end of a cycle (a pass when ``cycle_period`` is 0) at
        ``time``. Periodic cycles run at multiples of ``cycle_period``, but the cycles that
        could not act (nothing waited, arrived, left or was freed, every reservation had
        started, no pass reprices or reviews owners) up to the model's next event are skipped
        and leave no row: such a row would decide nothing (``batch_size``, ``jobs_scheduled``
        and ``alternatives`` 0, evaluations NaN), its other columns as the row before but
        ``utilization``, which falls as tasks on faster nodes end before their job.
        So consecutive ``time`` values may be several periods apart, the row count is the
        cycles run (not the run's length over ``cycle_period``), and a mean over rows is a
        mean over cycles that ran, not a time average: ``summary`` reads only the cycles
        with a VO choice (``vo_evaluation``), which are never skipped, so its numbers are
        unchanged; its utilization is computed from the jobs (``node_time``), not the rows.

        Columns :data:`CYCLE_COLUMNS`: ``time``, ``batch_size``, ``jobs_scheduled``,
        ``alternatives``, ``user_evaluation`` (mean chosen ``U``), ``vo_evaluation`` (``A``,
        %), ``queue_length``, ``running_jobs``, ``utilization`` (in [0, 1]), ``revenue``
        (owners' total so far), ``price_factor``, ``owners_active``, ``users_active``,
        ``mean_satisfaction`` (in [0, 1]), ``completed``, ``mean_balance`` (mean balance of
        the users still in the VO, cost units; NaN without ``budget_period``), and the online
        local jobs so far (0 without them): ``local_arrived``, ``local_waiting`` (placed to
        start later than now), ``local_displaced`` (VO reservations they displaced),
        ``local_preempted`` (VO jobs they killed), ``local_lost_work`` (processor-seconds).
        """
        return self._cycles.frame()


# Each parameter's documentation sits with its declaration (vosim.scenario): written into the
# docstring here, so help(VOModel) and the API docs show every parameter.
if VOModel.__doc__:  # not under python -OO
    _SECTION = "    Parameters\n    ----------\n"
    VOModel.__doc__ = VOModel.__doc__.replace(_SECTION, _SECTION + parameter_docs(), 1)
