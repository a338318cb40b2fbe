"""The validation ladder: from the recorded system to the full VO, one feature at a time.

Experiment ``validation``. On one trace prefix it measures the mean wait, the mean
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
5. ``+ local load``: owners' online local job flows on their processors (the default 5-10 %
   of each owner's processor time, local jobs of 1 up to a node's processors arriving as a
   Poisson flow, lengths lognormal fitted to the trace's run times, displacing VO reservations
   not started); beside it, rows that keep step 5's settings and change one thing
   (``order`` 5 too, drawn apart in the chart):

   - ``control: fewer processors``: no local load, and the processor time the local jobs
     took in step 5 (same seed) removed as capacity instead: ``round(N (1 - u_local))`` nodes;
   - ``control: added jobs``: no local load, and the same processor time added to the queue
     as trace-like jobs (the trace's own rows drawn with replacement until their processors
     x run time reach it, submitted uniformly over the trace's span); the row's waits are the
     trace's own jobs';
   - ``local length x0.5`` and ``x2``: the local jobs' median length halved and doubled at
     the same share (the arrival rate follows);

   If step 5 stands within a small factor of both controls, the local load costs the VO what
   its processor time costs, not more; if the length rows stay near step 5, the length (a
   parameter no paper gives) is not the finding;
Every step keeps the previous one's settings and adds one feature, so the change between two
rows is the effect of that feature alone (the same seed draws the same domain in steps 4-8).
Every model row also gives the mean wait per user criterion (``mean_wait_finish``,
``mean_wait_runtime``, ``mean_wait_cost``): under the CSS a user's criterion chooses among
windows, and a cost-minded user takes cheaper, later ones, a delay chosen rather than
queueing. The mean wait and BSLD cover every job that entered the queue (a job that never started
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

__all__ = [
    "COLUMNS",
    "CONTROLS",
    "DEFAULT_TRACE",
    "STEPS",
    "intervals",
    "local_load_rows",
    "log_ticks",
    "recorded_summary",
    "step_order",
]

#: The trace of the ladder when none is given.
DEFAULT_TRACE = "UniLu-Gaia-2014-2"

_NEVER_BIND = (1e9, 1e9)  # budget factors: C far above any window's cost
_EVENT_DRIVEN = {"cycle_period": 0.0}

_LOCAL = {"policy": "easy", "budget_range": _NEVER_BIND, **_EVENT_DRIVEN}

#: Rows beside ``+ local load`` (same ``order``): step, what it changes, how.
CONTROLS: tuple[tuple[str, str], ...] = (
    ("control: fewer processors", "no local load; its processor time removed as capacity"),
    ("control: added jobs", "no local load; its processor time added as trace-like jobs"),
    ("local length x0.5", "local jobs' median length halved, same share"),
    ("local length x2", "local jobs' median length doubled, same share"),
)

#: User criteria whose mean wait every model row reports (``mean_wait_<criterion>``).
CRITERIA = ("finish", "runtime", "cost")

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
        "owners' online local job flows (5-10 % of each owner's processor time)",
        _LOCAL,
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
    "mean_chosen_delay",
    "mean_bounded_slowdown",
    "utilization",
    "utilization_total",
    *(f"mean_wait_{c}" for c in CRITERIA),
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
    Feitelson's Standard Workload Format, fields 3-5; vosim's validation ladder (its
    first step).
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
        figures = ("mean_wait", "mean_wait_completed", "mean_chosen_delay", "mean_bounded_slowdown")
        return {
            **dict.fromkeys(figures, nan),
            "utilization": nan,
            "utilization_total": nan,
            "completed": 0,
            "jobs": 0,
            "mean_wait_lower_bound": False,
        }


def _model_summary(trace: pd.DataFrame, arguments: dict, seed: int, own: int | None = None) -> dict:
    """Run ``VOModel`` on ``trace`` with ``arguments`` and seed ``seed``; its summary.

    With ``own``, the figures cover the jobs of ``trace`` whose ``job_id`` is below it (the
    trace's own jobs, not those a control added). Adds the mean wait per user criterion
    (``mean_wait_<criterion>``), the local jobs' processor time (``local_busy``) and the
    local jobs' median length (``local_median``; NaN without online local jobs).
    """
    from vosim.model import VOModel  # Mesa only when a model runs

    model = VOModel(trace=trace, jobs=None, rng=seed, **arguments)
    model.run()
    jobs = model.job_frame()
    summary = model.summary(jobs, model.cycle_frame())
    if own is not None:
        jobs = jobs[jobs["job_id"] < own]
        summary = {**summary, **run_summary(jobs, model.node_count, [], end=float(model.time))}
    entered = jobs[jobs["waiting_time"].notna() | jobs["left_time"].notna()]
    wait = entered["waiting_time"].fillna(entered["left_time"] - entered["submission_time"])
    for criterion in CRITERIA:
        summary[f"mean_wait_{criterion}"] = float(wait[entered["criterion"] == criterion].mean())
    first = float(jobs["submission_time"].min()) if len(jobs) else 0.0
    summary["local_busy"] = sum(o.local_busy(first, float(model.time)) for o in model.owners)
    lengths = model.local_lengths
    summary["local_median"] = lengths.median if lengths is not None else math.nan
    return {**summary, "jobs": len(jobs)}


def _added_jobs(trace: pd.DataFrame, work: float, seed: int) -> tuple[pd.DataFrame, int]:
    """``trace`` with trace-like jobs of ``work`` processor-seconds added; the own-id bound.

    The trace's rows are drawn with replacement (seed ``seed``) until their processors x run
    time reach ``work``; each is submitted at a uniform time over the trace's submit span and
    gets a ``job_id`` above every id of the trace (the bound returned), and the whole is
    sorted by submit time, as a trace is.
    """
    rng = np.random.default_rng([seed, 41])
    usable = trace[(trace["run_time"] > 0) & (trace["allocated_processors"] > 0)]
    own = int(trace["job_id"].max()) + 1
    if work <= 0 or usable.empty:
        return trace, own
    size = usable["allocated_processors"].to_numpy(dtype=float) * usable["run_time"].to_numpy()
    mean = float(size.mean())
    picks = rng.integers(0, len(usable), size=int(2 * work / mean) + 16)
    count = int(np.searchsorted(np.cumsum(size[picks]), work)) + 1
    extra = usable.iloc[picks[:count]].copy()
    submit = trace["submit_time"].to_numpy(dtype=float)
    extra["submit_time"] = np.sort(rng.uniform(submit.min(), submit.max(), size=count)).round()
    extra["job_id"] = own + np.arange(count)
    merged = pd.concat([trace, extra]).sort_values("submit_time", kind="stable")
    merged.attrs = trace.attrs
    return merged.reset_index(drop=True), own


def _control(step: str, trace: pd.DataFrame, local: dict, seed: int) -> dict:
    """A row beside ``+ local load`` (:data:`CONTROLS`), matched to its run ``local``."""
    if step == "control: fewer processors":
        nodes = header_int(trace.attrs.get("header", {}), "MaxNodes") or header_int(
            trace.attrs.get("header", {}), "MaxProcs"
        )
        fewer = max(round(nodes * (1.0 - local["utilization_local"])), 1)
        return _model_summary(trace, {**_LOCAL, "local_load": None, "nodes": fewer}, seed)
    if step == "control: added jobs":
        added, own = _added_jobs(trace, local["local_busy"], seed)
        return _model_summary(added, {**_LOCAL, "local_load": None}, seed, own=own)
    factor = 0.5 if step.endswith("x0.5") else 2.0
    return _model_summary(trace, {**_LOCAL, "local_length": local["local_median"] * factor}, seed)


def local_load_rows(trace: pd.DataFrame, seed: int) -> dict[str, dict]:
    """The ``+ local load`` step and the rows beside it (:data:`CONTROLS`) for one seed.

    Parameters
    ----------
    trace : pandas.DataFrame
        The jobs (:func:`~vosim.market.swf.read_swf` rows, a prefix of a trace).
    seed : int
        The seed of every run (common random numbers: one domain, one local flow).

    Returns
    -------
    dict
        Step name -> summary (``VOModel.summary`` keys, ``mean_wait_<criterion>``,
        ``local_busy``, ``local_median``, ``jobs``), ``+ local load`` first.
    """
    local = _model_summary(trace, _LOCAL, seed)
    out = {"+ local load": local}
    for control, _ in CONTROLS:
        out[control] = _control(control, trace, local, seed)
    return out


def _row(step: str, order: int, adds: str, rep: int, seed: int, s: dict, began: float) -> dict:
    """One row of the table (:data:`COLUMNS`) from a summary ``s``."""
    return {
        "step": step,
        "order": order,
        "adds": adds,
        "repetition": rep,
        "seed": seed,
        "jobs": s["jobs"],
        "completed_share": s["completed"] / s["jobs"] if s["jobs"] else math.nan,
        "mean_wait": s["mean_wait"],
        "mean_wait_lower_bound": bool(s["mean_wait_lower_bound"]),
        "mean_wait_completed": s["mean_wait_completed"],
        "mean_chosen_delay": s["mean_chosen_delay"],
        "mean_bounded_slowdown": s["mean_bounded_slowdown"],
        "utilization": s["utilization"],
        "utilization_total": s["utilization_total"],
        **{f"mean_wait_{c}": s.get(f"mean_wait_{c}", math.nan) for c in CRITERIA},
        "seconds": time.perf_counter() - began,
    }


def run(
    config: ExperimentConfig, progress: Callable[[int], None]
) -> tuple[pd.DataFrame, alt.TopLevelMixin]:
    """Run every step of the ladder ``config.repetitions`` times; the table and its chart.

    The trace is ``config.trace`` (default :data:`DEFAULT_TRACE`), its first ``config.jobs``
    jobs (default 5,000; 300 with ``quick``). Repetition ``r`` of every model step uses seed
    ``config.seed + r`` (common random numbers: the same domain in steps 4-8, the same local
    job flows in step 5 and its rows). The rows of :data:`CONTROLS` follow ``+ local load``.

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
    Feitelson et al. (1997) for the bounded slowdown; Mu'alem & Feitelson (2001) for EASY.
    """
    name = config.trace or DEFAULT_TRACE
    jobs = config.jobs or (300 if config.quick else 5000)
    trace = load_trace(name, jobs, np.random.default_rng(config.seed))
    rows = []
    for order, (step, adds, arguments) in enumerate(STEPS):
        for rep in range(1 if arguments is None else config.repetitions):
            seed = config.seed + rep
            began = time.perf_counter()
            if arguments is None:
                s = _recorded_or_unknown(trace)
                rows.append(_row(step, order, adds, rep, -1, s, began))
                continue
            if step != "+ local load":
                s = _model_summary(trace, arguments, seed)
                rows.append(_row(step, order, adds, rep, seed, s, began))
                continue
            for row, s in local_load_rows(trace, seed).items():
                what = dict(CONTROLS).get(row, adds)
                rows.append(_row(row, order, what, rep, seed, s, began))
                began = time.perf_counter()
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


def step_order() -> list[str]:
    """Every row's step in the ladder's order: :data:`STEPS`, controls after ``+ local load``."""
    out = []
    for step, _, _ in STEPS:
        out.append(step)
        if step == "+ local load":
            out.extend(c for c, _ in CONTROLS)
    return out


def intervals(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` per step with its 95 % t interval over repetitions.

    Returns a frame with ``step``, ``mean``, ``low`` (at least 0: every metric of the ladder
    is non-negative), ``high`` (NaN bounds for a single repetition) and ``n``, in
    :func:`step_order`.
    """
    from scipy import stats

    rows = []
    for step, part in table.groupby("step", sort=False):
        values = part[metric].dropna().to_numpy(dtype=float)
        mean = float(values.mean()) if values.size else math.nan
        half = math.nan
        if values.size > 1:
            half = float(stats.t.ppf(0.975, values.size - 1) * values.std(ddof=1))
            half /= math.sqrt(values.size)
        rows.append({"step": step, "mean": mean, "low": max(mean - half, 0.0), "high": mean + half,
                     "n": values.size})  # fmt: skip
    order = {s: k for k, s in enumerate(step_order())}
    frame = pd.DataFrame(rows, columns=["step", "mean", "low", "high", "n"])
    return frame.sort_values("step", key=lambda c: c.map(order)).reset_index(drop=True)


def log_ticks(top: float) -> list[float]:
    """Tick values of a symmetric log axis up to ``top``: 0 and the powers of ten.

    Vega-Lite's own ticks on a ``symlog`` scale leave the decades below the largest value
    unlabelled (a wait of 25 s and one of 2,000 s then read alike). ``top`` (the axis's
    largest value, any unit; NaN or below 1 gives ``[0, 1]``) sets the last power of ten:
    the first at or above it.
    """
    last = math.ceil(math.log10(top)) if math.isfinite(top) and top > 1 else 0
    return [0.0, *(10.0**k for k in range(last + 1))]


def _kind(step: str) -> str:
    if step == "recorded":
        return "recorded"
    return "control or sensitivity" if step in dict(CONTROLS) else "ladder step"


def chart(table: pd.DataFrame, trace: str, jobs: int) -> alt.TopLevelMixin:
    """Panels across the ladder's steps, with the mean wait per user criterion below.

    Completed share, mean wait, BSLD and utilization: bars are means over repetitions
    (labelled) with 95 % t intervals, dots single repetitions; the recorded row is grey, the
    controls and length rows beside ``+ local load`` orange. Waits and slowdowns on a
    symmetric log scale (zero stays visible). The last panel: the mean wait of each user
    criterion at every model step (a cost-minded user's chosen delay under the CSS shows
    there). ``table`` is :func:`run`'s table; ``trace`` and ``jobs`` name it in the title.
    """
    steps = step_order()
    colours = alt.Scale(
        domain=["recorded", "ladder step", "control or sensitivity"],
        range=["#999999", "#4c78a8", "#f58518"],
    )
    panels = []
    for metric, title in _METRICS.items():
        log = metric in ("mean_wait", "mean_bounded_slowdown")
        summary = intervals(table, metric)
        scale = alt.Scale(type="symlog") if log else alt.Scale(domain=[0, 1])
        axis = (
            alt.Axis(format=",.0f", values=log_ticks(summary[["mean", "high"]].max().max()))
            if log
            else alt.Axis(format="%", tickCount=6)
        )
        summary["kind"] = summary["step"].map(_kind)
        x = alt.X("step:N", sort=steps, title=None, axis=alt.Axis(labelAngle=-40))
        base = alt.Chart(summary).encode(x=x)
        bars = base.mark_bar().encode(
            y=alt.Y("mean:Q", title=title, scale=scale, axis=axis),
            color=alt.Color("kind:N", scale=colours, title=None),
            tooltip=["step", alt.Tooltip("mean:Q", format=",.4g"), "low:Q", "high:Q", "n:Q"],
        )
        whiskers = base.mark_rule(color="black").encode(y="low:Q", y2="high:Q")
        dots = (
            alt.Chart(table[["step", metric]].rename(columns={metric: "value"}))
            .mark_circle(color="black", size=14, opacity=0.6)
            .encode(x=x, y="value:Q")
        )
        labels = base.mark_text(dy=-8, fontSize=9).encode(
            y="mean:Q", text=alt.Text("mean:Q", format=_LABELS.get(metric, ".0%"))
        )
        panels.append(
            (bars + whiskers + dots + labels).properties(width=330, height=210, title=title)
        )
    models = table[table["step"] != "recorded"]
    by_criterion = models.melt(
        id_vars=["step"], value_vars=[f"mean_wait_{c}" for c in CRITERIA], var_name="criterion"
    )
    by_criterion["criterion"] = by_criterion["criterion"].str.removeprefix("mean_wait_")
    criteria = (
        alt.Chart(by_criterion)
        .mark_bar()
        .encode(
            x=alt.X("step:N", sort=steps, title=None, axis=alt.Axis(labelAngle=-40)),
            xOffset="criterion:N",
            y=alt.Y(
                "mean(value):Q",
                title="mean wait by user criterion (s, log)",
                scale=alt.Scale(type="symlog"),
                axis=alt.Axis(format=",.0f", values=log_ticks(by_criterion["value"].max())),
            ),
            color=alt.Color("criterion:N", title="user criterion"),
            tooltip=["step", "criterion", alt.Tooltip("mean(value):Q", format=",.4g")],
        )
        .properties(width=700, height=210, title="mean wait by user criterion")
    )
    top = alt.hconcat(*panels[:2])
    bottom = alt.hconcat(*panels[2:])
    return (
        alt.vconcat(top, bottom, criteria)
        .resolve_scale(color="independent")
        .properties(
            title=f"Validation ladder on {trace}, first {jobs:,} jobs: one VO feature added "
            "per step (bars: means, whiskers: 95 % intervals)"
        )
    )


VALIDATION = register_experiment(
    Experiment(
        name="validation",
        description=(
            "validation ladder on a trace (--trace, --jobs): recorded waits, the traced machine "
            "with FCFS and EASY, then one VO feature per step (heterogeneous nodes, local load "
            "beside its matched controls and its length halved and doubled, budgets, CSS, "
            "churn); mean wait (per user criterion too), BSLD, utilization, completed share"
        ),
        default_repetitions=3,
        quick_repetitions=1,
        run=run,
        points=lambda quick: len(STEPS),
        takes_trace=True,
    )
)
