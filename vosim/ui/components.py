"""Charts and Solara components of the live VO page (altair, drawn by ``solara.FigureAltair``).

The ``*_chart`` functions are pure: a :class:`~vosim.ui.scenarios.LiveModel` in, an altair
chart out, so they are tested without a browser. The components wrap them for Mesa's
SolaraViz: each takes ``model`` and reads Mesa's ``update_counter`` so it redraws after
every step. Every component's root carries a CSS class (``vosim-gantt``, ``vosim-activity``,
``vosim-market``, ``vosim-calibration``, ``vosim-summary``) the browser test finds it by.
"""

from __future__ import annotations

import math
import threading

import altair as alt
import numpy as np
import pandas as pd
import solara
from mesa.visualization.utils import force_update, update_counter

from vosim.errors import ParameterError
from vosim.market.schedule import LOCAL
from vosim.ui.scenarios import LiveModel

__all__ = [
    "ActivityView",
    "CalibrationView",
    "ChartView",
    "GanttView",
    "MarketView",
    "NetworkView",
    "SummaryView",
    "activity_chart",
    "calibration_chart",
    "calibration_table",
    "gantt_frame",
    "gantt_chart",
    "market_chart",
    "network_chart",
    "summary_lines",
    "thin",
]

#: Most rows a time-series chart sends to the browser (older rows are thinned evenly).
MAX_POINTS = 400
#: Most intervals the Gantt chart draws (the earliest starts are kept).
MAX_INTERVALS = 4000
_WIDTH = 420
#: Most seconds "Run to end" waits after each slice for the page to redraw it (a page that
#: does not redraw, e.g. closed, only slows the run by this much per slice).
_RENDER_WAIT = 2.0


def thin(frame: pd.DataFrame, limit: int = MAX_POINTS) -> pd.DataFrame:
    """Keep at most ``limit`` rows, evenly spaced, always with the last one.

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows in time order.
    limit : int
        Most rows kept (>= 2).

    Raises
    ------
    ParameterError
        ``limit < 2`` (the first and the last row are always kept).

    Examples
    --------
    >>> thin(pd.DataFrame({"t": range(10)}), 4)["t"].tolist()
    [0, 3, 6, 9]
    """
    if limit < 2:
        raise ParameterError(f"thin keeps the first and last rows: limit must be >= 2, got {limit}")
    if len(frame) <= limit:
        return frame
    keep = np.unique(np.linspace(0, len(frame) - 1, limit).round().astype(int))
    return frame.iloc[keep]


def gantt_frame(model: LiveModel) -> pd.DataFrame:
    """Busy intervals of every node inside the scheduling interval ``[t, t + L)``.

    Parameters
    ----------
    model : LiveModel
        The model (its owners' node schedules: local jobs tagged -1, VO windows by job id).

    Returns
    -------
    pandas.DataFrame
        One row per interval, clipped to ``[t, t + L)``: ``node``, ``start``, ``end`` (model
        time units), ``kind`` (``"local"`` or ``"VO"``), ``job`` (trace job id, -1 for local),
        ``user`` (``"local job"`` or ``"user <id>"``), ``cost`` (the job's window cost, cost
        units; NaN for local jobs), ``slot_cost`` (price x length of this node's part).

    References
    ----------
    VO Preferences §2: the slot list of the scheduling interval ``[t, t + L)``.
    """
    now = float(model.time)
    until = now + model.scheduling_interval
    node, a, b, tag = model.busy_time.intervals()
    keep = (b > now) & (a < until)
    node, a, b, tag = node[keep], np.maximum(a[keep], now), np.minimum(b[keep], until), tag[keep]
    order = np.argsort(a, kind="stable")[:MAX_INTERVALS]
    node, a, b, tag = node[order], a[order], b[order], tag[order]
    # a VO interval's tag is its job's position in the model's job list (ids may repeat)
    jobs = [model.jobs[t] if t >= 0 else None for t in tag.tolist()]
    return pd.DataFrame(
        {
            "node": node,
            "start": a,
            "end": b,
            "kind": np.where(tag < 0, "local", "VO"),
            "job": [LOCAL if j is None else j.job_id for j in jobs],
            "user": ["local job" if j is None else f"user {j.user}" for j in jobs],
            "cost": [math.nan if j is None else model.ledger.window_cost[j.index] for j in jobs],
            "slot_cost": model.node_price[node] * (b - a),
        }
    )


