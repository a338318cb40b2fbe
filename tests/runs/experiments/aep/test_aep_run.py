"""The AEP experiments' procedures (Figs. 1-3, Tables 1-2) in quick mode (aep.run)."""

import numpy as np
import pandas as pd
import pytest
from aep_quick import SEED, quick_runs_fixture  # noqa: F401 (fixtures)

from vosim.allocators.aep import BUDGET_RTOL
from vosim.runs.experiments import ExperimentConfig, experiments, run_experiment
from vosim.runs.experiments.aep import (
    ALTERNATIVES_KEYS,
    CSA_VARIANTS,
    FIG1_3_ALGORITHMS,
    FIG1_3_COLUMNS,
    LABELS,
    METRICS,
    PAPER_FIG1_3,
    PAPER_PROCEDURES,
    PAPER_TABLE1,
    PAPER_TABLE2,
    TABLE1_2_COLUMNS,
    TABLE1_NODES,
    TABLE2_INTERVALS,
    TIME_ALGORITHMS,
    fig1_3_cycles,
)

NAMES = ("aep-fig1-3", "aep-table1-2")
#: Columns that depend on the machine (wall times and ratios of them).
TIMING = ("ms", "ratio")
#: Slack of the exact-criterion invariants against float rounding of summed costs.
TOL = 1e-9


@pytest.fixture(scope="module")
def cycles():
    """Every cycle of the quick Figs. 1-3 run (same seed and repetitions as ``quick_runs``)."""
    reps = experiments()["aep-fig1-3"].quick_repetitions
    return fig1_3_cycles(ExperimentConfig(repetitions=reps, seed=SEED, quick=True))


def test_both_experiments_are_registered():
    assert set(NAMES) <= set(experiments())


@pytest.mark.parametrize("name", NAMES)
def test_quick_run_writes_the_table_and_the_chart(quick_runs, name):
    table, written, out = quick_runs(name)
    assert {f"{name}.parquet", f"{name}.csv", f"{name}.html"} <= {p.name for p in written}
    assert (out / f"{name}.html").stat().st_size > 1000
    assert len(pd.read_csv(out / f"{name}.csv")) == len(table)
    assert (table["repetitions"] == experiments()[name].quick_repetitions).all()


def test_fig1_3_table(quick_runs):
    table, _, _ = quick_runs("aep-fig1-3")
    assert list(table.columns) == FIG1_3_COLUMNS
    assert list(dict.fromkeys(table["algorithm"])) == list(FIG1_3_ALGORITHMS)
    assert set(table["label"]) == {LABELS[a] for a in FIG1_3_ALGORITHMS}
    assert not table.duplicated(subset=["algorithm", "metric"]).any()
    for algorithm in FIG1_3_ALGORITHMS:
        metrics = set(table.loc[table["algorithm"] == algorithm, "metric"])
        extra = {"alternatives"} if algorithm in CSA_VARIANTS else set()
        assert metrics == set(METRICS) | extra
    assert (table["found_share"] == 1).all()
    assert table["mean"].notna().all()
    # the paper's values, NaN elsewhere; its procedures share the paper's figures
    by = table.set_index(["algorithm", "metric"])
    for (algorithm, metric), value in PAPER_FIG1_3.items():
        assert by.loc[(algorithm, metric), "paper"] == value
    for procedure, algorithm in PAPER_PROCEDURES.items():
        if procedure not in FIG1_3_ALGORITHMS:  # csa_paper_per_alternative: Tables 1-2 only
            continue
        own = by.loc[procedure, "paper"]
        np.testing.assert_array_equal(own, by.loc[algorithm, "paper"].loc[own.index])
    shared = sum(a in PAPER_PROCEDURES.values() for a, _ in PAPER_FIG1_3)
    assert table["paper"].notna().sum() == len(PAPER_FIG1_3) + shared
    for variant in CSA_VARIANTS:
        assert by.loc[(variant, "alternatives"), "mean"] >= 1
        assert by.loc[(variant, "alternatives"), "paper"] == 57
    assert set(table.loc[table["algorithm"].isin(["amp_paper", "csa_paper"]), "label"]) == {
        "AMP (paper)",
        "CSA (paper)",
    }


def test_fig1_3_table_is_the_mean_of_the_cycles(quick_runs, cycles):
    table, _, _ = quick_runs("aep-fig1-3")
    means = cycles.groupby("algorithm")[[*METRICS, "alternatives"]].mean()
    by = table.set_index(["algorithm", "metric"])["mean"]
    for algorithm in FIG1_3_ALGORITHMS:
        for metric in METRICS:
            assert by[(algorithm, metric)] == pytest.approx(means.loc[algorithm, metric])
    for variant in CSA_VARIANTS:
        assert by[(variant, "alternatives")] == pytest.approx(means.loc[variant, "alternatives"])


