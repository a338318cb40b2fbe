"""The Knapsack Grid experiments (synthetic stream and the bundled trace) in quick mode."""

import pandas as pd
import pytest

from vosim.runs.experiments import experiments, run_experiment
from vosim.runs.experiments.knapsack_grid import (
    CLAIMS,
    COLUMNS,
    LAMBDAS,
    SLIDES_LAMBDA,
    strategies,
    trace_clusters,
)

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


def test_trace_clusters_share_the_processors():
    clusters = trace_clusters(owners=4)
    assert sum(clusters) == 2004 and max(clusters) - min(clusters) <= 1


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
