"""The declaration: :class:`Scenario`, one field per :class:`~vosim.model.VOModel` parameter.

:data:`PARAMETERS` reads the fields as :class:`~vosim.scenario.param.Param` objects;
:func:`check_parameters` and :func:`check_combination` hold every rule on the values that
needs no trace; :func:`parameter_docs` writes the model's parameter documentation.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vosim.data import DEFAULT_TRACE, SYNTHETIC_TRACES, TRACES
from vosim.errors import ParameterError
from vosim.market.nodes import MAX_RESOURCES
from vosim.scenario.checks import (
    Allocators,
    Budget,
    Check,
    Choice,
    Flag,
    Integer,
    Owners,
    Pair,
    Period,
    Real,
    Subset,
    TraceValue,
)
from vosim.scenario.param import Param, UIInput
from vosim.scenario.presets import preset_values

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "GROUPS",
    "PARAMETERS",
    "UI_PARAMETERS",
    "Scenario",
    "check_combination",
    "check_parameters",
    "parameter_docs",
]


# -- registries read lazily (Mesa-free except the user criteria) -------------------------------


def _registered(module: str, name: str) -> Callable[[], tuple[Any, ...]]:
    """A reader of the names ``module.name`` holds (a collection, or a function listing them).

    The module is imported when a value is first checked, not when the declaration is: the
    command line's help and sweep files stay Mesa-free (only the user criteria import Mesa).
    """

    def read() -> tuple[Any, ...]:
        names = getattr(importlib.import_module(module), name)
        return tuple(names() if callable(names) else names)

    return read


_policies = _registered("vosim.policies.base", "policy_names")
_methods = _registered("vosim.allocators", "methods")
_user_criteria = _registered("vosim.agents.user", "USER_CRITERIA")
_vo_objectives = _registered("vosim.allocators.vo_choice", "VO_OBJECTIVES")
_vo_limits = _registered("vosim.allocators.vo_choice", "VO_LIMITS")
_evaluations = _registered("vosim.allocators.vo_choice", "EVALUATIONS")
_resource_kinds = _registered("vosim.market.nodes", "RESOURCE_KINDS")
_replan_modes = _registered("vosim.policies.replan", "REPLAN_MODES")
_local_models = _registered("vosim.market.local_flow", "LOCAL_MODELS")
_local_priorities = _registered("vosim.market.local_placement", "LOCAL_PRIORITIES")
_pricing = _registered("vosim.market.pricing", "PRICING_POLICIES")
_utility_policies = _registered("vosim.policies.knapsack_rules", "UTILITY_POLICIES")


#: Groups of parameters (``vosim run --help`` sections): key -> (title, description).
GROUPS: dict[str, tuple[str, str]] = {
    "workload": ("workload", "The jobs the users submit and how long the run lasts."),
    "domain": ("domain and time", "The nodes, their owners' local jobs, the scheduling cycle."),
    "market": (
        "market, budgets and churn",
        "Owners' prices, users' budgets and criteria, owners and users leaving the VO.",
    ),
    "policy": ("scheduling policy", "What decides each pass and how windows are searched."),
    "availability": (
        "utilization uncertainty (ICCS 2021/2023)",
        "Local jobs and global events may take a reserved node: jobs can fail and are requeued.",
    ),
    "css": (
        "cyclic scheduling scheme (VO Preferences)",
        "Step 1 finds up to --max-alternatives windows per job by the user's criterion; step 2 "
        "picks one per job optimising the VO objective under a limit on the users' evaluations "
        "U (or on the batch cost or time). With --max-alternatives 1 the scheme is first fit.",
    ),
}


def _p(
    default: Any,
    help: str,
    *,
    group: str,
    unit: str = "",
    check: Check | None = None,
    none: str = "",
    label: str = "",
    metavar: str | None = None,
    ui: UIInput | None = None,
    doc_type: str,
    doc: str,
) -> Any:
    """A :class:`Scenario` field: ``default`` plus the declaration as field metadata."""
    spec = {
        "help": help,
        "group": group,
        "unit": unit,
        "check": check,
        "none": none,
        "label": label,
        "metavar": metavar,
        "ui": ui,
        "doc_type": doc_type,
        "doc": inspect.cleandoc(doc),
    }
    return field(default=default, metadata={"vosim": spec})


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """A complete, validated set of :class:`~vosim.model.VOModel` keyword arguments.

    Each field is one model parameter, declared once (type, default, unit, help, allowed
    values, check); :data:`PARAMETERS` reads the declaration. An instance checks every field
    (:func:`check_parameters`) and the rules between fields (:func:`check_combination`).

    Raises
    ------
    ParameterError
        A value outside its parameter's range, or a combination the model cannot run (the
        message names the parameter and the bad value).
    UnknownAllocatorError
        An unregistered policy, availability method or window criterion.

    References
    ----------
    VO Preferences §2 and §4; AEP §2–3; ICCS 2021/2023 (availability); Knapsack Grid slides
    (``utility_policy``). Each field's full description (``doc``) is also
    :class:`~vosim.model.VOModel`'s documentation of that parameter (:func:`parameter_docs`).

    Examples
    --------
    >>> s = Scenario(trace="NASA-iPSC-1993-3.1-cln", jobs=50)
    >>> s.kwargs()["jobs"], s.owners
    (50, 10)
    """

    trace: str | Path | pd.DataFrame = _p(  # noqa: RUF009 - _p is dataclasses.field
        DEFAULT_TRACE,
        f"workload: a bundled trace ({', '.join(TRACES)}), a synthetic job stream "
        f"({', '.join(SYNTHETIC_TRACES)}) or an SWF file, "
        "plain or .gz",
        group="workload",
        check=TraceValue(synthetic=True),
        metavar="TRACE",
        doc_type="str, Path or pandas.DataFrame",
        doc="""
        A bundled trace name (see :data:`vosim.data.TRACES`), an SWF path (plain or ``.gz``),
        or a DataFrame from :func:`~vosim.market.swf.read_swf`. Default UniLu-Gaia-2014-2.
        """,
    )
    jobs: int | None = _p(
        2000,
        "simulate the first N jobs of the trace",
        group="workload",
        check=Integer(low=1),
        none="every job of the trace",
        metavar="N",
        doc_type="int or None",
        doc="""
        Use the first ``jobs`` jobs of the trace (>= 1) after ``first_job``; ``None`` for all
        of them.
        """,
    )
    first_job: int = _p(
        0,
        "skip the trace's first K jobs: the run's jobs are the N after them (a window of the "
        "trace; with a sweep's segments each repetition takes the next window)",
        group="workload",
        check=Integer(low=0),
        metavar="K",
        doc_type="int",
        doc="""
        Jobs of the trace skipped before the run's (>= 0, default 0): the run is the window
        of the trace from job ``first_job + 1``. The owners' local job flows start at the
        window's first submission, as they start at the trace's.
        """,
    )
    offered_load: float | None = _p(
        None,
        "scale the jobs' inter-arrival times to this offered load on the domain's processors: "
        "sum of processors x run time over processors x (last - first submission); sizes, "
        "run times and order stay the trace's (owners' local load comes on top)",
        group="workload",
        check=Real(low=0, low_open=True, finite=True),
        none="the trace's own arrival times",
        metavar="RHO",
        doc_type="float or None",
        doc="""
        Scale those jobs' inter-arrival times so that their offered load on the domain's
        processors (``round(N * MaxProcs / MaxNodes)``; the trace's ``MaxProcs`` with
        ``machine``) is this (> 0; :func:`~vosim.market.workload.scale_to_load`); ``None``
        keeps the trace's times. The owners' local load comes on top of it.
        ``offered_load_traced`` and ``arrival_scale`` record the load before and the factor.
        """,
    )
    nodes: int | None = _p(
        None,
        "physical nodes of the simulated domain (with resources=processors each holds "
        "MaxProcs/MaxNodes processors)",
        group="domain",
        check=Integer(low=1, high=MAX_RESOURCES),
        none="the trace header's MaxNodes, else MaxProcs, else 100",
        doc_type="int or None",
        doc="""
        Physical nodes ``N`` of the simulated domain; ``None`` takes the trace header's
        ``MaxNodes`` (else ``MaxProcs``, else 100). With ``resources="processors"`` each node
        holds the trace's ``MaxProcs / MaxNodes`` processors (1 if the header lacks either),
        ``round(N * MaxProcs / MaxNodes)`` in all, spread as evenly as possible when that is
        not an integer (:func:`~vosim.market.nodes.processor_counts`; UniLu-Gaia's 2004 on 151
        nodes: 41 nodes of 14 processors and 110 of 13).
        """,
    )
    resources: str = _p(
        "processors",
        "what the slots are on: nodes (whole nodes, exclusive: a job gets ceil(p N / MaxProcs)) "
        "or processors (a job of p processors gets p slots; each node holds MaxProcs/MaxNodes "
        "of them, sharing its performance, price, owner and local load; slower: the slot "
        "lists are MaxProcs/MaxNodes times longer); the same on the papers' synthetic domains",
        group="domain",
        check=Choice(_resource_kinds),
        doc_type="str",
        doc="""
        What the slots are on (:data:`~vosim.market.nodes.RESOURCE_KINDS`).
        ``"processors"`` (default; the papers' "CPU nodes"): a job needing ``p``
        processors gets ``p`` slots, and is rejected if ``p`` exceeds the domain's processors;
        the processors of a physical node share its performance, price, owner and local load
        (a local job occupies all of them at once). ``"nodes"``: whole nodes allocated
        exclusively; a job gets ``ceil(p * N / MaxProcs)`` of them (it turns UniLu-Gaia's
        1-processor jobs into whole-node jobs, 1.9 times the trace's node time; on the whole
        trace with 5-10 % local load 92.9 % of the jobs complete).
        The AEP (§3.1) and VO Preferences (§4) experiments' synthetic domains (``synthetic:aep``,
        ``synthetic:vo-preferences``, the ``aep`` and ``vo-preferences`` presets) have one processor
        per CPU node (``MaxProcs = MaxNodes``), so both modes coincide there, as on NASA-iPSC (128
        processors on 128 nodes) and LCG (no ``MaxNodes``: one processor per node), and with
        ``machine`` (ignored there). How a trace's multi-processor nodes are mapped is vosim's
        choice, not the papers'. Slots, windows, ``allocated_resources`` and
        ``task_frame()["resource"]`` hold resource ids ``0 .. node_count - 1``; ``resource_node``
        maps them to physical nodes.
        """,
    )
    owners: int | str = _p(
        10,
        "resource owners, sharing the nodes in contiguous blocks (at most one per node); trace: "
        "one owner per site (SWF partition) of a multi-site trace such as LCG-2005-1, holding "
        "its share of MaxProcs by peak concurrency, one performance and price per site",
        group="domain",
        check=Owners(),
        ui=UIInput(min=1, max=40, step=1),
        doc_type="int or str",
        doc="""
        Resource owners sharing the physical nodes in contiguous blocks (1 <= owners <= N).
        ``"trace"``: the trace's own sites (SWF field 16, named in its header; LCG-2005-1's
        170 grid sites) are the owners (:func:`~vosim.market.sites.trace_sites`): each holds
        its share of ``MaxProcs`` estimated from the whole trace (by peak concurrency with
        every job started at submission, since such a trace records no waits), as
        one-processor nodes of one performance and one price drawn per site
        (:func:`~vosim.market.nodes.site_nodes`); ``nodes`` is then ``MaxProcs``. A trace
        without partitions is refused (:class:`~vosim.errors.ParameterError` naming it).
        """,
    )
    cycle_period: float = _p(
        300.0,
        "time between scheduling cycles, at least 1 (cycles that cannot act are skipped up to "
        "the next event); 0: a pass at every job end and arrival, as batch systems do",
        group="domain",
        unit="s",
        check=Period(zero=True),
        doc_type="float",
        doc="""
        Time between scheduling cycles, model time units (0, or at least
        :data:`~vosim.scenario.MIN_PERIOD` = 1; 0: a pass at every time a job ends or arrives,
        after all ends and arrivals at that time, as batch systems do). Cycles run at its
        multiples, skipping those that cannot act (nothing waits, every reservation has
        started, no pass reprices or reviews owners) up to the next event. Default 300 s:
        UniLu-Gaia's median inter-arrival time is 11 s and its mean 148 s, so a cycle batches a
        few jobs on average while adding at most 5 minutes to any wait, small beside the
        trace's requested times (median 3 days); it also keeps a 3-month trace under 26,000
        cycles. A run whose cycles that may act would exceed
        :data:`~vosim.scenario.MAX_PERIODS` (estimated from the trace) is refused.
        """,
    )
    scheduling_interval: float = _p(
        7 * 86400.0,
        "length L of the interval the slot list covers (longer jobs are rejected)",
        group="domain",
        unit="s",
        check=Real(low=0, low_open=True, finite=True),
        doc_type="float",
        doc="""
        Length ``L`` of the interval the slot list covers, model time units. Default 7 days:
        longer than 99.8 % of UniLu-Gaia's requested times; longer jobs are rejected.
        """,
    )
    look_ahead: float = _p(
        6.0,
        "how far ahead css and availability may place a job's window, in the job's own "
        "requested times (its interval is min(L, look_ahead * requested time)); 6 is VO "
        "Preferences' interval over its shortest job (600/100), so the papers' experiments are "
        "unchanged; inf: one interval L for every job",
        group="policy",
        check=Real(low=0, low_open=True),
        metavar="K",
        doc_type="float",
        doc="""
        How far ahead the cyclic scheme may place a job's window, in the job's own requested
        times: job ``j`` (requested time ``T_j``) is searched in ``[t, t + min(L, look_ahead *
        T_j))``. Default 6, VO Preferences §4's interval over its shortest reservation time
        (600 / 100): every job of the papers' experiments keeps the whole interval, while on
        a real trace a short job's user cannot choose a window days ahead (with one ``L`` for
        all, the scheme's mean wait grows with ``L``, which no paper gives for real traces).
        ``inf``: one interval ``L`` for every job. Read by ``css`` and ``availability``.
        """,
    )
    reference_performance: float = _p(
        6.0,
        "node performance at which the trace's run times hold (within --performance-range)",
        group="domain",
        check=Real(low=0, low_open=True),
        doc_type="float",
        doc="""
        Node performance at which trace run times hold (default 6, the middle of [2, 10]);
        within ``performance_range``.
        """,
    )
    performance_range: tuple[int, int] = _p(
        (2, 10),
        "nodes' performance is a uniform integer in this range (VO Preferences §4: [2, 10])",
        group="domain",
        check=Pair(low=0, low_open=True, integer=True),
        metavar="LOW,HIGH",
        doc_type="(int, int)",
        doc="""
        Inclusive bounds of each physical node's performance, a uniform integer (default
        (2, 10): VO Preferences §4 and AEP §3.1, "performance uniform integer in [2, 10]").
        LCG's sites draw one performance each from it; ignored with ``machine`` (every
        processor at ``reference_performance``). Budgets are set by the dearest cost per
        unit of work over it.
        """,
    )
    budget_range: tuple[float, float] = _p(
        (0.7, 1.6),
        "each user's budget factor is uniform in this range (a job's budget C is the factor "
        "times its work times the dearest base cost per work)",
        group="market",
        check=Pair(low=0, low_open=True),
        metavar="LOW,HIGH",
        doc_type="(float, float)",
        doc="""
        Each user's budget factor is uniform in this range (see :class:`UserAgent`).
        """,
    )
    local_load: tuple[float, float] | None = _p(
        (0.05, 0.10),
        "bounds of the owners' local load (VO Preferences §4's 5-10 %): online, each owner's "
        "share of its processor time is uniform in them; interval, each node's hypergeometric "
        "share of each interval L (ignored with --local-trace)",
        group="domain",
        check=Pair(low=0, high=1, high_open=True),
        none="dedicated nodes, no local jobs",
        metavar="LOW,HIGH",
        doc_type="(float, float) or None",
        doc="""
        Bounds of the owners' local load (default (0.05, 0.10): VO Preferences §4's range for
        owners' local load, taken from the text, not calibrated): with ``local_model
        "online"`` each owner's share of its processor time, uniform in them; with
        ``"interval"`` each node's hypergeometric share of each period ``L``. ``None`` for
        dedicated nodes. Ignored when ``local_trace`` is given.
        """,
    )
    criterion_allocators: dict[str, str] | None = _p(  # noqa: RUF009 - _p is dataclasses.field
        None,
        "window search of each user criterion: CRITERION=METHOD pairs, METHOD a registered "
        "window criterion (AEP §2.2) or a fallback chain such as min_cost>amp",
        group="policy",
        check=Allocators(),
        none="min_finish, min_runtime, min_cost, max_availability",
        metavar="CRITERION=METHOD,...",
        doc_type="dict or None",
        doc="""
        User criterion -> registered window criterion
        (default :data:`~vosim.agents.metascheduler.DEFAULT_CRITERION_ALLOCATORS`).
        """,
    )
    horizon: float | None = _p(
        None,
        "end of the run; jobs not completed by then end unfinished",
        group="workload",
        unit="s",
        check=Real(low=0, low_open=True),
        none="the run drains: until every job has completed or left",
        doc_type="float or None",
        doc="""
        End of the run, model time units; jobs not completed by then end ``unfinished``.
        ``None`` (default): the run drains, going on until every job has completed or left
        (a run that stops at the last submission leaves jobs unfinished that a
        batch system would have run; with ``patience`` every waiting job leaves in time).
        """,
    )
    patience: float | None = _p(
        30 * 86400.0,
        "a job not started this long after its submission is withdrawn by its user",
        group="workload",
        unit="s",
        check=Real(low=0, low_open=True),
        none="jobs wait for ever",
        doc_type="float or None",
        doc="""
        A job not started this long after its submission (model time units) is withdrawn by
        its user (default 30 days); ``None``: jobs wait for ever (a drained run then stops
        when nothing can change, and the jobs still waiting end ``unfinished``).
        """,
    )
    availability: bool = _p(
        False,
        "utilization uncertainty: each reserved window's P_a^w is predicted and its "
        "realisation drawn; vosim run also writes attempts.parquet and calibration.html",
        group="availability",
        check=Flag(),
        ui=UIInput(),
        doc_type="bool",
        doc="""
        Utilization uncertainty (ICCS 2021/2023): owners' local jobs become uncertain event
        chains and every node gets a global event; each reserved window's ``P_a^w`` is
        predicted, and its realisation drawn: a job whose node is taken during its run fails
        at that moment, pays only for what ran and is requeued.
        """,
    )
    global_load: float = _p(
        0.05,
        "standard deviation of the nodes' global occupation probability |N(0, sd)| (ICCS 2021 "
        "§4.1), with --availability",
        group="availability",
        check=Real(low=0, high=1),
        doc_type="float",
        doc="""
        Standard deviation of the nodes' global occupation probability ``|N(0, sd)|`` (ICCS
        2021 §4.1), in [0, 1]; used when ``availability`` is on.
        """,
    )
    availability_method: str = _p(
        "knapsack_p",
        "method of users with the availability criterion at each start of the time scan",
        group="availability",
        check=Choice(_methods, registry=True),
        metavar="METHOD",
        doc_type="str",
        doc="""
        Registered availability method (see :func:`vosim.allocators.methods`) that users with
        the ``availability`` criterion use at each start of the time scan.
        """,
    )
    user_criteria: tuple[str, ...] | None = _p(
        None,
        "criteria users are drawn from, uniformly (comma-separated)",
        group="market",
        check=Subset(_user_criteria),
        none="finish, runtime, cost, plus availability with --availability",
        metavar="CRITERION,...",
        doc_type="tuple of str or None",
        doc="""
        Criteria users are drawn from (uniformly); default finish, runtime, cost, plus
        availability when ``availability`` is on.
        """,
    )
    vo_criterion: str | None = _p(
        None,
        "VO policy overriding the users' criteria: every window maximises P_a^w within budget",
        group="policy",
        check=Choice(lambda: ("availability",)),
        none="each user's own criterion",
        doc_type="str or None",
        doc="""
        A VO policy overriding the users' criteria: ``"availability"`` makes every window
        the one of maximum ``P_a^w`` within budget; ``None`` follows each user's criterion.
        """,
    )
    max_alternatives: int | None = _p(
        1,
        "alternatives searched per job and cycle (step 1); 1 is first fit",
        group="css",
        check=Integer(low=1),
        none="until the slots run out",
        ui=UIInput(value=3, label="alternatives per job", min=1, max=5, step=1),
        doc_type="int or None",
        doc="""
        Alternatives searched per job and cycle (step 1 of the cyclic scheme; >= 1, ``None``
        until the slots run out). 1 (default) is first fit: each job takes the window its
        user's criterion finds, and step 2 has nothing to choose.
        """,
    )
    vo_objective: str = _p(
        "cost",
        "VO criterion of step 2: cost (C -> max, owners' revenue), runtime or finish (T -> min)",
        group="css",
        check=Choice(_vo_objectives),
        label="VO criterion",
        ui=UIInput(),
        doc_type="str",
        doc="""
        VO criterion of step 2: ``"cost"`` (``C -> max``, owners' revenue), ``"runtime"`` or
        ``"finish"`` (``T -> min``). See :class:`~vosim.allocators.vo_choice.VOPolicy`.
        """,
    )
    vo_limit: str = _p(
        "user",
        "what bounds the VO criterion: the users' evaluations U, the batch cost or batch time",
        group="css",
        check=Choice(_vo_limits),
        doc_type="str",
        doc="""
        What bounds it: ``"user"`` (users' evaluations, ``lim U``), ``"cost"`` or ``"time"``.
        """,
    )
    user_evaluation: str = _p(
        "relative",
        "user evaluation U: ordinal (ranks 0..N_a-1) or relative (0-100 %)",
        group="css",
        check=Choice(_evaluations),
        doc_type="str",
        doc="""
        ``"ordinal"`` (ranks) or ``"relative"`` (%) user evaluations ``U``.
        """,
    )
    ua: float | None = _p(
        None,
        "U_a: the mean U allowed per job, or the cost or time limit's position between the "
        "batch's extremes",
        group="css",
        unit="ranks or %",
        check=Real(low=0, finite=True),
        none="no limit, the VO optimum",
        label="U_a",
        ui=UIInput(value=25.0, label="U_a (%)", min=0.0, max=100.0, step=5.0),
        doc_type="float or None",
        doc="""
        ``U_a``, the mean user evaluation allowed per job (ranks or %), or the position of a
        cost or time limit between the batch's extremes (%); ``None``: no limit.
        """,
    )
    pricing_policy: str = _p(
        "fixed",
        "owners' pricing: fixed prices, or demand (prices follow each owner's recent VO "
        "utilization, at most 5 % a cycle, within +-60 % of the market base price)",
        group="market",
        check=Choice(_pricing),
        ui=UIInput(),
        doc_type="str",
        doc="""
        Owners' pricing policy (:data:`~vosim.market.pricing.PRICING_POLICIES`): ``"fixed"``
        (VO Preferences §4) or ``"demand"`` (every cycle each owner's prices move with its VO
        utilization over the last cycle period, at most 5 % per cycle, within ±60 % of the
        market base price; :class:`~vosim.market.pricing.DemandPricing`).
        """,
    )
    owner_exit_revenue: float | None = _p(
        None,
        "owners earning less than this per node and day over the last interval L leave the VO "
        "with their nodes",
        group="market",
        unit="cost units",
        check=Real(low=0, finite=True),
        none="owners never leave",
        doc_type="float or None",
        doc="""
        Owners whose revenue over the last scheduling interval ``L``, per node and per day,
        falls below this (cost units) leave the VO with their nodes (checked each cycle after
        their first ``L``); ``None``: owners never leave.
        """,
    )
    user_exit_satisfaction: float | None = _p(
        None,
        "users whose satisfaction (0-1, from their U and waits) falls below this after 3 "
        "scheduled jobs leave the VO and withdraw their future jobs",
        group="market",
        check=Real(low=0, high=1),
        none="users never leave",
        doc_type="float or None",
        doc="""
        Users whose satisfaction (:meth:`~vosim.agents.user.UserAgent.evaluate`, in [0, 1])
        falls below this after 3 scheduled jobs leave the VO and withdraw their future jobs;
        ``None``: users never leave.
        """,
    )
    budget_period: float | None = _p(
        None,
        "per-period user accounts: every period (at least 1) each user's balance is reset to "
        "its allowance and each reserved window's cost is taken from it; a job may spend "
        "min(C, balance)",
        group="market",
        unit="s",
        check=Period(),
        none="no accounts, each job may spend its budget C",
        metavar="SECONDS",
        doc_type="float or None",
        doc="""
        Length of a budget period, model time units (finite, > 0); ``None`` (default): no
        per-period accounts, each job may spend up to its rule budget ``C``. With a period,
        every user has a balance (cost units), reset without carry-over at time 0 and every
        ``budget_period`` to its allowance ``budget_allowance * sum(C) * budget_period /
        span`` (``sum(C)``: the rule budgets of the user's usable trace jobs; ``span``: the
        trace's last minus first submit time, at least ``budget_period``). A waiting job may
        spend ``min(C, balance)`` in a cycle; a reserved window's cost is taken from the
        balance. See :meth:`~vosim.agents.user.UserAgent.replenish`.
        """,
    )
    budget_allowance: float = _p(
        1.0,
        "with --budget-period: a user's allowance per period is X times the sum of its jobs' "
        "budgets C times the period over the trace's submit span",
        group="market",
        check=Real(low=0, low_open=True, finite=True),
        metavar="X",
        doc_type="float",
        doc="""
        Allowance factor (finite, > 0; default 1): on average a user can afford this many
        times what its jobs' budgets sum to, though bursts exhaust a period's balance. Used
        only with ``budget_period``.
        """,
    )
    local_trace: str | Path | pd.DataFrame | None = _p(  # noqa: RUF009 - _p is dataclasses.field
        None,
        "owners' local job flow replayed from this SWF trace (bundled name or path, read "
        "whole): online, each job arrives at its submit time at the owner user mod owners; "
        "interval, its jobs are placed on the nodes from time 0",
        group="domain",
        check=TraceValue(synthetic=False),
        none="the generated local load",
        metavar="TRACE",
        doc_type="str, Path, pandas.DataFrame or None",
        doc="""
        The owners' local job flow replayed from this SWF trace (a bundled name, a path or a
        :func:`~vosim.market.swf.read_swf` frame, read whole) instead of the generator of
        ``local_load``. Online, each of its jobs arrives at its submit time (the trace's first
        at model time 0) at the owner ``user mod owners``
        (:func:`~vosim.market.local_flow.trace_local_jobs`); interval, its jobs occupy the
        domain's nodes from model time 0 as :class:`~vosim.market.local_trace.TraceLocalFlow`
        places them. ``None`` (default): the generator. May be the same trace as ``trace``.
        """,
    )
    local_model: str | None = _p(
        None,
        "owners' local-load model: online (local jobs arrive over time, a Poisson flow of jobs "
        "of 1 up to a node's processors with lognormal lengths, known when they arrive) or "
        "interval (the papers' load of one scheduling interval drawn ahead, whole nodes; "
        "presets aep and vo-preferences)",
        group="domain",
        check=Choice(_local_models),
        none="online; interval with --availability (ICCS 2021/2023 predict P_a^w from local "
        "jobs known ahead)",
        doc_type="str or None",
        doc="""
        The owners' local-load model (:data:`~vosim.market.local_flow.LOCAL_MODELS`);
        ``None`` (default): ``"online"``, or ``"interval"`` with ``availability`` (ICCS
        2021 §4.1 and ICCS 2023 §2 predict ``P_a^w`` from local jobs scheduled ahead, whose
        start and end are uncertain; online local jobs are unknown until they arrive).
        ``"online"``: each owner's local jobs arrive over time, a Poisson flow
        whose rate gives the owner its share of processor time, each job of 1 up to a node's
        processors (uniform) with a lognormal length
        (:class:`~vosim.market.local_flow.PoissonLocalJobs`), known only when it arrives and
        placed then by ``local_priority`` (:class:`~vosim.agents.local.LocalJobs`; the VO
        learns of it at its next cycle). ``"interval"``: the papers' initial load of one
        scheduling interval, drawn per node one interval ahead, each local job on a whole
        node (AEP §3.1, VO Preferences §4; the ``aep`` and ``vo-preferences`` presets).
        """,
    )
    local_priority: str = _p(
        "displace",
        "online local jobs' priority over the VO: displace (start at once, taking processors "
        "from VO reservations not started, which are re-planned; never preempt a running VO "
        "task), queue (wait behind VO reservations) or preempt (also kill running VO tasks, "
        "requeued)",
        group="domain",
        check=Choice(_local_priorities),
        doc_type="str",
        doc="""
        How an online local job takes processors
        (:data:`~vosim.market.local_placement.LOCAL_PRIORITIES`): ``"displace"`` (default;
        at once, from VO reservations not started, which are cancelled and re-planned; never
        a running VO task), ``"queue"`` (behind VO reservations) or ``"preempt"`` (running VO
        tasks killed and requeued too). Ignored by the interval model.
        """,
    )
    local_length: float | None = _p(
        None,
        "median length of generated online local jobs (lognormal; the rate keeps the share)",
        group="domain",
        unit="s",
        check=Real(low=0, low_open=True, finite=True),
        none="the lognormal fitted to the trace's run times (ICCS 2021 §3.1)",
        metavar="SECONDS",
        doc_type="float or None",
        doc="""
        Median length of generated online local jobs, model time units (> 0); ``None``
        (default): the lognormal fitted to the trace's run times
        (:func:`~vosim.market.local_flow.fitted_lengths`, ICCS 2021 §3.1), capped at ``L``.
        The log-scale deviation is the fitted one either way; the arrival rate keeps the
        share.
        """,
    )
    policy: str = _p(
        "css",
        "scheduling policy deciding each pass: css (the VO's cyclic scheduling scheme), "
        "availability (CSS with every window of maximum P_a^w), or a batch baseline: fcfs, easy "
        "(EASY backfilling), conservative, knapsack (the Knapsack Grid slides' multiple-choice "
        "knapsack), knapsack+easy (the slides' KS+BF)",
        group="policy",
        check=Choice(_policies, registry=True),
        label="scheduling policy",
        ui=UIInput(),
        doc_type="str",
        doc="""
        The scheduling policy deciding each pass: ``"css"`` (default, the cyclic scheduling
        scheme: each user's criterion finds a window, step 2 combines them under the VO
        policy), ``"availability"`` (the CSS with every window the one of maximum ``P_a^w``
        within budget, as ``vo_criterion="availability"``), or a registered batch policy of
        :mod:`vosim.policies` (``"fcfs"``, ``"easy"``, ``"conservative"``).
        """,
    )
    replan: str = _p(
        "always",
        "always: every pass first moves each reservation not started yet to an earlier window "
        "no worse for its user, so no job starts later than first reserved; never: "
        "reservations stay where they were made, as in the papers' single-cycle experiments "
        "(presets aep and vo-preferences); with --availability a move also keeps P_a^w no lower, "
        "and a reservation is searched again only where time was freed since",
        group="policy",
        check=Choice(_replan_modes),
        doc_type="str",
        doc="""
        ``"always"`` (default): every pass first re-plans the reservations that have not
        started, in priority order: each moves to the earliest window that starts earlier and
        is no worse for its user (no longer tasks, no higher cost; see
        :mod:`vosim.policies.replan`), so no job ever starts later than first reserved
        (conservative backfilling does this itself). ``"never"``: a reservation stays where
        it was made, as in the papers' single-cycle scheme (the ``aep`` and
        ``vo-preferences`` presets). With ``availability`` a move must also keep ``P_a^w`` no
        lower at the pass; a reservation is searched again only where time was freed since
        its last search (:class:`~vosim.policies.replan.Replanner`), so a move refused for
        ``P_a^w`` is not retried merely because the pass time changed ``P_a^w`` (searching
        every reservation every pass made 300 Gaia jobs 10x slower, 7.3 s -> 74 s; with this
        rule 4.4 s -> 9.2 s against ``"never"``).
        """,
    )
    machine: bool = _p(
        False,
        "simulate the system the trace was recorded on instead of a VO: MaxProcs identical "
        "processors, one owner, no local load, budgets that never bind; the run drains",
        group="policy",
        check=Flag(),
        doc_type="bool",
        doc="""
        Simulate the system the trace was recorded on instead of a VO: ``MaxProcs`` identical
        processors (performance ``reference_performance``, one price, one owner), no local
        load, budgets that never bind, jobs needing ``p`` processors get ``p`` of them. ``nodes``,
        ``owners``, ``local_load`` are then ignored; the scheduling interval is stretched to
        at least twice the longest requested time, so no job is rejected for its length.
        Cannot be combined with ``availability``, ``local_trace``, ``budget_period``, demand
        pricing or owners leaving.
        """,
    )
    utility_policy: int = _p(
        1,
        "utility policy of the Knapsack Grid slides for --policy knapsack and knapsack+easy "
        "(1: the job's credit; 2-5 weigh its wait in)",
        group="policy",
        check=Choice(_utility_policies),
        metavar="K",
        doc_type="int",
        doc="""
        Utility policy 1-5 of the Knapsack Grid slides for ``policy="knapsack"`` and
        ``"knapsack+easy"`` (1: credit; 2-5 add the wait; see
        :mod:`vosim.policies.knapsack_rules`); ignored by the other policies.
        """,
    )
    fallback_after: str | float | int | None = _p(
        None,
        "budget of a fallback chain's exact link: seconds ('2s', '500ms') or search-tree nodes "
        "('5000', '5000 nodes')",
        group="policy",
        check=Budget(),
        none="each link's own limits",
        metavar="BUDGET",
        doc_type="str, float, int or None",
        doc="""
        Budget of the exact link of a fallback chain named as a window criterion (e.g.
        ``criterion_allocators={"cost": "min_cost>amp"}``, ``vosim run --allocator
        min_cost>amp``): ``"2s"``, ``"5000 nodes"``, a float (seconds) or an int (search-tree
        nodes); ``None``: each link's own limits
        (:class:`~vosim.allocators.fallback.FallbackBudget`). Fallbacks are counted per
        method in ``metascheduler.fallbacks``.
        """,
    )

    def __post_init__(self) -> None:
        values = self.kwargs()
        check_parameters(values)
        check_combination(values)

    def kwargs(self) -> dict[str, Any]:
        """The :class:`~vosim.model.VOModel` keyword arguments (all but ``rng``).

        Returns
        -------
        dict
            Parameter name -> value, in declaration order.
        """
        return {name: getattr(self, name) for name in PARAMETERS}

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Scenario:
        """The preset ``name`` (a key of :data:`PRESETS`) with ``overrides`` applied.

        Raises
        ------
        ParameterError
            An unknown preset (the message lists them) or a bad override.
        """
        return cls(**{**preset_values(name), **overrides})


#: The declaration: parameter name -> :class:`Param`, in VOModel's keyword order.
PARAMETERS: dict[str, Param] = {
    f.name: Param(name=f.name, annotation=f.type, default=f.default, **f.metadata["vosim"])
    for f in fields(Scenario)
}


def parameter_docs(indent: str = "    ") -> str:
    """Every declared parameter's numpydoc entry (``name : type`` and its description).

    In :data:`PARAMETERS`' order, each line prefixed by ``indent``; what
    :class:`~vosim.model.VOModel`'s docstring shows under Parameters. Source: the declaration
    (:class:`Scenario`), so the model's signature, its documentation, ``vosim run``'s options,
    the sweep keys and the UI inputs come from one text.
    """
    lines = []
    for p in PARAMETERS.values():
        lines.append(f"{indent}{p.name} : {p.doc_type}")
        lines += [f"{indent}    {line}" if line else "" for line in p.doc.split("\n")]
    return "\n".join(lines) + "\n"


#: The parameters the live UI exposes, named as the model's (see :mod:`vosim.ui.app`).
UI_PARAMETERS: tuple[str, ...] = tuple(n for n, p in PARAMETERS.items() if p.ui is not None)


def check_parameters(values: Mapping[str, Any]) -> None:
    """Check each declared parameter in ``values`` on its own; other keys are ignored.

    Parameters
    ----------
    values : mapping
        Parameter name -> value (e.g. ``VOModel.__init__``'s ``locals()``).

    Raises
    ------
    ParameterError, UnknownAllocatorError
        The first value outside its parameter's range, in declaration order (the message
        names the parameter and the value).
    """
    for name, param in PARAMETERS.items():
        if name in values:
            param.validate(values[name])


def check_combination(values: Mapping[str, Any]) -> None:
    """Check the rules between parameters that need no data (the trace is not read).

    Rules that need the trace (``owners`` at most the node count) stay in the model.

    Parameters
    ----------
    values : mapping
        Parameter name -> value; a missing name takes its default.

    Raises
    ------
    ParameterError
        ``cycle_period`` 0 with demand pricing; ``machine`` with availability, a local trace,
        budget accounts, demand pricing or owners leaving; ``vo_criterion`` (or
        ``policy="availability"``) together with ``criterion_allocators``;
        ``reference_performance`` outside ``performance_range`` (unless ``machine``).
    """

    def get(name: str) -> Any:
        return values[name] if name in values else PARAMETERS[name].default

    pricing = get("pricing_policy")
    if get("cycle_period") == 0 and pricing != "fixed":
        raise ParameterError(
            "cycle_period 0 (event-driven passes) needs fixed prices: demand pricing "
            "reprices over each cycle period"
        )
    if get("machine"):
        clash = [
            name
            for name, on in [
                ("availability", get("availability")),
                ("local_trace", get("local_trace") is not None),
                ("budget_period", get("budget_period") is not None),
                ("pricing_policy='demand'", pricing != "fixed"),
                ("owner_exit_revenue", get("owner_exit_revenue") is not None),
            ]
            if on
        ]
        if clash:
            raise ParameterError(
                f"machine (the traced system) cannot be combined with {', '.join(clash)}"
            )
    vo_criterion = "availability" if get("policy") == "availability" else get("vo_criterion")
    if vo_criterion is not None and get("criterion_allocators"):
        raise ParameterError("give vo_criterion or criterion_allocators, not both")
    low, high = get("performance_range")
    reference = get("reference_performance")
    if not get("machine") and not low <= reference <= high:
        raise ParameterError(
            f"reference_performance must lie in performance_range [{low}, {high}], "
            f"got {reference!r}"
        )
