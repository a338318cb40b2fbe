"""Types below both :mod:`vosim.market` and :mod:`vosim.allocators`: slots, requests, windows.

:mod:`vosim.core.slots` (:class:`Slot`, :class:`SlotList`), :mod:`vosim.core.windows`
(:class:`ResourceRequest`, :class:`Window`, :class:`Allocation`) and
:mod:`vosim.core.results` (:class:`Status`, the :class:`Result` protocol every allocator
result follows), and :mod:`vosim.core.registry`, the one registry of named parts (criteria,
methods, policies, experiments). They import nothing of vosim but :mod:`vosim.errors`, so the
market and the allocators both build on them without importing each other.
"""

from vosim.core.results import Result, Status
from vosim.core.slots import Slot, SlotList, lexsort_order, merge_rows
from vosim.core.windows import Allocation, ResourceRequest, Window

__all__ = [
    "Allocation",
    "ResourceRequest",
    "Result",
    "Slot",
    "SlotList",
    "Status",
    "Window",
    "lexsort_order",
    "merge_rows",
]
