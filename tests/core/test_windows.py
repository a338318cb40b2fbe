"""Resource requests, co-allocated windows, their spans as columns and the search's result."""

from __future__ import annotations

import dataclasses
import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vosim.core.results import Result, Status
from vosim.core.slots import Slot
from vosim.core.windows import Allocation, ResourceRequest, Spans, Window, distinct, filled
from vosim.errors import RequestError


@pytest.mark.parametrize(("value", "dtype"), [(2.5, float), (7, np.int64), (True, bool)])
def test_filled_is_np_full(value, dtype):
    got = filled(4, value, dtype)
    want = np.full(4, value, dtype)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()
    assert filled(0, 1.0).shape == (0,)
    with pytest.raises(ValueError, match="negative"):
        filled(-1, 1.0)


@given(st.lists(st.integers(-5, 5) | st.sampled_from([0.5, -0.5, 1e6]), max_size=30))
def test_distinct_is_np_unique(values):
    array = np.asarray(values, dtype=float)
    got = distinct(array)
    assert got.tolist() == np.unique(array).tolist()
    ints = np.asarray([int(v) for v in values], dtype=np.int64)
    assert distinct(ints).dtype == np.int64
    assert distinct(ints).tolist() == np.unique(ints).tolist()


def test_distinct_keeps_every_nan():
    got = distinct(np.array([np.nan, 1.0, np.nan, 1.0]))
    assert got[0] == 1.0 and np.isnan(got[1:]).all() and got.size == 3


def test_a_request_by_volume_or_by_time_gives_each_nodes_task_time():
    by_volume = ResourceRequest(n=2, volume=600.0, budget=100.0)
    assert by_volume.durations(np.array([2.0, 3.0, 6.0])).tolist() == [300.0, 200.0, 100.0]
    by_time = ResourceRequest(n=3, time=40.0)
    assert by_time.durations(np.array([1.0, 8.0])).tolist() == [40.0, 40.0]
    assert by_time.budget == math.inf and by_time.min_performance == 0.0


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        (dict(n=0, volume=1.0), "n must be an integer >= 1, got 0"),
        (dict(n=True, volume=1.0), "got True"),
        (dict(n=1.5, volume=1.0), "got 1.5"),
        (dict(n=1), "exactly one of volume"),
        (dict(n=1, volume=1.0, time=1.0), "exactly one of volume"),
        (dict(n=1, volume=-2.0), "volume V must be a finite number > 0, got -2.0"),
        (dict(n=1, time=math.inf), "reservation time T must be a finite number > 0, got inf"),
        (dict(n=1, volume=1.0, budget=-1.0), "budget C must be >= 0, got -1.0"),
        (dict(n=1, volume=1.0, budget=math.nan), "budget C must be >= 0, got nan"),
        (dict(n=1, volume=1.0, min_performance=-0.5), "min_performance must be >= 0, got -0.5"),
    ],
)
def test_a_bad_request_is_refused_naming_the_value(kwargs, needle):
    with pytest.raises(RequestError, match=needle.replace("(", r"\(")):
        ResourceRequest(**kwargs)


def test_a_windows_finish_nodes_and_processor_time():
    slots = (Slot(4, 10.0, 30.0, 2.0, 1.0), Slot(2, 10.0, 20.0, 3.0, 2.0))
    w = Window(slots=slots, start=10.0, runtime=20.0, cost=2.0 * 20 + 3.0 * 10)
    assert w.finish == w.end == 30.0
    assert w.nodes == (4, 2)
    assert w.proc_time == 30.0
    assert w.spans.node.tolist() == [4, 2] and w.spans.end.tolist() == [30.0, 20.0]
    assert Window(slots=w.spans, start=10.0, runtime=20.0, cost=70.0).nodes == (4, 2)


def test_spans_read_as_the_tuple_of_slots_they_stand_for():
    """The count form's windows hold their spans as columns; they read as the Slot tuple."""
    cols = (np.array([3, 1]), np.full(2, 2.0), np.full(2, 5.0), np.full(2, 1.5), np.full(2, 6.0))
    got = Spans(*cols)
    want = (Slot(3, 2.0, 5.0, 1.5, 6.0), Slot(1, 2.0, 5.0, 1.5, 6.0))
    assert got == want and want == got and hash(got) == hash(want)
    assert tuple(got) == want and got[1] == want[1] and len(got) == 2
    assert repr(got[0]) == repr(want[0]) and got[0].length == 3.0
    assert type(got[0].node) is int and type(got[0].end) is float
    assert Spans.of(want) == got and Spans.of(got) is got
    assert got != Spans(np.array([3, 1]), *cols[1:3], np.full(2, 1.0), cols[4])
    w = Window(slots=got, start=2.0, runtime=3.0, cost=9.0)
    assert w == Window(slots=want, start=2.0, runtime=3.0, cost=9.0)
    assert pickle.loads(pickle.dumps(w)) == w and w.nodes == (3, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        got[0].node = 4


WINDOW = Window((Slot(0, 0.0, 10.0, 1.0, 1.0),), 0.0, 10.0, 10.0)


@pytest.mark.parametrize(
    ("allocation", "status", "message"),
    [
        (
            Allocation(None, "no 2 concurrent slots", "amp"),
            Status.INFEASIBLE,
            "no 2 concurrent slots",
        ),
        (Allocation(None), Status.INFEASIBLE, "no solution found"),
        (Allocation(WINDOW, exact=True, value=3.0), Status.OPTIMAL, "optimal solution found"),
        (Allocation(WINDOW), Status.FEASIBLE, "solution found; optimality not proven"),
        (
            Allocation(WINDOW, exact=True, stats={"truncated": True}),
            Status.LIMIT,
            Status.LIMIT.default_message,
        ),
    ],
)
def test_an_allocations_status_and_message(allocation, status, message):
    assert isinstance(allocation, Result)
    assert allocation.status is status and allocation.message == message
    assert allocation.success is (allocation.window is not None) is status.found
    assert allocation.solution is allocation.window
    assert allocation.objective == allocation.value or math.isnan(allocation.objective)


@given(st.lists(st.sampled_from([0.0, 1.5, 2.0, 7.0, np.inf]), max_size=30))
def test_distinct_is_numpys_unique_and_skips_the_sort_of_ordered_values(values):
    values = np.array(values)
    np.testing.assert_array_equal(distinct(values), np.unique(values))
    ordered = np.sort(values)
    found = distinct(ordered, ordered=True)
    np.testing.assert_array_equal(found, np.unique(values))
    if found.size:
        found[0] = -1.0  # a new array, never a view of the caller's
        assert ordered.size == 0 or ordered[0] != -1.0
