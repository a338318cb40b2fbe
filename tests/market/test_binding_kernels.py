"""The compiled packing and window binding against the plain ``pack`` and
``idle_processors`` (their oracles) on random pools; the binding's marking of held
processors against a numpy mask."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_binding import pools

from vosim.core.code_path import REFERENCE_ENV, kernels
from vosim.market.binding import idle_processors, pack
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


@st.composite
def windows(draw):
    """A count view's window over random pools, with busy rows of the VO and local jobs."""
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
    n = draw(st.integers(1, r))
    nodes = np.array(draw(st.permutations(range(r)))[:n], dtype=np.int64)
    start = float(draw(st.integers(0, 20)))
    ends = start + np.array(draw(st.lists(st.integers(1, 30), min_size=n, max_size=n)), dtype=float)
    now = float(draw(st.integers(0, start)))

    def rows():
        k = draw(st.integers(0, 8))
        node = np.array(draw(st.lists(st.integers(0, r - 1), min_size=k, max_size=k)), np.int64)
        a = np.array(draw(st.lists(st.integers(0, 60), min_size=k, max_size=k)), dtype=float)
        b = a + np.array(draw(st.lists(st.integers(1, 20), min_size=k, max_size=k)), float)
        return node, a, b

    return nodes, ends, start, now, pool, first, members, rows(), rows()


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
