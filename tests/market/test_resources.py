"""Processors are the resources: a job of ``p`` processors gets ``p`` slots.

A trace's ``MaxProcs`` processors are grouped into its ``MaxNodes`` physical nodes, whose
processors share performance, price, owner and local load; ``resources="nodes"`` keeps the
whole-node mapping ``n = ceil(p * N / MaxProcs)``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest
from kept_windows import keep_windows

from vosim import ParameterError, VOModel
from vosim.market.local_trace import TraceLocalFlow
from vosim.market.nodes import processor_counts
from vosim.market.swf import swf_frame
from vosim.market.workload import jobs_from_trace, node_counts

GAIA = "UniLu-Gaia-2014-2"


def hand_trace(procs, max_procs=8, max_nodes=2, time=600.0, gap=60.0):
    """Jobs of ``procs`` processors each, ``time`` long, every ``gap``, on MaxProcs/MaxNodes."""
    k = len(procs)
    frame = swf_frame(
        np.arange(k) * gap,
        np.asarray(procs),
        np.full(k, time),
        np.full(k, time),
        np.arange(k) % 2 + 1,
        nodes=max_nodes,
        note="hand-made",
    )
    frame.attrs["header"] = {"MaxProcs": str(max_procs), "MaxNodes": str(max_nodes)}
    return frame


def by_node(model, values):
    """The distinct ``values`` (one per resource) of each physical node."""
    groups = defaultdict(set)
    for resource, host in enumerate(model.resource_node.tolist()):
        groups[host].add(values[resource])
    return groups


# -- the domain --------------------------------------------------------------------------------
def test_a_nodes_processors_share_performance_price_and_owner():
    model = VOModel(trace=GAIA, jobs=50, resources="processors", rng=3)
    assert model.resources == "processors"
    assert VOModel(trace=GAIA, jobs=5, rng=3).resources == "processors"  # the default
    assert (model.physical_node_count, model.node_count) == (151, 2004)
    assert np.array_equal(np.bincount(model.resource_node), processor_counts(151, 2004))
    owner = [o.owner_id for o in model.owner_of_node]
    for values in (model.node_performance, model.node_price, owner):
        assert all(len(v) == 1 for v in by_node(model, list(values)).values())
    for node in model.physical_nodes:  # the physical node's own fields
        mine = model.resource_node == node.id
        assert set(model.node_price[mine]) == {node.price}
        assert set(model.node_performance[mine]) == {node.performance}
    # each owner holds whole physical nodes
    for o in model.owners:
        hosts = set(model.resource_node[o.node_ids].tolist())
        assert (
            np.isin(model.resource_node, list(hosts)) == np.isin(model.node_ids, o.node_ids)
        ).all()


def test_nodes_option_counts_physical_nodes():
    model = VOModel(trace=GAIA, jobs=5, nodes=10, resources="processors", rng=1)
    assert model.physical_node_count == 10
    assert model.node_count == round(10 * 2004 / 151)  # 132.7 -> 133 processors
    assert set(np.bincount(model.resource_node).tolist()) == {13, 14}
    whole = VOModel(trace=GAIA, jobs=5, nodes=10, resources="nodes", rng=1)
    assert whole.node_count == whole.physical_node_count == 10


def test_resources_must_be_a_known_kind():
    with pytest.raises(ParameterError, match="resources"):
        VOModel(trace=hand_trace([1]), resources="cores")
    with pytest.raises(ParameterError, match="resources"):
        node_counts(hand_trace([1]), 2, 8, "cores")


# -- the jobs --------------------------------------------------------------------------------------
def test_one_processor_job_gets_one_slot():
    # 2 nodes of 4 processors; jobs of 1, 4, 3 and 9 (> 8) processors
    model = VOModel(
        trace=hand_trace([1, 4, 3, 9]), owners=2, local_load=None, resources="processors", rng=2
    )
    assert model.node_count == 8 and model.resource_node.tolist() == [0] * 4 + [1] * 4
    assert [j.n for j in model.jobs] == [1, 4, 3, 9]
    assert model.jobs[3].reason == "needs 9 processors, more than the domain's 8"
    model.run()
    frame = model.job_frame()
    assert frame["state"].tolist() == ["completed"] * 3 + ["rejected"]
    assert frame["requested_number_of_resources"].tolist() == [1, 4, 3, 9]
    first = model.jobs[0]
    assert (
        len(model.ledger[first.index].nodes) == 1 and frame.loc[0, "allocated_resources"].isdigit()
    )
    assert frame.loc[0, "node_time"] == pytest.approx(
        model.ledger[first.index].finish - model.ledger[first.index].start
    )
    tasks = model.task_frame()
    assert tasks.groupby("job_id").size().tolist() == [1, 4, 3]
    assert (tasks["node"] == model.resource_node[tasks["resource"]]).all()


def test_nodes_mode_keeps_the_ceil_mapping():
    trace = hand_trace([1, 4, 3, 5, 9])
    model = VOModel(trace=trace, owners=2, local_load=None, resources="nodes", rng=2)
    expected = [math.ceil(p * 2 / 8) for p in (1, 4, 3, 5, 9)]  # [1, 1, 1, 2, 3]
    assert model.node_count == 2 and [j.n for j in model.jobs] == expected
    assert model.jobs[4].reason == "needs 3 nodes, more than the domain's 2"
    # the function's default is the whole-node mapping
    jobs = jobs_from_trace(
        trace,
        domain_nodes=2,
        max_procs=8,
        reference_performance=6.0,
        max_performance=10.0,
        scheduling_interval=86400.0,
    )
    assert [j.n for j in jobs] == expected
    model.run()
    tasks = model.task_frame()
    assert (tasks["node"] == tasks["resource"]).all()


def test_modes_coincide_with_one_processor_per_node():
    trace = hand_trace([1, 2, 3], max_procs=4, max_nodes=4)
    runs = [VOModel(trace=trace, owners=2, resources=r, rng=5) for r in ("processors", "nodes")]
    for m in runs:
        m.run()
    a, b = (m.job_frame() for m in runs)
    pd.testing.assert_frame_equal(a, b)


# -- local load ------------------------------------------------------------------------------------
def test_a_local_job_occupies_all_processors_of_its_node():
    procs, nodes = (
        VOModel(
            trace=hand_trace([1]),
            owners=2,
            local_load=(0.2, 0.4),
            local_model="interval",
            resources=r,
            rng=9,
        )
        for r in ("processors", "nodes")
    )
    for m in (procs, nodes):
        for o in m.owners:
            o.prepare(3 * m.scheduling_interval)
    for po, no in zip(procs.owners, nodes.owners, strict=True):
        # the same draws per physical node; each local job on each of its node's processors
        expected = sorted(
            (k, a, b) for h, a, b in no.local_jobs for k in np.flatnonzero(procs.resource_node == h)
        )
        assert sorted(po.local_jobs) == expected and expected
        span = 3 * procs.scheduling_interval
        assert po.local_busy(0.0, span) == pytest.approx(4 * no.local_busy(0.0, span))


def test_a_traced_local_job_occupies_its_whole_node():
    # local trace: one 1-processor job [0, 100) and one 5-processor job from 200 on 2 nodes of 4
    local = hand_trace([1, 5], max_procs=8, max_nodes=2, time=100.0, gap=200.0)
    model = VOModel(
        trace=hand_trace([1]),
        owners=1,
        local_trace=local,
        local_model="interval",
        resources="processors",
        rng=1,
    )
    assert isinstance(model.local_flow, TraceLocalFlow)
    owner = model.owners[0]
    owner.prepare(model.scheduling_interval)
    resources = defaultdict(set)  # (start, end) -> resources of that local job
    for k, a, b in owner.local_jobs:
        resources[a, b].add(int(k))
    hosts = {key: set(model.resource_node[sorted(v)].tolist()) for key, v in resources.items()}
    assert hosts == {(0.0, 100.0): {0}, (200.0, 300.0): {0, 1}}  # ceil(5 * 2 / 8) = 2 nodes
    for key, v in resources.items():  # every processor of those nodes
        assert v == set(np.flatnonzero(np.isin(model.resource_node, list(hosts[key]))).tolist())
    assert len(owner.local_jobs) == 4 + 8


# -- the whole model ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def gaia_run():
    model = VOModel(trace=GAIA, jobs=250, resources="processors", rng=7)
    model.kept = keep_windows(model)
    model.run()
    return model


def test_no_processor_is_double_booked(gaia_run):
    model = gaia_run
    tasks = model.task_frame()
    assert len(tasks) and tasks["resource"].between(0, model.node_count - 1).all()
    busy = defaultdict(list)
    for r, a, b, job in tasks[["resource", "start", "end", "job_id"]].itertuples(index=False):
        busy[r].append((a, b, job))
    for owner in model.owners:
        for k, a, b in owner.local_jobs:
            busy[k].append((a, b, "local"))
    for resource, spans in busy.items():
        spans.sort(key=lambda x: (x[0], x[1]))
        for (a0, b0, w0), (a1, _, w1) in pairwise(spans):
            assert a1 >= b0 - 1e-6, f"resource {resource}: {w0} [{a0}, {b0}) overlaps {w1}"


def test_jobs_get_p_distinct_processors_within_budget(gaia_run):
    model = gaia_run
    completed = [j for j in model.jobs if model.ledger[j.index].state == "completed"]
    assert len(completed) > 200
    assert any(j.n == 1 for j in completed)
    for job in completed:
        w, _ = model.kept[job.index]
        assert job.n == job.requested_processors
        assert len({s.node for s in w.slots}) == job.n == len(w.slots)
        assert w.cost <= model.ledger[job.index].budget * (1 + 1e-9)
        for s in w.slots:  # each slot's price and performance are its physical node's
            host = model.physical_nodes[model.resource_node[s.node]]
            assert (s.price, s.performance) == (host.price, host.performance)
