"""One declared parameter (:class:`Param`): its checks, help, text form and UI input."""

from __future__ import annotations

import functools
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vosim.errors import ParameterError
from vosim.scenario.checks import Check, Choice, Flag, Integer, Subset

__all__ = ["DataFrame", "Param", "UIInput"]


@dataclass(frozen=True)
class UIInput:
    """How the live UI shows a parameter (Mesa SolaraViz input spec).

    Parameters
    ----------
    value : Any
        The page's starting value; ``None`` (default) means the parameter's default.
    label : str
        The input's label; ``""`` means the parameter's :attr:`Param.label`.
    min, max, step : float or None
        Slider bounds and step (numbers only).
    """

    value: Any = None
    label: str = ""
    min: float | None = None
    max: float | None = None
    step: float | None = None


@dataclass(frozen=True)
class Param:
    """One declared model parameter (read from a :class:`Scenario` field).

    Parameters
    ----------
    name : str
        The keyword of :class:`~vosim.model.VOModel` and the sweep-file key; ``vosim run``'s
        option is ``--`` + ``name`` with ``_`` as ``-``.
    annotation : str
        The type, as the text of VOModel's annotation (``"int | None"``).
    default : Any
        The default value.
    help : str
        One line of help.
    group : str
        A key of :data:`GROUPS`.
    unit : str
        Unit of the value (``"s"``: model time units, i.e. trace seconds); ``""`` for none.
    check : Check or None
        The single-parameter check.
    none : str
        What ``None`` means, for parameters that allow it.
    label : str
        Short name (UI label); ``""`` means ``name`` with spaces.
    metavar : str or None
        Placeholder of the option's value in ``vosim run --help``.
    ui : UIInput or None
        How the live UI shows it; ``None``: not a UI input.
    doc_type : str
        The type as :class:`~vosim.model.VOModel`'s docstring names it (numpydoc).
    doc : str
        The full description in :class:`~vosim.model.VOModel`'s docstring (numpydoc, several
        lines, its references included): :func:`parameter_docs` writes it there.
    """

    name: str
    annotation: str
    default: Any
    help: str
    group: str
    unit: str = ""
    check: Check | None = None
    none: str = ""
    label: str = ""
    metavar: str | None = None
    ui: UIInput | None = None
    doc_type: str = ""
    doc: str = ""

    @functools.cached_property
    def type(self) -> Any:
        """The annotation as a typing object (``int | None``; ``pd.DataFrame`` as a stand-in).

        A DataFrame never comes from text (TOML or the command line), so the pandas type is
        stood in for by a placeholder class and pandas is not imported.
        """
        return _resolve(self.annotation)

    @property
    def optional(self) -> bool:
        """``True`` if the parameter accepts ``None``."""
        return type(None) in typing.get_args(self.type)

    @property
    def choices(self) -> tuple[Any, ...] | None:
        """The allowed values of a parameter naming registered things, else ``None``."""
        if isinstance(self.check, (Choice, Subset)):
            return self.check.values()
        return None

    @property
    def flag(self) -> str:
        """The ``vosim run`` option: ``--cycle-period`` for ``cycle_period``."""
        return "--" + self.name.replace("_", "-")

    @property
    def expects(self) -> str:
        """What the parameter allows: ``"an integer >= 1 or None"``."""
        text = self.check.describe() if self.check is not None else f"a {self.annotation}"
        return f"{text} or None" if self.optional else text

    @property
    def help_text(self) -> str:
        """The one-line help with the unit and the default: ``"... (s; default: 300)"``."""
        return self.format_help()

    def format_help(self, list_choices: bool = False) -> str:
        """The one-line help, the allowed values if ``list_choices``, the unit and the default.

        Examples
        --------
        >>> from vosim.scenario import PARAMETERS
        >>> PARAMETERS["vo_limit"].format_help(list_choices=True)[-54:]
        'or batch time; one of user, cost, time (default: user)'
        """
        text = self.help
        if list_choices and self.choices is not None:
            text += f"; one of {', '.join(str(c) for c in self.choices)}"
        if isinstance(self.check, Flag):
            return text
        default = self.none if self.default is None else self.to_text(self.default)
        unit = f"{self.unit}; " if self.unit else ""
        return f"{text} ({unit}default: {default})"

    def validate(self, value: Any) -> None:
        """Raise unless ``value`` is allowed (the message names the parameter and ``value``).

        Raises
        ------
        ParameterError
            ``value`` outside the parameter's range or type; ``None`` where not allowed.
        UnknownAllocatorError
            An unregistered name where a registry is the check.
        """
        if value is None:
            if not self.optional:
                raise ParameterError(f"{self.name} must be {self.expects}, got None")
            return
        if self.check is not None:
            self.check.validate(self, value)

    def to_text(self, value: Any) -> str:
        """``value`` as the command line writes it (the inverse of :meth:`from_text`).

        Examples
        --------
        >>> from vosim.scenario import PARAMETERS
        >>> PARAMETERS["budget_range"].to_text((0.7, 1.6)), PARAMETERS["ua"].to_text(None)
        ('0.7,1.6', 'none')
        """
        if value is None:
            return "none"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, float):
            whole = math.isfinite(value) and value == int(value) and abs(value) < 1e15
            return f"{value:g}" if whole else repr(value)
        if isinstance(value, (tuple, list)):
            return ",".join(self.to_text(v) for v in value)
        if isinstance(value, Mapping):
            return ",".join(f"{k}={v}" for k, v in value.items())
        return str(value)

    def from_text(self, text: str) -> Any:
        """The value of command-line ``text``, checked.

        ``none`` is ``None`` where allowed; tuples are comma-separated (``0.1,0.5``); a
        mapping is ``KEY=VALUE`` pairs separated by commas; booleans are ``true``/``false``.

        Raises
        ------
        ParameterError
            ``text`` is not a value of the parameter's type, or the value fails its check.
        UnknownAllocatorError
            An unregistered name.
        """
        raw = text.strip()
        if raw.lower() == "none" and self.optional:
            return None
        for arm in _arms(self.type):
            try:
                value = _from_text(raw, arm)
            except ValueError:
                continue
            self.validate(value)
            return value
        raise ParameterError(f"{self.name} must be {self.expects}, got {text!r}")

    @property
    def ui_value(self) -> Any:
        """The live UI's starting value (the declared UI value, else the default)."""
        if self.ui is None or self.ui.value is None:
            return self.default
        return self.ui.value

    def ui_spec(self) -> dict[str, Any]:
        """The Mesa SolaraViz input spec of the parameter (``Select``, ``Checkbox``, slider).

        Raises
        ------
        ParameterError
            The parameter is not a UI input (declared without ``ui``).
        """
        if self.ui is None:
            raise ParameterError(f"{self.name} is not an input of the live UI")
        label = self.ui.label or self.label or self.name.replace("_", " ")
        spec: dict[str, Any] = {"label": label, "value": self.ui_value}
        if self.choices is not None:
            return {"type": "Select", **spec, "values": list(self.choices)}
        if isinstance(self.check, Flag):
            return {"type": "Checkbox", **spec}
        kind = "SliderInt" if isinstance(self.check, Integer) else "SliderFloat"
        return {"type": kind, **spec, "min": self.ui.min, "max": self.ui.max, "step": self.ui.step}


