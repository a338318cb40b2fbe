"""The live page's pure chart and table functions (vosim.ui.components), without a browser.

The ``*_chart`` / ``thin`` / ``summary_lines`` functions on a small LiveModel (the VO
Preferences batches, 1,000 jobs on 100 nodes, a full run in about 2 s).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("solara")  # vosim.ui.components imports solara and mesa's Solara helpers

import altair as alt
from live_cases import _model

from vosim.errors import ParameterError
from vosim.market.schedule import LOCAL
from vosim.ui import components as ui
from vosim.ui.scenarios import (
    BY_USER_CRITERION,
    TRACE_SCENARIOS,
    LiveModel,
)

ACTIVITY_COLUMNS = ["time", "queue_length", "utilization", "completed"]


# -- thin ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 5, 10, 11, 399, 400, 401, 1000, 1237])
@pytest.mark.parametrize("limit", [2, 4, 7, 400])
def test_thin_keeps_last_and_at_most_limit(n, limit):
    frame = pd.DataFrame({"t": np.arange(n)})
    out = ui.thin(frame, limit)
    assert len(out) <= limit
    assert len(out) == min(n, limit)
    if n:
        assert out["t"].iloc[-1] == n - 1
        assert out["t"].iloc[0] == 0
    assert out["t"].is_monotonic_increasing
    assert out["t"].is_unique


def test_thin_default_limit():
    frame = pd.DataFrame({"t": np.arange(5 * ui.MAX_POINTS)})
    assert len(ui.thin(frame)) == ui.MAX_POINTS
    small = frame.iloc[:10]
    assert ui.thin(small) is small


# -- gantt -----------------------------------------------------------------------------------
def _expected_intervals(model: LiveModel) -> set[tuple[int, float, float, int]]:
    now, until = float(model.time), float(model.time) + model.scheduling_interval
    rows = set()
    for owner in model.owners:
        node, a, b, tag = owner.intervals()
        for k, s, e, t in zip(node.tolist(), a.tolist(), b.tolist(), tag.tolist(), strict=True):
            if e > now and s < until:  # a VO interval's tag is its job's index; shown: its id
                job = LOCAL if t == LOCAL else model.jobs[t].job_id
                rows.add((int(k), max(s, now), min(e, until), int(job)))
    return rows


@pytest.mark.parametrize("steps", [0, 4])
def test_gantt_frame_is_the_busy_intervals_of_the_scheduling_interval(steps):
    model = _model()
    for _ in range(steps):
        model.step()
    now, until = float(model.time), float(model.time) + model.scheduling_interval
    frame = ui.gantt_frame(model)
    assert list(frame.columns) == [
        "node", "start", "end", "kind", "job", "user", "cost", "slot_cost"
    ]  # fmt: skip
    # Before the first cycle the owners have not drawn their local load yet: nothing is busy.
    assert (len(frame) > 0) == bool(steps)
    assert (frame["start"] >= now).all()
    assert (frame["end"] <= until).all()
    assert (frame["start"] < frame["end"]).all()
    assert frame["node"].between(0, model.node_count - 1).all()
    got = set(
        zip(
            frame["node"].astype(int),
            frame["start"],
            frame["end"],
            frame["job"].astype(int),
            strict=True,
        )
    )
    assert len(got) == len(frame)
    assert got == _expected_intervals(model)
    local = frame["job"] == LOCAL
    assert (frame.loc[local, "kind"] == "local").all()
    assert (frame.loc[local, "user"] == "local job").all()
    assert frame.loc[local, "cost"].isna().all()
    vo = frame[~local]
    assert (vo["kind"] == "VO").all()
    by_id = {j.job_id: j for j in model.jobs}  # the scenario's ids are distinct
    assert len(by_id) == len(model.jobs)
    for row in vo.itertuples():
        job = by_id[int(row.job)]
        assert row.user == f"user {job.user}"
        assert row.cost == pytest.approx(model.ledger[job.index].window_cost)
    price = model.node_price[frame["node"].to_numpy()]
    np.testing.assert_allclose(frame["slot_cost"], price * (frame["end"] - frame["start"]))
    if steps:
        assert len(vo) > 0  # the VO has reserved windows after a few cycles


def test_gantt_chart_before_any_cycle():
    model = _model()
    chart = ui.gantt_chart(model)
    assert chart.layer[0].data.empty
    assert chart.to_dict()["layer"][0]["encoding"]["color"]["scale"]["domain"] == ["local job"]


def test_gantt_chart_holds_the_frame():
    model = _model()
    for _ in range(3):
        model.step()
    chart = ui.gantt_chart(model)
    assert isinstance(chart, alt.LayerChart)
    bars, rule = chart.layer
    pd.testing.assert_frame_equal(bars.data, ui.gantt_frame(model))
    assert rule.data["t"].tolist() == [model.time]
    spec = chart.to_dict()
    assert f"{model.time:,.0f}" in str(spec["title"])
    x = spec["layer"][0]["encoding"]["x"]
    assert x["scale"]["domain"] == [model.time, model.time + model.scheduling_interval]
    colours = spec["layer"][0]["encoding"]["color"]["scale"]["domain"]
    users = sorted(u for u in bars.data["user"].unique() if u != "local job")
    assert colours == ["local job", *users]


# -- activity --------------------------------------------------------------------------------
def _activity_frames(chart: alt.VConcatChart) -> list[pd.DataFrame]:
    assert isinstance(chart, alt.VConcatChart)
    assert len(chart.vconcat) == 3
    return [_data(sub, chart) for sub in chart.vconcat]


def _data(sub, parent) -> pd.DataFrame:
    """A sub-chart's data, or its concat parent's (altair lifts data shared by all parts)."""
    data = sub.data if isinstance(sub.data, pd.DataFrame) else parent.data
    assert isinstance(data, pd.DataFrame)
    return data


def test_activity_chart_before_any_cycle():
    model = _model()
    for data in _activity_frames(ui.activity_chart(model)):
        assert list(data.columns) == ACTIVITY_COLUMNS
        assert len(data) == 1
        assert data["time"].tolist() == [0.0]


def test_activity_chart_matches_cycle_frame():
    model = _model()
    for _ in range(5):
        model.step()
    expected = model.cycle_frame()[ACTIVITY_COLUMNS]
    assert len(expected) == 6
    for data in _activity_frames(ui.activity_chart(model)):
        pd.testing.assert_frame_equal(data, expected)


def test_activity_chart_thins_long_runs():
    model = LiveModel(workload=TRACE_SCENARIOS[1], users=3, owners=2, rng=1)
    model.advance((ui.MAX_POINTS + 60) * model.cycle_period)
    full = model.cycle_frame()[ACTIVITY_COLUMNS]
    assert len(full) > ui.MAX_POINTS
    for data in _activity_frames(ui.activity_chart(model)):
        assert len(data) == ui.MAX_POINTS
        pd.testing.assert_frame_equal(data.iloc[[-1]], full.iloc[[-1]])
        pd.testing.assert_frame_equal(data, full.loc[data.index])


# -- market and calibration --------------------------------------------------------------------
def test_market_chart_revenue_and_fairness():
    model = _model()
    for _ in range(8):
        model.step()
    chart = ui.market_chart(model)
    assert isinstance(chart, alt.HConcatChart)
    bars, right = chart.hconcat
    assert isinstance(bars.data, pd.DataFrame)
    assert bars.data["owner"].tolist() == [o.owner_id for o in model.owners]
    np.testing.assert_allclose(bars.data["revenue"], [o.revenue for o in model.owners])
    assert bars.data["revenue"].sum() > 0
    u, jain = right.vconcat
    for data in (_data(u, right), _data(jain, right)):
        assert list(data.columns) == ["time", "mean_user_evaluation", "jain"]
        assert len(data) >= 1
        assert not data["mean_user_evaluation"].isna().any()
        assert not data["jain"].isna().any()
        assert data["jain"].between(0, 1).all()


def test_network_chart_is_the_market_so_far():
    model = _model()
    for _ in range(8):
        model.step()
    chart = ui.network_chart(model)
    lines, dots, _ = chart.layer
    nodes = dots.data if isinstance(dots.data, pd.DataFrame) else chart.data
    assert (nodes["kind"] == "owner").sum() == len(model.owners)
    assert (nodes["kind"] == "user").sum() == len(model.users)
    assert lines.data["money"].sum() == pytest.approx(sum(o.revenue for o in model.owners))
    assert lines.data["money"].sum() > 0


def test_calibration_table_counts_every_window():
    model = _model(availability=True)
    for _ in range(6):
        model.step()
    attempts = model.attempt_frame()
    table = ui.calibration_table(model)
    assert list(table.columns) == ["predicted", "realised", "windows"]
    assert int(table["windows"].sum()) == (~attempts["moved"]).sum() > 0
    assert table["predicted"].between(0, 1).all()
    assert table["realised"].between(0, 1).all()
    chart = ui.calibration_chart(model)
    assert isinstance(chart, alt.LayerChart)
    pd.testing.assert_frame_equal(chart.layer[1].data, table)
    assert f"({len(attempts)} windows)" in str(chart.to_dict()["title"])


def test_calibration_table_empty_without_availability():
    model = _model()
    model.step()
    assert ui.calibration_table(model).empty


# -- summary ---------------------------------------------------------------------------------
def test_summary_lines_name_allocator_and_cycle():
    model = _model(allocator="amp")
    before = ui.summary_lines(model)
    labels = [label for label, _ in before]
    assert labels[:3] == ["scenario", "allocator", "cycle"]
    lines = dict(before)
    assert lines["allocator"] == "amp"
    assert lines["cycle"].startswith("0 ")
    assert "150" in lines["cycle"]
    assert lines["scenario"] == model.scenario_description
    assert lines["chosen combination"] == "none"
    model.step()
    after = dict(ui.summary_lines(model))
    assert after != lines
    assert after["cycle"].startswith(f"{model.metascheduler.cycles} ")
    assert after["cycle"].startswith("2 ")
    model.step()
    assert dict(ui.summary_lines(model))["cycle"].startswith("3 ")
    scheduled = [c for c in model.last_chosen]
    text = dict(ui.summary_lines(model))["chosen combination"]
    if scheduled:
        assert f"job {scheduled[0].job_id} " in text
    else:
        assert text == "none"


def test_summary_lines_by_user_criterion():
    model = _model()
    lines = dict(ui.summary_lines(model))
    assert lines["allocator"] == BY_USER_CRITERION
    assert "25 %" in lines["U_a"] and "cost" in lines["U_a"]
    a = lines["A (VO evaluation)"]
    assert a == "n/a" or a.endswith("%")
    assert not math.isnan(model.cycle_period)


def test_thin_needs_room_for_first_and_last_rows():
    with pytest.raises(ParameterError, match="got 1"):
        ui.thin(pd.DataFrame({"t": range(5)}), 1)
