import numpy as np
import pandas as pd
import pytest

from vosim.agents.ledger import _node_strings
from vosim.analysis.metrics import (
    bounded_slowdown,
    gini,
    jain_index,
    run_summary,
    vo_evaluation_summary,
)


def test_bounded_slowdown_threshold():
    assert bounded_slowdown([0.0], [1.0]).tolist() == [1.0]
    assert bounded_slowdown([95.0], [5.0]).tolist() == [10.0]  # (95+5)/max(5,10)
    assert bounded_slowdown([100.0], [100.0]).tolist() == [2.0]


class _Owner:
    def __init__(self, owner_id: int):
        self.owner_id = owner_id


@pytest.mark.parametrize("chunk", [1, 2, 4096])
def test_interval_sets_and_owners_match_batsim_style(monkeypatch, chunk):
    """Jobs 0, 2 and 3 ran on nodes 7,0,1,2,3 / 5 / 8,9; job 1 never ran; 2 nodes per owner.

    The same strings whatever the number of jobs made at a time (a chunk's boundary may fall
    on a job without a window).
    """
    monkeypatch.setattr("vosim.agents.ledger._STRING_CHUNK", chunk)
    ids = np.array([9, 7, 0, 1, 5, 2, 3, 8])  # any order, the windows' ids interleaved
    job = np.array([3, 0, 0, 0, 2, 0, 0, 3])
    owners = [_Owner(k // 2) for k in range(10)]
    sets, held = _node_strings(ids, job, 4, owners)
    assert sets == ["0-3 7", "", "5", "8-9"]
    assert held == ["0 1 3", "", "2", "4"]


def test_run_summary_counts_every_job_that_entered_the_queue():
    """Three jobs entered the queue; one never ran and left after 1,000 s (a lower bound).

    By hand: waits 0, 10 and 1000 (mean 336.67, a lower bound); completed only 5. Bounded
    slowdowns (tau = 10): job 0 (0 + 100) / 100 = 1; job 1 (10 + 50) / 50 = 1.2; job 3
    (1000 + 20) / 20 = 51 (its run time from the trace). A rejected job and one withdrawn
    before submission (no ``left_time``) never entered. Utilization over 4 nodes from t = 0
    to t = 1002: VO 250, local 150 node-seconds.
    """
    jobs = pd.DataFrame(
        {
            "state": ["completed", "completed", "rejected", "withdrawn", "withdrawn"],
            "user": [1, 2, 1, 2, 1],
            "submission_time": [0.0, 0.0, 1.0, 2.0, 3.0],
            "starting_time": [0.0, 10.0, np.nan, np.nan, np.nan],
            "execution_time": [100.0, 50.0, np.nan, np.nan, np.nan],
            "finish_time": [100.0, 60.0, np.nan, np.nan, np.nan],
            "run_time": [100.0, 50.0, 5.0, 20.0, 7.0],
            "left_time": [np.nan, np.nan, np.nan, 1002.0, np.nan],
            "node_time": [200.0, 50.0, np.nan, np.nan, np.nan],
            "user_evaluation": [0.0, 1.0, np.nan, np.nan, np.nan],
        }
    )
    s = run_summary(jobs, node_count=4, revenue=[1.0, 2.0], local_busy=150.0)
    assert (s["completed"], s["rejected"], s["withdrawn"], s["unfinished"]) == (2, 1, 2, 0)
    assert s["jobs_entered"] == 3
    assert s["mean_wait"] == pytest.approx((0 + 10 + 1000) / 3)
    assert s["mean_wait_lower_bound"] is True
    assert s["mean_wait_completed"] == 5.0
    assert s["mean_bounded_slowdown"] == pytest.approx((1 + 1.2 + 51) / 3)
    assert s["mean_bounded_slowdown_completed"] == pytest.approx(1.1)
    span = 4 * 1002.0
    assert s["utilization"] == pytest.approx(250.0 / span)
    assert s["utilization_local"] == pytest.approx(150.0 / span)
    assert s["utilization_total"] == pytest.approx(400.0 / span)
    # users' mean BSLD: user 1 -> 1, user 2 -> (1.2 + 51) / 2; Jain over those two
    assert s["users_jain_slowdown"] == pytest.approx(jain_index([1.0, 26.1]))
    assert s["users_jain_slowdown_completed"] == pytest.approx(jain_index([1.0, 1.2]))
    assert s["owners_revenue"] == 3.0


def test_waits_per_users_criterion_by_hand():
    """Waits 0, 10 and 1000 (the last a lower bound, left without a start); chosen delays
    0, 4 and 0. Criteria: cost, finish, cost; no job of 'runtime' entered (NaN)."""
    jobs = pd.DataFrame(
        {
            "state": ["completed", "completed", "withdrawn"],
            "user": [1, 2, 1],
            "criterion": ["cost", "finish", "cost"],
            "submission_time": [0.0, 0.0, 2.0],
            "starting_time": [0.0, 10.0, np.nan],
            "execution_time": [100.0, 50.0, np.nan],
            "finish_time": [100.0, 60.0, np.nan],
            "run_time": [100.0, 50.0, 20.0],
            "left_time": [np.nan, np.nan, 1002.0],
            "node_time": [200.0, 50.0, np.nan],
            "chosen_delay": [0.0, 4.0, np.nan],
        }
    )
    s = run_summary(jobs, 4, [0.0], criteria=("finish", "runtime", "cost"))
    assert (s["jobs_entered_cost"], s["jobs_entered_finish"], s["jobs_entered_runtime"]) == (
        2, 1, 0,
    )  # fmt: skip
    assert s["mean_wait_cost"] == 500.0 and s["mean_queue_wait_cost"] == 500.0
    assert s["mean_chosen_delay_cost"] == 0.0
    assert (s["mean_wait_finish"], s["mean_chosen_delay_finish"]) == (10.0, 4.0)
    assert s["mean_queue_wait_finish"] == 6.0
    assert np.isnan(s["mean_wait_runtime"]) and np.isnan(s["mean_queue_wait_runtime"])
    assert "jobs_entered_availability" not in s  # not a criterion of this run
    assert "mean_wait_cost" not in run_summary(jobs, 4, [0.0])  # criteria not given


def test_vo_evaluation_summary_skips_cycles_without_a_choice():
    cycles = pd.DataFrame(
        {
            "user_evaluation": [np.nan, 0.5, 0.2, 0.0],  # three cycles compared alternatives
            "vo_evaluation": [np.nan, 40.0, 80.0, np.nan],  # the last had no choice
        }
    )
    s = vo_evaluation_summary(cycles)
    assert s["mean_vo_evaluation"] == 60.0
    assert s["vo_choice_share"] == pytest.approx(2 / 3)


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


def test_a_run_still_going_has_every_job_in_a_state_of_the_table():
    """Mid-run, jobs pending, waiting or scheduled keep their state (no missing values)."""
    from vosim.model import VOModel

    model = VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=40, rng=2)
    for _ in range(5):
        model.step()
    states = model.job_frame()["state"]
    assert states.notna().all()
    assert set(states.astype(str)) >= {"pending"}
    assert (states.astype(str) == [model.ledger[job.index].state for job in model.jobs]).all()