def test_fig1_3_invariants_on_every_cycle(cycles):
    assert len(cycles) == len(FIG1_3_ALGORITHMS) * experiments()["aep-fig1-3"].quick_repetitions
    assert cycles[list(METRICS)].notna().all().all()
    for metric, best in [
        ("finish", "min_finish"),
        ("runtime", "min_runtime"),
        ("cost", "min_cost"),
        ("start", "amp"),
    ]:
        wide = cycles.pivot(index="repetition", columns="algorithm", values=metric)
        others = wide.drop(columns=best)
        assert (wide[best].to_numpy()[:, None] <= others.to_numpy() + TOL).all(), metric
    assert (cycles["cost"] <= 1500 * (1 + BUDGET_RTOL)).all()
    # the paper's AMP starts where vosim's does (the earliest start), never cheaper
    wide = cycles.pivot(index="repetition", columns="algorithm", values=["start", "cost"])
    np.testing.assert_array_equal(wide[("start", "amp_paper")], wide[("start", "amp")])
    assert (wide[("cost", "amp_paper")] >= wide[("cost", "amp")] - TOL).all()
    # one window per algorithm; CSA's bests by each criterion come from different alternatives
    is_csa = cycles["algorithm"].isin(list(CSA_VARIANTS))
    single = cycles.loc[~is_csa]
    assert (single["finish"] == single["start"] + single["runtime"]).all()
    best = cycles.loc[is_csa]
    assert (best["finish"] >= best["start"] + best["runtime"]).all()
    assert (cycles["cpu_time"] >= 5 * 30 - TOL).all()  # 5 slots, 300 / 10 at best
    assert (cycles.loc[is_csa, "alternatives"] >= 1).all()
    assert cycles.loc[~is_csa, "alternatives"].isna().all()


def test_table1_2_table(quick_runs):
    table, _, _ = quick_runs("aep-table1-2")
    assert list(table.columns) == TABLE1_2_COLUMNS
    assert set(table["algorithm"]) == set(TIME_ALGORITHMS)
    t1 = table.loc[table["table"] == "Table 1"]
    t2 = table.loc[table["table"] == "Table 2"]
    assert sorted(t1["nodes"].unique()) == list(TABLE1_NODES[:2])
    assert (t1["interval"] == 600).all()
    assert sorted(t2["interval"].unique()) == list(TABLE2_INTERVALS[:2])
    assert (t2["nodes"] == 100).all()
    assert len(table) == 4 * len(TIME_ALGORITHMS)
    assert not table.duplicated(subset=["table", "nodes", "interval", "algorithm"]).any()
    assert (table["ms"] > 0).all()
    assert (table["slots"] > 0).all() and (table["alternatives"] >= 1).all()
    assert (table["csa_paper_alternatives"] >= 1).all()
    np.testing.assert_allclose(table["ratio"], table["ms"] / table["paper_ms"])
    # the paper's figures, the procedures sharing minRuntime's and minFinish's
    for _, row in table.iterrows():
        paper = PAPER_TABLE1 if row["table"] == "Table 1" else PAPER_TABLE2
        grid = TABLE1_NODES if row["table"] == "Table 1" else TABLE2_INTERVALS
        k = grid.index(row["nodes"] if row["table"] == "Table 1" else row["interval"])
        algorithm = PAPER_PROCEDURES.get(row["algorithm"], row["algorithm"])
        assert row["paper_ms"] == paper[algorithm][k]
        assert row["paper_alternatives"] == paper["alternatives"][k]
    assert t1["paper_slots"].isna().all()
    assert (t2["paper_slots"].isin(PAPER_TABLE2["slots"])).all()
    # CSA per alternative is CSA's mean time over its mean number of alternatives
    point = ["table", "nodes", "interval"]
    wide = table.pivot_table(index=point, columns="algorithm", values="ms")
    for variant, key in ALTERNATIVES_KEYS.items():
        alternatives = table.groupby(point)[key].first()
        np.testing.assert_allclose(wide[f"{variant}_per_alternative"], wide[variant] / alternatives)
    # the slot count grows with the interval (the load covers the whole interval)
    slots = t2.groupby("interval")["slots"].first()
    assert slots[1200] > 1.5 * slots[600]


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_table(quick_runs, tmp_path, name):
    first, _, _ = quick_runs(name)
    run_experiment(name, tmp_path, quick=True, seed=SEED)
    again = pd.read_parquet(tmp_path / f"{name}.parquet")
    drop = [c for c in TIMING if c in first]
    pd.testing.assert_frame_equal(first.drop(columns=drop), again.drop(columns=drop))
