"""The VO Preferences experiment (Figs. 1-6) in quick mode."""

import numpy as np
import pandas as pd
import pytest

from vosim.runs.experiments import experiments, run_experiment
from vosim.runs.experiments.vo_preferences import COLUMNS, PAPER_COMPROMISE, PROBLEMS

NAME = "vo-preferences-fig1-6"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("vp")
    ticks = []
    written = run_experiment(NAME, out, quick=True, seed=3, progress=ticks.append)
    assert sum(ticks) == experiments()[NAME].points(True)
    return pd.read_parquet(out / f"{NAME}.parquet"), written


def test_files_and_columns(quick):
    table, written = quick
    assert {p.suffix for p in written} >= {".parquet", ".csv", ".html"}
    assert list(table.columns) == COLUMNS
    assert set(table["problem"]) == set(PROBLEMS)


def test_curves_are_monotone_and_a_spans_0_to_100(quick):
    table, _ = quick
    curves = table[table["point"] == "curve"]
    for problem, group in curves.groupby("problem"):
        group = group.sort_values("ua")
        totals = group["vo_total_mean"].to_numpy()
        sense = 1 if PROBLEMS[problem][2] == "cost" else -1
        # a looser limit never makes the VO criterion worse
        assert (np.diff(totals) * sense >= -1e-6).all(), problem
        a = group["a_mean"].to_numpy()
        assert a[0] == pytest.approx(100.0) and a[-1] == pytest.approx(0.0), problem
        assert ((a >= -1e-9) & (a <= 100 + 1e-9)).all()
        # the realised mean U never exceeds U_a
        assert (group["realised_ua_mean"] <= group["ua"] + 1e-9).all()
        assert (group["alternatives_per_job"] >= 1).all()


def test_compromise_points(quick):
    table, _ = quick
    points = table[table["point"] != "curve"]
    assert set(points["point"]) == {"equal", "additive"}
    equal = points[points["point"] == "equal"].dropna(subset=["ua"])
    assert np.allclose(equal["ua"], equal["a_mean"])  # on the line A = U_a
    paper = points.dropna(subset=["paper_ua"]).set_index("point")
    for point, (ua, a) in PAPER_COMPROMISE.items():
        assert (paper.loc[point, "paper_ua"], paper.loc[point, "paper_a"]) == (ua, a)


def test_same_seed_same_table(quick, tmp_path):
    table, _ = quick
    run_experiment(NAME, tmp_path, quick=True, seed=3)
    pd.testing.assert_frame_equal(table, pd.read_parquet(tmp_path / f"{NAME}.parquet"))
