"""The one registry of vosim's named parts, keyed by kind.

A name on the command line, in a sweep file or in a fallback chain (``"min_cost>amp"``)
stands for an entry of one kind: a window criterion, an availability method, an MCKP
method, a fallback chain runner, a policy or an experiment (and, by module, the declared
signatures of compiled kernels). Each module that defines such a
part registers it here when it is imported (``register_criterion``, ``register_method``,
``register_policy``, ... are thin decorators over :func:`register`); lookups ask
:func:`entry`, listings :func:`names`. Pure Python: importing it loads nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["KINDS", "entry", "names", "register", "registering"]

#: The kinds of entries and what each entry is.
KINDS: dict[str, str] = {
    "criterion": "a window search, (SlotList, ResourceRequest) -> Allocation (AEP §2.2)",
    "availability method": "an allocator of AvailabilityProblem -> AvailabilityResult "
    "(ICCS 2021 §3, ICCS 2023 §2)",
    "mckp method": "a solver of the multiple-choice knapsack of job options (ICCS 2023 §3)",
    "fallback chain": "how a chain 'a>b' of the kind named runs (vosim's fallback chains)",
    "policy": "(a policy factory, the model values it takes)",
    "experiment": "a paper's experiment (vosim.runs.experiments.base.Experiment)",
    "kernel signatures": "a kernel module's entry points, in declaration order, and the "
    "argument types of each (vosim.core.precompile)",
}

_ENTRIES: dict[str, dict[str, Any]] = {kind: {} for kind in KINDS}


def _of(kind: str) -> dict[str, Any]:
    try:
        return _ENTRIES[kind]
    except KeyError:
        raise KeyError(f"no kind {kind!r} in the registry; kinds: {', '.join(KINDS)}") from None


def register(kind: str, name: str, value: Any) -> None:
    """Register ``value`` as the ``kind`` entry named ``name``.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    name : str
        The entry's name, unique within its kind.
    value : object
        What the name stands for (:data:`KINDS` says what each kind holds).

    Raises
    ------
    KeyError
        ``kind`` is not one of :data:`KINDS`.
    ValueError
        ``name`` is already registered for ``kind``.

    References
    ----------
    No paper: vosim's registry of the papers' methods.
    """
    entries = _of(kind)
    if name in entries:
        raise ValueError(f"{kind} {name!r} is already registered")
    entries[name] = value


def registering(kind: str, name: str) -> Callable[[T], T]:
    """A decorator registering what it decorates as the ``kind`` entry ``name``, unchanged.

    Raises, when the decorator is applied, what :func:`register` raises. Source: vosim's
    registry (no paper).
    """

    def deco(value: T) -> T:
        register(kind, name, value)
        return value

    return deco


def entry(kind: str, name: str) -> Any:
    """The ``kind`` entry named ``name``.

    Raises
    ------
    KeyError
        ``kind`` is unknown, or no entry of it is named ``name`` (the message lists the
        names there are). Callers that take a user's input turn it into their own error.

    References
    ----------
    vosim's registry (no paper).
    """
    entries = _of(kind)
    try:
        return entries[name]
    except KeyError:
        known = ", ".join(sorted(entries)) or "none"
        raise KeyError(f"no {kind} named {name!r}; registered: {known}") from None


def names(kind: str) -> list[str]:
    """The names registered for ``kind``, sorted.

    Raises
    ------
    KeyError
        ``kind`` is not one of :data:`KINDS`.

    References
    ----------
    vosim's registry (no paper).
    """
    return sorted(_of(kind))
