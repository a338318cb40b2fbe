"""ICCS 2021's ``run_*`` procedures (``vosim.runs.experiments.iccs2021.run``) on tiny runs.

More quick-run checks of these experiments (Knapsack never below GreedyJnt, Table 1's rows,
Fig. 3's curves) sit in ``tests/runs/test_experiments.py``, which drives every experiment.
"""

from __future__ import annotations

import numpy as np
import pytest

from vosim.allocators.timescan import time_scan
from vosim.runs.experiments import ExperimentConfig
from vosim.runs.experiments.iccs2021 import run, setup


def _run(function, repetitions: int = 1, seed: int = 5):
    ticks: list[int] = []
    table, chart = function(ExperimentConfig(repetitions, seed=seed, quick=True), ticks.append)
    return table, chart, sum(ticks)


def test_fig5_table_and_its_means_by_an_independent_scan():
    table, chart, ticks = _run(run.run_fig5, repetitions=2)
    assert list(table.columns) == setup.FIG5_COLUMNS and ticks == 4
    assert table["job_load"].unique().tolist() == [0.0, 0.3, 0.6, 1.0]
    assert (table["repetitions"] == 2).all() and chart.to_dict()["layer"]
    # the same scenarios scanned here: job-load 0.6 is the stream (seed, key, 6, rep)
    rngs = [np.random.default_rng([5, run._KEY_FIG5, 6, rep]) for rep in range(2)]
    scenarios = [setup.environment(rng, 0.6) for rng in rngs]
    at = table.set_index(["job_load", "method"])
    for method in ("knapsack_p", "greedy_united"):
        p = [
            time_scan(*s, setup.NODE_COUNT, setup.BUDGET, method=method, fast=True).probability
            for s in scenarios
        ]
        assert at.loc[(0.6, method), "mean_probability"] == pytest.approx(np.mean(p), rel=1e-12)
    # the exact Knapsack is never below the GreedyJnt heuristic; GreedyJnt's own advantage is 0
    p = table.pivot(index="job_load", columns="method", values="mean_probability")
    assert (p["knapsack_p"] >= p["greedy_united"] * (1 - 1e-12)).all()
    assert (at.xs("greedy_united", level="method")["advantage"].dropna() == 0).all()
    # job-load 1: no window in any scenario, so no advantage to measure either
    assert (at.loc[1.0, "found_share"] == 0).all() and at.loc[1.0, "advantage"].isna().all()


def test_fig3_one_curve_per_environment_with_its_earliest_maximum():
    table, _, ticks = _run(run.run_fig3, repetitions=2)
    assert list(table.columns) == setup.FIG3_COLUMNS and ticks == 1
    for _, curve in table.groupby("scenario"):
        assert curve["t"].tolist() == list(range(setup.FIG3_INTERVAL + 1))
        assert curve["best"].sum() == 1
        best_t = curve.loc[curve["best"], "t"].iloc[0]
        assert best_t == curve["t"].iloc[int(np.argmax(curve["probability"].to_numpy()))]
    assert not np.array_equal(*(c.to_numpy() for _, c in table.groupby("scenario")["probability"]))


def test_table1_rows_follow_the_papers_table():
    table, _, ticks = _run(run.run_table1)
    assert list(table.columns) == setup.TABLE1_COLUMNS and ticks == len(setup._TABLE1_ROWS)
    assert table["label"].tolist() == [row[3] for row in setup._TABLE1_ROWS]
    paper = [(row[4], row[5]) for row in setup._TABLE1_ROWS]
    np.testing.assert_array_equal(table[["paper_accuracy", "paper_speedup"]].to_numpy(), paper)
    assert str(table["starts"].dtype) == "Int64" and str(table["step"].dtype) == "Int64"
    # the full scan is the reference: accuracy and speedup 1; the fast scan is exact too
    rows = table.set_index("label")
    assert rows.loc["Full scan (Knapsack)", ["accuracy", "speedup"]].tolist() == [1.0, 1.0]
    assert rows.loc["Fast exact scan (Knapsack, vosim)", "accuracy"] == 1.0
    assert (table["accuracy"].dropna() <= 1 + 1e-12).all()
    assert (table["job_load"] == setup.TABLE1_JOB_LOAD).all()


def test_fig2_one_row_per_flow_and_marginal():
    table, _, ticks = _run(run.run_fig2, repetitions=2)
    assert list(table.columns) == setup.FIG2_COLUMNS and ticks == 2
    assert table.groupby("repetition").size().tolist() == [4, 4]
    assert table["ks"].between(0, 1).all()
    processors = table["marginal"] == "processors"
    assert (table.loc[processors, "paper_ks"] == setup.FIG2_PAPER_KS).all()
    assert table.loc[~processors, "paper_ks"].isna().all()
