"""The compiled buffered shortenings against the plain numpy pass (their oracle)."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core.code_path import REFERENCE_ENV, kernels
from vosim.market.schedule import NodeSchedule


@st.composite
def schedules(draw):
    """A schedule of reservations on 4 nodes, 5 tags (several rows per tag and node among
    them), and shortenings buffered on it: some to nothing, some of one interval twice."""
    s = NodeSchedule([0, 1, 2, 3], [1.0] * 4, [1.0] * 4)
    for _ in range(draw(st.integers(0, 12))):
        nodes = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
        a = float(draw(st.integers(0, 20)))
        ends = [a + draw(st.integers(0, 10)) for _ in nodes]
        s.add_many(nodes, a, ends, draw(st.integers(0, 4)))
    s.intervals()  # written, nothing buffered
    for _ in range(draw(st.integers(0, 6))):
        nodes = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
        ends = [float(draw(st.integers(0, 30))) for _ in nodes]
        s.shorten(draw(st.integers(0, 6)), nodes, ends)
    return s


@settings(max_examples=300, deadline=None)
@given(schedules())
def test_compiled_shortenings_equal_the_plain_pass(s):
    """The same rows in the same order, whichever tags, repeats and empties are buffered."""
    twin = NodeSchedule([0, 1, 2, 3], [1.0] * 4, [1.0] * 4)
    twin._cols = [c.copy() for c in s._cols]
    twin._n, twin._short = s._n, list(s._short)
    fast = s.intervals()
    with mock.patch.dict("os.environ", {REFERENCE_ENV: "1"}):
        plain = twin.intervals()
    for f, p in zip(fast, plain, strict=True):
        np.testing.assert_array_equal(f, p)


def test_shorten_rows_by_hand():
    """Rows of tags 7 and 9 on nodes 0 and 1: tag 7 on node 1 is shortened twice (the earlier
    end holds), tag 9 on node 0 to its start (removed); tag 8 and later rows keep their place."""
    node = np.array([0, 1, 0, 1, 0, 0, 0], dtype=np.int64)
    a = np.array([0.0, 0.0, 5.0, 5.0, 10.0, 0.0, 0.0])
    b = np.array([10.0, 10.0, 9.0, 9.0, 20.0, 0.0, 0.0])
    tag = np.array([7, 7, 8, 8, 9, 0, 0], dtype=np.int64)
    n = kernels("vosim.market.schedule_kernels").shorten_rows(
        node, a, b, tag, 5,
        np.array([7, 9, 7], dtype=np.int64), np.array([1, 0, 1], dtype=np.int64),
        np.array([6.0, 10.0, 4.0]),
    )  # fmt: skip
    assert n == 4
    assert node[:n].tolist() == [0, 1, 0, 1]
    assert b[:n].tolist() == [10.0, 4.0, 9.0, 9.0]
    assert tag[:n].tolist() == [7, 7, 8, 8]


def _twin(s):
    """A copy of schedule ``s``'s rows (nothing buffered in it)."""
    twin = NodeSchedule([0, 1, 2, 3], [1.0] * 4, [1.0] * 4)
    twin._cols = [c.copy() for c in s._cols]
    twin._n = s._n
    return twin


@settings(max_examples=300, deadline=None)
@given(schedules(), st.integers(0, 4), st.permutations([0, 1, 2, 3]), st.integers(1, 4))
def test_compiled_move_equals_the_plain_move(s, tag, order, k):
    """The tag's last row on each of ``k`` nodes moved to the next node of a permutation:
    the same rows in the same order by both paths, or the same ``KeyError``."""
    s.intervals()
    twin = _twin(s)
    old = np.array(order[:k], dtype=np.int64)
    new = np.array([order[(i + 1) % 4] for i in range(k)], dtype=np.int64)
    errors = []
    for schedule, env in ((s, {}), (twin, {REFERENCE_ENV: "1"})):
        with mock.patch.dict("os.environ", env):
            try:
                schedule.move(tag, old, new)
                errors.append(None)
            except KeyError as e:
                errors.append(e.args)
    assert errors[0] == errors[1]
    for f, p in zip(s.intervals(), twin.intervals(), strict=True):
        np.testing.assert_array_equal(f, p)


def test_move_rows_takes_the_last_row_of_the_tag_on_a_node():
    """Tag 5 holds two rows on node 1 (an interrupted attempt, then its reservation): the
    later one moves to node 2 and goes last; a node without the tag is reported."""
    node = np.array([1, 0, 1, 0], dtype=np.int64)
    a = np.array([0.0, 0.0, 10.0, 0.0])
    b = np.array([5.0, 9.0, 20.0, 0.0])
    tag = np.array([5, 6, 5, 0], dtype=np.int64)
    k = kernels("vosim.market.schedule_kernels")
    old = np.array([1], dtype=np.int64)
    assert k.move_rows(node, a, b, tag, 3, 5, old, np.array([2], dtype=np.int64)) == -1
    assert node[:3].tolist() == [1, 0, 2]
    assert a[:3].tolist() == [0.0, 0.0, 10.0]
    assert tag[:3].tolist() == [5, 6, 5]
    missing = np.array([0, 3], dtype=np.int64)
    assert k.move_rows(node, a, b, tag, 3, 5, missing, np.array([1, 1], dtype=np.int64)) == 0
