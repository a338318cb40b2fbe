"""Intervals, Holm's correction and paired tests against independent oracles."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from vosim.analysis.stats import TEST_COLUMNS, holm, mean_ci, paired_tests


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=40), st.sampled_from([0.9, 0.95]))
def test_mean_ci_is_scipys_t_interval(values, level):
    x = np.array(values)
    mean, lo, hi = mean_ci(x, level)
    assert mean == pytest.approx(x.mean(), abs=1e-6)
    if x.std() == 0:
        assert lo == pytest.approx(mean) and hi == pytest.approx(mean)
        return
    a, b = stats.t.interval(level, x.size - 1, loc=x.mean(), scale=stats.sem(x))
    assert (lo, hi) == (pytest.approx(a, rel=1e-9, abs=1e-6), pytest.approx(b, rel=1e-9, abs=1e-6))


def test_mean_ci_small_and_bad_input():
    assert mean_ci([4.0])[0] == 4.0 and all(math.isnan(v) for v in mean_ci([4.0])[1:])
    assert all(math.isnan(v) for v in mean_ci([]))
    assert mean_ci([1.0, math.nan, 3.0])[0] == 2.0
    with pytest.raises(ValueError, match="level"):
        mean_ci([1.0, 2.0], 1.0)


def _holm_rejects(p: list[float], alpha: float) -> set[int]:
    """Oracle: Holm's sequential procedure as written in Holm (1979)."""
    m = len(p)
    rejected = set()
    for rank, i in enumerate(sorted(range(m), key=lambda i: p[i])):
        if p[i] <= alpha / (m - rank):
            rejected.add(i)
        else:
            break
    return rejected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=12),
    st.sampled_from([0.01, 0.05, 0.1]),
)
def test_holm_adjusted_p_rejects_what_the_procedure_rejects(p, alpha):
    adjusted = holm(p)
    assert set(np.flatnonzero(adjusted <= alpha).tolist()) == _holm_rejects(p, alpha)
    assert (adjusted >= np.array(p) - 1e-15).all() and (adjusted <= 1).all()


def test_holm_leaves_missing_tests_out():
    out = holm([0.01, math.nan, 0.02])
    assert math.isnan(out[1])
    np.testing.assert_allclose(out[[0, 2]], [0.02, 0.02])
    with pytest.raises(ValueError, match="p-values"):
        holm([1.5])


def _runs() -> pd.DataFrame:
    """Two policies and one baseline at two loads, 6 repetitions; policy B misses one run."""
    rng = np.random.default_rng(4)
    rows = []
    for load in (0.5, 0.9):
        for rep in range(6):
            base = 100 * load + rng.normal(0, 5)  # the instance: shared by all three
            rows.append(
                dict(
                    label="E",
                    baseline="policy=easy",
                    load=load,
                    repetition=rep,
                    wait=base,
                    util=0.3,
                )
            )
            rows.append(
                dict(
                    label="A",
                    baseline=None,
                    load=load,
                    repetition=rep,
                    wait=base - 10 + rng.normal(0, 1),
                    util=0.3,
                )
            )
            if not (load == 0.9 and rep == 5):
                rows.append(dict(label="B", baseline=None, load=load, repetition=rep,
                                 wait=base + rng.normal(0, 1), util=0.3))  # fmt: skip
    return pd.DataFrame(rows)


def test_paired_tests_pair_by_factors_and_repetition():
    runs = _runs()
    table = paired_tests(runs, ["wait", "util"], factors=["load"])
    assert list(table.columns) == list(TEST_COLUMNS)
    assert len(table) == 2 * 2 * 1 * 2  # metrics x policies x baselines x loads
    wait = table[table["metric"] == "wait"].set_index(["policy", "factors"])
    for (label, factors), row in wait.iterrows():
        load = float(factors.split("=")[1])
        mine = runs[(runs["label"] == label) & (runs["load"] == load)].set_index("repetition")
        base = runs[(runs["label"] == "E") & (runs["load"] == load)].set_index("repetition")
        d = (mine["wait"] - base["wait"]).dropna()
        assert row["n"] == len(d)
        assert row["difference"] == pytest.approx(d.mean())
        assert row["p_value"] == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue)
        lo, hi = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
        assert (row["difference_lo"], row["difference_hi"]) == (
            pytest.approx(lo),
            pytest.approx(hi),
        )
        assert row["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1))
    assert wait.loc[("B", "load=0.9"), "n"] == 5
    # A waits 10 less on every instance: significant after Holm; B does not differ
    assert wait.loc[("A", "load=0.5"), "significant"] and wait.loc[("A", "load=0.9"), "significant"]
    assert not wait.loc[("B", "load=0.5"), "significant"]
    np.testing.assert_allclose(wait["p_holm"], holm(wait["p_value"].to_numpy()))
    # equal values: no difference, p = 1, not significant
    util = table[table["metric"] == "util"]
    assert (util["difference"] == 0).all() and (util["p_value"] == 1).all()
    assert not util["significant"].any()


def test_paired_tests_keep_a_factor_level_of_none():
    """A factor swept over ``"none"`` (NaN in the results) has its own tests, labelled
    ``none``; they were silently left out."""
    runs = _runs()
    runs["load"] = runs["load"].where(runs["load"] == 0.5)  # 0.9 -> none (NaN)
    table = paired_tests(runs, ["wait"], factors=["load"])
    assert sorted(set(table["factors"])) == ["load=0.5", "load=none"]
    none = table[table["factors"] == "load=none"].set_index("policy")
    assert none.loc["B", "n"] == 5 and none.loc["A", "n"] == 6


def test_paired_tests_without_factors_pool_every_repetition():
    runs = _runs()
    runs = runs[runs["load"] == 0.5]
    table = paired_tests(runs, ["wait"])
    assert table["factors"].tolist() == ["", ""] and table["n"].tolist() == [6, 6]
