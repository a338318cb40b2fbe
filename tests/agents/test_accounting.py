"""Money and resource time are conserved: users pay for what ran, nothing is sold twice.

A user pays for what ran (price x used time per slot); a window released before its
end (early end, interruption, cancellation) is paid only for the time used; owners' revenue is
the sum of the payments exactly; ``tasks.parquet`` has one row per task and tasks on a resource
never overlap each other nor the owners' local jobs.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.market.swf import swf_frame
from vosim.model import VOModel
from vosim.policies.base import policy_names

TASK_COLUMNS = [
    "job_id",
    "job",
    "user",
    "attempt",
    "resource",
    "node",
    "owner",
    "start",
    "end",
    "price",
    "cost",
]


def check_conservation(model: VOModel) -> None:
    """Revenue = sum of task costs = sum of job costs; tasks never overlap; spans are valid."""
    jobs, tasks = model.job_frame(), model.task_frame()
    assert list(tasks.columns) == TASK_COLUMNS
    revenue = sum(o.revenue for o in model.owners)
    assert tasks["cost"].sum() == pytest.approx(revenue, rel=1e-9, abs=1e-9)
    assert jobs["cost"].sum() == pytest.approx(revenue, rel=1e-9, abs=1e-9)
    assert (tasks["end"] >= tasks["start"]).all()
    np.testing.assert_allclose(tasks["cost"], tasks["price"] * (tasks["end"] - tasks["start"]))
    # each owner earned what its resources' tasks cost
    by_owner = tasks.groupby("owner")["cost"].sum()
    for owner in model.owners:
        assert owner.revenue == pytest.approx(by_owner.get(owner.owner_id, 0.0), abs=1e-6)
    # no resource-second sold twice: per resource, tasks and local jobs are disjoint
    spans: dict[int, list] = {}
    for r, a, b, j in tasks[["resource", "start", "end", "job_id"]].itertuples(index=False):
        spans.setdefault(int(r), []).append((a, b, j))
    if not model.availability:  # with availability, local jobs may take a node (failures)
        for owner in model.owners:
            for node, a, b in owner.local_jobs:
                spans.setdefault(int(node), []).append((a, b, "local"))
    for r, items in spans.items():
        items.sort(key=lambda x: (x[0], x[1]))
        for (a0, b0, w0), (a1, _, w1) in pairwise(items):
            assert a1 >= b0 - 1e-6, f"resource {r}: {w0} [{a0}, {b0}) overlaps {w1} at {a1}"
    # a completed job's last attempt has one task per requested slot, inside its window
    for job in model.jobs:
        if model.ledger[job.index].state == "completed":
            mine = tasks[
                (tasks["job"] == job.index) & (tasks["attempt"] == model.ledger[job.index].attempt)
            ]
            assert len(mine) == job.n
            assert (mine["user"] == job.user).all() and (mine["job_id"] == job.job_id).all()
            assert model.ledger[job.index].paid == pytest.approx(mine["cost"].sum(), rel=1e-12)
            assert model.ledger[job.index].paid <= model.ledger[job.index].window_cost * (1 + 1e-9)


@pytest.mark.parametrize("policy", policy_names())
def test_every_policy_conserves_money_and_time(policy):
    # the availability knapsack's exact time scan is a DP over slots x tasks x budget units:
    # on Gaia's 2,004 processors one wide job takes ~100 s, so it runs on whole nodes here
    nodes = {"resources": "nodes"} if policy == "availability" else {}
    model = VOModel(trace="UniLu-Gaia-2014-2", jobs=250, policy=policy, rng=11, **nodes)
    model.run()
    assert model.completed > 100
    check_conservation(model)


@pytest.mark.parametrize(
    "options",
    [
        # interrupted windows pay what ran (a horizon: with failures, draining takes long; one
        # day already has hundreds of interruptions and both completed and unfinished jobs)
        {"availability": True, "global_load": 0.3, "horizon": 86400.0},
        # per-period accounts; NASA's 128-node jobs starve behind the owners' local jobs: a
        # short patience ends the drain (30 days of idle cycles) after several budget periods
        {"budget_period": 86400.0, "budget_allowance": 0.5, "patience": 172800.0},
        # prices change between reservation and end (short patience: as above)
        {"pricing_policy": "demand", "patience": 172800.0},
        {"machine": True, "policy": "easy", "cycle_period": 0},
    ],
    ids=["availability", "accounts", "demand", "machine"],
)
def test_conservation_under_each_market_feature(options):
    model = VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=200, rng=5, **options)
    model.run()
    check_conservation(model)
    if options.get("availability"):
        assert model.job_frame()["failures"].sum() > 0  # the case is exercised


def test_an_early_end_pays_only_the_time_used():
    """One job asks 1,000 s on 4 identical processors and runs 100 s: it pays 4 x 100 s."""
    trace = swf_frame(
        np.array([0.0]),
        np.array([4]),
        np.array([1000.0]),
        np.array([100.0]),
        np.array([1]),
        nodes=8,
        note="test",
    )
    model = VOModel(trace=trace, machine=True, policy="easy", cycle_period=0, rng=1)
    model.run()
    (job,) = model.jobs
    price = model.node_price[0]
    assert model.ledger[job.index].state == "completed"
    assert model.ledger[job.index].window_cost == pytest.approx(4 * 1000.0 * price)
    assert model.ledger[job.index].paid == pytest.approx(4 * 100.0 * price)
    assert model.owners[0].revenue == pytest.approx(model.ledger[job.index].paid)
    tasks = model.task_frame()
    assert len(tasks) == 4 and (tasks["end"] - tasks["start"] == 100.0).all()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    k=st.integers(5, 40),
    policy=st.sampled_from(["css", "easy", "conservative"]),
    accounts=st.booleans(),
)
def test_random_traces_conserve_money_and_time(seed, k, policy, accounts):
    rng = np.random.default_rng(seed)
    nodes = 16
    requested = rng.integers(10, 5000, size=k).astype(float)
    trace = swf_frame(
        np.sort(rng.integers(0, 20000, size=k)).astype(float),
        rng.integers(1, nodes + 1, size=k),
        requested,
        np.floor(requested * rng.uniform(0.0, 1.0, size=k)),  # early ends, some at once
        rng.integers(1, 4, size=k),
        nodes=nodes,
        note="hypothesis",
    )
    options = {"budget_period": 3600.0, "budget_allowance": 2.0} if accounts else {}
    model = VOModel(trace=trace, policy=policy, owners=3, rng=seed, **options)
    model.run()
    check_conservation(model)
