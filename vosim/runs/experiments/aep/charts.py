"""The charts of the AEP experiments: vosim's values beside the paper's.

Figs. 1-3 as five bar panels of vosim's means with the paper's values as ticks; Tables 1-2
(Fig. 4) as working time against CPU nodes and against the interval length, vosim's solid and
the paper's dashed (AEP §3.2).
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from vosim.runs.experiments.aep.paper import PAPER_FIG1_3
from vosim.runs.experiments.aep.setup import (
    CSA_VARIANTS,
    FIG1_3_ALGORITHMS,
    LABELS,
    METRICS,
    PAPER_PROCEDURES,
)
from vosim.runs.experiments.base import method_colour

_METRIC_TITLES = {
    "start": "start time (Fig. 1a)",
    "runtime": "runtime (Fig. 1b)",
    "finish": "finish time (Fig. 2a)",
    "cpu_time": "CPU time (Fig. 2b)",
    "cost": "cost (Fig. 3)",
}


def _fig1_3_chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    """Five bar panels (vosim's means) with black ticks at the paper's values."""
    order = [LABELS[a] for a in FIG1_3_ALGORITHMS]
    data = table.loc[table["metric"].isin(METRICS)]
    panels = []
    for metric in METRICS:
        base = alt.Chart(data).transform_filter(alt.datum.metric == metric)
        x = alt.X("label:N", sort=order, title=None, axis=alt.Axis(labelAngle=-40))
        bars = base.mark_bar().encode(
            x=x,
            y=alt.Y("mean:Q", title=f"mean {metric.replace('_', ' ')}"),
            color=method_colour("label", data["label"], "algorithm"),
            tooltip=[
                "label:N",
                "kind:N",
                alt.Tooltip("mean:Q", format=".1f", title="vosim"),
                alt.Tooltip("std:Q", format=".1f"),
                alt.Tooltip("paper:Q", format=".1f"),
                "repetitions:Q",
            ],
        )
        ticks = (
            base.transform_filter("isValid(datum.paper)")
            .mark_tick(color="black", thickness=3, size=22)
            .encode(x=x, y="paper:Q", tooltip=["label:N", alt.Tooltip("paper:Q", format=".1f")])
        )
        panels.append(
            (bars + ticks).properties(width=300, height=220, title=_METRIC_TITLES[metric])
        )
    by = table.set_index(["algorithm", "metric"])
    alternatives = ", ".join(
        f"{LABELS[a]} {by.loc[(a, 'alternatives'), 'mean']:.1f}" for a in CSA_VARIANTS
    )
    cycles = int(by.loc[("csa", "start"), "repetitions"])
    paper = [
        f"paper, {_METRIC_TITLES[metric]}: "
        + ", ".join(f"{LABELS[a]} {v:g}" for (a, m), v in PAPER_FIG1_3.items() if m == metric)
        for metric in METRICS
    ]
    title = alt.TitleParams(
        f"AEP Figs. 1-3: windows of one job (n = 5, budget 1500) over {cycles} cycles, "
        "100 nodes, interval 600",
        subtitle=[
            "bars: vosim's means (CSA: its best alternative by each criterion); black ticks: "
            "the paper's values (AEP §3.2), also on the paper's procedures (AMP (paper) etc.)",
            *paper,
            f"CSA alternatives per cycle: vosim {alternatives}; paper 57",
        ],
        anchor="start",
    )
    return alt.concat(*panels, columns=3).properties(title=title)


def _table1_2_chart(table: pd.DataFrame) -> alt.TopLevelMixin:
    """Working time vs nodes (Table 1) and vs interval (Table 2); vosim solid, paper dashed."""
    # the paper's procedures share the paper's minRuntime/minFinish rows: one dashed line each
    data = table.assign(
        paper_ms=table["paper_ms"].where(~table["algorithm"].isin(list(PAPER_PROCEDURES)))
    )
    panels = []
    for name, x, x_title in [
        ("Table 1", "nodes", "CPU nodes (interval 600)"),
        ("Table 2", "interval", "scheduling interval length (100 nodes)"),
    ]:
        panel = (
            alt.Chart(data)
            .transform_filter(alt.datum.table == name)
            .transform_fold(["ms", "paper_ms"], as_=["series", "value"])
            .transform_filter("isValid(datum.value) && datum.value > 0")
            .transform_calculate(
                source="datum.series == 'ms' ? 'vosim' : 'paper (Java 1.6, Core i3)'"
            )
            .mark_line(point=True)
            .encode(
                x=alt.X(f"{x}:Q", title=x_title),
                y=alt.Y("value:Q", title="working time (ms per call)", scale=alt.Scale(type="log")),
                color=method_colour("label", data["label"], "algorithm"),
                strokeDash=alt.StrokeDash(
                    "source:N",
                    legend=None,  # the subtitle says which is which
                    scale=alt.Scale(
                        domain=["vosim", "paper (Java 1.6, Core i3)"], range=[[1, 0], [6, 4]]
                    ),
                ),
                detail="source:N",
                tooltip=[
                    "label:N",
                    "source:N",
                    f"{x}:Q",
                    alt.Tooltip("value:Q", format=".3g", title="ms"),
                    alt.Tooltip("slots:Q", format=".1f"),
                    alt.Tooltip("alternatives:Q", format=".1f", title="CSA alternatives"),
                    alt.Tooltip(
                        "csa_paper_alternatives:Q", format=".1f", title="CSA (paper) alternatives"
                    ),
                ],
            )
            .properties(width=380, height=300, title=f"{name}: working time vs {x}")
        )
        panels.append(panel)
    reps = int(table["repetitions"].iloc[0])
    title = alt.TitleParams(
        "AEP Tables 1-2 (Fig. 4): working time of the slot selection algorithms",
        subtitle=[
            f"solid: vosim, mean of {reps} domain(s) per point; dashed: the paper's Tables 1-2 "
            "(1000 domains per point)",
        ],
    )
    return alt.hconcat(*panels).properties(title=title)
