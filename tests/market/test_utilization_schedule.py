"""Many resources' events, P_a of schedules and group dependencies (UtilizationSchedule)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from chain_oracle import (
    SETTINGS,
    durations,
    ref_availability,
    schedules,
    starts_lists,
)
from hypothesis import given
from hypothesis import strategies as st

from vosim.allocators.availability_problem import AvailabilityProblem, window_probability
from vosim.errors import ParameterError
from vosim.market.chain_maths import normal_cdf
from vosim.market.event_chains import (
    EventChain,
    allocation_event,
    availability,
    occupation_event,
    release_event,
)
from vosim.market.utilization_schedule import UtilizationSchedule


def test_worked_example_of_iccs2023_is_exactly_0_235():
    events = [release_event(545, 40, origin=450), allocation_event(844, 25)]
    assert availability(events, 545, 299, global_p=0.06) == 0.235
    # the same with the two full job chains of Fig. 1 / Fig. 2
    first = EventChain(133, 450, alloc_time=85, alloc_sd=16, release_time=545, release_sd=40)
    second = EventChain(921, 1150, alloc_time=844, alloc_sd=25, release_time=1250, release_sd=60)
    assert availability([first, second], 545, 299, global_p=0.06) == 0.235
    sched = UtilizationSchedule.from_chains(1, [(0, first), (0, second)], global_p=0.06)
    assert sched.p_avail(299, [545]).tolist() == [[0.235]]
    assert sched.window_availability([0], 545, 299) == 0.235
    assert sched.groups(545, 299)[1].tolist() == [0.235]


@given(schedules(), starts_lists, durations)
@SETTINGS
def test_schedule_p_avail_equals_scalar_loop(sched, starts, duration):
    got = sched.p_avail(duration, starts)
    assert got.shape == (sched.m, len(starts))
    for i in range(sched.m):
        want = [
            ref_availability(sched.chains_of(i), t, duration, [sched.global_p[i]]) for t in starts
        ]
        np.testing.assert_allclose(got[i], want, rtol=1e-11, atol=1e-14)


@given(schedules(), starts_lists, durations, durations)
@SETTINGS
def test_p_avail_is_a_probability_nonincreasing_in_duration(sched, starts, t1, t2):
    short, long = sorted((t1, t2))
    a, b = sched.p_avail(short, starts), sched.p_avail(long, starts)
    assert np.all((a >= 0) & (a <= 1)) and np.all((b >= 0) & (b <= 1))
    assert np.all(b <= a + 1e-15)


@given(schedules(), starts_lists, durations, st.randoms(use_true_random=False))
@SETTINGS
def test_p_avail_does_not_depend_on_the_order_of_starts(sched, starts, duration, rnd):
    perm = list(range(len(starts)))
    rnd.shuffle(perm)
    shuffled = [starts[j] for j in perm]
    assert np.array_equal(
        sched.p_avail(duration, shuffled), sched.p_avail(duration, starts)[:, perm]
    )


@given(schedules(), starts_lists, durations, st.randoms(use_true_random=False))
@SETTINGS
def test_p_avail_of_some_resources_is_their_rows_bit_for_bit(sched, starts, duration, rnd):
    rows = [i for i in range(sched.m) if rnd.random() < 0.5]
    rnd.shuffle(rows)
    got = sched.p_avail(duration, starts, rows)
    assert got.shape == (len(rows), len(starts))
    assert np.array_equal(got, sched.p_avail(duration, starts)[rows])


def test_p_avail_names_bad_resources():
    sched = UtilizationSchedule.from_chains(3)
    with pytest.raises(ParameterError, match=r"resources\[1\] = 3 is outside \[0, 3\)"):
        sched.p_avail(10.0, [0.0], [0, 3])
    with pytest.raises(ParameterError, match="must not repeat"):
        sched.p_avail(10.0, [0.0], [1, 1])


def test_far_from_every_event_p_a_is_the_product_of_global_events():
    chs = [
        EventChain(100, 200, alloc_time=90, alloc_sd=5, release_time=220, release_sd=6),
        allocation_event(5000, 20),
    ]
    sched = UtilizationSchedule.from_chains(2, [(0, c) for c in chs], global_p=[0.07, 0.2])
    p = sched.p_avail(50, [-1000.0, 2000.0, 3000.0])
    assert p[0].tolist() == [1 - 0.07] * 3  # exactly: negligible tails change no bit
    assert p[1].tolist() == [0.8] * 3


def test_empty_inputs():
    sched = UtilizationSchedule.from_chains(3, global_p=0.1)
    assert sched.p_avail(10, []).shape == (3, 0)
    assert sched.p_avail(10, [0, 5]).tolist() == [[0.9, 0.9]] * 3
    assert UtilizationSchedule.from_chains(0).p_avail(10, [1.0]).shape == (0, 1)
    assert availability([], [1.0, 2.0], 5).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("duration", [0, -1, math.nan, math.inf, "x"])
def test_bad_duration_is_named(duration):
    with pytest.raises(ParameterError, match="duration T"):
        availability([], [0.0], duration)
    with pytest.raises(ParameterError, match="duration T"):
        UtilizationSchedule.from_chains(1).p_avail(duration, [0.0])


def test_schedule_rejects_malformed_arrays():
    ok = dict(
        global_p=[0.0, 0.1],
        alloc_time=[math.nan],
        alloc_sd=[0.0],
        start=[0.0],
        end=[1.0],
        release_time=[math.nan],
        release_sd=[0.0],
        chain_of=[0],
        resource_of=[1],
    )
    UtilizationSchedule(**ok)
    bad = [
        (dict(global_p=[0.0, 1.5]), r"global_p\[1\] = 1.5"),
        (dict(global_p=[[0.0]]), "one-dimensional"),
        (dict(alloc_sd=[0.0, 1.0]), "alloc_sd must have the shape"),
        (dict(release_sd=[-3.0], release_time=[5.0]), "chain 0: release_sd"),
        (dict(resource_of=[2]), r"resource_of\[0\] = 2"),
        (dict(chain_of=[1]), r"chain_of\[0\] = 1"),
        (dict(chain_of=[0, 0], resource_of=[1, 1]), "twice"),
        (dict(chain_of=[], resource_of=[]), "chain 0 applies to no resource"),
        (dict(chain_of=[0.5]), "integer"),
        (dict(chain_of=[0, 0]), "one shape"),
    ]
    for change, match in bad:
        with pytest.raises(ParameterError, match=match):
            UtilizationSchedule(**{**ok, **change})
    with pytest.raises(ParameterError, match=r"shape \(3,\)"):
        UtilizationSchedule.from_chains(3, global_p=[0.1, 0.2])
    with pytest.raises(ParameterError, match="m must be"):
        UtilizationSchedule.from_chains(-1)
    with pytest.raises(TypeError, match="EventChain"):
        UtilizationSchedule.from_chains(1, [(0, "job")])


def test_schedule_accessors():
    job = EventChain(0, 10, release_time=12, release_sd=1)
    sched = UtilizationSchedule.from_chains(3, [([0, 2], job), (1, occupation_event(5, 6))])
    assert sched.m == 3 and sched.n_chains == 2
    assert sched.chains_of(2) == [job] == sched.chains_of(0)
    assert hash(sched.chain(0)) == hash(job)
    assert sched.chain(1).end == 6.0
    more = sched.with_chains([(1, allocation_event(50, 2))])
    assert more.n_chains == 3 and len(more.chains_of(1)) == 2 and sched.n_chains == 2
    assert "m=3" in repr(sched)
    with pytest.raises(ParameterError, match="resource 3"):
        sched.chains_of(3)


def shared_example() -> UtilizationSchedule:
    a = EventChain(0, 80, release_time=100, release_sd=10)  # shared by 0 and 2
    b = EventChain(0, 90, release_time=110, release_sd=10)  # shared by 2 and 4
    far = EventChain(0, 1, release_time=2, release_sd=0.1)  # shared by 1 and 3, long over
    return UtilizationSchedule.from_chains(
        6,
        [([0, 2], a), ([2, 4], b), ([1, 3], far), (5, allocation_event(160, 5))],
        global_p=[0.1, 0.0, 0.2, 0.0, 0.05, 0.0],
    )


def test_groups_link_shared_active_chains_transitively():
    sched = shared_example()
    group, group_p = sched.groups(100, 50)
    assert group.tolist() == [0, 1, 0, 2, 0, 3]  # numbered by first appearance
    q_a = 0.5
    q_b = 1 - float(sched.chain(1).p_occupied([100])[0])
    assert group_p[0] == pytest.approx(q_a * q_b * 0.9 * 0.8 * 0.95, rel=1e-14)
    assert group_p[1:3].tolist() == [1.0, 1.0]  # the far shared chain links nothing
    assert group_p[3] == pytest.approx(1 - float(normal_cdf((150 - 160) / 5)), rel=1e-14)
    prob = AvailabilityProblem(cost=[1] * 6, group=group, group_p=group_p, n=3)
    # a window taking the whole group gets the exact value
    assert window_probability(prob, [0, 2, 4]) == pytest.approx(
        sched.window_availability([0, 2, 4], 100, 50), rel=1e-14
    )


def test_groups_of_a_subset_and_singletons():
    sched = shared_example()
    group, group_p = sched.groups(100, 50, resources=[4, 0, 5])
    assert group.tolist() == [0, 1, 2]  # 0 and 4 are linked only through 2, left out
    p = sched.p_avail(50, [100.0])[[4, 0, 5], 0]
    np.testing.assert_allclose(group_p, p, rtol=1e-14)
    with pytest.raises(ParameterError, match=r"resources\[1\] = 9"):
        sched.groups(100, 50, resources=[0, 9])
    with pytest.raises(ParameterError, match="repeat"):
        sched.groups(100, 50, resources=[0, 0])
    with pytest.raises(ParameterError, match="scalar"):
        sched.groups([100, 200], 50)


def test_shared_chain_counts_once_in_a_window():
    job = EventChain(0, 80, release_time=100, release_sd=10)
    sched = UtilizationSchedule.from_chains(2, [([0, 1], job)])
    assert sched.window_availability([0, 1], 100, 20) == 0.5  # not 0.25
    assert sched.window_availability([], 100, 20) == 1.0
    assert sched.p_avail(20, [100.0]).tolist() == [[0.5], [0.5]]


@given(schedules(max_m=6), st.integers(-50, 500).map(float), durations, st.data())
@SETTINGS
def test_group_model_is_exact_on_whole_groups_and_never_optimistic(sched, t, duration, data):
    group, group_p = sched.groups(t, duration)
    assert group.shape == (sched.m,) and np.all((group_p >= 0) & (group_p <= 1))
    assert sorted(set(group.tolist())) == list(range(group_p.size))
    prob = AvailabilityProblem(cost=np.ones(sched.m), group=group, group_p=group_p, n=1)
    touched = data.draw(st.lists(st.integers(0, group_p.size - 1), unique=True, max_size=4))
    whole = np.flatnonzero(np.isin(group, touched))
    exact = sched.window_availability(whole, t, duration)
    assert window_probability(prob, whole) == pytest.approx(exact, rel=1e-12, abs=1e-15)
    some = data.draw(st.lists(st.integers(0, sched.m - 1), unique=True, max_size=4))
    assert window_probability(prob, some) <= sched.window_availability(some, t, duration) + 1e-15


@given(schedules(max_m=6), st.integers(-50, 500).map(float), durations, st.data())
@SETTINGS
def test_window_availability_is_the_plain_product_bit_for_bit(sched, t, duration, data):
    """Oracle: every chain's q, then the product over the selection's chains (scan of pairs)."""
    sel = data.draw(st.lists(st.integers(0, sched.m - 1), unique=True, max_size=sched.m))
    for r in range(sched.m):  # the per-resource index is the scan of every pair
        assert np.array_equal(sched.chains_on(r), sched.chain_of[sched.resource_of == r])
    q = sched._chain_q(t, duration)  # every chain
    chains = np.unique(sched.chain_of[np.isin(sched.resource_of, sel)])
    plain = float(np.prod(1.0 - sched.global_p[sel]) * np.prod(q[chains]))
    assert sched.window_availability(sel, t, duration) == plain


@given(schedules(max_m=6), st.integers(-50, 500).map(float), st.data())
@SETTINGS
def test_tasks_availability_compiled_is_the_plain_product_bit_for_bit(sched, t, data):
    """Tasks of several lengths (one factor per length): the compiled passes against the
    plain loop over lengths of :meth:`window_availability`, to the last bit."""
    from vosim.core.code_path import REFERENCE_ENV

    node = np.array(
        data.draw(st.lists(st.integers(0, sched.m - 1), unique=True, max_size=sched.m)),
        dtype=np.int64,
    )
    length = np.array(data.draw(st.lists(durations, min_size=node.size, max_size=node.size)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(REFERENCE_ENV, "1")
        plain = sched.tasks_availability(node, length, t)
        patch.setenv(REFERENCE_ENV, "0")
        fast = sched.tasks_availability(node, length, t)
    oracle = 1.0
    for d in sorted(set(length.tolist())):
        oracle *= sched.window_availability(node[length == d], t, d)
    assert fast == plain == oracle
