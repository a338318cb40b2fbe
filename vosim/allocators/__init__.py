"""Allocators: pure functions from free slots (or resources) and a request to a selection.

Two registries by name: window criteria for slot lists (:func:`criteria`, e.g. ``"amp"``,
``"min_cost"``, AEP §2.2) and availability methods for :class:`AvailabilityProblem`
(:func:`methods`, ICCS 2023 §2.3–2.4).
"""

from vosim.allocators import aep as aep
from vosim.allocators.base import (
    Allocation,
    ResourceRequest,
    Window,
    allocate_window,
    criteria,
    register_criterion,
)
from vosim.allocators.problem import (
    AvailabilityProblem,
    AvailabilityResult,
    allocate_resources,
    methods,
    register_method,
    window_probability,
)

__all__ = [
    "AvailabilityProblem",
    "AvailabilityResult",
    "allocate_resources",
    "methods",
    "register_method",
    "window_probability",
    "Allocation",
    "ResourceRequest",
    "Window",
    "allocate_window",
    "criteria",
    "register_criterion",
]
