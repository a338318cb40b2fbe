"""ICCS 2023's ``run_*`` procedures (``vosim.runs.experiments.iccs2023.run``) on tiny runs.

More quick-run checks of these experiments (the exact methods against BruteForce, Figs. 7-8's
tree sizes, the worked example, ``_rows`` over feasible instances) sit in
``tests/runs/test_experiments.py``, which drives every experiment.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vosim.allocators.availability_problem import AvailabilityProblem, allocate_resources
from vosim.runs.experiments import ExperimentConfig
from vosim.runs.experiments.iccs2023 import run, setup

HEURISTICS = ("greedy", "greedy_plus", "knapsack_p")


def _run(function, repetitions: int = 1, seed: int = 5):
    ticks: list[int] = []
    table, chart = function(ExperimentConfig(repetitions, seed=seed, quick=True), ticks.append)
    return table, chart, sum(ticks)


def _never_below_the_exact(table: pd.DataFrame, axis: str) -> pd.DataFrame:
    p = table.pivot(index=axis, columns="method", values="mean_probability")
    for m in HEURISTICS:
        assert (p[m] <= p["exact"] * (1 + 1e-12)).all(), m
    return p


def test_fig4_5_grid_columns_and_the_exact_optimum():
    table, _, ticks = _run(run.run_fig4_5)
    assert list(table.columns) == setup.COLUMNS and ticks == 6
    assert table["n"].unique().tolist() == [1, 4, 8, 14, 18, 21] and table["C"].isna().all()
    assert all(m == setup.SMALL_METHODS for m in table.groupby("n")["method"].apply(tuple))
    p = _never_below_the_exact(table, "n")
    np.testing.assert_allclose(p["brute_force"], p["exact"], rtol=1e-12)
    # no budget: every instance feasible, every method finds a window
    assert (table["feasible_share"] == 1).all() and (table["found_share"] == 1).all()


def test_fig6_means_by_an_independent_solve():
    table, _, ticks = _run(run.run_fig6, repetitions=2)
    assert ticks == 4 and (table["n"] == 8).all() and (table["repetitions"] == 2).all()
    _never_below_the_exact(table, "C")
    # the same instances at every C (common random numbers), solved here at C = 120
    config = ExperimentConfig(2, seed=5, quick=True)
    instances = setup._instances(config, run._KEY_FIG6, 21, 8)
    p = [
        allocate_resources(
            AvailabilityProblem(cost=c, group=g, group_p=gp, n=8, budget=120.0), "exact"
        ).probability
        for c, g, gp in instances
    ]
    at = table.set_index(["C", "method"])
    assert at.loc[(120, "exact"), "feasible_share"] == 1
    assert at.loc[(120, "exact"), "mean_probability"] == pytest.approx(np.mean(p), rel=1e-12)


def test_fig7_8_has_no_brute_force_and_trees_for_branch_and_bound_only():
    table, _, ticks = _run(run.run_fig7_8)
    assert ticks == 3 and set(table["method"]) == set(setup.LARGE_METHODS)
    assert table["C"].unique().tolist() == [80, 140, 220] and (table["n"] == 20).all()
    _never_below_the_exact(table, "C")
    trees = table.set_index("method")["mean_tree_size"]
    assert (trees.loc[list(setup.TREE_METHODS)] >= 1).all()
    assert trees.drop(index=list(setup.TREE_METHODS)).isna().all()


def test_runs_are_reproducible_with_a_seed():
    time_free = [c for c in setup.COLUMNS if "seconds" not in c]
    first, _, _ = _run(run.run_fig4_5, seed=9)
    again, _, _ = _run(run.run_fig4_5, seed=9)
    other, _, _ = _run(run.run_fig4_5, seed=10)
    pd.testing.assert_frame_equal(first[time_free], again[time_free])
    assert not first["mean_probability"].equals(other["mean_probability"])


def test_fig2_each_event_and_their_product():
    table, chart, ticks = _run(run.run_fig2)
    assert list(table.columns) == setup.FIG2_COLUMNS and ticks == 1
    rows = table.set_index("event")
    events = rows.drop(index="P_a^r")
    np.testing.assert_allclose(events["p_available"], 1 - events["max_p_occupied"], rtol=1e-12)
    assert rows.loc["global", "max_p_occupied"] == setup.FIG2_GLOBAL_P
    assert rows.loc["P_a^r", "p_available"] == pytest.approx(events["p_available"].prod())
    assert np.isnan(rows.loc["P_a^r", "max_p_occupied"])
    assert "vosim: P_a^r = 0.235" in str(chart.to_dict())
