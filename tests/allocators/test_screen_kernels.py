"""The compiled request screen (screen_kernels.screen_codes) gives the numpy screen's codes."""

import os
from unittest import mock

import numpy as np
from alloc_strategies import slot_lists
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators.request_screen import (
    screen_requests,
)
from vosim.core.code_path import REFERENCE_ENV


@settings(max_examples=300, deadline=None)
@given(slot_lists(), st.data())
def test_the_compiled_screen_gives_the_numpy_codes(slots, data):
    """The compiled screen (the fast path) equals the numpy one, boundaries included: volumes
    drawn equal to a node's capacity and budgets equal to a request's floor, so every
    comparison that decides a code is tried at equality."""
    if not len(slots):
        return
    capacity = (slots.end - slots.start) * slots.performance
    cost_per_work = slots.price / slots.performance
    k = data.draw(st.integers(1, 8))
    n = np.array(data.draw(st.lists(st.integers(0, 8), min_size=k, max_size=k)))
    volume = np.array(
        data.draw(
            st.lists(
                st.one_of(st.sampled_from(capacity.tolist()), st.floats(1.0, 3000.0)),
                min_size=k,
                max_size=k,
            )
        )
    )
    floor = n * volume * data.draw(st.sampled_from(cost_per_work.tolist()))
    budget = np.where(
        data.draw(st.lists(st.booleans(), min_size=k, max_size=k)),
        floor,
        data.draw(st.floats(0.0, 20000.0)),
    )
    fast = screen_requests(slots, n, volume, budget)
    with mock.patch.dict(os.environ, {REFERENCE_ENV: "1"}):
        plain = screen_requests(slots, n, volume, budget)
    assert fast.dtype == plain.dtype
    assert fast.tolist() == plain.tolist()
