"""The validation ladder: from the recorded system to the full VO, one feature at a time.

Experiment ``validation`` (issue 18). On one trace prefix it measures the mean wait, the mean
bounded slowdown (τ = 10 s), utilization and the completed share, step by step:

1. ``recorded``: the trace's own record: each job's wait as logged (SWF field 3), its run
   time (field 4) on its allocated processors (field 5) of the ``MaxProcs`` the log header
   gives (jobs with any of these unknown are left out of this row; a trace that records no
   waits, such as NASA-iPSC, gets a row of NaN over 0 jobs);
2. ``machine FCFS`` and 3. ``machine EASY``: vosim on the traced machine (``machine=True``,
   event-driven passes): ``MaxProcs`` identical processors, no local load, budgets that never
   bind. These should stand near the recorded row: the cluster ran a backfilling scheduler;
4. ``+ VO domain``: the VO's domain, the model's default resources: the traced machine's
   processors on its ``MaxNodes`` physical nodes, each node's performance drawn by the model's
   node generator (a task runs the trace's run time times ``reference_performance`` / its node's
   performance; EASY, event driven),
   still with no local load and budgets that never bind (budget factors 10⁹);
5. ``+ local load``: owners' local job flows on their nodes (the default 5-10 % of each
   interval);
6. ``+ prices and budgets``: users' budgets from the default budget rule (factors U[0.7, 1.6]);
7. ``+ CSS``: the cyclic scheduling scheme with the users' criteria (the default policy,
   periodic cycles, re-planning): this row is ``vosim run``'s default scenario;
8. ``+ churn``: users leave below satisfaction 0.6 (the VO-policy study's value) and owners
   whose nodes earned less than 1 cost unit per node and day over the last interval leave
   (vosim's choice: an owner who gains next to nothing from the VO; no paper gives a value).

Every step keeps the previous one's settings and adds one feature, so the change between two
rows is the effect of that feature alone (the same seed draws the same domain in steps 4-8).
The mean wait and BSLD cover every job that entered the queue (a job that never started
counts its wait until it left: ``mean_wait_lower_bound``); utilization is the VO's jobs over
the resources' time: processors in every row, since processors are ``VOModel``'s default
resources.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

import altair as alt
import numpy as np
import pandas as pd

from vosim.analysis.metrics import run_summary
from vosim.errors import TraceFormatError
from vosim.market.swf import header_int
from vosim.market.synthetic import load_trace
from vosim.runs.experiments.base import Experiment, ExperimentConfig, register_experiment

__all__ = ["STEPS", "COLUMNS", "DEFAULT_TRACE", "recorded_summary"]

#: The trace of the ladder when none is given.
DEFAULT_TRACE = "UniLu-Gaia-2014-2"

_NEVER_BIND = (1e9, 1e9)  # budget factors: C far above any window's cost
_EVENT_DRIVEN = {"cycle_period": 0.0}

#: (step, what it adds, VOModel arguments); ``None``: the trace's own record.
STEPS: tuple[tuple[str, str, dict | None], ...] = (
    ("recorded", "the trace's recorded waits (SWF field 3)", None),
    (
        "machine FCFS",
        "the traced machine, FCFS",
        {"machine": True, "policy": "fcfs", **_EVENT_DRIVEN},
    ),
    (
        "machine EASY",
        "the traced machine, EASY backfilling",
        {"machine": True, "policy": "easy", **_EVENT_DRIVEN},
    ),
    (
        "+ VO domain",
        "heterogeneous node performance (EASY, no local load, budgets never bind)",
        {"policy": "easy", "local_load": None, "budget_range": _NEVER_BIND, **_EVENT_DRIVEN},
    ),
    (
        "+ local load",
        "owners' local job flows (5-10 % of each interval)",
        {"policy": "easy", "budget_range": _NEVER_BIND, **_EVENT_DRIVEN},
    ),
    (
        "+ prices and budgets",
        "users' budgets C from the budget rule",
        {"policy": "easy", **_EVENT_DRIVEN},
    ),
    ("+ CSS", "the cyclic scheduling scheme (vosim run's defaults)", {}),
    (
        "+ churn",
        "users leave below satisfaction 0.6; owners earning < 1 per node and day leave",
        {"user_exit_satisfaction": 0.6, "owner_exit_revenue": 1.0},
    ),
)

#: Columns of the experiment's table.
COLUMNS = (
    "step",
    "order",
    "adds",
    "repetition",
    "seed",
    "jobs",
    "completed_share",
    "mean_wait",
    "mean_wait_lower_bound",
    "mean_wait_completed",
    "mean_bounded_slowdown",
    "utilization",
    "utilization_total",
    "seconds",
)


def recorded_summary(trace: pd.DataFrame) -> dict:
    """The trace's own record summarised as :func:`~vosim.analysis.metrics.run_summary` does.

    Parameters
    ----------
    trace : pandas.DataFrame
        A :func:`~vosim.market.swf.read_swf` frame (one row per job; ``attrs["header"]``
        with ``MaxProcs``, else the largest allocation is taken as the machine's size).

    Returns
    -------
    dict
        ``run_summary`` of the jobs whose wait (field 3), run time (field 4) and allocated
        processors (field 5) are known, every one counted as completed; ``jobs`` is how many.

    Raises
    ------
    TraceFormatError
        No job of ``trace`` has all three fields known.

    References
    ----------
    Feitelson's Standard Workload Format, fields 3-5; issue 18 of vosim (the validation
    ladder's first step).
    """
    known = trace[(trace["wait_time"] >= 0) & (trace["run_time"] >= 0)]
    known = known[known["allocated_processors"] > 0]
    if known.empty:
        raise TraceFormatError(
            str(trace.attrs.get("path", "trace")),
            None,
            "no job with wait, run time and processors known",
        )
    header = trace.attrs.get("header", {})
    size = header_int(header, "MaxProcs") if header else None
    size = size or int(known["allocated_processors"].max())
    submit = known["submit_time"].astype(float)
    start = submit + known["wait_time"]
    run = known["run_time"].astype(float)
    jobs = pd.DataFrame(
        {
            "state": "completed",
            "submission_time": submit,
            "starting_time": start,
            "finish_time": start + run,
            "execution_time": run,
            "run_time": run,
            "left_time": math.nan,
            "node_time": run * known["allocated_processors"],
            "user": known["user_id"],
        }
    )
    return {**run_summary(jobs, size, []), "jobs": len(jobs)}


def _recorded_or_unknown(trace: pd.DataFrame) -> dict:
    """:func:`recorded_summary`, or NaN figures over 0 jobs when the trace records no waits."""
    try:
        return recorded_summary(trace)
    except TraceFormatError:  # e.g. NASA-iPSC: field 3 is -1 throughout
        nan = math.nan
        figures = ("mean_wait", "mean_wait_completed", "mean_bounded_slowdown")
        return {
            **dict.fromkeys(figures, nan),
            "utilization": nan,
            "utilization_total": nan,
            "completed": 0,
            "jobs": 0,
            "mean_wait_lower_bound": False,
        }


def _model_summary(trace: pd.DataFrame, arguments: dict, seed: int) -> dict:
    """Run ``VOModel`` on ``trace`` with ``arguments`` and seed ``seed``; its summary."""
    from vosim.model import VOModel  # Mesa only when a model runs

    model = VOModel(trace=trace, jobs=None, rng=seed, **arguments)
    model.run()
    summary = model.summary(model.job_frame(), model.cycle_frame())
    return {**summary, "jobs": len(model.jobs)}


def run(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """Run every step of the ladder ``config.repetitions`` times; the table and its chart.

    The trace is ``config.trace`` (default :data:`DEFAULT_TRACE`), its first ``config.jobs``
    jobs (default 2,000; 300 with ``quick``). Repetition ``r`` of every model step uses seed
    ``config.seed + r`` (common random numbers: the same domain in steps 4-8).

    Returns
    -------
    (pandas.DataFrame, altair chart)
        One row per step and repetition (:data:`COLUMNS`; waits in seconds, shares in
        [0, 1]) and :func:`chart` of it.

    Raises
    ------
    TraceFormatError
        The trace is missing or not SWF (``file:line`` in the message).

    References
    ----------
    Issue 18 of vosim (the validation ladder); Feitelson et al. (1997) for the bounded
    slowdown; Mu'alem & Feitelson (2001) for EASY.
    """
    name = config.trace or DEFAULT_TRACE
    jobs = config.jobs or (300 if config.quick else 2000)
    trace = load_trace(name, jobs, np.random.default_rng(config.seed))
    rows = []
    for order, (step, adds, arguments) in enumerate(STEPS):
        for rep in range(1 if arguments is None else config.repetitions):
            seed = config.seed + rep
            began = time.perf_counter()
            if arguments is None:
                s = _recorded_or_unknown(trace)
            else:
                s = _model_summary(trace, arguments, seed)
            rows.append(
                {
                    "step": step,
                    "order": order,
                    "adds": adds,
                    "repetition": rep,
                    "seed": seed if arguments is not None else -1,
                    "jobs": s["jobs"],
                    "completed_share": s["completed"] / s["jobs"] if s["jobs"] else math.nan,
                    "mean_wait": s["mean_wait"],
                    "mean_wait_lower_bound": bool(s["mean_wait_lower_bound"]),
                    "mean_wait_completed": s["mean_wait_completed"],
                    "mean_bounded_slowdown": s["mean_bounded_slowdown"],
                    "utilization": s["utilization"],
                    "utilization_total": s["utilization_total"],
                    "seconds": time.perf_counter() - began,
                }
            )
        progress(1)
    table = pd.DataFrame(rows)[list(COLUMNS)]
    return table, chart(table, name, jobs)


_METRICS = {
    "completed_share": "completed share",
    "mean_wait": "mean wait (s, log)",
    "mean_bounded_slowdown": "mean bounded slowdown (τ = 10 s, log)",
    "utilization": "utilization (VO jobs)",
}


_LABELS = {"mean_wait": ".3~s", "mean_bounded_slowdown": ".3~s"}


def chart(table: pd.DataFrame, trace: str, jobs: int) -> alt.TopLevelMixin:
    """Four panels (completed share, mean wait, BSLD, utilization) across the ladder's steps.

    Bars are means over repetitions (labelled), dots single repetitions; the recorded row is
    grey. Waits and slowdowns on a symmetric log scale (zero stays visible). ``table`` is
    :func:`run`'s table; ``trace`` and ``jobs`` name it in the title. Issue 18 of vosim.
    """
    steps = [s for s, _, _ in STEPS]
    long = table.melt(
        id_vars=["step", "order", "repetition"], value_vars=list(_METRICS), var_name="metric"
    )
    panels = []
    for metric, title in _METRICS.items():
        part = long[long["metric"] == metric]
        log = metric in ("mean_wait", "mean_bounded_slowdown")
        y = alt.Y(
            "mean(value):Q",
            title=title,
            scale=alt.Scale(type="symlog") if log else alt.Scale(domain=[0, 1]),
            axis=alt.Axis(format=",.0f" if log else "%", tickCount=6),
        )
        base = alt.Chart(part).encode(
            x=alt.X("step:N", sort=steps, title=None, axis=alt.Axis(labelAngle=-40))
        )
        bars = base.mark_bar().encode(
            y=y,
            color=alt.condition(
                alt.datum.step == "recorded", alt.value("#999999"), alt.value("#4c78a8")
            ),
            tooltip=["step", alt.Tooltip("mean(value):Q", title=metric, format=",.4g")],
        )
        dots = base.mark_circle(color="black", size=18).encode(y="value:Q")
        labels = base.mark_text(dy=-7, fontSize=10).encode(
            y="mean(value):Q",
            text=alt.Text("mean(value):Q", format=_LABELS.get(metric, ".0%")),
        )
        panels.append((bars + dots + labels).properties(width=260, height=200, title=title))
    top = alt.hconcat(*panels[:2])
    bottom = alt.hconcat(*panels[2:])
    return alt.vconcat(top, bottom).properties(
        title=f"Validation ladder on {trace}, first {jobs:,} jobs: one VO feature added per step"
    )


VALIDATION = register_experiment(
    Experiment(
        name="validation",
        description=(
            "validation ladder on a trace (--trace, --jobs): recorded waits, the traced machine "
            "with FCFS and EASY, then one VO feature per step (heterogeneous nodes, local load, "
            "budgets, CSS, churn); mean wait, BSLD, utilization, completed share"
        ),
        default_repetitions=3,
        quick_repetitions=1,
        run=run,
        points=lambda quick: len(STEPS),
        takes_trace=True,
    )
)
