"""The compiled packing against the plain ``pack`` (its oracle) on random pools."""

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_binding import pools

from vosim.core.code_path import REFERENCE_ENV, kernels
from vosim.market.binding import pack


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
