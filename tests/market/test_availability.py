"""Tests of utilization events, P_a(r, t, T) and groups."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtr

from vosim.allocators.availability_problem import AvailabilityProblem, window_probability
from vosim.errors import ParameterError
from vosim.market.availability import (
    EventChain,
    UtilizationSchedule,
    allocation_event,
    availability,
    lognormal_shape,
    normal_cdf,
    occupation_event,
    release_event,
)

SETTINGS = settings(max_examples=60, deadline=None)

# --------------------------------------------------------------------------------------------
# An independent scalar reference: the paper's definitions with math.erfc, one value at a time.


def ref_step_cdf(d: float, sd: float) -> float:
    """Phi(d / sd), with the step limit for sd = 0."""
    if sd == 0:
        return 1.0 if d > 0 else (0.5 if d == 0 else 0.0)
    return 0.5 * math.erfc(-d / (sd * math.sqrt(2)))


def ref_shape(median: float, sd: float) -> float:
    r = sd / median
    return math.sqrt(math.log((1 + math.sqrt(1 + 4 * r * r)) / 2))


def ref_release_sf(ch: EventChain, s: float) -> float:
    """P(R > s) for s >= end."""
    x = s - ch.end
    if x == 0:
        return 1.0
    median = ch.release_time - ch.end
    return 1.0 - ref_step_cdf(math.log(x) - math.log(median), ref_shape(median, ch.release_sd))


def ref_sup_po(ch: EventChain, t: float, duration: float) -> float:
    """sup of the chain's P_o over [t, t + T), by the rules of ICCS 2023 §2.1."""
    u = t + duration
    if u <= ch.start:
        return 0.0 if math.isnan(ch.alloc_time) else ref_step_cdf(u - ch.alloc_time, ch.alloc_sd)
    if t >= ch.end:
        return 0.0 if math.isnan(ch.release_time) else ref_release_sf(ch, t)
    return 1.0


def ref_availability(chains, t, duration, global_p=()) -> float:
    out = 1.0
    for p in global_p:
        out *= 1.0 - p
    for ch in chains:
        out *= 1.0 - ref_sup_po(ch, t, duration)
    return out


# --------------------------------------------------------------------------------------------
# Strategies

times = st.integers(0, 400).map(float)
sds = st.one_of(st.just(0.0), st.integers(1, 60).map(float))


@st.composite
def chains(draw) -> EventChain:
    kind = draw(st.sampled_from(["chain", "alloc", "occupation", "release", "bare"]))
    if kind == "alloc":
        return allocation_event(draw(times), draw(sds))
    a = draw(times)
    b = a + draw(st.integers(1, 150))
    if kind == "occupation":
        return occupation_event(a, b)
    if kind == "release":
        return release_event(b + draw(st.integers(1, 80)), draw(sds), origin=b)
    alloc = draw(st.one_of(st.none(), st.integers(-50, 0)))
    release = draw(st.one_of(st.none(), st.integers(1, 80)))
    return EventChain(
        start=a,
        end=b,
        alloc_time=math.nan if alloc is None else a + alloc,
        alloc_sd=draw(sds),
        release_time=math.nan if release is None else b + release,
        release_sd=draw(sds),
    )


@st.composite
def schedules(draw, max_m=5, max_chains=8):
    m = draw(st.integers(1, max_m))
    items = []
    for _ in range(draw(st.integers(0, max_chains))):
        members = draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=3, unique=True))
        items.append((members, draw(chains())))
    gp = draw(st.lists(st.integers(0, 20).map(lambda v: v / 100), min_size=m, max_size=m))
    return UtilizationSchedule.from_chains(m, items, global_p=gp)


starts_lists = st.lists(st.integers(-100, 700).map(float), min_size=1, max_size=25)
durations = st.integers(1, 300).map(float)


# --------------------------------------------------------------------------------------------
# normal_cdf and the lognormal parametrisation


