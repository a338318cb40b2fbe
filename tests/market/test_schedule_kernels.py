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
