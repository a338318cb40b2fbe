"""screen_requests is a set of necessary conditions: it may never rule out a feasible request."""

import numpy as np
from alloc_strategies import slot_lists
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.allocators import ResourceRequest, allocate_window
from vosim.allocators.request_screen import (
    BUDGET_TOO_LOW,
    FITS_MAYBE,
    TOO_FEW_LONG_SLOTS,
    screen_requests,
)
from vosim.core import Slot, SlotList


@settings(max_examples=300, deadline=None)
@given(
    slot_lists(),
    st.lists(
        st.tuples(st.integers(1, 4), st.floats(10.0, 2000.0), st.floats(0.0, 20000.0)),
        min_size=1,
        max_size=6,
    ),
)
def test_screen_never_rules_out_a_feasible_request(slots, requests):
    n = np.array([r[0] for r in requests])
    volume = np.array([r[1] for r in requests])
    budget = np.array([r[2] for r in requests])
    code = screen_requests(slots, n, volume, budget)
    assert set(code.tolist()) <= {FITS_MAYBE, TOO_FEW_LONG_SLOTS, BUDGET_TOO_LOW}
    for (k, v, c), verdict in zip(requests, code.tolist(), strict=True):
        request = ResourceRequest(n=k, volume=v, budget=c)
        if verdict != FITS_MAYBE:
            assert allocate_window(slots, request, "amp").window is None
            assert allocate_window(slots, request, "min_cost").window is None


def test_screen_codes_on_a_worked_case():
    slots = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 0.0, 10.0, 1.0, 10.0)])
    # capacity: node 0 holds 200 work units, node 1 holds 100
    code = screen_requests(
        slots,
        np.array([1, 2, 1, 1]),
        np.array([150.0, 150.0, 150.0, 90.0]),
        np.array([1e9, 1e9, 74.0, 9.0]),
    )
    # 150 work at 0.5 per work costs 75 > 74; 90 work fits node 1 at 0.1 per work = 9
    assert code.tolist() == [FITS_MAYBE, TOO_FEW_LONG_SLOTS, BUDGET_TOO_LOW, FITS_MAYBE]


def test_empty_slot_list_rules_everything_out():
    code = screen_requests(SlotList(), np.array([1]), np.array([1.0]), np.array([1e9]))
    assert code.tolist() == [TOO_FEW_LONG_SLOTS]