def gantt_chart(model: LiveModel) -> alt.Chart:
    """Gantt chart of ``[t, t + L)``: one row per node, local jobs grey, VO windows by user.

    The current time ``t`` is a red rule; hovering a bar shows its job, user, cost and
    bounds.

    Parameters
    ----------
    model : LiveModel
        The model.

    Returns
    -------
    altair.LayerChart
    """
    now = float(model.time)
    data = gantt_frame(model)
    users = sorted(u for u in data["user"].unique() if u != "local job")
    x = alt.X(
        "start:Q",
        title="model time",
        scale=alt.Scale(domain=[now, now + model.scheduling_interval], nice=False),
    )
    bars = (
        alt.Chart(data)
        .mark_bar(height={"band": 0.9})
        .encode(
            x=x,
            x2="end:Q",
            y=alt.Y(
                "node:O",
                title=f"node (0..{model.node_count - 1})",
                axis=alt.Axis(labels=False, ticks=False),
            ),
            color=alt.Color(
                "user:N",
                title="user",
                scale=alt.Scale(
                    domain=["local job", *users],
                    range=["#bdbdbd", *_palette(len(users))],
                ),
                legend=alt.Legend(columns=2, symbolLimit=12, labelLimit=80),
            ),
            tooltip=[
                alt.Tooltip("job:Q", title="job (-1: local)"),
                alt.Tooltip("user:N"),
                alt.Tooltip("node:Q"),
                alt.Tooltip("cost:Q", title="window cost", format=",.1f"),
                alt.Tooltip("slot_cost:Q", title="this slot's cost", format=",.1f"),
                alt.Tooltip("start:Q", format=",.0f"),
                alt.Tooltip("end:Q", format=",.0f"),
            ],
        )
    )
    rule = alt.Chart(pd.DataFrame({"t": [now]})).mark_rule(color="red", size=2).encode(x="t:Q")
    return (bars + rule).properties(
        width=_WIDTH,
        height=max(160, min(3 * model.node_count, 320)),
        title=f"Scheduling interval [t, t + L), t = {now:,.0f}",
    )


def _palette(k: int) -> list[str]:
    """``k`` distinct colours (tableau20 cycled)."""
    base = [
        "#1f77b4", "#aec7e8", "#ff7f0e", "#ffbb78", "#2ca02c", "#98df8a", "#d62728", "#ff9896",
        "#9467bd", "#c5b0d5", "#8c564b", "#c49c94", "#e377c2", "#f7b6d2", "#7f7f7f", "#c7c7c7",
        "#bcbd22", "#dbdb8d", "#17becf", "#9edae5",
    ]  # fmt: skip
    return [base[i % len(base)] for i in range(k)]


def activity_chart(model: LiveModel) -> alt.VConcatChart:
    """Queue length, utilization and completed jobs per cycle (from ``cycle_frame()``).

    Parameters
    ----------
    model : LiveModel
        The model.

    Returns
    -------
    altair.VConcatChart
        Three line charts sharing the time axis (at most :data:`MAX_POINTS` points each).
    """
    frame = thin(model.cycle_frame()[["time", "queue_length", "utilization", "completed"]])
    if frame.empty:
        frame = pd.DataFrame({"time": [0.0], "queue_length": [0], "utilization": [0.0],
                              "completed": [0]})  # fmt: skip
    base = alt.Chart(frame).properties(width=_WIDTH, height=70)
    x = alt.X("time:Q", title="model time")
    series = [
        ("queue_length", "queue (jobs)", "#1f77b4", ",d"),
        ("utilization", "utilization", "#2ca02c", ".0%"),
        ("completed", "completed jobs", "#ff7f0e", ",d"),
    ]
    return alt.vconcat(
        *[
            base.mark_line(color=color).encode(
                x=x,
                y=alt.Y(f"{col}:Q", title=title, axis=alt.Axis(format=fmt)),
                tooltip=["time:Q", alt.Tooltip(f"{col}:Q", format=fmt)],
            )
            for col, title, color, fmt in series
        ],
        title="VO activity per scheduling cycle",
    )


