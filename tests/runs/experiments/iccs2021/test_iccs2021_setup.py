"""ICCS 2021's environment, job and stated values (``vosim.runs.experiments.iccs2021.setup``)."""

from __future__ import annotations

import numpy as np
import pytest

from vosim.runs.experiments.iccs2021 import setup


def test_the_study_is_the_papers_section_4():
    # §4.2-4.3: 64 heterogeneous nodes, a job of 6 nodes for 200, t_k = 0..800, load 0.05
    assert (setup.NODES, setup.NODE_COUNT, setup.DURATION) == (64, 6, 200.0)
    assert (setup.INTERVAL, setup.GLOBAL_LOAD, setup.TABLE1_JOB_LOAD) == (800, 0.05, 0.5)
    assert setup.FIG3_PAPER_PEAK == (834.0, 0.93) and setup.FIG3_INTERVAL == 1200
    assert setup.FIG5_PAPER_AT_0 == (0.96, 0.87) and setup.FIG2_PAPER_KS == 0.14


def test_table1_rows_hold_the_papers_values():
    rows = {
        (m, scan, starts): (acc, speed) for m, scan, starts, _, acc, speed in setup._TABLE1_ROWS
    }
    assert rows[("knapsack_p", "full", None)] == (1.0, 1.0)
    assert rows[("knapsack_p", "starting points", 1)] == (0.8, 65.0)
    assert rows[("knapsack_p", "starting points", 50)] == (0.99, 6.8)
    assert rows[("greedy_united", "full", None)] == (0.953, 143.0)
    assert rows[("greedy_united", "starting points", 50)] == (0.94, 1000.0)
    knapsack_starts = [s for m, scan, s in rows if m == "knapsack_p" and scan == "starting points"]
    assert tuple(knapsack_starts) == setup.TABLE1_STARTS == (1, 5, 10, 20, 50, 100)
    # the paper's accuracy never falls as starting points are added
    accuracy = [rows[("knapsack_p", "starting points", s)][0] for s in knapsack_starts]
    assert accuracy == sorted(accuracy)
    # vosim's fast exact scan is not in the paper: no paper value, named as vosim's
    *_, label, acc, speed = setup._TABLE1_ROWS[-1]
    assert "vosim" in label and np.isnan(acc) and np.isnan(speed)


@pytest.mark.parametrize("interval", [100, setup.INTERVAL])
def test_environment_shapes_and_ranges(interval):
    p_avail, cost = setup.environment(np.random.default_rng(3), 0.5, interval=interval)
    assert p_avail.shape == (setup.NODES, interval + 1)
    assert ((p_avail >= 0) & (p_avail <= 1)).all()
    assert cost.shape == (setup.NODES,) and np.issubdtype(cost.dtype, np.integer)
    assert cost.min() >= setup.COST_RANGE[0] and cost.max() <= setup.COST_RANGE[1]


def test_environment_is_reproducible_with_a_seed():
    first = setup.environment(np.random.default_rng(7), 0.5, interval=50)
    again = setup.environment(np.random.default_rng(7), 0.5, interval=50)
    other = setup.environment(np.random.default_rng(8), 0.5, interval=50)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_job_load_empties_the_environment():
    # §4.2: at job-load 0 only the global load (0.05) occupies a node; at job-load 1 no window
    # exists at any t_k (every node's availability below FOUND_MIN)
    free, _ = setup.environment(np.random.default_rng(1), 0.0, interval=100)
    full, _ = setup.environment(np.random.default_rng(1), 1.0, interval=100)
    assert free.min() > 0.8 and free.mean() > 0.9
    assert full.max() < setup.FOUND_MIN
    half, _ = setup.environment(np.random.default_rng(1), 0.5, interval=100)
    assert full.mean() < half.mean() < free.mean()
