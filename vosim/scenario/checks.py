"""The single-parameter checks of the declaration: a value's type, range or registered name.

Each check says what it allows (:meth:`Check.describe`) and raises an error naming the
parameter and the bad value (:meth:`Check.validate`); :class:`~vosim.scenario.param.Param`
holds one per parameter. No Mesa and no pandas: the command line and sweep files check values
before a model is built.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, override

from vosim.data import SYNTHETIC_PREFIX, SYNTHETIC_TRACES
from vosim.errors import ParameterError, UnknownAllocatorError
from vosim.scenario.limits import MIN_PERIOD

if TYPE_CHECKING:
    from vosim.scenario.param import Param

__all__ = [
    "Allocators",
    "Budget",
    "Check",
    "Choice",
    "Flag",
    "Integer",
    "Owners",
    "Pair",
    "Period",
    "Real",
    "Subset",
    "TraceValue",
]


def _is_real(value: Any) -> bool:
    """A real number that is not a bool (numpy floats and ints included)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_int(value: Any) -> bool:
    """An integer that is not a bool (numpy integers included)."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _bound(low: float | None, high: float | None, low_open: bool, high_open: bool) -> str:
    """``">= 0"``, ``"> 0"``, ``"in [2, 10]"``: a range as a reader writes it."""

    def g(value: float) -> str:
        return str(value) if _is_int(value) else f"{value:g}"  # 1000000, not 1e+06

    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{g(low)}, {g(high)}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {g(low)}"
    if high is not None:
        return f"{'<' if high_open else '<='} {g(high)}"
    return ""


class Check:
    """Base of the single-parameter checks: :meth:`accepts` and :meth:`describe`.

    A check never sees ``None`` (:meth:`Param.validate` handles it) and raises
    :attr:`error` with a message naming the parameter and the bad value.
    """

    #: Exception class raised for a value outside the check.
    error: type[Exception] = ParameterError

    def accepts(self, value: Any) -> bool:  # pragma: no cover - every check overrides it
        """``True`` if ``value`` is allowed."""
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - every check overrides it
        """What the check allows, as the end of "``name`` must be ...": ``"an integer >= 1"``."""
        raise NotImplementedError

    def validate(self, param: Param, value: Any) -> None:
        """Raise :attr:`error` naming ``param`` and ``value`` unless ``value`` is allowed."""
        if not self.accepts(value):
            raise self.error(f"{param.name} must be {param.expects}, got {value!r}")


@dataclass(frozen=True)
class Integer(Check):
    """An integer (not a bool) within optional bounds, inclusive."""

    low: int | None = None
    high: int | None = None

    @override
    def accepts(self, value: Any) -> bool:
        return (
            _is_int(value)
            and (self.low is None or value >= self.low)
            and (self.high is None or value <= self.high)
        )

    @override
    def describe(self) -> str:
        return f"an integer {_bound(self.low, self.high, False, False)}".rstrip()


@dataclass(frozen=True)
class Owners(Integer):
    """An owner count (an integer >= 1), or ``"trace"``: one owner per site of the trace."""

    low: int | None = 1

    @override
    def accepts(self, value: Any) -> bool:
        return value == "trace" or super().accepts(value)

    @override
    def describe(self) -> str:
        return "an integer >= 1, or 'trace' (one owner per partition of the trace)"


@dataclass(frozen=True)
class Real(Check):
    """A real number (not a bool, not NaN) within optional bounds; finite if ``finite``."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    finite: bool = False

    @override
    def accepts(self, value: Any) -> bool:
        if not _is_real(value) or math.isnan(value):
            return False
        if self.finite and not math.isfinite(value):
            return False
        if self.low is not None and not (value > self.low if self.low_open else value >= self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

    @override
    def describe(self) -> str:
        bound = _bound(self.low, self.high, self.low_open, self.high_open)
        return f"a {'finite ' if self.finite else ''}number {bound}".rstrip()


@dataclass(frozen=True)
class Period(Real):
    """A finite period ``>= low`` (:data:`MIN_PERIOD`); ``zero`` also allows 0.

    A period far below the trace's time unit would make a run that never ends.
    """

    low: float | None = MIN_PERIOD
    finite: bool = True
    zero: bool = False

    @override
    def accepts(self, value: Any) -> bool:
        return super().accepts(value) or (self.zero and _is_real(value) and value == 0)

    @override
    def describe(self) -> str:
        zero = "0 (a pass at every job end and arrival) or " if self.zero else ""
        return f"{zero}a finite number >= {self.low:g} (vosim.scenario.MIN_PERIOD)"


@dataclass(frozen=True)
class Pair(Check):
    """A pair ``(low, high)`` of real numbers with ``low <= high``, both within the bounds.

    ``integer``: both must be integers (``bool`` excluded).
    """

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    integer: bool = False

    @override
    def accepts(self, value: Any) -> bool:
        if not isinstance(value, (tuple, list)) or len(value) != 2:
            return False
        a, b = value
        if self.integer and not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value
        ):
            return False
        item = Real(self.low, self.high, self.low_open, self.high_open)
        return item.accepts(a) and item.accepts(b) and a <= b

    @override
    def describe(self) -> str:
        g = "{:g}".format
        left = "" if self.low is None else f"{g(self.low)} {'<' if self.low_open else '<='} "
        right = "" if self.high is None else f" {'<' if self.high_open else '<='} {g(self.high)}"
        kind = "integers" if self.integer else "numbers"
        return f"a pair (low, high) of {kind} with {left}low <= high{right}"


