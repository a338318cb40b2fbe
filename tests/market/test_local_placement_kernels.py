"""The compiled local placement against the plain one (its oracle) on random busy time."""

import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core.code_path import REFERENCE_ENV
from vosim.errors import ParameterError
from vosim.market.busy_time import BusyTime
from vosim.market.local_placement import LOCAL_PRIORITIES, place_local_job, place_on_owner


@st.composite
def domains(draw):
    """Two or three owners' processors with disjoint busy rows: VO reservations and local jobs.

    Rows are written as the model writes them: reservations with ``add_many`` (one job's
    tasks together), local jobs with ``add``, some reservations shortened after (an early
    end), so that the schedules hold buffered rows and shortenings when they are read.
    """
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=3))
    owner = np.repeat(np.arange(len(sizes)), sizes)
    busy = BusyTime(owner, np.ones(owner.size), np.ones(owner.size))
    job = 0
    for k in range(owner.size):
        t = 0
        for _ in range(draw(st.integers(0, 3))):
            t += draw(st.integers(0, 6))
            length = draw(st.integers(1, 8))
            if draw(st.booleans()):
                busy.local[int(owner[k])].add(k, float(t), float(t + length), -2 - job)
            else:
                busy.reservations.add_many([k], float(t), [float(t + length)], job)
                if draw(st.booleans()):  # ended early: shortened, possibly to nothing
                    cut = t + draw(st.integers(0, length))
                    busy.reservations.shorten(job, [k], [float(cut)])
            job += 1
            t += length
    return busy, owner


@settings(max_examples=300, deadline=None)
@given(domains(), st.integers(0, 2), st.integers(0, 12), st.integers(1, 5), st.integers(1, 9),
       st.sampled_from(LOCAL_PRIORITIES))  # fmt: skip
def test_the_compiled_placement_is_the_plain_one(domain, who, now, size, length, priority):
    busy, owner = domain
    who = who % (int(owner.max()) + 1)
    resources = np.flatnonzero(owner == who)
    args = (busy, who, resources, float(now), size, float(length), priority)
    fast = place_on_owner(*args)
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        plain = place_on_owner(*args)
    # and the plain form is the plain function over the owner's gathered rows
    direct = place_local_job(resources, *busy.owner_intervals(who), *args[3:])
    if size > resources.size:
        assert fast is None and plain is None and direct is None
        return
    for p in (plain, direct):
        assert fast.start == p.start
        assert fast.resources.tolist() == p.resources.tolist()
        assert fast.displaced.tolist() == p.displaced.tolist()
        assert fast.killed.tolist() == p.killed.tolist()


def test_a_job_that_waits_takes_the_processors_the_plain_rule_gives():
    # owner 0: processors 0 and 1; a local job on 0 until 10, a reservation on 1 from 5
    busy = BusyTime([0, 0, 1], [1.0] * 3, [1.0] * 3)
    busy.local[0].add(0, 0.0, 10.0, -2)
    busy.reservations.add_many([1], 5.0, [20.0], 3)
    busy.reservations.add_many([2], 0.0, [50.0], 4)  # another owner's: never read
    p = place_on_owner(busy, 0, np.array([0, 1]), 1.0, 2, 5.0)
    assert (p.start, p.resources.tolist(), p.displaced.tolist()) == (10.0, [0, 1], [3])
    q = place_on_owner(busy, 0, np.array([0, 1]), 1.0, 1, 50.0, "queue")
    assert (q.start, q.resources.tolist(), q.displaced.tolist()) == (10.0, [0], [])


def test_bad_arguments_raise_on_both_paths():
    busy = BusyTime([0, 0], [1.0, 1.0], [1.0, 1.0])
    for env in ("0", "1"):
        with mock.patch.dict(os.environ, {REFERENCE_ENV: env}):
            with pytest.raises(ParameterError, match="local_priority"):
                place_on_owner(busy, 0, np.array([0, 1]), 0.0, 1, 1.0, "first")
            with pytest.raises(ParameterError, match="size >= 1"):
                place_on_owner(busy, 0, np.array([0, 1]), 0.0, 0, 1.0)
            assert place_on_owner(busy, 0, np.array([0, 1]), 0.0, 3, 1.0) is None
