"""ICCS 2021's charts (``vosim.runs.experiments.iccs2021.charts``) on tiny hand-made tables.

The charts' method colours and the paper's values on the quick runs' charts are checked for
every experiment in ``tests/runs/test_experiment_charts.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from runs.experiments.iccs2023.iccs_chart_layers import layers, texts

from vosim.runs.experiments.iccs2021 import charts, setup


def test_fig5_chart_draws_a_line_per_method_and_the_papers_values_at_0():
    table = pd.DataFrame(
        {
            "job_load": [0.0, 0.0, 0.5, 0.5],
            "method": ["knapsack_p", "greedy_united"] * 2,
            "label": ["Knapsack", "GreedyJnt"] * 2,
            "mean_probability": [0.9, 0.8, 0.4, 0.3],
        }
    ).reindex(columns=setup.FIG5_COLUMNS)
    found = layers(charts._fig5_chart(table))
    lines, crosses, labels = found
    assert (lines.mark, lines.field("x"), lines.field("y")) == (
        "line",
        "job_load",
        "mean_probability",
    )
    assert lines.field("color") == "label"
    assert [r["mean_probability"] for r in lines.rows] == [0.9, 0.8, 0.4, 0.3]
    paper = [(r["job_load"], r["mean_probability"]) for r in crosses.rows]
    assert paper == [(0.0, 0.96), (0.0, 0.87)] and labels.mark == "text"
    assert texts(found) == ["paper: Knapsack 0.96", "paper: GreedyJnt 0.87"]


def test_fig3_chart_draws_each_curve_its_maximum_and_the_papers():
    t = [0.0, 1.0, 2.0]
    table = pd.DataFrame(
        {
            "scenario": [0, 0, 0, 1, 1, 1],
            "t": t * 2,
            "probability": [0.1, 0.5, 0.2, 0.3, 0.3, 0.1],
            "best": [False, True, False, True, False, False],
            "paper_t": 834.0,
            "paper_probability": 0.93,
        }
    )
    chart = charts._fig3_chart(table)
    found = layers(chart)
    curves, best, cross, _ = found
    assert (curves.mark, curves.field("x"), curves.field("y")) == ("line", "t", "probability")
    assert curves.field("color") == "scenario" and len(curves.rows) == 6
    assert curves.encoding["x"]["scale"]["domain"] == [0, setup.FIG3_INTERVAL]
    spec = chart.to_dict()["layer"][1]
    assert spec["transform"] == [{"filter": "datum.best"}] and best.mark == "point"
    assert [(r["t"], r["probability"]) for r in cross.rows] == [(834.0, 0.93)]
    assert texts(found) == ["paper: 0.93 at t = 834"]


def test_table1_chart_puts_vosims_dots_beside_the_papers_crosses():
    table = pd.DataFrame(
        [
            {"method": m, "label": label, "accuracy": 0.5, "speedup": 2.0}
            | {"paper_accuracy": acc, "paper_speedup": speed}
            for m, _, _, label, acc, speed in setup._TABLE1_ROWS
        ]
    ).reindex(columns=setup.TABLE1_COLUMNS)
    chart = charts._table1_chart(table)
    found = layers(chart)
    accuracy_dots, accuracy_crosses, speedup_dots, speedup_crosses = found
    assert [layer.field("x") for layer in found] == ["accuracy"] * 2 + ["speedup"] * 2
    assert all(layer.field("y") == "label" for layer in found)
    # vosim's rows: every variant, coloured by the paper's method name
    assert len(accuracy_dots.rows) == len(setup._TABLE1_ROWS)
    assert {r["method"] for r in accuracy_dots.rows} == {"Knapsack", "GreedyJnt"}
    assert accuracy_dots.field("color") == "method"
    # the paper's crosses: the rows it gives a value for (not vosim's fast exact scan)
    paper = [(r["accuracy"], r["speedup"]) for r in accuracy_crosses.rows]
    assert paper == [(acc, speed) for *_, acc, speed in setup._TABLE1_ROWS if not np.isnan(acc)]
    assert speedup_crosses.rows == accuracy_crosses.rows
    assert speedup_dots.encoding["x"]["scale"] == {"type": "log"}
    assert "CALIBRATED" in chart.to_dict()["title"]["subtitle"]


def test_fig2_chart_draws_each_flows_cdf_and_the_mean_ks():
    table = pd.DataFrame(
        {
            "repetition": [0, 0, 1],
            "marginal": ["processors", "run_time", "processors"],
            "ks": [0.1, 0.9, 0.3],
            "paper_ks": [0.14, np.nan, 0.14],
        }
    )
    sizes = {"trace": np.array([4, 1, 2, 1]), "generated": np.array([8, 2])}
    chart = charts._fig2_chart(table, sizes)
    found = layers(chart)
    lines, _ = found
    assert (lines.field("x"), lines.field("y"), lines.field("color")) == (
        "processors",
        "share",
        "flow",
    )
    cdf = [(r["flow"], r["processors"], r["share"]) for r in lines.rows]
    # each size once, at the share of jobs up to it (1, 1, 2, 4: 1 -> 0.5, 2 -> 0.75, 4 -> 1)
    assert cdf == [
        ("trace", 1, 0.5),
        ("trace", 2, 0.75),
        ("trace", 4, 1.0),
        ("generated", 2, 0.5),
        ("generated", 8, 1.0),
    ]
    assert texts(found) == ["vosim: K-S 0.200", "paper: K-S 0.14 (ForHLR II)"]
