"""The compiled passes of ``P_a^w``: a window's chains gathered per task length, then the product.

Hand-computed on two nodes; the bit-for-bit check against the plain path over random
schedules is in ``test_utilization_schedule.py``.
"""

import numpy as np
import pytest

from vosim.market.chain_maths import normal_cdf
from vosim.market.event_chains import EventChain
from vosim.market.utilization_schedule import UtilizationSchedule
from vosim.market.window_availability_kernels import gather, product, release_z


def _schedule() -> UtilizationSchedule:
    # node 0: a local job on [100, 150) with no phases; node 1: one allocated around 80 (sd 10)
    return UtilizationSchedule.from_chains(
        2,
        [(0, EventChain(100, 150)), (1, EventChain(100, 150, alloc_time=80, alloc_sd=10))],
        global_p=[0.1, 0.2],
    )


def _gather(sched, node, length, start):
    order, offsets = sched._pairs_by_resource
    tab = sched._table
    return gather(
        np.asarray(node, dtype=np.int64), np.asarray(length, dtype=float), start, order,
        offsets, sched.chain_of, tab.start, tab.end, tab.alloc_time, tab.alloc_sd,
        tab.has_alloc, tab.has_release,
    )  # fmt: skip


def test_tasks_are_grouped_by_length_ascending_with_their_chains():
    sched = _schedule()
    node_offsets, nodes, chain_offsets, q, at, z, release, chain, x = _gather(
        sched, [1, 0], [50.0, 20.0], 0.0
    )
    assert node_offsets.tolist() == [0, 1, 2]  # node 0's task first: the shorter
    assert nodes.tolist() == [0, 1] and chain_offsets.tolist() == [0, 1, 2]
    # chain 0 (node 0) lies after [0, 20): q = 1 with nothing to compute; chain 1 (node 1)
    # is in its allocation phase over [0, 50): z = (80 - 50) / 10
    assert q[0] == 1.0
    assert at.tolist() == [1] and z.tolist() == [3.0]
    assert release.size == chain.size == x.size == 0


def test_a_window_on_a_chain_s_execution_is_never_available():
    sched = _schedule()
    _, _, _, q, at, *_ = _gather(sched, [0], [200.0], 0.0)  # [0, 200) meets [100, 150)
    assert q.tolist() == [0.0] and at.size == 0


def test_the_release_phase_takes_the_log_of_the_time_since_the_chain_s_end():
    # a local job on [0, 100) released around 140 (lognormal median 40, sd 10)
    sched = UtilizationSchedule.from_chains(
        1, [(0, EventChain(0, 100, release_time=140, release_sd=10))]
    )
    *_, at, z, release, chain, x = _gather(sched, [0], [30.0], 130.0)
    assert at.tolist() == [0] and release.tolist() == [0] and chain.tolist() == [0]
    assert x.tolist() == [30.0]  # 130 - 100
    tab = sched._table
    release_z(np.log(x), release, chain, tab.log_median, tab.shape, z)
    assert z[0] == pytest.approx((np.log(30.0) - np.log(40.0)) / tab.shape[0], rel=1e-15)
    assert z[0] < 0  # before the median release: more likely still busy


def test_the_product_takes_each_group_s_global_and_chain_factors():
    sched = _schedule()
    node_offsets, nodes, chain_offsets, q, at, z, *_ = _gather(sched, [1, 0], [50.0, 20.0], 0.0)
    value = product(node_offsets, nodes, chain_offsets, q, at, normal_cdf(z), sched.global_p)
    expected = 0.9 * 1.0 * (0.8 * float(normal_cdf(3.0)))
    assert value == pytest.approx(expected, rel=1e-15)
    assert value == sched.tasks_availability(np.array([1, 0]), np.array([50.0, 20.0]), 0.0)