def market_chart(model: LiveModel) -> alt.HConcatChart:
    """Owners' revenue (bars) beside users' mean ``U`` and Jain's index over time.

    Parameters
    ----------
    model : LiveModel
        The model.

    Returns
    -------
    altair.HConcatChart
        Left: revenue of each owner so far (cost units). Right: the mean user evaluation
        ``U`` (%) of the jobs scheduled so far, and Jain's index over users' mean bounded
        slowdown (``tau`` = 10) of their completed jobs (1: all users alike).

    References
    ----------
    VO Preferences §3 (user evaluation ``U``); Jain, Chiu, Hawe 1984 (fairness index).
    """
    revenue = pd.DataFrame(
        {"owner": [o.owner_id for o in model.owners], "revenue": [o.revenue for o in model.owners]}
    )
    bars = (
        alt.Chart(revenue)
        .mark_bar(color="#8c564b")
        .encode(
            x=alt.X("owner:O", title="owner"),
            y=alt.Y("revenue:Q", title="revenue (cost units)"),
            tooltip=["owner:O", alt.Tooltip("revenue:Q", format=",.1f")],
        )
        .properties(width=150, height=180, title="Owners' revenue")
    )
    fair = thin(model.fairness_frame()).fillna({"mean_user_evaluation": 0.0})
    if fair["jain"].isna().all():  # no completed job yet: draw the axes at 0
        fair = fair.fillna({"jain": 0.0})
    else:
        fair = fair.dropna(subset=["jain"])
    x = alt.X("time:Q", title="model time")
    u = (
        alt.Chart(fair)
        .mark_line(color="#9467bd")
        .encode(
            x=x,
            y=alt.Y("mean_user_evaluation:Q", title="mean U (%)"),
            tooltip=["time:Q", alt.Tooltip("mean_user_evaluation:Q", format=".2f")],
        )
        .properties(width=220, height=75, title="Users")
    )
    jain = (
        alt.Chart(fair)
        .mark_line(color="#17becf")
        .encode(
            x=x,
            y=alt.Y("jain:Q", title="Jain (slowdown)", scale=alt.Scale(domain=[0, 1])),
            tooltip=["time:Q", alt.Tooltip("jain:Q", format=".3f")],
        )
        .properties(width=220, height=75)
    )
    return alt.hconcat(bars, alt.vconcat(u, jain))


def network_chart(model: LiveModel) -> alt.LayerChart:
    """The user-owner market so far as a node-link picture.

    :func:`vosim.analysis.charts.market_graph_chart` of ``model.market_graph()``: users left,
    owners right, a line per pair that traded, as wide as the money paid (tasks that ended so
    far; running ones are paid when they end).

    Parameters
    ----------
    model : LiveModel
        The model.

    Returns
    -------
    altair.LayerChart

    References
    ----------
    vosim's own design (the UI shows the live graph).
    """
    from vosim.analysis.charts import market_graph_chart

    return market_graph_chart(model.market_graph(), title="Who bought from whom so far")


