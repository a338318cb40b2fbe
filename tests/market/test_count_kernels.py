"""count_rows: the plain count view's rows, by hand (the hypothesis comparison is in
test_free_time.py, test_count_view_compiled_equals_plain)."""

from __future__ import annotations

import numpy as np

from vosim.market.count_kernels import count_rows, pool_levels


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
