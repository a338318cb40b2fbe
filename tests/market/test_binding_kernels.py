"""The compiled packing and window binding against the plain ``pack``,
``idle_processors`` and ``idle_processors_in_order`` (their oracles) on random pools; the
binding's marking of held processors against a numpy mask."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_binding import pools

from vosim.core.code_path import REFERENCE_ENV, kernels
from vosim.market.binding import idle_processors, idle_processors_in_order, pack
from vosim.market.binding_kernels import _mark_held


def _both(ids, fixed, start, end, prefer):
    fast = pack(ids, fixed, start, end, prefer)
    with mock.patch.dict("os.environ", {REFERENCE_ENV: "1"}):
        plain = pack(ids, fixed, start, end, prefer)
    return fast, plain


@settings(max_examples=400, deadline=None)
@given(st.one_of(pools(ahead=False), pools(ahead=True)), st.randoms(use_true_random=False))
def test_compiled_pack_gives_the_plain_processors(case, random):
    """The same processors, or ``None`` for both, whatever the order of the pool's ids."""
    ids, fixed, start, end, prefer = case
    ids = list(ids)
    random.shuffle(ids)
    fast, plain = _both(ids, fixed, start, end, prefer)
    assert (fast is None) == (plain is None)
    if plain is not None:
        assert fast.tolist() == plain.tolist()


def test_pack_pool_by_hand():
    """Processors 3 and 7 (given unsorted), 3 busy over [0, 10). A task [5, 8) preferring 3
    takes 7 (3 is busy), then a task [8, 12) with no preference takes 7 again (3 is still
    busy, 7 is free from 8). Two tasks [5, 8) and [6, 9) cannot both fit: no packing."""
    ids = np.array([7, 3], dtype=np.int64)
    fnode = np.array([3], dtype=np.int64)
    fa, fb = np.array([0.0]), np.array([10.0])
    k = kernels("vosim.market.binding_kernels")
    got, done = k.pack_pool(
        ids, fnode, fa, fb, np.array([5.0, 8.0]), np.array([8.0, 12.0]),
        np.array([3, -1], dtype=np.int64),
    )  # fmt: skip
    assert done and got.tolist() == [7, 7]
    _, done = k.pack_pool(
        ids, fnode, fa, fb, np.array([5.0, 6.0]), np.array([8.0, 9.0]),
        np.array([3, -1], dtype=np.int64),
    )  # fmt: skip
    assert not done


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
    assert _mark_held(node, a, b, pool, until, start, now, taken)
    plain = np.zeros(12, dtype=bool)
    plain[node[(a < until[pool[node]]) & (b > start) & (b > now)]] = True
    assert taken.tolist() == plain.tolist()


def _pools(draw) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``r`` resources in random pools: ``(r, pool, first, members)``."""
    r = draw(st.integers(1, 12))
    pools_n = draw(st.integers(1, r))
    pool = np.array(
        list(range(pools_n)) + draw(st.lists(st.integers(0, pools_n - 1), min_size=r - pools_n,
                                             max_size=r - pools_n)),
        dtype=np.int64,
    )  # fmt: skip
    pool = pool[np.array(draw(st.permutations(range(r))), dtype=np.int64)]
    first = np.zeros(pools_n + 1, dtype=np.int64)
    np.cumsum(np.bincount(pool, minlength=pools_n), out=first[1:])
    members = np.argsort(pool, kind="stable").astype(np.int64)
    return r, pool, first, members


def _window(draw, r: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A window's tasks on distinct resources of ``0 .. r - 1``: ``(nodes, ends, start)``."""
    n = draw(st.integers(1, r))
    nodes = np.array(draw(st.permutations(range(r)))[:n], dtype=np.int64)
    start = float(draw(st.integers(0, 20)))
    ends = start + np.array(draw(st.lists(st.integers(1, 30), min_size=n, max_size=n)), dtype=float)
    return nodes, ends, start