def calibration_table(model: LiveModel, bins: int = 10) -> pd.DataFrame:
    """Predicted ``P_a^w`` against the realised success rate of reserved windows, by bin.

    Parameters
    ----------
    model : LiveModel
        The model (``attempt_frame()``: one row per reserved window).
    bins : int
        Equal-width bins of the predicted probability over [0, 1].

    Returns
    -------
    pandas.DataFrame
        Non-empty bins only: ``predicted`` (mean predicted ``P_a^w``), ``realised`` (share of
        windows that ran through), ``windows`` (count).

    References
    ----------
    ICCS 2021 §3 and ICCS 2023 eq. (3): the window availability ``P_a^w``.
    """
    attempts = model.attempt_frame()
    attempts = attempts[~attempts["moved"]]  # re-planned before they started: never tested
    if attempts.empty:
        return pd.DataFrame({"predicted": [], "realised": [], "windows": []})
    p = attempts["predicted_availability"].to_numpy(dtype=float)
    k = np.minimum((p * bins).astype(int), bins - 1)
    grouped = pd.DataFrame({"bin": k, "p": p, "ok": attempts["succeeded"].to_numpy(dtype=float)})
    table = grouped.groupby("bin").agg(
        predicted=("p", "mean"), realised=("ok", "mean"), windows=("p", "size")
    )
    return table.reset_index(drop=True)


