"""The compiled parts of compression give the plain paths' answers: the earliest window's
search (``earliest_start``), the cheapest task and the price floors of the free rows."""

from __future__ import annotations

import math
import os
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core import ResourceRequest, Slot, SlotList
from vosim.core.code_path import REFERENCE_ENV
from vosim.model import VOModel
from vosim.policies import compression
from vosim.policies import replan as replan_module
from vosim.policies.batch_windows import earliest_window

GAIA, LCG = "UniLu-Gaia-2014-2", "LCG-2005-1"


@st.composite
def _slots_and_job(draw):
    """A slot list of up to 8 nodes (free spans on a grid of 10) and a job that may fit."""
    nodes = draw(st.integers(1, 8))
    rows = []
    for node in range(nodes):
        price = draw(st.sampled_from([1.0, 1.5, 2.0, 3.0]))
        perf = draw(st.sampled_from([1.0, 2.0, 3.0]))
        line = draw(st.lists(st.booleans(), min_size=1, max_size=10))
        for k, is_free in enumerate(line):
            if not is_free:
                continue
            if rows and rows[-1][0] == node and rows[-1][2] == 10.0 * k:
                rows[-1][2] += 10.0
            else:
                rows.append([node, 10.0 * k, 10.0 * k + 10, price, perf])
    slots = SlotList([Slot(*r) for r in rows])
    n = draw(st.integers(1, max(1, nodes)))
    volume = draw(st.sampled_from([5.0, 10.0, 20.0, 30.0, 45.0]))
    budget = draw(st.sampled_from([10.0, 30.0, 60.0, 100.0, 1e9]))
    not_before = draw(st.sampled_from([0.0, 5.0, 20.0]))
    before = draw(st.sampled_from([math.inf, 10.0, 30.0, 60.0]))
    return slots, ResourceRequest(index=0, n=n, volume=volume, budget=budget), not_before, before


@settings(max_examples=300, deadline=None)
@given(_slots_and_job())
def test_the_compiled_loop_finds_the_plain_loops_window(case):
    """``earliest_window``'s compiled search (candidate starts and the test at each) returns
    the very window of :func:`candidate_starts` and trying :func:`window_at` at each start
    in turn (the plain path), with and without a bound on the start."""
    slots, job, not_before, before = case
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        plain = earliest_window(slots, job, not_before, before)
    fast = earliest_window(slots, job, not_before, before)
    assert (plain is None) == (fast is None)
    if plain is not None:
        assert (plain.start, plain.nodes, plain.cost, plain.runtime) == (
            fast.start,
            fast.nodes,
            fast.cost,
            fast.runtime,
        )


def _least_live_price(columns: tuple) -> np.ndarray:
    """The least price of a live row of each performance ``pvals`` of the kernels' ``rows``
    columns (inf: none)."""
    price, performance, alive, top, pvals = (columns[k] for k in (3, 4, 5, 8, 19))
    live = np.flatnonzero(alive[: top[0]])
    least = np.full(pvals.size, np.inf)
    np.minimum.at(least, np.searchsorted(pvals, performance[live]), price[live])
    return least


