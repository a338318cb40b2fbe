"""ICCS 2023's charts (``vosim.runs.experiments.iccs2023.charts``) on tiny hand-made tables.

The charts' method colours and the paper's values on the quick runs' charts are checked for
every experiment in ``tests/runs/test_experiment_charts.py``.
"""

from __future__ import annotations

import pandas as pd
import pytest
from runs.experiments.iccs2023.iccs_chart_layers import Layer, layers, texts

from vosim.runs.experiments.iccs2023 import charts, setup


def _table(axis: str, grid: list[int], methods: tuple[str, ...]) -> pd.DataFrame:
    """A table of :data:`setup.COLUMNS`: the exact optimum 0.5 + x / 1000, each method below."""
    rows = [
        {
            "n": 8,
            "C": float("nan"),
            axis: x,
            "method": m,
            "label": setup.LABELS[m],
            "mean_probability": 0.5 + x / 1000 - k / 100,
            "mean_seconds": 0.01 * (k + 1),
            "mean_tree_size": 10.0 * x if m in setup.TREE_METHODS else float("nan"),
        }
        for x in grid
        for k, m in enumerate(methods)
    ]
    return pd.DataFrame(rows).reindex(columns=setup.COLUMNS)


def _method_lines(found: list[Layer]) -> list[Layer]:
    return [layer for layer in found if layer.field("color") == "label"]


def _relative_line(found: list[Layer], factor: float, table: pd.DataFrame, axis: str) -> None:
    """The chart holds the paper's line at ``factor`` x the exact optimum at every point."""
    exact = table[table["method"] == "exact"]
    expected = [pytest.approx(factor * p) for p in exact["mean_probability"]]
    lines = [layer for layer in found if layer.mark == "line" and layer.field("y") == "y"]
    assert any(
        [r[axis] for r in lines_.rows] == exact[axis].tolist()
        and [r["y"] for r in lines_.rows] == expected
        for lines_ in lines
    ), factor


def test_fig4_5_chart_probability_and_log_time_against_n():
    table = _table("n", [1, 2], setup.SMALL_METHODS)
    found = layers(charts._fig4_5_chart(table))
    probability, seconds = _method_lines(found)
    assert (probability.field("x"), probability.field("y")) == ("n", "mean_probability")
    assert (seconds.field("y"), seconds.encoding["y"]["scale"]) == ("mean_seconds", {"type": "log"})
    assert len(probability.rows) == len(seconds.rows) == 12
    _relative_line(found, 0.95, table, "n")  # KnapsackSingle at most 5 % below
    brute = next(layer for layer in found if layer.mark == "point")
    assert [(r["n"], r["mean_seconds"]) for r in brute.rows] == [(11, 0.5)]
    assert "paper: BruteForce > 0.5 s" in texts(found)


def test_fig6_chart_marks_c_90_and_the_single_gap():
    table = _table("C", [30, 60], setup.SMALL_METHODS)
    found = layers(charts._fig6_chart(table))
    (lines,) = _method_lines(found)
    assert (lines.field("x"), lines.field("y")) == ("C", "mean_probability")
    _relative_line(found, 0.95, table, "C")  # KnapsackSingle about 5 % below
    rule = next(layer for layer in found if layer.mark == "rule")
    assert rule.field("x") == "C" and [r["C"] for r in rule.rows] == [90]
    assert "paper: greedy optimal for C > 90" in texts(found)


def test_fig7_8_chart_tree_sizes_of_branch_and_bound_only():
    table = _table("C", [40, 120], setup.LARGE_METHODS)
    found = layers(charts._fig7_8_chart(table))
    probability, seconds, trees = _method_lines(found)
    assert [layer.field("y") for layer in (probability, seconds, trees)] == [
        "mean_probability",
        "mean_seconds",
        "mean_tree_size",
    ]
    assert {r["method"] for r in probability.rows} == set(setup.LARGE_METHODS)
    assert {r["method"] for r in trees.rows} == set(setup.TREE_METHODS)
    assert trees.encoding["y"]["scale"] == {"type": "log"}
    _relative_line(found, 0.9, table, "C")  # KnapsackSingle about 10 % below
    _relative_line(found, 0.8, table, "C")  # greedy over 20 % below at some C
    crosses = [layer for layer in found if layer.mark == "point"]
    assert [(r["C"], r["mean_seconds"]) for r in crosses[0].rows] == [(40, 8.0)]
    assert [(r["C"], r["mean_tree_size"]) for r in crosses[1].rows] == [(40, 5000), (120, 100)]


def test_fig2_chart_shades_the_interval_and_labels_both_values():
    found = layers(charts._fig2_chart(0.3))
    band, glob, lines, _ = found
    assert [(r["a"], r["b"]) for r in band.rows] == [setup.FIG2_INTERVAL]
    assert [r["p"] for r in glob.rows] == [setup.FIG2_GLOBAL_P]
    assert (lines.field("x"), lines.field("y"), lines.field("color")) == ("t", "p_occupied", "job")
    curve = pd.DataFrame(lines.rows)
    assert curve.groupby("job").size().tolist() == [1401, 1401]
    assert curve["p_occupied"].between(0, 1).all()
    # each job's occupation probability is 0.5 at its expected event (Fig. 1): P_o(545) of job 1
    first = curve[(curve["job"] == "job 1") & (curve["t"] == 545.0)]["p_occupied"]
    assert first.iloc[0] == pytest.approx(0.5)
    assert texts(found) == ["vosim: P_a^r = 0.300", "paper: P_a^r = 0.235"]