def calibration_chart(model: LiveModel) -> alt.LayerChart:
    """Calibration of the window availability: predicted ``P_a^w`` vs realised success.

    Points are bins of :func:`calibration_table` (size: windows); the diagonal is perfect
    calibration.

    Parameters
    ----------
    model : LiveModel
        A model with ``availability`` on.

    Returns
    -------
    altair.LayerChart
    """
    table = calibration_table(model)
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0.0, 1.0], "y": [0.0, 1.0]}))
        .mark_line(color="#999999", strokeDash=[4, 4])
        .encode(x=alt.X("x:Q", title="predicted P_a^w"), y=alt.Y("y:Q", title="realised success"))
    )
    points = (
        alt.Chart(table)
        .mark_circle(color="#d62728")
        .encode(
            x=alt.X("predicted:Q", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("realised:Q", scale=alt.Scale(domain=[0, 1])),
            size=alt.Size("windows:Q", title="windows"),
            tooltip=[
                alt.Tooltip("predicted:Q", format=".3f"),
                alt.Tooltip("realised:Q", format=".3f"),
                "windows:Q",
            ],
        )
    )
    n = int(table["windows"].sum()) if len(table) else 0
    return (diagonal + points).properties(
        width=260, height=220, title=f"Window availability: predicted vs realised ({n} windows)"
    )


def summary_lines(model: LiveModel) -> list[tuple[str, str]]:
    """The current cycle as ``(label, value)`` pairs for the summary card.

    Parameters
    ----------
    model : LiveModel
        The model.

    Returns
    -------
    list of (str, str)
        Scenario, allocator, time, cycle, queue, jobs scheduled, alternatives found, the
        chosen combination (job: user, alternatives, ``U``, cost), ``A`` (%) and ``U_a``.

    References
    ----------
    VO Preferences §2–3: alternatives (step 1), the chosen combination (step 2), the VO
    evaluation ``A`` and the bound ``U_a`` on the mean user evaluation.
    """
    ms = model.metascheduler
    chosen = model.last_chosen
    shown = ", ".join(
        f"job {c.job_id} (user {c.user}, {c.alternatives} alt., U={c.user_evaluation:.1f}, "
        f"cost {c.cost:,.0f})"
        for c in chosen[:6]
    )
    if len(chosen) > 6:
        shown += f", ... ({len(chosen) - 6} more)"
    a = ms.last_vo_evaluation
    return [
        ("scenario", model.scenario_description),
        ("allocator", model.allocator),
        ("cycle", f"{ms.cycles:,} (every {model.cycle_period:g})"),
        ("queue", f"{model.queue_length:,} waiting, {model.running_jobs:,} scheduled"),
        (
            "completed",
            f"{model.completed:,} of {len(model.jobs):,} ({model.ledger.rejected:,} rejected)",
        ),
        ("jobs scheduled", f"{ms.last_scheduled:,} of a batch of {ms.last_batch:,}"),
        ("alternatives found", f"{ms.last_alternatives:,}"),
        ("chosen combination", shown or "none"),
        ("A (VO evaluation)", "n/a" if math.isnan(a) else f"{a:.1f} %"),
        ("U_a", f"{model.vo_policy.ua:g} % ({model.vo_policy.objective} objective)"),
    ]


# -- Solara components --------------------------------------------------------------------
@solara.component
def ChartView(model: LiveModel, draw, name: str):
    """One altair chart ``draw(model)`` in a column of class ``vosim-<name>``, redrawn per step."""
    update_counter.get()
    with model.lock:
        chart = draw(model)
    with solara.Column(classes=[f"vosim-{name}"]):
        solara.FigureAltair(chart)


@solara.component
def GanttView(model: LiveModel):
    """Gantt chart of the scheduling interval (see :func:`gantt_chart`)."""
    ChartView(model, gantt_chart, "gantt")


@solara.component
def ActivityView(model: LiveModel):
    """Queue length, utilization and completed jobs over time (see :func:`activity_chart`)."""
    ChartView(model, activity_chart, "activity")


@solara.component
def MarketView(model: LiveModel):
    """Owners' revenue, users' mean U and Jain's index (see :func:`market_chart`)."""
    ChartView(model, market_chart, "market")


@solara.component
def NetworkView(model: LiveModel):
    """The user-owner market as a graph (see :func:`network_chart`)."""
    ChartView(model, network_chart, "network")


@solara.component
def CalibrationView(model: LiveModel):
    """Predicted vs realised window availability, or a note when availability is off."""
    update_counter.get()
    with solara.Column(classes=["vosim-calibration"]):
        if not model.availability:
            solara.Info(
                "Availability is off: windows never fail, so there is no predicted P_a^w to "
                "calibrate. Tick 'availability' and Reset to watch it.",
                classes=["vosim-availability-off"],
            )
            return
        with model.lock:
            chart = calibration_chart(model)
        solara.FigureAltair(chart)


@solara.component
def SummaryView(model: LiveModel):
    """Text summary of the current cycle, the model time, and a responsive "Run to end"."""
    update_counter.get()
    run = solara.use_reactive(False)
    shown = solara.use_ref(model)
    shown.current = model
    rendered = solara.use_ref(threading.Event())
    # after every render of the page: the run may go on (see run_to_end)
    solara.use_effect(rendered.current.set, dependencies=None)

    def run_to_end() -> None:
        # Slices of the horizon, each followed by a redraw, so the page follows the run;
        # stops on "Stop", at the end, or when Reset replaced the model. The next slice waits
        # for the redraw: the renders need the model's lock, and a lock released and re-taken
        # at once by this thread would starve them until the run ends.
        if not run.value:
            return
        while run.value and model.running and shown.current is model:
            rendered.current.clear()
            model.advance(model.chunk_end())
            force_update()
            rendered.current.wait(_RENDER_WAIT)
        run.value = False

    solara.lab.use_task(run_to_end, dependencies=[run.value, id(model)], prefer_threaded=True)
    with model.lock:
        lines = summary_lines(model)
        now = float(model.time)
        running = model.running
    with solara.Column(classes=["vosim-summary"], gap="2px"):
        with solara.Row(gap="8px", style={"align-items": "center"}):
            solara.Button(
                "Stop" if run.value else "Run to end",
                color="secondary",
                small=True,
                on_click=lambda: run.set(not run.value),
                disabled=not running and not run.value,
            )
            solara.Text("model time")
            solara.Text(f"{now:.0f}", classes=["vosim-time"], style={"font-weight": "bold"})
            end = (
                f"of {model.horizon:,.0f}"
                if math.isfinite(model.horizon)
                else "(draining until every job is done)"
            )
            solara.Text(end if running else "(run finished)")
        for label, value in lines:
            with solara.Row(gap="8px"):
                solara.Text(f"{label}:", style={"font-weight": "bold"})
                solara.Text(value, classes=[f"vosim-{label.split()[0].lower()}"])
