"""pack: a valid packing whenever the counts fit and fixed work has started (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.errors import SlotError
from vosim.market.binding import pack


def _overlap(a1, b1, a2, b2):
    return a1 < b2 and a2 < b1


def _valid(ids, fixed, start, end, got):
    """No task on a processor outside ``ids``, none overlapping a fixed row or another task."""
    node, fa, fb = fixed
    for t, q in enumerate(got.tolist()):
        assert q in ids
        for k in range(node.size):
            assert not (node[k] == q and _overlap(start[t], end[t], fa[k], fb[k]))
        for u in range(t):
            assert not (got[u] == q and _overlap(start[t], end[t], start[u], end[u]))


@st.composite
def pools(draw, ahead: bool):
    """A pool of 1-5 processors, fixed rows (started ones, or any with ``ahead``), tasks."""
    c = draw(st.integers(1, 5))
    ids = sorted(draw(st.lists(st.integers(0, 20), min_size=c, max_size=c, unique=True)))
    fixed = []
    for q in ids:  # disjoint fixed rows per processor
        t = -5 if not ahead else draw(st.integers(-5, 10))
        for _ in range(draw(st.integers(0, 2))):
            a = t if not ahead else t + draw(st.integers(0, 5))
            b = a + draw(st.integers(1, 8))
            if ahead or a <= 0:
                fixed.append((q, a, b))
            t = b
    tasks = [
        (s, s + draw(st.integers(1, 10))) for s in draw(st.lists(st.integers(0, 20), max_size=8))
    ]
    prefer = [draw(st.sampled_from([-1, *ids])) for _ in tasks]
    node = np.array([f[0] for f in fixed], dtype=np.int64)
    fa = np.array([f[1] for f in fixed], dtype=float)
    fb = np.array([f[2] for f in fixed], dtype=float)
    start = np.array([t[0] for t in tasks], dtype=float)
    end = np.array([t[1] for t in tasks], dtype=float)
    return ids, (node, fa, fb), start, end, np.array(prefer, dtype=np.int64)


def _fits(ids, fixed, start, end):
    """Whether at most len(ids) fixed rows and tasks overlap at every time."""
    _, fa, fb = fixed
    points = set(start.tolist()) | set(fa.tolist())
    return all(
        np.count_nonzero((fa <= t) & (t < fb)) + np.count_nonzero((start <= t) & (t < end))
        <= len(ids)
        for t in points
    )


@settings(max_examples=300, deadline=None)
@given(pools(ahead=False))
def test_pack_never_fails_where_the_counts_fit_and_fixed_work_has_started(case):
    ids, fixed, start, end, prefer = case
    got = pack(ids, fixed, start, end, prefer)
    if _fits(ids, fixed, start, end):
        assert got is not None
    if got is not None:
        _valid(ids, fixed, start, end, got)


@settings(max_examples=300, deadline=None)
@given(pools(ahead=True))
def test_pack_gives_a_valid_packing_or_none_with_fixed_work_ahead(case):
    ids, fixed, start, end, prefer = case
    got = pack(ids, fixed, start, end, prefer)
    if got is not None:
        _valid(ids, fixed, start, end, got)
    else:
        assert start.size  # nothing to place never fails


def test_pack_keeps_a_free_preferred_processor_and_else_takes_the_lowest():
    none = (np.empty(0, np.int64), np.empty(0), np.empty(0))
    got = pack([3, 5, 8], none, np.array([0.0, 0.0]), np.array([5.0, 5.0]), np.array([8, -1]))
    assert got.tolist() == [8, 3]
    # with future local work on processor 0 only, the greedy packing can fail
    fixed = (np.array([0]), np.array([10.0]), np.array([20.0]))
    assert pack([0], fixed, np.array([5.0]), np.array([15.0]), np.array([-1])) is None


def test_pack_refuses_arrays_of_different_shapes():
    none = (np.empty(0, np.int64), np.empty(0), np.empty(0))
    with pytest.raises(SlotError, match="differ"):
        pack([0], none, np.array([0.0]), np.array([1.0, 2.0]), np.array([-1]))