def test_normal_cdf_matches_scipy_ndtr():
    z = np.concatenate([np.linspace(-40, 40, 20001), [-1e300, 1e300, -8.5, 8.5, 0.0]])
    got, want = normal_cdf(z), ndtr(z)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert normal_cdf(0.0) == 0.5
    assert normal_cdf(np.inf) == 1.0 and normal_cdf(-np.inf) == 0.0
    assert np.isnan(normal_cdf(np.nan))
    assert normal_cdf(8.5) == 1.0  # within 2**-54 of 1: the cut-off used by p_avail is exact
    assert normal_cdf(np.zeros((2, 3))).shape == (2, 3)


@given(st.floats(0.1, 1e4), st.floats(0.0, 1e4))
@SETTINGS
def test_lognormal_shape_reproduces_the_standard_deviation(median, sd):
    s = lognormal_shape(median, sd)
    var = median**2 * math.exp(s * s) * math.expm1(s * s)
    assert math.sqrt(var) == pytest.approx(sd, rel=1e-9, abs=1e-12)


def test_lognormal_shape_rejects_bad_input():
    with pytest.raises(ParameterError, match="median_offset"):
        lognormal_shape(0.0, 1.0)
    with pytest.raises(ParameterError, match="-1"):
        lognormal_shape(10.0, -1.0)


# --------------------------------------------------------------------------------------------
# Events


def test_expected_times_have_occupation_one_half():
    # ICCS 2023 Fig. 1: P_o(85) = P_o(545) = P_o(844) = P_o(1250) = 0.5
    first = EventChain(133, 450, alloc_time=85, alloc_sd=16, release_time=545, release_sd=40)
    second = EventChain(921, 1150, alloc_time=844, alloc_sd=25, release_time=1250, release_sd=60)
    assert first.p_occupied([85, 545]).tolist() == [0.5, 0.5]
    assert second.p_occupied([844, 1250]).tolist() == [0.5, 0.5]
    assert first.p_occupied([133, 449.9]).tolist() == [1.0, 1.0]
    assert allocation_event(10, 3).p_occupied([10]).tolist() == [0.5]
    assert release_event(20, 3, origin=10).p_occupied([5, 20]).tolist() == [1.0, 0.5]


def test_release_has_a_heavy_right_tail():
    ch = release_event(200, 30, origin=100)
    early, late = ch.p_occupied([170, 230])  # one sd before and after the median
    assert 1 - early < late  # more mass on the right of the median than on the left
    assert ch.release_shape == pytest.approx(lognormal_shape(100, 30))
    assert math.isnan(occupation_event(0, 1).release_shape)


def test_occupation_is_half_open():
    ch = occupation_event(10, 20)
    assert ch.p_occupied([9.99, 10, 19.99, 20]).tolist() == [0.0, 1.0, 1.0, 0.0]
    # a job ending at 10 or starting at 20 does not conflict (as for slots)
    assert availability([ch], [0, 20, 5], 10).tolist() == [1.0, 1.0, 0.0]