def _rows(draw, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Up to 8 busy rows ``(node, a, b)`` on ``0 .. r - 1``."""
    k = draw(st.integers(0, 8))
    node = np.array(draw(st.lists(st.integers(0, r - 1), min_size=k, max_size=k)), np.int64)
    a = np.array(draw(st.lists(st.integers(0, 60), min_size=k, max_size=k)), dtype=float)
    b = a + np.array(draw(st.lists(st.integers(1, 20), min_size=k, max_size=k)), float)
    return node, a, b


@st.composite
def windows(draw):
    """A count view's window over random pools, with busy rows of the VO and local jobs."""
    r, pool, first, members = _pools(draw)
    nodes, ends, start = _window(draw, r)
    now = float(draw(st.integers(0, start)))
    return nodes, ends, start, now, pool, first, members, _rows(draw, r), _rows(draw, r)


@st.composite
def window_lists(draw):
    """One to five windows in order over the same pools and busy rows."""
    r, pool, first, members = _pools(draw)
    listed = [_window(draw, r) for _ in range(draw(st.integers(1, 5)))]
    now = float(draw(st.integers(0, min(w[2] for w in listed))))
    return listed, now, pool, first, members, _rows(draw, r), _rows(draw, r)


@settings(max_examples=400, deadline=None)
@given(windows())
def test_compiled_idle_processors_gives_the_plain_ones(case):
    """The same processors and the same pools left to pack; ``nodes`` is not changed."""
    nodes = case[0]
    before = nodes.tolist()
    fast, fast_left = idle_processors(*case)
    with mock.patch.dict("os.environ", {REFERENCE_ENV: "1"}):
        plain, plain_left = idle_processors(*case)
    assert fast.tolist() == plain.tolist()
    assert fast_left.tolist() == plain_left.tolist()
    assert nodes.tolist() == before


def test_idle_processors_by_hand():
    """Pool 0 is processors 0-2, pool 1 processor 3. A reservation holds 0 over [5, 15), a
    local job holds 1 over [0, 12); the reservation on 3 ended by ``now`` holds nothing. A
    window over [10, 20) with tasks on 0, 1 and 3: pool 0 has one processor not held for
    two tasks, so it is left to pack with its tasks where they were; the task on 3 stays."""
    pool = np.array([0, 0, 0, 1], dtype=np.int64)
    first, members = np.array([0, 3, 4]), np.array([0, 1, 2, 3])
    vo = (np.array([0, 3]), np.array([5.0, 0.0]), np.array([15.0, 8.0]))
    local = (np.array([1]), np.array([0.0]), np.array([12.0]))
    nodes, ends = np.array([0, 1, 3]), np.array([20.0, 20.0, 20.0])
    for path in ("", "1"):
        with mock.patch.dict("os.environ", {REFERENCE_ENV: path}):
            got, left = idle_processors(nodes, ends, 10.0, 9.0, pool, first, members, vo, local)
        assert got.tolist() == [0, 1, 3] and left.tolist() == [0]
    # one task on pool 0: it moves to processor 2, the lowest none holds
    for path in ("", "1"):
        with mock.patch.dict("os.environ", {REFERENCE_ENV: path}):
            got, left = idle_processors(
                nodes[:1], ends[:1], 10.0, 9.0, pool, first, members, vo, local
            )
        assert got.tolist() == [2] and left.tolist() == []


@pytest.mark.parametrize("where", ["task", "vo", "local"])
def test_a_processor_beyond_the_pools_raises_on_both_paths(where):
    """The kernel reads nothing outside ``pool``: it hands such input to the plain path."""
    pool, first, members = np.array([0, 0]), np.array([0, 2]), np.array([0, 1])
    rows = {k: (np.array([0]), np.array([0.0]), np.array([50.0])) for k in ("vo", "local")}
    nodes = np.array([0])
    if where == "task":
        nodes = np.array([2])
    else:
        rows[where] = (np.array([5]), np.array([0.0]), np.array([50.0]))
    for path in ("", "1"):
        with mock.patch.dict("os.environ", {REFERENCE_ENV: path}), pytest.raises(IndexError):
            idle_processors(
                nodes, np.array([20.0]), 10.0, 0.0, pool, first, members, rows["vo"],
                rows["local"],
            )  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(window_lists())
def test_windows_in_order_are_bound_as_one_by_one_after_the_earlier_are_held(case):
    """The compiled call gives the plain loop's processors and pools left to pack; and the
    plain loop is :func:`idle_processors` window by window with the earlier windows' spans
    added to the VO's rows, stopping at the first window left to a packing."""
    listed, now, pool, first, members, vo, local = case
    fast, fast_left = idle_processors_in_order(listed, now, (pool, first, members), vo, local)
    with mock.patch.dict("os.environ", {REFERENCE_ENV: "1"}):
        plain, plain_left = idle_processors_in_order(listed, now, (pool, first, members), vo, local)
    assert [x.tolist() for x in fast] == [x.tolist() for x in plain]
    assert fast_left.tolist() == plain_left.tolist()
    held, want = list(vo), []  # one by one, as the metascheduler reserves them
    for nodes, ends, start in listed:
        got, left = idle_processors(nodes, ends, start, now, pool, first, members, held, local)
        want.append(got.tolist())
        if left.size:
            assert fast_left.tolist() == left.tolist()
            break
        held = [np.concatenate([held[0], got]), np.concatenate([held[1], np.full(got.size, start)]),
                np.concatenate([held[2], ends])]  # fmt: skip
    assert [x.tolist() for x in fast] == want
    assert len(fast) == len(listed) or fast_left.size


def test_windows_in_order_by_hand():
    """Pool 0 is processors 0 and 1. Two windows of one task on processor 0 over [10, 20):
    the second finds 0 held by the first and takes 1; a third finds both held and is left
    to pack with its task where it was."""
    pool, first, members = np.array([0, 0]), np.array([0, 2]), np.array([0, 1])
    none = (np.empty(0, dtype=np.int64), np.empty(0), np.empty(0))
    one = (np.array([0]), np.array([20.0]), 10.0)
    for path in ("", "1"):
        with mock.patch.dict("os.environ", {REFERENCE_ENV: path}):
            got, left = idle_processors_in_order([one] * 3, 0.0, (pool, first, members), none, none)
        assert [x.tolist() for x in got] == [[0], [1], [0]] and left.tolist() == [0]
