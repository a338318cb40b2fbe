"""Allocators: pure functions from free slots and a resource request to a window.

Criteria are registered by name (see :func:`criteria`): ``"amp"`` (earliest start) and
``"min_cost"`` (AEP §2.2).
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

__all__ = [
    "Allocation",
    "ResourceRequest",
    "Window",
    "allocate_window",
    "criteria",
    "register_criterion",
]
