"""The resource owner: its view of the domain's busy time, local jobs, revenue, leaving."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vosim.agents.owner import ResourceOwnerAgent
from vosim.model import VOModel

DAY = 86400.0


@pytest.fixture
def owner() -> ResourceOwnerAgent:
    """The first owner of a small model with no local load and fixed prices, before any cycle."""
    model = VOModel(jobs=20, nodes=8, owners=2, local_load=(0, 0), rng=1)
    owner = model.owners[0]
    assert isinstance(owner, ResourceOwnerAgent)
    assert owner.intervals()[0].size == 0 and owner.revenue == 0.0
    return owner


def test_without_local_load_the_flow_is_known_for_ever_and_prices_stay(owner):
    assert owner.local_load is None
    assert owner.known_until == math.inf
    assert owner.reprice(DAY, DAY) is None  # no pricing rule: fixed prices
    owner.prepare(DAY)
    assert owner.model.busy_time.rows == 0  # nothing generated
    assert owner.local_busy(0.0, DAY) == 0.0


def test_local_busy_counts_each_resource_clipped_to_the_period(owner):
    two = owner.node_ids[:2]
    owner.run_local(two, 10.0, 30.0, tag=-1)
    owner.run_local(owner.node_ids[2:3], 100.0, 110.0, tag=-2)
    assert owner.local_busy(0.0, 1000.0) == 2 * 20.0 + 10.0
    assert owner.local_busy(0.0, 20.0) == 2 * 10.0
    assert owner.local_busy(25.0, 105.0) == 2 * 5.0 + 5.0
    assert owner.local_busy(30.0, 100.0) == 0.0  # between the jobs
    assert owner.local_jobs == [
        (int(two[0]), 10.0, 30.0),
        (int(two[1]), 10.0, 30.0),
        (int(owner.node_ids[2]), 100.0, 110.0),
    ]
    node, _, _, tag = owner.intervals()
    assert sorted(node.tolist()) == sorted([*two.tolist(), int(owner.node_ids[2])])
    assert sorted(tag.tolist()) == [-2, -1, -1]  # each local job's own tag


def test_an_owner_reads_its_own_nodes_rows_of_the_domains_busy_time(owner):
    """A window over two owners is written once; each owner sees its part, shortened too."""
    busy, other = owner.model.busy_time, owner.model.owners[1]
    mine, theirs = owner.node_ids[:2], other.node_ids[:1]
    busy.reserve(np.concatenate([mine, theirs]), 50.0, np.full(3, 150.0), 7)
    node, start, end, tag = owner.intervals()
    assert node.tolist() == mine.tolist()
    assert (start == 50.0).all() and (end == 150.0).all() and (tag == 7).all()
    assert other.intervals()[0].tolist() == theirs.tolist()
    busy.release(7, np.concatenate([mine, theirs]), np.array([120.0, 50.0, 150.0]), 60.0)
    node, _, end, _ = owner.intervals()  # early end; never started (gone)
    assert dict(zip(node.tolist(), end.tolist(), strict=True)) == {int(mine[0]): 120.0}
    assert other.intervals()[2].tolist() == [150.0]  # ran to the end


def test_revenue_is_the_sum_of_the_payments(owner):
    for amount in (1.5, 0.0, 2.25):
        owner.earn(amount)
    assert owner.revenue == 3.75


@pytest.mark.parametrize(("threshold", "leaves"), [(1.5, False), (2.5, True)])
def test_an_owner_leaves_when_its_revenue_per_node_and_day_falls_below_the_threshold(
    owner, threshold, leaves
):
    n = len(owner.nodes)
    owner.earn(2.0 * n)  # 2 cost units per node over the first day
    assert owner.review(0.5 * DAY, DAY, threshold=100.0) is False  # not a whole window yet
    assert owner.review(DAY, DAY, threshold) is leaves
    assert owner.active is not leaves
    if leaves:
        assert owner.left_at == DAY
        assert owner.review(2 * DAY, DAY, threshold=1e9) is False  # gone: decides no more
    else:
        assert math.isnan(owner.left_at)
        # nothing earned over the second day: 0 per node-day, below any positive threshold
        assert owner.review(2 * DAY, DAY, threshold) is True
        assert owner.left_at == 2 * DAY


def test_local_job_arrays_are_the_local_jobs_known(owner):
    owner.run_local(owner.node_ids[:2], 10.0, 30.0, tag=-1)
    node, start, end = owner.local_job_arrays(0.0)
    assert node.tolist() == owner.node_ids[:2].tolist()
    np.testing.assert_array_equal(start, [10.0, 10.0])
    np.testing.assert_array_equal(end, [30.0, 30.0])
