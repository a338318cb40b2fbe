"""class_run: one request's windows searched and cut in one compiled call, against the
scheme's calls one job at a time (``allocate_window``, AMP's start, ``cut_window``) on the
fast paths and on the plain ones."""

from __future__ import annotations

import math
import os
from types import SimpleNamespace
from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators.base import Window, allocate_window
from vosim.core import ResourceRequest, Slot, SlotList
from vosim.core.code_path import REFERENCE_ENV
from vosim.market.free_time import count_view
from vosim.policies import cyclic_scheme
from vosim.policies.batch_windows import cut_window
from vosim.policies.cyclic_scheme import _compiled_run

CRITERIA = ("amp", "min_cost", "min_runtime", "min_finish")


def _one_at_a_time(
    slots: SlotList, request: ResourceRequest, name: str, jobs: int, pool: np.ndarray, now: float
) -> tuple[list[Window], list[float], SlotList]:
    """The class loop's calls for ``jobs`` jobs of one request (CyclicScheme._earliest's AMP)."""
    windows, earliest = [], []
    for _ in range(jobs):
        window = allocate_window(slots, request, name).window
        if window is None:
            break
        start = window.start
        if start > now:
            amp = allocate_window(slots, request, "amp").window
            start = math.nan if amp is None else amp.start
        windows.append(window)
        earliest.append(start)
        slots = cut_window(slots, window, pool)
    return windows, earliest, slots


@st.composite
def _views(draw: st.DrawFn) -> tuple[SlotList, np.ndarray]:
    """A count view of random free time on pools of 1-4 processors, prices and speeds tied."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    pool = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    price = draw(st.lists(st.sampled_from([1.0, 1.5, 2.0]), min_size=len(sizes), max_size=5))
    perf = draw(st.lists(st.sampled_from([1.0, 2.0, 4.0]), min_size=len(sizes), max_size=5))
    free = []
    for node, p in enumerate(pool.tolist()):
        t = 10.0 * draw(st.integers(0, 3))
        for _ in range(draw(st.integers(0, 3))):
            length = 10.0 * draw(st.integers(1, 6))
            free.append(Slot(node, t, t + length, price[p], perf[p]))
            t += length + 10.0 * draw(st.integers(1, 3))
    return count_view(SlotList(free), pool), pool


def _requests() -> st.SearchStrategy[ResourceRequest]:
    amount = st.sampled_from([5.0, 10.0, 15.0, 25.0, 40.0])
    budget = st.one_of(st.just(math.inf), st.sampled_from([10.0, 25.0, 40.0, 60.0, 100.0]))
    volume = st.builds(ResourceRequest, n=st.integers(1, 4), volume=amount, budget=budget)
    time = st.builds(ResourceRequest, n=st.integers(1, 3), time=amount, budget=budget)
    return st.one_of(volume, time)


def _same(got: tuple, want: tuple) -> None:
    gw, ge, gs = got
    ww, we, ws = want
    assert gw == ww
    assert [type(w.slots) for w in gw] == [type(w.slots) for w in ww]
    assert np.array_equal(ge, we, equal_nan=True)
    for field in ("node", "start", "end", "price", "performance"):
        assert getattr(gs, field).dtype == getattr(ws, field).dtype
        assert getattr(gs, field).tolist() == getattr(ws, field).tolist()


@settings(max_examples=300, deadline=None)
@given(
    _views(),
    _requests(),
    st.sampled_from(CRITERIA),
    st.integers(1, 6),
    st.sampled_from([0.0, 10.0, 25.0]),
)
def test_a_run_gives_the_calls_one_job_at_a_time(view, request, name, jobs, now):
    """The same windows (spans, start, runtime, cost, the one-slot form for n = 1), earliest
    starts and count view after the cuts as the calls job by job, on the fast paths and on the
    plain ones; it stops at the first job without a window."""
    slots, pool = view
    got = _compiled_run(slots, request, name, jobs, SimpleNamespace(pool=pool, time=now))
    _same(got, _one_at_a_time(slots, request, name, jobs, pool, now))
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        _same(got, _one_at_a_time(slots, request, name, jobs, pool, now))


def test_a_run_leaves_a_min_finish_sweep_too_large_to_the_calls(monkeypatch):
    """Past ``aep.SWEEP_CELLS`` aep scans minFinish in numpy blocks: the run finds nothing
    and leaves the job to the loop's own calls, which find its window."""
    pool = np.array([0, 0, 1], dtype=np.int64)
    slots = count_view(SlotList([Slot(0, 0.0, 50.0, 1.0, 2.0), Slot(1, 0.0, 50.0, 1.0, 2.0)]), pool)
    request = ResourceRequest(n=2, volume=20.0)
    state = SimpleNamespace(pool=pool, time=0.0)
    found = allocate_window(slots, request, "min_finish").window
    windows, _, _ = _compiled_run(slots, request, "min_finish", 1, state)
    assert windows == [found]
    monkeypatch.setattr(cyclic_scheme, "SWEEP_CELLS", 1)
    monkeypatch.setattr("vosim.allocators.aep.SWEEP_CELLS", 1)
    windows, earliest, left = _compiled_run(slots, request, "min_finish", 1, state)
    assert (windows, earliest) == ([], []) and left is slots
    assert allocate_window(slots, request, "min_finish").window == found
