import numpy as np
import pandas as pd
import pytest

from vosim.analysis.charts import utilization_queue_chart
from vosim.analysis.metrics import _interval_set, bounded_slowdown, gini, jain_index, run_summary


def test_bounded_slowdown_threshold():
    assert bounded_slowdown([0.0], [1.0]).tolist() == [1.0]
    assert bounded_slowdown([95.0], [5.0]).tolist() == [10.0]  # (95+5)/max(5,10)
    assert bounded_slowdown([100.0], [100.0]).tolist() == [2.0]


def test_interval_set_matches_batsim_style():
    assert _interval_set([7, 0, 1, 2, 3]) == "0-3 7"
    assert _interval_set([]) == ""
    assert _interval_set([5]) == "5"


def test_run_summary_counts_and_utilization():
    jobs = pd.DataFrame(
        {
            "state": ["completed", "completed", "rejected", "unfinished"],
            "submission_time": [0.0, 0.0, 1.0, 2.0],
            "waiting_time": [0.0, 10.0, np.nan, np.nan],
            "execution_time": [100.0, 50.0, np.nan, np.nan],
            "finish_time": [100.0, 60.0, np.nan, np.nan],
            "node_time": [200.0, 50.0, np.nan, np.nan],
        }
    )
    s = run_summary(jobs, node_count=4, revenue=[1.0, 2.0])
    assert (s["completed"], s["rejected"], s["unfinished"]) == (2, 1, 1)
    assert s["utilization"] == 250.0 / 400.0
    assert s["mean_wait"] == 5.0
    assert s["owners_revenue"] == 3.0


def test_chart_thins_long_runs():
    cycles = pd.DataFrame({"time": np.arange(20000.0), "utilization": 0.5, "queue_length": 3})
    spec = utilization_queue_chart(cycles).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert len(rows) <= 4000


# -- fairness ------------------------------------------------------------------------------------


def test_jain_index_hand_cases():
    assert jain_index([2.0, 2.0, 2.0, 2.0]) == 1.0  # equal shares
    assert jain_index([1.0, 0.0]) == 0.5  # one of two holds everything: 1/k
    assert jain_index([1.0, 3.0]) == pytest.approx(16 / 20)  # (1+3)^2 / (2 * (1+9))
    assert np.isnan(jain_index([])) and np.isnan(jain_index([0.0, 0.0]))
    with pytest.raises(ValueError, match="-1"):
        jain_index([1.0, -1.0])


def test_gini_hand_cases():
    assert gini([7.0, 7.0, 7.0]) == 0.0
    assert gini([0.0, 10.0]) == pytest.approx(0.5)  # max for k = 2 is 1 - 1/2
    # |1-3| + |1-6| + |3-6| = 10, doubled over 2 k^2 mean = 2 * 9 * 10/3 -> 20 / 60
    assert gini([1.0, 3.0, 6.0]) == pytest.approx(20 / 60)
    with pytest.raises(ValueError, match="nan"):
        gini([1.0, float("nan")])


def test_bounded_slowdown_of_a_job_shorter_than_tau():
    # a 2 s job that waited 18 s: (18 + 2) / max(2, 10) = 2, not 10
    assert bounded_slowdown([18.0], [2.0], tau=10.0).tolist() == [2.0]
