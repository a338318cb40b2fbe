"""count_rows: the plain count view's rows, by hand (the hypothesis comparison is in
test_free_time.py, test_count_view_compiled_equals_plain); mark_held: a numpy mask;
take_idle: the plain rule per pool in numpy."""

from __future__ import annotations

import numpy as np
import pytest

from vosim.market.count_kernels import count_rows, mark_held, pool_levels, take_idle


def test_count_rows_levels_a_pool_and_keeps_the_others():
    # pool 0: processors 0, 1 free in turn; pool 1: processor 2, kept as it is
    node = np.array([0, 1, 2])
    start, end = np.array([0.0, 10.0, 5.0]), np.array([10.0, 20.0, 6.0])
    price, perf = np.array([2.0, 1.0, 3.0]), np.ones(3)
    pool = np.array([0, 0, 1])
    first, members = np.array([0, 2, 3]), np.array([0, 1, 2])
    relevel = np.array([True, False])
    got, kept, over = count_rows(node, start, end, price, perf, pool, relevel, first, members)
    rows = [tuple(g[k].item() for g in got) for k in range(got[0].size)]
    # pool 1's row kept first; one level over [0, 20) on pool 0's first processor, at the
    # rows' least price
    assert (kept, over) == (1, -1)
    assert rows == [(2, 5.0, 6.0, 3.0, 1.0), (0, 0.0, 20.0, 1.0, 1.0)]


def test_pool_levels_stacks_levels_on_the_pools_processors_in_order():
    out = (np.empty(4, np.int64), np.empty(4), np.empty(4), np.empty(4), np.empty(4))
    top = pool_levels(
        np.array([0.0, 0.0, 5.0]), np.array([10.0, 8.0, 10.0]), np.ones(3), np.ones(3),
        np.array([7, 9, 11]), out, 0,
    )  # fmt: skip
    rows = sorted(zip(*(o[:top].tolist() for o in out[:3]), strict=True))
    # 2 free on [0, 8), 1 on [8, 10) from the first two rows, plus 1 on [5, 10)
    assert rows == [(7, 0.0, 10.0), (9, 0.0, 10.0), (11, 5.0, 8.0)]


@pytest.mark.parametrize("seed", range(20))
def test_mark_held_marks_what_a_numpy_mask_marks(seed):
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 4, 12)
    pool[:4] = np.arange(4)  # every pool has a resource
    node = rng.integers(0, 12, 40)
    a = rng.uniform(0, 100, 40)
    b = a + rng.uniform(0.5, 30, 40)
    until = np.where(rng.random(4) < 0.3, -np.inf, rng.uniform(20, 120, 4))
    start, now = 30.0, float(rng.uniform(0, 40))
    taken = np.zeros(12, dtype=bool)
    mark_held(node, a, b, pool, until, start, now, taken)
    plain = np.zeros(12, dtype=bool)
    plain[node[(a < until[pool[node]]) & (b > start) & (b > now)]] = True
    assert taken.tolist() == plain.tolist()


def _take_idle_plain(nodes, of, taken, first, members):
    """The rule in numpy, pool by pool: keep, else the lowest processors not held."""
    left = []
    for p in np.unique(of).tolist():
        at = np.flatnonzero(of == p)
        if not taken[nodes[at]].any():
            continue
        ids = members[first[p] : first[p + 1]]
        idle = ids[~taken[ids]]
        if idle.size >= at.size:
            nodes[at] = idle[: at.size]
        else:
            left.append(p)
    return left


@pytest.mark.parametrize("seed", range(40))
def test_take_idle_places_tasks_as_the_plain_rule(seed):
    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 5, 30)
    pool[:5] = np.arange(5)
    first = np.zeros(6, dtype=np.int64)
    np.cumsum(np.bincount(pool, minlength=5), out=first[1:])
    members = np.argsort(pool, kind="stable").astype(np.int64)
    taken = rng.random(30) < rng.uniform(0.1, 0.9)
    nodes = rng.choice(30, size=int(rng.integers(1, 12)), replace=False).astype(np.int64)
    of = pool[nodes]
    plain = nodes.copy()
    left = _take_idle_plain(plain, of, taken, first, members)
    got = take_idle(nodes, of, taken, first, members)
    assert got.tolist() == left
    assert nodes.tolist() == plain.tolist()  # a pool left to pack keeps its processors
