"""The Knapsack Grid experiments (synthetic stream and the bundled trace) in quick mode."""

import pandas as pd
import pytest

from vosim.runs.experiments import experiments, run_experiment
from vosim.runs.experiments.knapsack_grid import CLAIMS, COLUMNS, strategies, trace_clusters

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


def test_same_seed_same_table(quick, tmp_path):
    table, _ = quick("knapsack-grid")
    run_experiment("knapsack-grid", tmp_path, quick=True, seed=2)
    again = pd.read_parquet(tmp_path / "knapsack-grid.parquet")
    timing = ["mean_solve_ms", "max_solve_ms", "wall_seconds"]
    pd.testing.assert_frame_equal(table.drop(columns=timing), again.drop(columns=timing))


def test_trace_clusters_share_the_processors():
    clusters = trace_clusters(owners=4)
    assert sum(clusters) == 2004 and max(clusters) - min(clusters) <= 1