@dataclass(frozen=True)
class Choice(Check):
    """One of the names a registry lists (read when needed, so registries load lazily).

    ``registry=True`` raises :class:`~vosim.errors.UnknownAllocatorError` ("unknown policy
    'x'; registered: ..."), else :class:`~vosim.errors.ParameterError`.
    """

    source: Callable[[], Sequence[Any]]
    registry: bool = False

    def values(self) -> tuple[Any, ...]:
        """The allowed values, in the registry's order."""
        return tuple(self.source())

    @override
    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        try:
            return value in self.values()
        except (TypeError, ValueError):  # incomparable, or an array
            return False

    @override
    def describe(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values())

    @override
    def validate(self, param: Param, value: Any) -> None:
        if self.registry and not self.accepts(value):
            raise UnknownAllocatorError(
                f"unknown {param.name} {value!r}; registered: "
                + ", ".join(str(v) for v in self.values())
            )
        super().validate(param, value)


@dataclass(frozen=True)
class Subset(Check):
    """A non-empty tuple or list of names, each one of :attr:`source`'s."""

    source: Callable[[], Sequence[str]]

    def values(self) -> tuple[str, ...]:
        """The allowed names."""
        return tuple(self.source())

    @override
    def accepts(self, value: Any) -> bool:
        allowed = self.values()
        return (
            isinstance(value, (tuple, list))
            and len(value) > 0
            and all(isinstance(v, str) and v in allowed for v in value)
        )

    @override
    def describe(self) -> str:
        return f"a non-empty subset of {', '.join(self.values())}"


@dataclass(frozen=True)
class Flag(Check):
    """``True`` or ``False`` (a Python or numpy bool)."""

    @override
    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool) or type(value).__name__ == "bool"

    @override
    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class TraceValue(Check):
    """A trace: a bundled name, an SWF path or a :func:`~vosim.market.swf.read_swf` frame.

    With ``synthetic=True`` the names of :data:`SYNTHETIC_TRACES` are accepted too; an
    unknown ``synthetic:`` name is an error either way. Whether a path exists is left to the
    reader (:class:`~vosim.errors.TraceFormatError` names the file).
    """

    synthetic: bool = False

    @override
    def accepts(self, value: Any) -> bool:
        if isinstance(value, str):
            return bool(value) and (
                not value.startswith(SYNTHETIC_PREFIX)
                or (self.synthetic and value in SYNTHETIC_TRACES)
            )
        if isinstance(value, os.PathLike):
            return True
        pandas = sys.modules.get("pandas")  # a DataFrame means pandas is already imported
        return pandas is not None and isinstance(value, pandas.DataFrame)

    @override
    def describe(self) -> str:
        synthetic = (
            f", a synthetic stream ({', '.join(SYNTHETIC_TRACES)})" if self.synthetic else ""
        )
        return f"a bundled trace name{synthetic}, an SWF path or a read_swf DataFrame"


@dataclass(frozen=True)
class Allocators(Check):
    """A mapping user criterion -> registered window criterion or fallback chain."""

    @override
    def accepts(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    @override
    def describe(self) -> str:
        return "a mapping of user criteria to window criteria"

    @override
    def validate(self, param: Param, value: Any) -> None:
        super().validate(param, value)
        from vosim.agents.user import USER_CRITERIA
        from vosim.allocators.base import criteria
        from vosim.allocators.fallback import is_method

        for user_criterion, name in value.items():
            if user_criterion not in USER_CRITERIA:
                raise ParameterError(
                    f"{param.name} key {user_criterion!r} is not a user criterion "
                    f"({', '.join(USER_CRITERIA)})"
                )
            if name != "max_availability" and not (
                isinstance(name, str) and is_method(name, "criteria")
            ):
                raise UnknownAllocatorError(
                    f"{param.name}: unknown criterion {name!r} for {user_criterion!r}; registered: "
                    f"{', '.join(criteria())} (or a chain such as 'min_cost>amp')"
                )


@dataclass(frozen=True)
class Budget(Check):
    """A fallback budget :meth:`~vosim.allocators.fallback.FallbackBudget.coerce` reads."""

    @override
    def accepts(self, value: Any) -> bool:
        from vosim.allocators.fallback import FallbackBudget

        try:
            FallbackBudget.coerce(value)
        except ParameterError:
            return False
        return True

    @override
    def describe(self) -> str:
        return "seconds ('2s', '500ms', a float) or search-tree nodes ('5000 nodes', an int)"

    @override
    def validate(self, param: Param, value: Any) -> None:
        from vosim.allocators.fallback import FallbackBudget

        try:
            FallbackBudget.coerce(value)
        except ParameterError as exc:
            raise ParameterError(f"{param.name}: {exc}") from None
