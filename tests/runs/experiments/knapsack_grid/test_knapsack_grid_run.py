"""The Knapsack Grid experiments' procedures (knapsack_grid.run) in quick mode: the synthetic
stream, the bundled trace, the lambda sweep and the worked example."""

import pandas as pd
import pytest

from vosim.runs.experiments import ExperimentConfig, experiments, run_experiment
from vosim.runs.experiments.knapsack_grid import (
    CLAIMS,
    COLUMNS,
    EXAMPLE_COLUMNS,
    EXAMPLE_OPTIMUM,
    LAMBDAS,
    SLIDES_LAMBDA,
    strategies,
)
from vosim.runs.experiments.knapsack_grid.run import run_example

NAMES = ("knapsack-grid", "knapsack-grid-swf")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    cache = {}

    def get(name):
        if name not in cache:
            out = tmp_path_factory.mktemp(name)
            ticks = []
            written = run_experiment(name, out, quick=True, seed=2, progress=ticks.append)
            assert sum(ticks) == experiments()[name].points(True)
            cache[name] = (pd.read_parquet(out / f"{name}.parquet"), written)
        return cache[name]

    return get


@pytest.mark.parametrize("name", NAMES)
def test_table_chart_and_claims(quick, name):
    table, written = quick(name)
    assert {p.suffix for p in written} >= {".parquet", ".csv", ".html"}
    assert list(table.columns) == COLUMNS
    rows = table[table["kind"] == "strategy"]
    assert list(rows["strategy"]) == [s.name for s in strategies(True)]
    assert set(rows["family"]) == {"FCFS", "BF", "gang", "KS", "KS+BF"}
    fcfs = rows[rows["family"] == "FCFS"].iloc[0]
    assert fcfs["mean_speedup"] == pytest.approx(1.0)  # FCFS against itself
    assert (rows["overall_completion_time"] > 0).all()
    assert (rows["mean_speedup"] > 0).all()
    ks = rows[rows["family"].isin(["KS", "KS+BF"])]
    assert (ks["mean_solve_ms"] >= 0).all() and (ks["max_solve_ms"] >= ks["mean_solve_ms"]).all()
    claims = table[table["kind"] == "claim"]
    assert list(claims["claim"]) == list(CLAIMS)
    assert claims["holds"].isin([True, False]).all()
    # the claims are computed from the rows above
    best = rows.groupby("family")["overall_completion_time"].min()
    assert bool(claims.iloc[1]["holds"]) == bool(best["KS"] < best["gang"])
    # "largest task speedup" is judged on the median task, not the mean of ratios
    median = rows.groupby("family")["median_speedup"].max()
    knapsack_best = max(median["KS"], median["KS+BF"]) >= median.max()
    assert bool(claims.iloc[2]["holds"]) == bool(knapsack_best)
    # the speedup's distribution: ordered quantiles, FCFS's all 1
    q = rows[["speedup_p10", "speedup_p25", "median_speedup", "speedup_p75", "speedup_p90"]]
    assert (q.diff(axis=1).iloc[:, 1:] >= -1e-12).all().all()
    assert (q[rows["family"] == "FCFS"] == 1.0).all().all()
    # one stream in quick mode: a claim holds in it exactly when it holds on the means
    assert (claims["streams_holding"] == claims["holds"].astype(int)).all()
    assert (
        "paper: KS+BF has the lowest overall completion time"
        in (written[0].parent / f"{name}.html").read_text()
    )


def test_same_seed_same_table(quick, tmp_path):
    table, _ = quick("knapsack-grid")
    run_experiment("knapsack-grid", tmp_path, quick=True, seed=2)
    again = pd.read_parquet(tmp_path / "knapsack-grid.parquet")
    timing = ["mean_solve_ms", "max_solve_ms", "wall_seconds"]
    pd.testing.assert_frame_equal(table.drop(columns=timing), again.drop(columns=timing))


def test_lambda_sweep(quick):
    table, written = quick("knapsack-grid-lambda")
    assert list(table.columns) == ["lambda", *COLUMNS]
    assert sorted(table["lambda"].unique()) == list(LAMBDAS)
    rows = table[table["kind"] == "strategy"]
    for _, at in rows.groupby("lambda"):  # one strategy per family at every lambda
        assert list(at["strategy"]) == [s.name for s in strategies(True)]
    claims = table[table["kind"] == "claim"]
    assert len(claims) == len(LAMBDAS) * len(CLAIMS)
    # the same tasks at every lambda, arriving later: FCFS finishes no earlier at 1.28 h
    fcfs = rows[rows["family"] == "FCFS"].set_index("lambda")["overall_completion_time"]
    assert fcfs[max(LAMBDAS)] >= fcfs[min(LAMBDAS)]
    # the claim rows at the slides' lambda are those of knapsack-grid on the same streams
    same = quick("knapsack-grid")[0]
    first = claims[(claims["lambda"] == SLIDES_LAMBDA) & (claims["claim"] == CLAIMS[0])]
    ours = rows[rows["lambda"] == SLIDES_LAMBDA].set_index("strategy")["overall_completion_time"]
    theirs = same.set_index("strategy")["overall_completion_time"]
    assert ours.to_dict() == theirs.loc[ours.index].to_dict()
    assert (
        "paper: KS+BF has the lowest"
        in (written[0].parent / "knapsack-grid-lambda.html").read_text()
    )
    at_slides = same[(same["kind"] == "claim") & (same["claim"] == CLAIMS[0])]
    assert bool(first["holds"].iloc[0]) == bool(at_slides["holds"].iloc[0])


def test_example_table_marks_the_slides_optimum():
    ticks = []
    table, chart = run_example(ExperimentConfig(1, 1, True), ticks.append)
    assert ticks == [1]
    assert list(table.columns) == EXAMPLE_COLUMNS
    assert list(zip(table["task"], table["option"], strict=True)) == [
        (1, 1),
        (1, 2),
        (1, 3),
        (2, 1),
        (2, 2),
    ]
    assert table["credit"].tolist() == [10.0, 2.0, 9.0, 11.0, 2.0]  # the slides' credit values
    chosen = table.loc[table["chosen_dp"], ["task", "option"]].to_numpy().tolist()
    assert chosen == [[1, 3], [2, 1]]
    assert (table["chosen_dp"] == table["chosen_milp"]).all()
    assert (table[["optimum_dp", "optimum_milp", "paper_optimum"]] == EXAMPLE_OPTIMUM).all().all()
    assert "optimum 20 (DP), 20 (MILP)" in str(chart.to_dict())
