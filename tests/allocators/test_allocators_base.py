"""The window-criterion registry and allocate_window's dispatch (vosim.allocators.base)."""

from __future__ import annotations

import pytest
from aep_market import CRITERIA, market

from vosim.allocators import (
    Allocation,
    ResourceRequest,
    allocate_window,
    criteria,
    register_criterion,
)
from vosim.errors import UnknownAllocatorError


def test_unknown_criterion_lists_registered_names():
    sl = market()
    with pytest.raises(UnknownAllocatorError) as info:
        allocate_window(sl, ResourceRequest(n=1, time=1.0), "cheapest")
    err = info.value
    assert isinstance(err, KeyError) and isinstance(err, ValueError)
    message = str(err)
    assert "cheapest" in message
    for name in CRITERIA:
        assert name in message
    assert not message.startswith("'")  # not quoted like a plain KeyError


def test_registered_criteria():
    names = criteria()
    assert set(CRITERIA) <= set(names)
    assert names == sorted(names)


def test_registering_a_taken_name_fails():
    with pytest.raises(ValueError, match="amp"):
        register_criterion("amp")(lambda slots, request: Allocation(None, "x"))
    assert allocate_window(market(), ResourceRequest(n=1, time=1.0), "amp").criterion == "amp"


@pytest.mark.parametrize("criterion", CRITERIA)
def test_plain_list_of_slots_is_a_type_error(criterion):
    slots = list(market())
    with pytest.raises(TypeError, match="SlotList"):
        allocate_window(slots, ResourceRequest(n=1, time=1.0), criterion)
    with pytest.raises(TypeError, match="SlotList"):
        allocate_window(tuple(slots), ResourceRequest(n=1, time=1.0), criterion)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_request_of_wrong_type_is_a_type_error(criterion):
    with pytest.raises(TypeError, match="ResourceRequest"):
        allocate_window(market(), {"n": 1, "time": 1.0}, criterion)


def test_default_criterion_is_amp():
    request = ResourceRequest(n=2, time=10.0, budget=60.0)
    result = allocate_window(market(), request)
    assert result.criterion == "amp"
    assert result.window == allocate_window(market(), request, "amp").window


def test_fallback_chains_are_registered_once_per_kind():
    from vosim.allocators import base, fallback

    for kind in ("criterion", "availability method", "mckp method"):
        assert callable(base.chain(kind))
    with pytest.raises(KeyError, match="no such kind"):
        base.chain("no such kind")
    with pytest.raises(ValueError, match="criterion"):
        base.register_chain("criterion", fallback.Chain)
