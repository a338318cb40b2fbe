"""Jobs not started within the patience are withdrawn; a drained run ends every job in one state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.agents.ledger import JOB_STATES
from vosim.market.swf import swf_frame
from vosim.model import VOModel

DAY = 86400.0
#: Job 2's arrival. A run advances in slices of its last submission / 200 (at least 1 s): an
#: arrival at t = 1 s made 8.6 million 1-s slices over the 100 days (~20 s a run).
ARRIVAL = 3600.0


def blocked_trace():
    """Job 1 takes all 4 processors for 100 days; job 2 (1 processor) arrives at t = 1 h."""
    return swf_frame(
        np.array([0.0, ARRIVAL]),
        np.array([4, 1]),
        np.array([100 * DAY, 10.0]),
        np.array([100 * DAY, 10.0]),
        np.array([1, 2]),
        nodes=4,
        note="test",
    )


def test_a_job_waiting_past_its_patience_is_withdrawn_at_its_deadline():
    model = VOModel(trace=blocked_trace(), machine=True, policy="fcfs", cycle_period=0, rng=1)
    model.run()
    first, second = model.jobs
    assert model.ledger[first.index].state == "completed"
    assert model.ledger[second.index].state == "withdrawn"
    assert (
        model.ledger[second.index].left_time == ARRIVAL + 30 * DAY
    )  # the default patience, 30 days
    assert "patience" in model.ledger[second.index].reason
    frame = model.job_frame()
    assert frame["left_time"].iloc[1] == ARRIVAL + 30 * DAY
    summary = model.summary()
    assert summary["withdrawn"] == 1 and summary["jobs_entered"] == 2
    assert summary["mean_wait"] == pytest.approx(30 * DAY / 2)  # (0 + 30 days) / 2
    assert summary["mean_wait_lower_bound"] is True
    assert summary["mean_wait_completed"] == 0.0


def test_without_patience_the_job_waits_and_completes():
    model = VOModel(
        trace=blocked_trace(), machine=True, policy="fcfs", cycle_period=0, patience=None, rng=1
    )
    model.run()
    assert [model.ledger[j.index].state for j in model.jobs] == ["completed", "completed"]
    assert model.ledger.start[1] == 100 * DAY


def test_a_horizon_leaves_jobs_unfinished_at_its_time():
    model = VOModel(
        trace=blocked_trace(), machine=True, policy="fcfs", cycle_period=0, horizon=DAY, rng=1
    )
    model.run()
    assert [model.ledger[j.index].state for j in model.jobs] == ["unfinished", "unfinished"]
    assert [model.ledger[j.index].left_time for j in model.jobs] == [DAY, DAY]


@pytest.mark.parametrize(
    "options",
    [
        {"horizon": math.inf},  # the default VO, drained
        {"patience": 2 * DAY, "policy": "easy", "horizon": math.inf},
        {"user_exit_satisfaction": 0.9, "horizon": math.inf},  # later jobs withdrawn
        {"horizon": 5 * DAY},
    ],
    ids=["drain", "easy-patience", "users-leave", "horizon"],
)
def test_every_job_ends_in_exactly_one_state(options):
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=300, rng=3, **options)
    model.run()
    states = [model.ledger[job.index].state for job in model.jobs]
    assert set(states) <= set(JOB_STATES)
    frame = model.job_frame()
    counts = frame["state"].value_counts()
    assert counts.sum() == len(model.jobs) == 300
    assert counts["completed"] == model.completed
    assert (
        counts["rejected"] == model.ledger.rejected
        and counts["withdrawn"] == model.ledger.withdrawn
    )
    if math.isinf(options["horizon"]):
        assert counts["unfinished"] == 0  # a drained run ends every job
    else:
        assert counts["unfinished"] > 0
    left = frame["state"].isin(["withdrawn", "unfinished"])
    entered = frame["left_time"].notna()
    assert (frame.loc[~left, "left_time"].isna()).all()
    assert (frame.loc[entered, "left_time"] >= frame.loc[entered, "submission_time"]).all()
    if "user_exit_satisfaction" in options:
        assert counts["withdrawn"] > 0
