"""vosim: agent-based simulation of resource sharing in grid and cloud virtual organizations.

The public API is re-exported here; see the README for a tour.
"""

__version__ = "0.1.0"

from vosim.allocators import (
    Allocation,
    ResourceRequest,
    Window,
    allocate_window,
    criteria,
)
from vosim.errors import (
    ParameterError,
    RequestError,
    SlotError,
    TraceFormatError,
    UnknownAllocatorError,
    VosimError,
)
from vosim.market.slots import Slot, SlotList
from vosim.market.swf import read_swf
from vosim.model import VOModel

__all__ = [
    "__version__",
    "Allocation",
    "ParameterError",
    "RequestError",
    "ResourceRequest",
    "Slot",
    "SlotError",
    "SlotList",
    "TraceFormatError",
    "UnknownAllocatorError",
    "VOModel",
    "VosimError",
    "Window",
    "allocate_window",
    "criteria",
    "read_swf",
]
