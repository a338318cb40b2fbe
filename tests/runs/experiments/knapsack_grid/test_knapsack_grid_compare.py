"""One Knapsack Grid comparison (knapsack_grid.compare): the claims judged, the strategies
described, every strategy simulated on the same small streams."""

import math

import pandas as pd
import pytest

from vosim.runs.experiments.base import ExperimentConfig
from vosim.runs.experiments.knapsack_grid import CLAIMS, COLUMNS, SPEEDUP_QUANTILES, strategies
from vosim.runs.experiments.knapsack_grid.compare import _claims, _compare, _described
from vosim.runs.experiments.knapsack_grid.setup import _poisson


def _families(**change: dict) -> pd.DataFrame:
    """One strategy per family where every claim holds; ``change`` edits a family's row."""
    rows = {
        "FCFS": {"overall_completion_time": 100.0, "median_speedup": 1.0},
        "BF": {"overall_completion_time": 90.0, "median_speedup": 1.2},
        "gang": {"overall_completion_time": 95.0, "median_speedup": 1.1},
        "KS": {"overall_completion_time": 85.0, "median_speedup": 1.5, "policy": 1, "tau": 1.0}
        | {"credit_speedup_correlation": 0.3},
        "KS+BF": {"overall_completion_time": 80.0, "median_speedup": 1.4, "policy": 1}
        | {"tau": 1.0, "credit_speedup_correlation": 0.2},
    }
    for family, values in change.items():
        rows[family.replace("_", "+")] = rows[family.replace("_", "+")] | values
    columns = ["overall_completion_time", "median_speedup", "policy", "tau"]
    columns += ["credit_speedup_correlation"]
    return pd.DataFrame([{"family": f} | r for f, r in rows.items()], columns=["family", *columns])


def _holds(table: pd.DataFrame) -> list[bool]:
    claims = _claims(table)
    assert list(claims["claim"]) == list(CLAIMS) and (claims["kind"] == "claim").all()
    return claims["holds"].tolist()


def test_every_claim_holds_on_the_table_built_for_it():
    assert _holds(_families()) == [True, True, True, True]


@pytest.mark.parametrize(
    ("change", "broken"),
    [
        ({"BF": {"overall_completion_time": 79.0}}, 0),  # EASY ends before KS+BF
        ({"gang": {"overall_completion_time": 84.0}}, 1),  # gang before the knapsack
        ({"gang": {"median_speedup": 1.6}}, 2),  # gang's median task is faster
        ({"KS": {"credit_speedup_correlation": -0.1}}, 3),  # no favour for high-value tasks
        ({"KS": {"tau": 0.25}}, 3),  # no credit-value policy at tau = 1 h
    ],
)
def test_each_claim_fails_alone_on_the_table_built_against_it(change, broken):
    holds = _holds(_families(**change))
    assert holds == [k != broken for k in range(len(CLAIMS))]


def test_qos_claim_fails_when_the_knapsack_ends_after_fcfs():
    holds = _holds(_families(KS={"overall_completion_time": 101.0}))
    assert holds[3] is False and holds[1] is False  # and it no longer beats gang either


def test_described_adds_family_policy_and_tau():
    info = {s.name: s for s in strategies(True)}
    table = _described(pd.DataFrame({"strategy": list(info)}), info)
    assert table["family"].tolist() == ["FCFS", "BF", "gang", "KS", "KS+BF"]
    assert table["policy"].tolist()[3:] == [1, 1] and table["tau"].tolist()[3:] == [1.0, 1.0]
    assert all(math.isnan(v) for v in table["policy"].tolist()[:3])


@pytest.fixture(scope="module")
def small():
    ticks = []
    config = ExperimentConfig(repetitions=2, seed=5, quick=True)
    return _compare(config, ticks.append, _poisson(30, 0.64)), ticks


def test_compare_simulates_every_strategy_on_every_stream(small):
    table, ticks = small
    assert ticks == [1, 1]  # one tick per stream
    assert list(table.columns) == COLUMNS
    rows = table[table["kind"] == "strategy"]
    assert rows["strategy"].tolist() == [s.name for s in strategies(True)]
    assert (rows["tasks"] == 30).all() and (rows["repetitions"] == 2).all()
    assert (rows["overall_completion_time_std"] >= 0).all()
    fcfs = rows.iloc[0]  # the baseline: every task's speedup is 1
    assert fcfs["mean_speedup"] == pytest.approx(1.0)
    assert [fcfs[c] for c in SPEEDUP_QUANTILES] == pytest.approx([1.0] * len(SPEEDUP_QUANTILES))
    assert math.isnan(fcfs["credit_speedup_correlation"])  # constant speedup


def test_compare_judges_the_claims_on_the_means_and_per_stream(small):
    table, _ = small
    rows = table[table["kind"] == "strategy"]
    claims = table[table["kind"] == "claim"]
    assert claims["claim"].tolist() == list(CLAIMS)
    assert claims["holds"].tolist() == _claims(rows)["holds"].tolist()
    assert claims["streams_holding"].between(0, 2).all()
