"""Allocators: pure functions from free slots (or resources) and a request to a selection.

Two registries by name: window criteria for slot lists (:func:`criteria`, e.g. ``"amp"``,
``"min_cost"``, AEP §2.2) and availability methods for :class:`AvailabilityProblem`
(:func:`methods`: ``knapsack_p``, ``max_p``, ``min_c``, ``max_p_per_c``, ``greedy_united``,
``knapsack_group``, ``greedy``, ``greedy_plus``, ``brute_force``, ``exact``, ``milp``;
ICCS 2023 §2.3–2.4), plus the time scan of ICCS 2021 (:func:`time_scan`).
"""

from vosim.allocators import aep as aep
from vosim.allocators import exact as exact
from vosim.allocators import greedy as greedy
from vosim.allocators import groups as groups
from vosim.allocators import knapsack as knapsack
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
from vosim.allocators.timescan import TimeScanResult, time_scan

__all__ = [
    "Allocation",
    "AvailabilityProblem",
    "AvailabilityResult",
    "ResourceRequest",
    "TimeScanResult",
    "Window",
    "allocate_resources",
    "allocate_window",
    "criteria",
    "methods",
    "register_criterion",
    "register_method",
    "time_scan",
    "window_probability",
]
