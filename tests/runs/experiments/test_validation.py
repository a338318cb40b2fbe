"""The validation ladder: recorded waits, the traced machine, one VO feature a step; the local
load beside its matched controls."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pandas as pd
import pytest

from vosim import VOModel
from vosim.errors import TraceFormatError
from vosim.market.swf import swf_frame
from vosim.market.synthetic import load_trace
from vosim.runs.experiments import run_experiment
from vosim.runs.experiments.validation import (
    COLUMNS,
    intervals,
    local_load_rows,
    log_ticks,
    recorded_summary,
    step_order,
)

NASA = "NASA-iPSC-1993-3.1-cln"


def test_recorded_row_is_the_traces_own_record():
    # 3 jobs on 4 processors: waits 0, 10, 20 s; runs 100, 5, 40 s on 4, 1, 2 processors
    frame = swf_frame(
        np.array([0.0, 50.0, 100.0]),
        np.array([4, 1, 2]),
        np.array([100.0, 5.0, 40.0]),
        np.array([100.0, 5.0, 40.0]),
        np.array([1, 2, 1]),
        nodes=4,
        note="test",
    )
    frame["wait_time"] = [0, 10, 20]
    s = recorded_summary(frame)
    assert s["jobs"] == 3 and s["completed"] == 3
    assert s["mean_wait"] == pytest.approx(10.0)
    # bounded slowdown max(1, (w + r) / max(r, 10)): 1, 15 / 10, 60 / 40
    assert s["mean_bounded_slowdown"] == pytest.approx((1 + 1.5 + 1.5) / 3)
    # busy 400 + 5 + 80 processor-seconds over 4 processors x (160 - 0) s
    assert s["utilization"] == pytest.approx(485 / (4 * 160))
    frame["wait_time"] = -1  # unknown everywhere: nothing to report
    with pytest.raises(TraceFormatError, match="wait"):
        recorded_summary(frame)


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    out = tmp_path_factory.mktemp("validation")
    run_experiment("validation", out, quick=True, seed=2, trace=NASA, jobs=80)
    return pd.read_parquet(out / "validation.parquet"), out


def test_every_step_runs_once_in_order(ladder):
    table, out = ladder
    assert list(table.columns) == list(COLUMNS)
    assert table["step"].tolist() == step_order()
    recorded = table.iloc[0]  # NASA-iPSC records no waits (field 3 is -1)
    assert recorded["jobs"] == 0 and np.isnan(recorded["mean_wait"])
    assert (table["jobs"].iloc[1:] == 80).all()
    assert {p.name for p in out.iterdir()} >= {"validation.csv", "validation.html"}
    machine = table[table["step"].str.startswith("machine")]
    assert (machine["completed_share"] == 1.0).all()  # the traced machine runs every job
    assert not machine["mean_wait_lower_bound"].any()


def test_the_css_step_is_the_default_scenario(ladder):
    """Step '+ CSS' adds nothing beyond vosim run's defaults: the same numbers."""
    table, _ = ladder
    row = table.set_index("step").loc["+ CSS"]
    model = VOModel(trace=NASA, jobs=80, rng=2)
    model.run()
    s = model.summary(model.job_frame(), model.cycle_frame())
    assert row["completed_share"] == s["completed"] / 80
    assert row["mean_wait"] == pytest.approx(s["mean_wait"], rel=1e-12)
    assert row["utilization"] == pytest.approx(s["utilization"], rel=1e-12)


def test_step_order_puts_the_controls_after_the_local_load():
    order = step_order()
    at = order.index("+ local load")
    assert order[at + 1 : at + 5] == [
        "control: fewer processors",
        "control: added jobs",
        "local length x0.5",
        "local length x2",
    ]
    assert order[0] == "recorded" and len(order) == len(set(order))


def test_intervals_are_t_intervals_in_ladder_order():
    table = pd.DataFrame(
        {
            "step": ["+ CSS"] * 3 + ["machine FCFS"] * 2 + ["recorded"],
            "mean_wait": [10.0, 12.0, 14.0, 1.0, 3.0, 5.0],
        }
    )
    frame = intervals(table, "mean_wait")
    assert frame["step"].tolist() == ["recorded", "machine FCFS", "+ CSS"]
    assert frame["n"].tolist() == [1, 2, 3]
    # + CSS: mean 12, sd 2, t(0.975, 2) = 4.302653: half width 4.302653 * 2 / sqrt(3)
    css = frame.iloc[2]
    assert (css["mean"], css["low"], css["high"]) == pytest.approx((12.0, 7.031725, 16.968275))
    # machine FCFS: mean 2, sd sqrt(2), t(0.975, 1) = 12.706205: the low bound stops at 0
    fcfs = frame.iloc[1]
    assert (fcfs["mean"], fcfs["low"], fcfs["high"]) == pytest.approx((2.0, 0.0, 14.706205))
    recorded = frame.iloc[0]  # one repetition: no interval
    assert recorded["mean"] == 5.0 and np.isnan(recorded["high"])


def test_log_ticks_label_every_decade_up_to_the_largest_value():
    assert log_ticks(17_148.0) == [0.0, 1.0, 10.0, 100.0, 1_000.0, 10_000.0, 100_000.0]
    assert log_ticks(100.0) == [0.0, 1.0, 10.0, 100.0]
    assert log_ticks(75.3) == [0.0, 1.0, 10.0, 100.0]
    assert log_ticks(0.5) == log_ticks(float("nan")) == [0.0, 1.0]


# -- the local load beside its matched controls --------------------------------------------------
# The local load costs the VO what its processor time costs (Gaia's first 5,000 jobs, 3 seeds).
#
# The "+ local load" step of the validation ladder beside its matched controls: the same
# processor time removed as capacity, and added to the queue as trace-like jobs; and the local
# jobs' median length halved and doubled at the same share. A local-load model that makes jobs
# wait far longer than its processor time explains, or whose length moves the headline, fails.

SEEDS = (1, 2, 3)


def _waits(seed: int) -> dict[str, float]:
    trace = load_trace("UniLu-Gaia-2014-2", 5000, np.random.default_rng(seed))
    return {step: s["mean_wait"] for step, s in local_load_rows(trace, seed).items()}


@pytest.fixture(scope="module")
def waits() -> dict[str, float]:
    # 15 runs of 5,000 jobs: both cores; spawned, since forking this multi-threaded process
    # (numba's and Arrow's threads) may deadlock the child
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=spawn) as pool:
        per_seed = list(pool.map(_waits, SEEDS))
    return {step: float(np.mean([w[step] for w in per_seed])) for step in per_seed[0]}


def test_local_load_is_within_2x_of_both_matched_controls(waits):
    local = waits["+ local load"]
    for control in ("control: fewer processors", "control: added jobs"):
        ratio = local / waits[control]
        assert 0.5 <= ratio <= 2.0, f"{control}: {waits[control]:,.0f} s, local {local:,.0f} s"


def test_local_job_length_halved_or_doubled_moves_the_wait_by_under_25_percent(waits):
    local = waits["+ local load"]
    for step in ("local length x0.5", "local length x2"):
        assert abs(waits[step] / local - 1) < 0.25, f"{step}: {waits[step]:,.0f} s vs {local:,.0f}"
