"""The charts of the Knapsack Grid experiments (knapsack_grid.charts) on tiny hand-made tables."""

import math

import pandas as pd

from vosim.runs.experiments.knapsack_grid import CLAIMS, COLUMNS, LAMBDAS, SLIDES_LAMBDA
from vosim.runs.experiments.knapsack_grid.charts import _chart, _example_chart, _lambda_chart


def _comparison(holds=(True, False, True, False), streams=(2, 0, 1, 0)) -> pd.DataFrame:
    """FCFS and EASY (BF) over 2 streams, and the four claims."""
    strategies = [
        {"strategy": "FCFS", "family": "FCFS", "overall_completion_time": 100.0}
        | {"overall_completion_time_std": 4.0, "mean_speedup": 1.0, "median_speedup": 1.0}
        | {"credit_speedup_correlation": math.nan, "mean_solve_ms": math.nan},
        {"strategy": "EASY", "family": "BF", "overall_completion_time": 90.0}
        | {"overall_completion_time_std": 2.0, "mean_speedup": 1.5, "median_speedup": 1.25}
        | {"credit_speedup_correlation": 0.125, "mean_solve_ms": math.nan},
    ]
    for row in strategies:
        row |= {"kind": "strategy", "repetitions": 2, "tasks": 30}
        row |= {q: row["median_speedup"] for q in ("speedup_p10", "speedup_p25")}
        row |= {q: row["median_speedup"] for q in ("speedup_p75", "speedup_p90")}
    claims = [
        {"kind": "claim", "claim": c, "holds": h, "streams_holding": k}
        for c, h, k in zip(CLAIMS, holds, streams, strict=True)
    ]
    return pd.DataFrame([*strategies, *claims]).reindex(columns=COLUMNS)


def test_comparison_chart_panels_and_claims_in_the_title():
    spec = _chart(_comparison(), "Tiny grid").to_dict()
    completion, speedup, correlation = spec["vconcat"]
    assert completion["title"] == "Overall completion time"
    bars, errors = completion["layer"]
    assert bars["encoding"]["x"]["field"] == "overall_completion_time"
    assert bars["encoding"]["y"]["sort"] == ["FCFS", "EASY"]
    assert (errors["encoding"]["x"]["field"], errors["encoding"]["x2"]["field"]) == ("lo", "hi")
    assert [layer["mark"]["type"] for layer in speedup["layer"]] == ["rule", "bar", "tick"]
    assert speedup["layer"][0]["encoding"]["x"]["scale"] == {"type": "log"}
    assert correlation["encoding"]["x"]["field"] == "credit_speedup_correlation"
    assert spec["title"]["text"] == "Tiny grid"
    assert spec["title"]["subtitle"] == [
        f"paper: {CLAIMS[0]} - vosim: holds (2 of 2 streams)",
        f"paper: {CLAIMS[1]} - vosim: does NOT hold (0 of 2 streams)",
        f"paper: {CLAIMS[2]} - vosim: holds (1 of 2 streams)",
        f"paper: {CLAIMS[3]} - vosim: does NOT hold (0 of 2 streams)",
    ]


def test_comparison_chart_data_has_no_nan():
    spec = _chart(_comparison(), "Tiny grid").to_dict()
    bars = spec["vconcat"][0]["layer"][0]
    rows = spec["datasets"][bars["data"]["name"]]
    assert [r["strategy"] for r in rows] == ["FCFS", "EASY"]
    assert [r["credit_speedup_correlation"] for r in rows] == [0.0, 0.125]  # NaN drawn as 0
    assert [r["mean_solve_ms"] for r in rows] == ["n/a", "n/a"]  # NaN shown as n/a
    assert rows[1]["median_speedup"] == "1.25"
    errors = spec["datasets"][spec["vconcat"][0]["layer"][1]["data"]["name"]]
    assert [(r["lo"], r["hi"]) for r in errors] == [(96.0, 104.0), (88.0, 92.0)]


def _sweep() -> pd.DataFrame:
    parts = []
    for k, lam in enumerate(LAMBDAS):  # the first claim holds at the slides' lambda only
        holds = [lam == SLIDES_LAMBDA, True, True, True]
        part = _comparison(holds, (2 if holds[0] else k, 1, 1, 1))
        part["overall_completion_time"] = part["overall_completion_time"] + 10 * k
        parts.append(part.assign(**{"lambda": lam}))
    return pd.concat(parts, ignore_index=True).reindex(columns=["lambda", *COLUMNS])


def test_lambda_chart_plots_completion_against_lambda():
    spec = _lambda_chart(_sweep(), 30, 2).to_dict()
    slides, bars, lines = spec["layer"]
    assert spec["datasets"][slides["data"]["name"]] == [{"lambda": SLIDES_LAMBDA}]
    assert slides["mark"]["strokeDash"] == [2, 3]
    assert lines["mark"] == {"type": "line", "point": True}
    assert (bars["encoding"]["y"]["field"], bars["encoding"]["y2"]["field"]) == ("lo", "hi")
    assert lines["encoding"]["y"]["field"] == "overall_completion_time"
    scale = lines["encoding"]["x"]["scale"]
    assert scale["type"] == "log"
    assert scale["domain"] == [min(LAMBDAS) / 1.2, max(LAMBDAS) * 1.2]
    rows = spec["datasets"][lines["data"]["name"]]
    assert len(rows) == 2 * len(LAMBDAS)  # the strategy rows only
    assert spec["title"]["text"].startswith("Knapsack Grid: 30 tasks per stream vs lambda")
    assert spec["title"]["subtitle"] == [
        "paper: KS+BF has the lowest overall completion time (at 0.64 h)",
        "lambda = 0.32 h: does NOT hold (0 of 2 streams)",
        "lambda = 0.64 h: holds (2 of 2 streams)",
        "lambda = 1.28 h: does NOT hold (2 of 2 streams)",
    ]


def test_example_chart_fills_the_chosen_options_and_states_both_optima():
    table = pd.DataFrame(
        {
            "task": [1, 1, 2],
            "option": [1, 2, 1],
            "credit": [10.0, 9.0, 11.0],
            "cluster_1": [8, 4, 10],
            "cluster_2": [0, 4, 0],
            "chosen_dp": [False, True, True],
            "chosen_milp": [False, True, True],
        }
    )
    spec = _example_chart(table, 20.0, 19.0).to_dict()
    bars, label = spec["layer"]
    rows = spec["datasets"][bars["data"]["name"]]
    assert [r["name"] for r in rows] == ["task 1, option 1", "task 1, option 2", "task 2, option 1"]
    assert [r["what"] for r in rows] == ["not chosen", "chosen", "chosen"]
    assert bars["encoding"]["color"]["scale"]["domain"] == ["chosen", "not chosen"]
    texts = [r["text"] for r in spec["datasets"][label["data"]["name"]]]
    assert texts == ["vosim: optimum 20 (DP), 19 (MILP)", "paper: optimum 20"]
