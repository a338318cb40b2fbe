"""vosim: agent-based simulation of resource sharing in grid and cloud virtual organizations.

The public API is re-exported here; see the README for a tour. The names are imported lazily
(PEP 562), on first access: ``import vosim.allocators`` or ``import vosim.market`` does not
import Mesa, and ``vosim.VOModel`` imports the model (and Mesa) only when it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "Allocation": "vosim.core.windows",
    "ResourceRequest": "vosim.core.windows",
    "Window": "vosim.core.windows",
    "Slot": "vosim.core.slots",
    "SlotList": "vosim.core.slots",
    "Status": "vosim.core.results",
    "allocate_window": "vosim.allocators",
    "criteria": "vosim.allocators",
    "ParameterError": "vosim.errors",
    "RequestError": "vosim.errors",
    "SlotError": "vosim.errors",
    "TraceFormatError": "vosim.errors",
    "UnknownAllocatorError": "vosim.errors",
    "VosimError": "vosim.errors",
    "read_swf": "vosim.market.swf",
    "VOModel": "vosim.model",
}

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from vosim.allocators import allocate_window, criteria
    from vosim.core.results import Status
    from vosim.core.slots import Slot, SlotList
    from vosim.core.windows import Allocation, ResourceRequest, Window
    from vosim.errors import (
        ParameterError,
        RequestError,
        SlotError,
        TraceFormatError,
        UnknownAllocatorError,
        VosimError,
    )
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
    "Status",
    "TraceFormatError",
    "UnknownAllocatorError",
    "VOModel",
    "VosimError",
    "Window",
    "allocate_window",
    "criteria",
    "read_swf",
]


def __getattr__(name: str) -> Any:
    """Import a public name on first access (PEP 562) and cache it in the module.

    Raises
    ------
    AttributeError
        ``name`` is not part of the public API.
    """
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'vosim' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
