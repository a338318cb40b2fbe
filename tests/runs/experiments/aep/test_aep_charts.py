"""The charts of the AEP experiments (aep.charts) on tiny hand-made tables."""

import numpy as np
import pandas as pd

from vosim.runs.experiments.aep import (
    CSA_VARIANTS,
    FIG1_3_ALGORITHMS,
    LABELS,
    METRICS,
    PAPER_FIG1_3,
)
from vosim.runs.experiments.aep.charts import _fig1_3_chart, _table1_2_chart
from vosim.runs.experiments.aep.setup import (
    FIG1_3_COLUMNS,
    KINDS,
    PAPER_PROCEDURES,
    TABLE1_2_COLUMNS,
    TIME_ALGORITHMS,
)


def _fig1_3_rows(cycles: int = 7) -> pd.DataFrame:
    """Every (algorithm, metric) of Figs. 1-3: mean = position, CSA alternatives 12 and 9."""
    rows = []
    for k, algorithm in enumerate(FIG1_3_ALGORITHMS):
        extra = ("alternatives",) if algorithm in CSA_VARIANTS else ()
        for metric in (*METRICS, *extra):
            mean = {"csa": 12.0, "csa_paper": 9.0}[algorithm] if metric == "alternatives" else k
            paper = PAPER_FIG1_3.get((PAPER_PROCEDURES.get(algorithm, algorithm), metric), np.nan)
            rows.append(
                {"algorithm": algorithm, "label": LABELS[algorithm], "kind": KINDS[algorithm]}
                | {"metric": metric, "mean": float(mean), "std": 0.5, "paper": paper}
                | {"found_share": 1.0, "repetitions": cycles}
            )
    return pd.DataFrame(rows, columns=FIG1_3_COLUMNS)


def _data(spec: dict) -> list[dict]:
    return spec["datasets"][spec["data"]["name"]]


def test_fig1_3_chart_has_a_bar_panel_with_paper_ticks_per_metric():
    spec = _fig1_3_chart(_fig1_3_rows()).to_dict()
    assert len(spec["concat"]) == len(METRICS) and spec["columns"] == 3
    order = [LABELS[a] for a in FIG1_3_ALGORITHMS]
    for metric, panel in zip(METRICS, spec["concat"], strict=True):
        bars, ticks = panel["layer"]
        assert bars["transform"] == [{"filter": f"(datum.metric === '{metric}')"}]
        assert bars["mark"]["type"] == "bar" and ticks["mark"]["type"] == "tick"
        assert (bars["encoding"]["x"]["field"], bars["encoding"]["x"]["sort"]) == ("label", order)
        assert bars["encoding"]["y"]["field"] == "mean"
        assert ticks["encoding"]["y"]["field"] == "paper"
        assert {"filter": "isValid(datum.paper)"} in ticks["transform"]
    assert [panel["title"] for panel in spec["concat"]] == [
        "start time (Fig. 1a)",
        "runtime (Fig. 1b)",
        "finish time (Fig. 2a)",
        "CPU time (Fig. 2b)",
        "cost (Fig. 3)",
    ]
    colour = spec["concat"][0]["layer"][0]["encoding"]["color"]
    assert colour["field"] == "label" and set(colour["scale"]["domain"]) == set(order)


def test_fig1_3_chart_data_and_title():
    table = _fig1_3_rows(cycles=7)
    spec = _fig1_3_chart(table).to_dict()
    data = _data(spec)
    assert len(data) == len(FIG1_3_ALGORITHMS) * len(METRICS)  # CSA's alternatives not drawn
    assert {row["metric"] for row in data} == set(METRICS)
    title = spec["title"]
    assert "over 7 cycles" in title["text"]
    assert title["subtitle"][-1] == (
        "CSA alternatives per cycle: vosim CSA 12.0, CSA (paper) 9.0; paper 57"
    )
    assert "paper, cost (Fig. 3): minCost 1027.3, CSA 1352, minRuntime 1334.5" in title["subtitle"]


def _table1_2_rows(reps: int = 2) -> pd.DataFrame:
    rows = [
        {"table": table, "nodes": nodes, "interval": interval, "algorithm": algorithm}
        | {"label": LABELS[algorithm], "ms": 1.0 + k, "paper_ms": 10.0 + k, "ratio": 0.1}
        | {"slots": 500.0, "paper_slots": np.nan, "alternatives": 90.0, "paper_alternatives": 57.0}
        | {"csa_paper_alternatives": 100.0, "repetitions": reps}
        for table, nodes, interval in [("Table 1", 50, 600), ("Table 2", 100, 1200)]
        for k, algorithm in enumerate(TIME_ALGORITHMS)
    ]
    return pd.DataFrame(rows, columns=TABLE1_2_COLUMNS)


def test_table1_2_chart_plots_time_against_nodes_and_interval():
    spec = _table1_2_chart(_table1_2_rows()).to_dict()
    panels = spec["hconcat"]
    assert [p["encoding"]["x"]["field"] for p in panels] == ["nodes", "interval"]
    for name, panel in zip(("Table 1", "Table 2"), panels, strict=True):
        assert panel["transform"][0] == {"filter": f"(datum.table === '{name}')"}
        assert panel["transform"][1] == {"fold": ["ms", "paper_ms"], "as": ["series", "value"]}
        assert panel["encoding"]["y"]["field"] == "value"
        assert panel["encoding"]["y"]["scale"] == {"type": "log"}
        assert panel["encoding"]["strokeDash"]["field"] == "source"
    assert "mean of 2 domain(s) per point" in spec["title"]["subtitle"][0]


def test_table1_2_chart_draws_one_paper_line_per_paper_algorithm():
    data = _data(_table1_2_chart(_table1_2_rows()).to_dict())
    for row in data:  # the procedures sharing the paper's figures get no dashed line of their own
        if row["algorithm"] in PAPER_PROCEDURES:
            assert row["paper_ms"] is None
        else:
            assert row["paper_ms"] == 10.0 + TIME_ALGORITHMS.index(row["algorithm"])
    assert len(data) == 2 * len(TIME_ALGORITHMS)
