"""The charts of the Knapsack Grid experiments, with the slides' claims in their titles.

A comparison (:func:`_chart`): overall completion time, the per-task speedup relative to FCFS
and the correlation of credit value with speedup per strategy; the ``lambda`` sweep
(:func:`_lambda_chart`): overall completion time against ``lambda``; the worked example
(:func:`_example_chart`): the options' credit values and the optima (Knapsack Grid slides,
"Final Task Completion Times", "Speedup Relative to FCFS", "Constructing the Problem").
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from vosim.runs.experiments.base import method_colour
from vosim.runs.experiments.knapsack_grid.setup import (
    CLAIMS,
    COLUMNS,
    EXAMPLE_OPTIMUM,
    LAMBDAS,
    SLIDES_LAMBDA,
    SPEEDUP_QUANTILES,
)


def _chart(table: pd.DataFrame, title: str) -> alt.TopLevelMixin:
    keep = [c for c in COLUMNS if c not in ("kind", "claim", "holds")]
    rows = table.loc[table["kind"] == "strategy", keep].copy()
    # NaN is not JSON (vega-lite): undefined values become 0 in the bars (FCFS's correlation
    # with its own speedup) and "n/a" in the tooltips.
    for c in keep:
        if c in ("strategy", "family"):
            continue
        if c in ("overall_completion_time", "mean_speedup", "credit_speedup_correlation"):
            rows[c] = rows[c].fillna(0.0)
        else:
            rows[c] = [f"{v:.4g}" if pd.notna(v) else "n/a" for v in rows[c]]
    claims = table[table["kind"] == "claim"]
    streams = int(table["repetitions"].dropna().iloc[0])
    verdict = [
        f"paper: {c} - vosim: {'holds' if h else 'does NOT hold'} ({k:.0f} of {streams} streams)"
        for c, h, k in zip(claims["claim"], claims["holds"], claims["streams_holding"], strict=True)
    ]
    order = list(rows["strategy"])
    base = alt.Chart(rows).encode(
        y=alt.Y("strategy:N", sort=order, title=None),
        color=method_colour("family", rows["family"], "family"),
        tooltip=keep,
    )
    completion = base.mark_bar().encode(
        x=alt.X("overall_completion_time:Q", title="overall completion time, h")
    )
    errors = (
        alt.Chart(
            pd.DataFrame(
                {
                    "strategy": rows["strategy"],
                    "lo": table.loc[rows.index, "overall_completion_time"]
                    - table.loc[rows.index, "overall_completion_time_std"],
                    "hi": table.loc[rows.index, "overall_completion_time"]
                    + table.loc[rows.index, "overall_completion_time_std"],
                }
            )
        )
        .mark_errorbar()
        .encode(
            y=alt.Y("strategy:N", sort=order),
            x=alt.X("lo:Q", title="overall completion time, h"),
            x2="hi:Q",
        )
    )
    # the per-task speedup's distribution (pooled over streams): 10-90 % whiskers, 25-75 %
    # box, median tick, on a log axis (1 = FCFS's own)
    spread = table.loc[rows.index, ["strategy", "family", *SPEEDUP_QUANTILES]]
    log_x = alt.X("speedup_p10:Q", title="speedup relative to FCFS per task (log)").scale(
        type="log"
    )
    dist = alt.Chart(spread).encode(y=alt.Y("strategy:N", sort=order, title=None))
    speedup = alt.layer(
        dist.mark_rule().encode(x=log_x, x2="speedup_p90:Q"),
        dist.mark_bar(size=10).encode(
            x="speedup_p25:Q",
            x2="speedup_p75:Q",
            color=method_colour("family", spread["family"], "family"),
        ),
        dist.mark_tick(color="black", thickness=2, size=14).encode(x="median_speedup:Q"),
    )
    correlation = base.mark_bar().encode(
        x=alt.X("credit_speedup_correlation:Q", title="Spearman(credit value, speedup)")
    )
    return alt.vconcat(
        (completion + errors).properties(title="Overall completion time", width=420),
        speedup.properties(
            title="Speedup relative to FCFS: median (tick), 25-75 % (box), 10-90 %", width=420
        ),
        correlation.properties(title="Correlation of credit value with speedup", width=420),
    ).properties(title=alt.TitleParams(title, subtitle=verdict))


def _lambda_chart(table: pd.DataFrame, count: int, streams: int) -> alt.LayerChart:
    """Overall completion time against ``lambda`` per family, the slides' 0.64 h dotted.

    ``table``: :func:`~vosim.runs.experiments.knapsack_grid.run.run_lambda`'s; ``count``:
    tasks per stream; ``streams``: streams per ``lambda``. Mean and +-1 sd over the streams;
    the subtitle says at each ``lambda`` whether "KS+BF has the lowest overall completion
    time" holds.
    """
    shown = ["lambda", "strategy", "family", "overall_completion_time"]
    rows = table.loc[
        table["kind"] == "strategy", [*shown, "overall_completion_time_std", "median_speedup"]
    ]
    first = table[(table["kind"] == "claim") & (table["claim"] == CLAIMS[0])]
    verdict = [
        f"lambda = {lam:g} h: {'holds' if h else 'does NOT hold'} ({k:.0f} of {streams} streams)"
        for lam, h, k in zip(first["lambda"], first["holds"], first["streams_holding"], strict=True)
    ]
    x = alt.X("lambda:Q", title="mean inter-arrival time lambda, h (log)").scale(
        type="log", domain=[min(LAMBDAS) / 1.2, max(LAMBDAS) * 1.2], nice=False
    )
    base = alt.Chart(rows).encode(x=x, color=method_colour("family", rows["family"], "family"))
    lines = base.mark_line(point=True).encode(
        y=alt.Y("overall_completion_time:Q", title="overall completion time, h").scale(zero=False),
        tooltip=["strategy:N", "lambda:Q", "overall_completion_time:Q", "median_speedup:Q"],
    )
    bars = (
        base.transform_calculate(
            lo="datum.overall_completion_time - datum.overall_completion_time_std",
            hi="datum.overall_completion_time + datum.overall_completion_time_std",
        )
        .mark_rule()
        .encode(y="lo:Q", y2="hi:Q")
    )
    slides = (
        alt.Chart(pd.DataFrame({"lambda": [SLIDES_LAMBDA]}))
        .mark_rule(color="black", strokeDash=[2, 3])
        .encode(x="lambda:Q")
    )
    return alt.layer(slides, bars, lines).properties(
        width=480,
        height=300,
        title=alt.TitleParams(
            f"Knapsack Grid: {count} tasks per stream vs lambda (dotted: the slides' 0.64 h)",
            subtitle=["paper: KS+BF has the lowest overall completion time (at 0.64 h)", *verdict],
        ),
    )


def _example_chart(table: pd.DataFrame, optimum_dp: float, optimum_milp: float) -> alt.LayerChart:
    """The example's options by credit value, the DP's choice filled, both optima beside 20.

    ``table``: :func:`~vosim.runs.experiments.knapsack_grid.run.run_example`'s;
    ``optimum_dp``, ``optimum_milp``: the optima of the DP and of the MILP.
    """
    data = table.assign(
        name=[f"task {t}, option {o}" for t, o in zip(table["task"], table["option"], strict=True)],
        what=np.where(table["chosen_dp"], "chosen", "not chosen"),
    )
    bars = (
        alt.Chart(data)
        .mark_bar()
        .encode(
            y=alt.Y("name:N", title=None, sort=None),
            x=alt.X("credit:Q", title="credit value ($)"),
            color=alt.Color(
                "what:N",
                title=None,
                scale=alt.Scale(domain=["chosen", "not chosen"], range=["#4c78a8", "#d3d3d3"]),
                legend=alt.Legend(orient="bottom"),
            ),
            tooltip=["name:N", "credit:Q", "cluster_1:Q", "cluster_2:Q", "chosen_milp:N"],
        )
    )
    text = pd.DataFrame(
        {
            "credit": [11.5, 11.5],
            "name": ["task 1, option 1", "task 1, option 2"],
            "text": [
                f"vosim: optimum {optimum_dp:g} (DP), {optimum_milp:g} (MILP)",
                f"paper: optimum {EXAMPLE_OPTIMUM:g}",
            ],
        }
    )
    label = (
        alt.Chart(text)
        .mark_text(align="left", color="black")
        .encode(x="credit:Q", y=alt.Y("name:N", sort=None), text="text:N")
    )
    return alt.layer(bars, label).properties(
        width=480,
        height=160,
        title="Knapsack Grid slides: two tasks on clusters of 16 and 8 processors",
    )
