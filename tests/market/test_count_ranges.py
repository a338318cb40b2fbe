"""A count view held as ranges expands to its rows, and cuts as the rows cut.

The oracle is ``count_kernels.cut_view_rows`` on the expanded rows: after any window cut out
of a count view of pools of consecutive processors, the ranges expand to the same rows in the
same order.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core.slots import Slot, SlotList
from vosim.market.count_kernels import (
    consecutive,
    cut_ranges,
    cut_view_rows,
    expand,
    ranges_of,
)
from vosim.market.free_time import count_view, members_of

COLUMNS = ("node", "start", "end", "price", "performance")


@st.composite
def views(draw):
    """A count view of 1-4 pools of 1-4 consecutive processors, and its pools.

    Two pools may share a price (alike rows across pools). Some views re-level only some
    pools: the others keep their rows as given, at prices that may differ within a pool (a
    window put back at its own price), not in levels.
    """
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    pool = np.repeat(np.arange(len(sizes)), sizes).astype(np.int64)
    mixed = draw(st.booleans())
    rows = []
    for k in range(pool.size):
        cuts = sorted(set(draw(st.lists(st.integers(0, 30), max_size=6))))
        for t, u in zip(cuts[::2], cuts[1::2], strict=False):
            price = 1.0 + pool[k] % 2 + (0.5 * draw(st.integers(0, 1)) if mixed else 0.0)
            rows.append(Slot(k, float(t), float(u), price, 1.0))
    pools = None
    if mixed:
        pools = np.array(draw(st.lists(st.integers(0, len(sizes) - 1), max_size=2)), np.int64)
    return count_view(SlotList(rows), pool, pools), pool


def _rows(view):
    return [np.asarray(getattr(view, c)) for c in COLUMNS]


@settings(max_examples=300, deadline=None)
@given(views(), st.data())
def test_ranges_expand_and_cut_as_the_rows(case, data):
    view, pool = case
    first, members = members_of(pool)
    assert consecutive(first, members)
    columns = _rows(view)
    ranges = ranges_of(*columns, pool, first, members)
    for got, want in zip(expand(ranges, members), columns, strict=True):
        assert got.tolist() == want.tolist()
    if not len(view):
        return
    # a window: tasks on distinct processors, each span inside its row
    at = data.draw(st.lists(st.integers(0, len(view) - 1), min_size=1, max_size=4, unique=True))
    at = [i for j, i in enumerate(at) if columns[0][i] not in columns[0][at[:j]]]
    a, b = [], []
    for i in at:
        s, e = int(columns[1][i]), int(columns[2][i])
        lo = data.draw(st.integers(s, e - 1))
        a.append(float(lo))
        b.append(float(data.draw(st.integers(lo + 1, e))))
    a, b = np.array(a), np.array(b)
    bad, *want = cut_view_rows(
        *columns, columns[0][at], a, b, pool, first, members
    )  # fmt: skip
    assert bad == -1
    start_of = np.concatenate([[0], np.cumsum(ranges[6])])
    hit = np.searchsorted(start_of, at, side="right") - 1
    offset = np.array(at) - start_of[hit]
    code, cut = cut_ranges(ranges, hit, offset, a, b, first, members)
    assert code == -1
    for got, w in zip(expand(cut, members), want, strict=True):
        assert got.tolist() == w.tolist()
    assert len(cut[0]) <= len(want[0])
