"""One resource's utilization events and its P_a(r, t, T) (vosim.market.event_chains)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from chain_oracle import (
    SETTINGS,
    chains,
    durations,
    ref_availability,
    starts_lists,
)
from hypothesis import given
from hypothesis import strategies as st

from vosim.errors import ParameterError
from vosim.market.chain_maths import lognormal_shape
from vosim.market.event_chains import (
    EventChain,
    allocation_event,
    availability,
    occupation_event,
    release_event,
)


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
