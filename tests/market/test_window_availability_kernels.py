"""The compiled passes of ``P_a^w``: a window's chains gathered per task length, then the product.

Hand-computed on two nodes; the bit-for-bit check against the plain path over random
schedules is in ``test_utilization_schedule.py``.
"""

import numpy as np
import pytest

from vosim.market.chain_maths import normal_cdf
from vosim.market.event_chains import EventChain
from vosim.market.utilization_schedule import UtilizationSchedule
from vosim.market.window_availability_kernels import gather, product


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
    lengths, node_offsets, nodes, chain_offsets, q, alloc_at, alloc_z, at, chain = _gather(
        sched, [1, 0], [50.0, 20.0], 0.0
    )
    assert lengths.tolist() == [20.0, 50.0]  # node 0's task first: the shorter
    assert node_offsets.tolist() == [0, 1, 2] and nodes.tolist() == [0, 1]
    assert chain_offsets.tolist() == [0, 1, 2]
    # chain 0 (node 0) lies after [0, 20): q = 1 with nothing to compute; chain 1 (node 1)
    # is in its allocation phase over [0, 50): z = (80 - 50) / 10
    assert q[0] == 1.0
    assert alloc_at.tolist() == [1] and alloc_z.tolist() == [3.0]
    assert at.size == chain.size == 0


def test_a_window_on_a_chain_s_execution_is_never_available():
    sched = _schedule()
    *_, q, alloc_at, _, at, _ = _gather(sched, [0], [200.0], 0.0)  # [0, 200) meets [100, 150)
    assert q.tolist() == [0.0] and alloc_at.size == at.size == 0


def test_the_product_takes_each_group_s_global_and_chain_factors():
    sched = _schedule()
    _, node_offsets, nodes, chain_offsets, q, alloc_at, alloc_z, _, _ = _gather(
        sched, [1, 0], [50.0, 20.0], 0.0
    )
    q[alloc_at] = normal_cdf(alloc_z)
    value = product(node_offsets, nodes, chain_offsets, q, sched.global_p)
    expected = 0.9 * 1.0 * (0.8 * float(normal_cdf(3.0)))
    assert value == pytest.approx(expected, rel=1e-15)
    assert value == sched.tasks_availability(np.array([1, 0]), np.array([50.0, 20.0]), 0.0)