def test_zero_sd_is_a_step():
    assert allocation_event(50, 0).p_occupied([49, 50, 51]).tolist() == [0.0, 0.5, 1.0]
    rel = release_event(50, 0, origin=40)
    assert rel.p_occupied([45, 50, 51]).tolist() == [1.0, 0.5, 0.0]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(start=5, end=5), "start < end"),
        (dict(start=5, end=1), "start=5.0"),
        (dict(start=math.nan, end=1), "NaN"),
        (dict(start=0, end=1, alloc_time=0, alloc_sd=-2), "alloc_sd"),
        (dict(start=0, end=1, alloc_time=math.inf), "alloc_time"),
        (dict(start=0, end=10, release_time=10), "release_time=10.0"),
        (dict(start=0, end=10, release_time=20, release_sd=-1), "release_sd"),
        (dict(start=0, end=10, release_time=20, release_sd=math.inf), "release_sd"),
        (dict(start="a", end=10), "start"),
    ],
)
def test_event_chain_rejects_bad_fields(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        EventChain(**kwargs)


def test_event_constructors_reject_bad_input():
    with pytest.raises(ParameterError, match="alloc_sd"):
        allocation_event(10, -1)
    with pytest.raises(ParameterError, match="start < end"):
        occupation_event(10, 10)
    with pytest.raises(ParameterError, match="release_time"):
        release_event(10, 1, origin=10)


# --------------------------------------------------------------------------------------------
# availability(): the worked example, limits, vectorisation


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


def test_several_global_events_multiply():
    assert availability([], [0.0], 10, global_p=[0.5, 0.2]).tolist() == [0.4]


def test_scalar_start_gives_float_and_array_gives_array():
    ch = allocation_event(100, 10)
    one = availability([ch], 95.0, 10)
    many = availability([ch], [95.0], 10)
    assert isinstance(one, float) and many.shape == (1,) and one == many[0]


def test_chain_counts_once_with_its_maximum():
    job = EventChain(130, 200, alloc_time=100, alloc_sd=10, release_time=230, release_sd=10)
    # after the job: only the release phase is active -> P_a = 1 - 0.5
    assert availability([job], 230, 30) == 0.5
    # were the chain's allocation and release independent events, the allocation (P_o ~ 1
    # long after 100) would multiply in and P_a would vanish
    split = [allocation_event(100, 10), release_event(230, 10, origin=200)]
    assert availability(split, 230, 30) < 1e-20
    # meeting the execution: the chain's maximum 1, whatever the phases around it
    assert availability([job], [120, 150, 199], 20).tolist() == [0.0, 0.0, 0.0]


@given(st.lists(chains(), max_size=6), starts_lists, durations)
@SETTINGS
def test_vectorised_equals_scalar_loop(chs, starts, duration):
    gp = [0.03, 0.1]
    got = availability(chs, starts, duration, global_p=gp)
    want = [ref_availability(chs, t, duration, gp) for t in starts]
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-14)
    for t, value in zip(starts, got, strict=True):
        assert availability(chs, t, duration, global_p=gp) == value


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


@given(chains(), st.integers(-100, 600).map(float), durations)
@SETTINGS
def test_maximum_over_the_interval_is_at_an_endpoint(ch, t, duration):
    u = t + duration
    grid = np.concatenate([np.linspace(t, u, 401)[:-1], [u - 1e-9]])
    inside = [x for x in (ch.start, ch.end - 1e-9) if t <= x < u]
    grid = np.concatenate([grid, inside])
    sup = float(ch.max_p_occupied([t], duration)[0])
    sampled = ch.p_occupied(grid)
    assert sampled.max() <= sup + 1e-9
    if u <= ch.start and not math.isnan(ch.alloc_time):
        # the allocation phase is taken at the closed end u (this matters only for sd = 0)
        at_u = allocation_event(ch.alloc_time, ch.alloc_sd).p_occupied([u])
        sampled = np.concatenate([sampled, at_u])
    assert sup <= sampled.max() + 1e-6


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


def test_bad_starts_and_probabilities_are_named():
    with pytest.raises(ParameterError, match=r"starts\[1\] = nan"):
        availability([], [0.0, math.nan], 1)
    with pytest.raises(ParameterError, match="1-D"):
        availability([], np.zeros((2, 2)), 1)
    with pytest.raises(ParameterError, match=r"global_p\[0\] = 1\.2"):
        availability([], [0.0], 1, global_p=1.2)
    with pytest.raises(ParameterError, match=r"global_p\[1\] = -0.1"):
        availability([], [0.0], 1, global_p=[0.1, -0.1])
    with pytest.raises(TypeError, match="EventChain"):
        availability([(0, 1)], [0.0], 1)


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


# --------------------------------------------------------------------------------------------
# Groups (ICCS 2023 §2.2)


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
