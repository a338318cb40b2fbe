"""The report's VO section (vosim.analysis.report_vos): per-VO summaries, charts and sentences."""

from __future__ import annotations

import pandas as pd
import pytest
from scipy import stats

from vosim.analysis.report_vos import (
    TOP_VOS,
    TRACE,
    vo_hhi_chart,
    vo_sentences,
    vo_sites_chart,
    vo_summary,
)


def two_runs():
    """Two runs (a, b) of one policy at ua=0, each with VOs 1 and 2 and a traced placement."""
    columns = ["run_id", "group", "jobs_read", "completed", "mean_wait", "site_hhi", "sites"]
    columns += ["top_site", "recorded_site_hhi", "recorded_sites"]
    rows = [
        ("a", 1, 10, 9, 100.0, 0.5, 3, "x", 0.4, 4),
        ("a", 2, 4, 4, 50.0, 1.0, 1, "y", 0.9, 1),
        ("b", 1, 20, 18, 300.0, 0.7, 2, "x", 0.6, 2),
        ("b", 2, 6, 3, 70.0, 0.8, 2, "z", 1.0, 1),
    ]
    groups = pd.DataFrame(rows, columns=columns)
    ok = pd.DataFrame({"run_id": ["a", "b"], "ua": [0, 0]})
    names = pd.Series(["knapsack", "knapsack"], index=ok.index)
    return groups, ok, names


def test_vo_summary_by_hand():
    groups, ok, names = two_runs()
    summary = vo_summary(groups, ok, names, ["ua"]).set_index("group")
    assert summary["policy"].tolist() == ["knapsack", "knapsack"]
    assert summary["level"].tolist() == ["ua=0", "ua=0"]
    assert summary["runs"].tolist() == [2, 2]
    assert summary["jobs"].tolist() == [15.0, 5.0]
    assert summary["completed_share"].tolist() == pytest.approx([27 / 30, 7 / 10])
    assert summary["mean_wait"].tolist() == [200.0, 60.0]
    # a t interval of two values: mean +- t(0.975, 1) * |x1 - x2| / 2
    half = stats.t.ppf(0.975, 1) * 200.0 / 2
    assert summary.loc[1, "mean_wait_lo"] == pytest.approx(200.0 - half)
    assert summary.loc[1, "mean_wait_hi"] == pytest.approx(200.0 + half)
    assert summary["site_hhi"].tolist() == pytest.approx([0.6, 0.9])
    assert summary["sites"].tolist() == [2.5, 1.5]
    assert summary.loc[1, "top_site"] == "x"
    assert summary["recorded_site_hhi"].tolist() == pytest.approx([0.5, 0.95])
    assert summary["recorded_sites"].tolist() == [3.0, 1.0]


def test_vo_summary_without_factors_or_trace():
    groups, ok, names = two_runs()
    assert set(vo_summary(groups, ok, names, [])["level"]) == {"all runs"}
    assert vo_summary(groups.drop(columns="recorded_site_hhi"), ok, names, []) is None
    assert vo_summary(groups.iloc[:0], ok, names, []) is None


def test_vo_sentences_name_the_slowest_and_fastest_vo_and_escape_names():
    groups, ok, _ = two_runs()
    names = pd.Series(["<b>&knapsack", "<b>&knapsack"], index=ok.index)
    text = vo_sentences(vo_summary(groups, ok, names, ["ua"]))
    assert text.startswith("<p><b>ua=0</b>: as the grid ran them")
    assert "a median of 2 sites" in text  # the traced sites 3 and 1
    assert "&lt;b&gt;&amp;knapsack: 2 sites (HHI 0.75)" in text  # medians of 2.5, 1.5; 0.6, 0.9
    assert "mean wait from 60 s (VO 2) to 200 s (VO 1)" in text
    assert "<b>&knapsack" not in text


def test_vo_hhi_chart_draws_the_largest_vos_only():
    rows = [
        {
            "policy": "p",
            "level": "all runs",
            "group": g,
            "runs": 1,
            "jobs": float(g),
            "site_hhi": 0.5,
            "site_hhi_lo": 0.4,
            "site_hhi_hi": 0.6,
            "sites": 2.0,
            "top_site": "x",
            "mean_wait": 1.0,
            "recorded_site_hhi": 0.3,
        }
        for g in range(1, TOP_VOS + 4)
    ]
    spec = vo_hhi_chart(pd.DataFrame(rows)).to_dict()
    [data] = spec["datasets"].values()
    drawn = sorted(r["group"] for r in data)
    assert drawn == list(range(4, TOP_VOS + 4))  # the TOP_VOS with the most jobs
    assert {r["traced"] for r in data} == {0.3}


def test_vo_sites_chart_shares_per_vo_and_the_trace_panel():
    ok = pd.DataFrame({"run_id": ["a"], "ua": [0]})
    names = pd.Series(["knapsack"], index=ok.index)
    pairs = pd.DataFrame(
        {
            "run_id": ["a"] * 4,
            "placement": ["run", "run", "trace", "trace"],
            "group": [1, 1, 1, 1],
            "site": ["x", "y", "x", "z"],
            "processor_seconds": [30.0, 10.0, 5.0, 15.0],
        }
    )
    spec = vo_sites_chart(pairs, ok, names, ["ua"]).to_dict()
    [data] = spec["datasets"].values()
    share = {(r["policy"], r["site"]): r["share"] for r in data}
    assert share == {
        ("knapsack", "x"): 0.75,
        ("knapsack", "y"): 0.25,
        (TRACE, "x"): 0.25,
        (TRACE, "z"): 0.75,
    }
    assert vo_sites_chart(pairs[pairs["placement"] == "run"], ok, names, ["ua"]) is None
