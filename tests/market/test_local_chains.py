"""Owners' local jobs kept as event chains across cycles.

The incremental schedule (:class:`LocalJobChains`, :func:`local_chains_schedule`, built
through :meth:`UtilizationSchedule.trusted`) must equal, array for array and bit for bit, the
validated :func:`local_jobs_schedule` of the same jobs: interruption draws depend on the set
and order of each node's chains.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.errors import ParameterError
from vosim.market.chain_maths import ChainColumns
from vosim.market.uncertainty import (
    LocalJobChains,
    local_chains_schedule,
    local_jobs_schedule,
    sample_interruptions,
)
from vosim.market.utilization_schedule import UtilizationSchedule

FIELDS = ("alloc_time", "alloc_sd", "start", "end", "release_time", "release_sd")


def assert_same(got: UtilizationSchedule, want: UtilizationSchedule) -> None:
    """Every array of the two schedules (fields, memberships, derived table) is identical."""
    for name in (*FIELDS, "global_p", "chain_of", "resource_of"):
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, strict=True, err_msg=name)
    for name, a, b in zip(got._table._fields, got._table, want._table, strict=True):
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, strict=True, err_msg=name)


def reference(m, owners, now, gp):
    """The old way: per owner a list of tuples filtered each call, then validated."""
    kept = [[j for j in jobs if j[2] + (j[2] - j[1]) > now] for jobs in owners]
    flat = [j for jobs in kept for j in jobs]
    node = np.array([j[0] for j in flat], dtype=np.int64)
    start = np.array([j[1] for j in flat], dtype=float)
    end = np.array([j[2] for j in flat], dtype=float)
    return kept, local_jobs_schedule(m, node, start, end, gp)


times = st.floats(0.0, 1e7, allow_nan=False)
job = st.tuples(st.integers(0, 5), times, st.floats(1e-3, 1e6, allow_nan=False)).map(
    lambda t: (t[0], t[1], t[1] + t[2])
)
#: per cycle and per owner, the local jobs placed; cycles at increasing times
cycles = st.lists(
    st.tuples(st.floats(0.0, 1e6), st.lists(st.lists(job, max_size=6), min_size=2, max_size=2)),
    min_size=1,
    max_size=6,
)


@settings(max_examples=60, deadline=None)
@given(cycles=cycles)
def test_incremental_schedule_equals_the_validated_one(cycles):
    m, gp = 6, np.linspace(0.0, 0.3, 6)
    stores = [LocalJobChains(), LocalJobChains()]
    owners: list[list[tuple[int, float, float]]] = [[], []]
    now = 0.0
    for step, placed in cycles:
        now += step
        for store, jobs, new in zip(stores, owners, placed, strict=True):
            for j in new:
                store.add(*j)
                jobs.append(j)
        for s in stores:
            s.update(now)
        owners, want = reference(m, owners, now, gp)
        assert_same(local_chains_schedule(m, stores, gp), want)
        assert [s.jobs() for s in stores] == owners


def test_same_interruption_draws():
    rng = np.random.default_rng(3)
    start = rng.uniform(0, 1000, 200)
    node, end = rng.integers(0, 4, 200), start + rng.uniform(1, 300, 200)
    store = LocalJobChains()
    for k, a, b in zip(node.tolist(), start.tolist(), end.tolist(), strict=True):
        store.add(k, a, b)
    store.update(0.0)
    gp = np.full(4, 0.1)
    fast = local_chains_schedule(4, [store], gp)
    slow = local_jobs_schedule(4, node, start, end, gp)
    for k in range(4):
        a, b = (
            sample_interruptions(
                s, np.array([k]), 400.0, np.array([700.0]), np.random.default_rng(k)
            )
            for s in (fast, slow)
        )
        assert np.array_equal(a, b)
    np.testing.assert_array_equal(
        fast.p_avail(50.0, [0, 300, 900]), slow.p_avail(50.0, [0, 300, 900])
    )


def test_version_changes_only_when_the_jobs_do():
    store = LocalJobChains()
    v0 = store.version
    store.update(10.0)
    assert store.version == v0 and len(store) == 0
    store.add(1, 0.0, 100.0)  # forgotten from 200 on
    assert len(store) == 1
    store.update(10.0)
    v1 = store.version
    assert v1 != v0
    store.update(199.0)
    assert store.version == v1
    store.update(200.0)
    assert store.version != v1 and store.jobs() == []


def test_schedule_is_reused_while_nothing_changes():
    from vosim import VOModel

    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=3, availability=True, local_load=(0.2, 0.4), rng=1
    )
    ex = model.metascheduler.execution
    for o in model.owners:
        o.prepare(model.scheduling_interval)
    first = ex.utilization_schedule(0.0)
    assert ex.utilization_schedule(0.0) is first
    for o in model.owners:
        o.prepare(5 * model.scheduling_interval)  # more local jobs placed
    second = ex.utilization_schedule(0.0)
    assert second is not first and second.n_chains > first.n_chains
    node, a, b = (
        np.concatenate(c)
        for c in zip(*(o.local_job_arrays(0.0) for o in model.owners), strict=True)
    )
    assert_same(second, local_jobs_schedule(model.node_count, node, a, b, model.node_global_p))


def test_trusted_columns_and_errors():
    cols = ChainColumns.build(
        [100.0, 0.0], [5.0, 1.0], [115.0, 3.0], [170.0, 8.0], [200.0, 10.0], [10.0, 0.2]
    )
    assert len(cols) == 2 and len(cols.take(np.array([True, False]))) == 1
    both = ChainColumns.concatenate([cols, cols.take(np.array([False, True]))])
    assert both.release_time.tolist() == [200.0, 10.0, 10.0]
    with pytest.raises(ParameterError, match="global_p"):
        local_chains_schedule(3, [LocalJobChains()], np.zeros(2))
    assert local_chains_schedule(2, [], np.zeros(2)).n_chains == 0


def test_an_invalid_local_job_is_refused_once_when_first_seen():
    store = LocalJobChains()
    store.add(0, 5.0, 5.0)  # empty: no execution
    with pytest.raises(ParameterError, match="start < end"):
        store.update(0.0)
    with pytest.raises(ParameterError, match="1-D of one shape"):
        ChainColumns.build([1.0], [0.0], [1.0, 2.0], [3.0], [4.0], [0.0])
