"""Window criteria by name: registered in the one registry (kind ``"criterion"``), run here.

The shared types (:class:`~vosim.core.windows.ResourceRequest`,
:class:`~vosim.core.windows.Window`, :class:`~vosim.core.windows.Allocation`) live in
:mod:`vosim.core`; they are re-exported here for the modules that import them from this one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vosim.core import registry
from vosim.core.slots import Slot, SlotList  # noqa: F401 (Slot: the doctests use it)
from vosim.core.windows import Allocation, ResourceRequest, Window
from vosim.errors import UnknownAllocatorError

__all__ = [
    "ResourceRequest",
    "Window",
    "Allocation",
    "register_criterion",
    "criteria",
    "allocate_window",
    "chain",
    "register_chain",
]


Criterion = Callable[[SlotList, ResourceRequest], Allocation]


def register_criterion(name: str) -> Callable[[Criterion], Criterion]:
    """Register a window-search function under ``name`` (decorator).

    The function takes ``(slots: SlotList, request: ResourceRequest)`` and returns an
    :class:`Allocation`. Raises ``ValueError`` if ``name`` is taken. Source: AEP §2.2 (the
    criteria); the registry is vosim's (:mod:`vosim.core.registry`).
    """
    return registry.registering("criterion", name)


def criteria() -> list[str]:
    """Return the registered criterion names, sorted."""
    return registry.names("criterion")


def register_chain(kind: str, runner: Callable[..., Any]) -> None:
    """Register how a fallback chain (``"a>b"``) of ``kind`` runs.

    ``kind``: ``"criterion"``, ``"availability method"`` or ``"mckp method"`` (the registry
    kind the chain's links are of). :mod:`vosim.allocators.fallback`, imported with the
    package, registers the three, so the modules running a chain need not import it (it
    imports them). Raises ``ValueError`` if ``kind`` already has one. Source: vosim's
    fallback chains (:mod:`vosim.allocators.fallback`).
    """
    registry.register("fallback chain", kind, runner)


def chain(kind: str) -> Callable[..., Any]:
    """How a fallback chain of ``kind`` runs (what :func:`register_chain` registered).

    Raises ``KeyError`` naming ``kind`` if none is registered (the fallback module was not
    imported: it is, with :mod:`vosim.allocators`).
    """
    return registry.entry("fallback chain", kind)


def allocate_window(
    slots: SlotList, request: ResourceRequest, criterion: str = "amp", *, fallback_after=None
) -> Allocation:
    """Find a window for ``request`` in ``slots`` with the named criterion.

    Parameters
    ----------
    slots : SlotList
        Free slots of the scheduling interval.
    request : ResourceRequest
        The job's resource request.
    criterion : str
        A registered name, see :func:`criteria` (e.g. ``"amp"``, ``"min_cost"``), or a
        fallback chain such as ``"min_cost>amp"`` (:mod:`vosim.allocators.fallback`).
    fallback_after : FallbackBudget, str, int or float, optional
        A chain's budget (``"2s"``, ``"5000"`` nodes: for minCost, candidate starts
        examined); ignored for a single name. ``None``: the links' own defaults.

    Returns
    -------
    Allocation
        ``window`` is ``None`` with a ``reason`` when nothing fits. A chain's result records
        ``stats["answered_by"]`` and ``stats["fell_back"]``.

    Raises
    ------
    UnknownAllocatorError
        ``criterion`` is not registered, or not a valid chain.
    TypeError
        ``slots`` is not a SlotList or ``request`` not a ResourceRequest.

    Examples
    --------
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 1.0, 2.0), Slot(1, 10.0, 100.0, 1.0, 4.0)])
    >>> w = allocate_window(sl, ResourceRequest(n=2, volume=80.0), "amp").window
    >>> (w.start, w.runtime, w.cost)
    (10.0, 40.0, 60.0)
    """
    if isinstance(criterion, str) and ">" in criterion:  # a fallback chain, e.g. "min_cost>amp"
        fn = chain("criterion")(criterion, fallback_after)
    else:
        try:
            fn = registry.entry("criterion", criterion)
        except KeyError:
            raise UnknownAllocatorError(
                f"unknown criterion {criterion!r}; registered: {', '.join(criteria())}"
            ) from None
    if not isinstance(slots, SlotList):
        raise TypeError(f"slots must be a SlotList, got {type(slots).__name__}")
    if not isinstance(request, ResourceRequest):
        raise TypeError(f"request must be a ResourceRequest, got {type(request).__name__}")
    return fn(slots, request)