@pytest.mark.parametrize(
    ("trace", "jobs", "options"),
    [(GAIA, 120, {}), (GAIA, 150, {"pricing_policy": "demand"}), (LCG, 300, {})],
)
def test_price_floors_are_exact_at_load_and_lower_bounds_after_moves(
    monkeypatch, trace, jobs, options
):
    """The cheapest task over every live group equals ``replan._cheapest_task`` at a pass's
    start; after a move of the pass the floors never exceed the live rows' least prices."""
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    kernels = compression._kernels()
    counts = {"loads": 0, "tasks": 0, "moves": 0}
    plain_rows = compression._Rows.__init__

    def load(self, slots, jobs_, freed, pool=None):
        plain_rows(self, slots, jobs_, freed, pool)
        np.testing.assert_array_equal(self.pmin, _least_live_price(self.columns))
        counts["loads"] += 1

    plain_compress = compression.compress

    def checked(state, known=None, freed=None):
        reserved = list(state.reserved)
        if reserved:
            jobs_ = compression._Reservations(reserved)
            rows = compression._Rows(state.slots, jobs_, freed, state.pool)
            for i, (job, old) in enumerate(reserved):
                slow = old.runtime * (1 + kernels._EPS)
                fast = kernels._cheapest_task(rows.columns, jobs_.columns, i, slow, False)
                assert fast == replan_module._cheapest_task(state.slots, job, old)
                counts["tasks"] += 1
        return plain_compress(state, known, freed)

    plain_apply = kernels.apply_move

    def apply(rows, jobs_, i, out):
        code = plain_apply(rows, jobs_, i, out)
        if code == 0:
            assert (rows[20] <= _least_live_price(rows)).all()
            counts["moves"] += 1
        return code

    monkeypatch.setattr(compression._Rows, "__init__", load)
    monkeypatch.setattr(replan_module, "compress", checked)
    monkeypatch.setattr(kernels, "apply_move", apply)
    VOModel(trace=trace, jobs=jobs, rng=3, **options).run()
    assert counts["loads"] > 10 and counts["tasks"] > 100 and counts["moves"] > 0


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0, 7.25]), max_size=60),
    ids=st.lists(st.integers(0, 40), max_size=60),
)
def test_sorted_distinct_is_windows_distinct(values, ids):
    """The kernels' distinct values (runs of equal neighbours dropped before the sort) are
    ``windows.distinct``'s, for performances (floats in runs) and node ids (ints)."""
    from vosim.core.windows import distinct

    kernels = compression._kernels()
    for array in (np.array(values, dtype=float), np.array(ids, dtype=np.int64)):
        got = kernels._sorted_distinct(array)
        np.testing.assert_array_equal(got, distinct(array))
        assert got.dtype == array.dtype


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(
        st.tuples(st.sampled_from([0.0, 5.0, 10.0, 20.0]), st.integers(0, 9)),
        unique=True,
        max_size=30,
    ),
    loaded=st.integers(0, 30),
    alive=st.lists(st.booleans(), min_size=30, max_size=30),
)
def test_live_slots_are_the_lexsort_of_the_live_rows(keys, loaded, alive):
    """Loaded rows (in (start, node) order) and rows added after them in any order: the
    live rows come out as ``np.lexsort((node, start))`` orders them, every column along."""
    loaded = min(loaded, len(keys))
    rows = sorted(keys[:loaded]) + keys[loaded:]  # the slot list's order, then moves' rows
    start = np.array([s for s, _ in rows], dtype=float)
    node = np.array([n for _, n in rows], dtype=np.int64)
    end, price, perf = start + 1.0 + node, 1.0 + node / 10, 2.0 + start / 10
    live = np.array(alive[: len(rows)], dtype=np.bool_)
    got = compression._kernels().live_slots(node, start, end, price, perf, live, loaded, len(rows))
    index = np.flatnonzero(live)
    order = index[np.lexsort((node[index], start[index]))]
    for column, want in zip(got, (node, start, end, price, perf), strict=True):
        np.testing.assert_array_equal(column, want[order])


@settings(max_examples=200, deadline=None)
@given(
    entries=st.lists(
        st.tuples(
            st.integers(0, 20),
            st.integers(0, 20),
            st.sampled_from([0.5, 1.0, 2.5, 4.0, 9.0]),
            st.integers(1, 4),
        ),
        min_size=1,
        max_size=25,
    ),
    k=st.integers(1, 12),
)
def test_least_k_is_no_more_than_any_starts_k_cheapest(entries, k):
    """``_starts`` drops a job whose ``k`` cheapest tasks over all entries exceed its budget:
    ``_least_k`` is the sum of the ``k`` cheapest slots (brute force: every slot listed), so
    no start, which holds a subset of the entries, has a cheaper ``k``."""
    kernels = compression._kernels()
    lo = np.array([a for a, _, _, _ in entries], dtype=float)
    hi = lo + np.array([b for _, b, _, _ in entries], dtype=float)
    cost = np.array([c for _, _, c, _ in entries])
    count = np.array([n for *_, n in entries], dtype=np.int64)
    slots = np.sort(np.repeat(cost, count))
    least = kernels._least_k(cost, count, np.argsort(cost, kind="mergesort"), k)
    assert least == pytest.approx(slots[:k].sum(), rel=1e-12)
    for t in lo:
        here = np.sort(np.repeat(cost, count * ((lo <= t) & (t <= hi))))
        if here.size >= k:
            assert here[:k].sum() >= least * (1 - 1e-12)