class DataFrame:
    """Stands for ``pandas.DataFrame`` in resolved annotations (text never gives one)."""


#: Names the annotations use, for :func:`_resolve`.
_NAMESPACE = {"Path": Path, "pd": types.SimpleNamespace(DataFrame=DataFrame)}


def _resolve(annotation: str) -> Any:
    """The typing object of an annotation text such as ``"tuple[float, float] | None"``."""
    return eval(annotation, dict(_NAMESPACE))


def _arms(annotation: Any) -> tuple[Any, ...]:
    """The non-None members of a union (the annotation itself if not a union)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return tuple(a for a in typing.get_args(annotation) if a is not type(None))
    return (annotation,)


def _from_text(raw: str, annotation: Any) -> Any:
    """``raw`` converted to ``annotation``; :class:`ValueError` if it is not one."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is bool:
        if raw.lower() in ("true", "false"):
            return raw.lower() == "true"
        raise ValueError(raw)
    if annotation is int:
        return int(raw)
    if annotation is float:
        return float(raw)
    if annotation in (str, Path):
        if not raw:
            raise ValueError(raw)
        return raw
    if origin is tuple:
        items = [s.strip() for s in raw.split(",")]
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from_text(s, args[0]) for s in items)
        if len(items) != len(args):
            raise ValueError(raw)
        return tuple(_from_text(s, a) for s, a in zip(items, args, strict=True))
    if origin is dict:
        pairs = {}
        for item in raw.split(","):
            key, sep, value = item.partition("=")
            if not sep or not key.strip() or not value.strip():
                raise ValueError(raw)
            pairs[key.strip()] = value.strip()
        return pairs
    raise ValueError(raw)
