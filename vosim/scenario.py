"""Every :class:`~vosim.model.VOModel` parameter, declared once; named presets; paper workloads.

:class:`Scenario` is a frozen dataclass with one field per keyword parameter of
:class:`~vosim.model.VOModel` (all but ``rng``), in the constructor's order. Each field
declares the parameter once: its name, type (the annotation, as text identical to VOModel's),
default, unit, allowed values, one-line help and validation. From it are generated or checked:

* ``VOModel(**fields)``: the constructor keeps its explicit keyword signature (Mesa style,
  ``rng`` last) and calls :func:`check_parameters` on its arguments, so every single-parameter
  check lives here; ``tests/test_scenario.py`` asserts the signature's names, annotations and
  defaults equal the declaration's;
* ``vosim run``'s options (:mod:`vosim.runs.cli`): one ``--name-with-dashes`` option per
  parameter, its help from :attr:`Param.help_text`, its choices from :attr:`Param.choices`,
  its conversion from :meth:`Param.from_text` (``none`` for ``None``, comma lists, ``K=V``);
* sweep-file keys (:mod:`vosim.runs.config`): the declaration's names, types, choices and
  checks;
* the inputs of the live UI (:mod:`vosim.ui.app`): the parameters declared with ``ui=``, named
  as here, their widgets from :meth:`Param.ui_spec`.

Presets (:data:`PRESETS`) are named parameter sets: ``aep`` (AEP §3.1), ``vo-preferences``
(VO Preferences §4) and ``machine`` (the traced machine). ``vosim run --preset NAME`` and a
sweep file's ``preset = "NAME"`` start from one; explicit values override it. The papers'
job streams are synthetic traces, named ``synthetic:aep`` and ``synthetic:vo-preferences``
(:data:`~vosim.data.SYNTHETIC_TRACES`): any ``trace`` argument accepts them.

Why not Mesa's ``Scenario``
---------------------------
Mesa 3.5.1 ships ``mesa.experimental.scenarios.Scenario``: a type-hinted subclass whose
class-level attributes are defaults, instantiated with keyword overrides (Mesa 4's successor of
``batch_run`` builds on it, mesa#3768). It does not serve as this declaration, because:

1. it holds name -> default only: no unit, help, allowed values or validation, which are what
   the command line, sweep files and UI are generated from (they would all go into
   ``typing.Annotated`` metadata that Mesa ignores, i.e. a declaration of our own anyway);
2. importing it imports Mesa (about 1 s); ``vosim run --help``, sweep-file parsing and the
   Mesa-free packages (``vosim.core``, ``market``, ``allocators``, ``policies``) must not pay
   for that, and this module imports neither Mesa nor pandas;
3. its instances are mutable attribute bags with a per-class id counter and a back-reference
   to their model, while a preset is an immutable, comparable value;
4. it is experimental: its API is still changing for Mesa 4.

The shapes match, so moving to it later is mechanical: a frozen dataclass with typed,
defaulted fields maps one to one onto a Mesa ``Scenario`` subclass. ``VOModel.scenario`` stays
Mesa's own default (it holds only the seed), and SolaraViz's Reset keeps passing plain keyword
arguments. The UI's prebuilt trace-and-parameters bundle, formerly also named ``Scenario``, is
:class:`vosim.ui.scenarios.Workload`.

Examples
--------
>>> s = Scenario.preset("machine", jobs=500)
>>> s.machine, s.policy, s.cycle_period, s.jobs
(True, 'easy', 0.0, 500)
>>> PARAMETERS["jobs"].help_text
'simulate the first N jobs of the trace (default: 2000)'
>>> PARAMETERS["local_load"].from_text("0.05, 0.1")
(0.05, 0.1)
>>> try:
...     Scenario(jobs=0)
... except ParameterError as exc:
...     print(exc)
jobs must be an integer >= 1 or None, got 0
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import os
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vosim.data import DEFAULT_TRACE, SYNTHETIC_PREFIX, SYNTHETIC_TRACES, TRACES
from vosim.errors import ParameterError, UnknownAllocatorError
from vosim.market.nodes import MAX_RESOURCES

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "parameter_docs",
    "GROUPS",
    "MAX_LOCAL_ARRIVALS",
    "MAX_LOCAL_DRAWS",
    "MAX_PERIODS",
    "MIN_PERIOD",
    "PARAMETERS",
    "PRESETS",
    "SYNTHETIC_TRACES",
    "UI_PARAMETERS",
    "Param",
    "Preset",
    "Scenario",
    "UIInput",
    "check_combination",
    "check_parameters",
]

#: The shortest ``cycle_period`` (other than 0) and ``budget_period``, model time units.
#: Trace times are whole seconds (SWF) and model time units are seconds: a shorter
#: period adds only cycles or budget resets between the events a pass can react to, and
#: ``cycle_period 0`` already gives a pass at every job end and arrival. Periods of 1e-9 and
#: 1e-6 made runs that never ended (``vosim run --cycle-period 1e-9``).
MIN_PERIOD = 1.0

#: The most scheduling cycles that can act, or budget periods, a run may have, estimated from
#: its trace before it starts (:class:`~vosim.model.VOModel`). A cycle with
#: jobs waiting took 0.3-0.5 ms on 300 Gaia or NASA jobs, 13 ms when owners may leave
#: (measured), and a budget period resets every balance and wakes a cycle: 10^6 of them take
#: minutes to hours; beyond, a run is a typo of the period rather than a study. The whole Gaia
#: trace (3 months) has 26,000 cycles at the default 300 s and 770,000 at 10 s; idle stretches
#: are skipped and not counted.
MAX_PERIODS = 10**6

#: The most draws of the owners' local load a run may make: physical nodes times the
#: scheduling intervals ``L`` from time 0 to the trace's end (every node's local jobs are
#: drawn per interval ``L`` from time 0 on and kept for the whole run).
#: 10^6 draws took 13 s and 850 MB (measured: 20 Unix-timestamp jobs, 1.4e9 s, on 430
#: nodes); UniLu-Gaia's 151 nodes over its 3 months make 2,000, a trace of Unix-timestamp
#: submit times 350,000, and one job at 1e15 s 2.5e11, which would never end.
MAX_LOCAL_DRAWS = 10**6

#: The most online local jobs a run may expect (:class:`~vosim.market.local_flow.PoissonLocalJobs`
#: over the trace's span). Each is placed once, at about 50 us; LCG-2005-1's two weeks on its
#: 24,515 one-processor nodes at 5-10 % local load bring about 2 x 10^6; beyond 10^7 a run is a
#: typo of the load or of the trace's times rather than a study.
MAX_LOCAL_ARRIVALS = 10**7

# -- checks --------------------------------------------------------------------------------------


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

    def accepts(self, value: Any) -> bool:
        return (
            _is_int(value)
            and (self.low is None or value >= self.low)
            and (self.high is None or value <= self.high)
        )

    def describe(self) -> str:
        return f"an integer {_bound(self.low, self.high, False, False)}".rstrip()


@dataclass(frozen=True)
class Owners(Integer):
    """An owner count (an integer >= 1), or ``"trace"``: one owner per site of the trace."""

    low: int | None = 1

    def accepts(self, value: Any) -> bool:
        return value == "trace" or super().accepts(value)

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

    def accepts(self, value: Any) -> bool:
        if not _is_real(value) or math.isnan(value):
            return False
        if self.finite and not math.isfinite(value):
            return False
        if self.low is not None and not (value > self.low if self.low_open else value >= self.low):
            return False
        return self.high is None or (value < self.high if self.high_open else value <= self.high)

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

    def accepts(self, value: Any) -> bool:
        return super().accepts(value) or (self.zero and _is_real(value) and value == 0)

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

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool):
            return False
        try:
            return value in self.values()
        except (TypeError, ValueError):  # incomparable, or an array
            return False

    def describe(self) -> str:
        return "one of " + ", ".join(str(v) for v in self.values())

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

    def accepts(self, value: Any) -> bool:
        allowed = self.values()
        return (
            isinstance(value, (tuple, list))
            and len(value) > 0
            and all(isinstance(v, str) and v in allowed for v in value)
        )

    def describe(self) -> str:
        return f"a non-empty subset of {', '.join(self.values())}"


@dataclass(frozen=True)
class Flag(Check):
    """``True`` or ``False`` (a Python or numpy bool)."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, bool) or type(value).__name__ == "bool"

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

    def describe(self) -> str:
        synthetic = (
            f", a synthetic stream ({', '.join(SYNTHETIC_TRACES)})" if self.synthetic else ""
        )
        return f"a bundled trace name{synthetic}, an SWF path or a read_swf DataFrame"


@dataclass(frozen=True)
class Allocators(Check):
    """A mapping user criterion -> registered window criterion or fallback chain."""

    def accepts(self, value: Any) -> bool:
        return isinstance(value, Mapping)

    def describe(self) -> str:
        return "a mapping of user criteria to window criteria"

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

    def accepts(self, value: Any) -> bool:
        from vosim.allocators.fallback import FallbackBudget

        try:
            FallbackBudget.coerce(value)
        except ParameterError:
            return False
        return True

    def describe(self) -> str:
        return "seconds ('2s', '500ms', a float) or search-tree nodes ('5000 nodes', an int)"

    def validate(self, param: Param, value: Any) -> None:
        from vosim.allocators.fallback import FallbackBudget

        try:
            FallbackBudget.coerce(value)
        except ParameterError as exc:
            raise ParameterError(f"{param.name}: {exc}") from None


# -- registries read lazily (Mesa-free except the user criteria) -------------------------------


def _policies() -> list[str]:
    from vosim.policies.base import policy_names

    return policy_names()


def _methods() -> list[str]:
    from vosim.allocators import methods

    return methods()


def _user_criteria() -> tuple[str, ...]:
    from vosim.agents.user import USER_CRITERIA  # imports Mesa: only when a value is checked

    return USER_CRITERIA


def _vo_objectives() -> tuple[str, ...]:
    from vosim.allocators.vo_choice import VO_OBJECTIVES

    return tuple(VO_OBJECTIVES)


def _vo_limits() -> tuple[str, ...]:
    from vosim.allocators.vo_choice import VO_LIMITS

    return tuple(VO_LIMITS)


def _evaluations() -> tuple[str, ...]:
    from vosim.allocators.vo_choice import EVALUATIONS

    return tuple(EVALUATIONS)


def _resource_kinds() -> tuple[str, ...]:
    from vosim.market.nodes import RESOURCE_KINDS  # numpy only, no pandas

    return tuple(RESOURCE_KINDS)


def _replan_modes() -> tuple[str, ...]:
    from vosim.policies.replan import REPLAN_MODES

    return tuple(REPLAN_MODES)


def _local_models() -> tuple[str, ...]:
    from vosim.market.local_flow import LOCAL_MODELS

    return tuple(LOCAL_MODELS)


def _local_priorities() -> tuple[str, ...]:
    from vosim.market.local_placement import LOCAL_PRIORITIES

    return tuple(LOCAL_PRIORITIES)


def _pricing() -> tuple[str, ...]:
    from vosim.market.pricing import PRICING_POLICIES

    return tuple(PRICING_POLICIES)


def _utility_policies() -> tuple[int, ...]:
    from vosim.policies.knapsack_rules import UTILITY_POLICIES

    return tuple(UTILITY_POLICIES)


# -- the declaration -------------------------------------------------------------------------------


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


#: Groups of parameters (``vosim run --help`` sections): key -> (title, description).
GROUPS: dict[str, tuple[str, str]] = {
    "workload": ("workload", "The jobs the users submit and how long the run lasts."),
    "domain": ("domain and time", "The nodes, their owners' local jobs, the scheduling cycle."),
    "market": (
        "market, budgets and churn",
        "Owners' prices, users' budgets and criteria, owners and users leaving the VO.",
    ),
    "policy": ("scheduling policy", "What decides each pass and how windows are searched."),
    "availability": (
        "utilization uncertainty (ICCS 2021/2023)",
        "Local jobs and global events may take a reserved node: jobs can fail and are requeued.",
    ),
    "css": (
        "cyclic scheduling scheme (VO Preferences)",
        "Step 1 finds up to --max-alternatives windows per job by the user's criterion; step 2 "
        "picks one per job optimising the VO objective under a limit on the users' evaluations "
        "U (or on the batch cost or time). With --max-alternatives 1 the scheme is first fit.",
    ),
}


def _p(
    default: Any,
    help: str,
    *,
    group: str,
    unit: str = "",
    check: Check | None = None,
    none: str = "",
    label: str = "",
    metavar: str | None = None,
    ui: UIInput | None = None,
    doc_type: str,
    doc: str,
) -> Any:
    """A :class:`Scenario` field: ``default`` plus the declaration as field metadata."""
    spec = {
        "help": help,
        "group": group,
        "unit": unit,
        "check": check,
        "none": none,
        "label": label,
        "metavar": metavar,
        "ui": ui,
        "doc_type": doc_type,
        "doc": inspect.cleandoc(doc),
    }
    return field(default=default, metadata={"vosim": spec})


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """A complete, validated set of :class:`~vosim.model.VOModel` keyword arguments.

    Each field is one model parameter, declared once (type, default, unit, help, allowed
    values, check); :data:`PARAMETERS` reads the declaration. An instance checks every field
    (:func:`check_parameters`) and the rules between fields (:func:`check_combination`).

    Raises
    ------
    ParameterError
        A value outside its parameter's range, or a combination the model cannot run (the
        message names the parameter and the bad value).
    UnknownAllocatorError
        An unregistered policy, availability method or window criterion.

    References
    ----------
    VO Preferences §2 and §4; AEP §2–3; ICCS 2021/2023 (availability); Knapsack Grid slides
    (``utility_policy``). Each field's full description (``doc``) is also
    :class:`~vosim.model.VOModel`'s documentation of that parameter (:func:`parameter_docs`).

    Examples
    --------
    >>> s = Scenario(trace="NASA-iPSC-1993-3.1-cln", jobs=50)
    >>> s.kwargs()["jobs"], s.owners
    (50, 10)
    """

    trace: str | Path | pd.DataFrame = _p(  # noqa: RUF009 - _p is dataclasses.field
        DEFAULT_TRACE,
        f"workload: a bundled trace ({', '.join(TRACES)}), a synthetic job stream "
        f"({', '.join(SYNTHETIC_TRACES)}) or an SWF file, "
        "plain or .gz",
        group="workload",
        check=TraceValue(synthetic=True),
        metavar="TRACE",
        doc_type="str, Path or pandas.DataFrame",
        doc="""
        A bundled trace name (see :data:`vosim.data.TRACES`), an SWF path (plain or ``.gz``),
        or a DataFrame from :func:`~vosim.market.swf.read_swf`. Default UniLu-Gaia-2014-2.
        """,
    )
    jobs: int | None = _p(
        2000,
        "simulate the first N jobs of the trace",
        group="workload",
        check=Integer(low=1),
        none="every job of the trace",
        metavar="N",
        doc_type="int or None",
        doc="""
        Use the first ``jobs`` jobs of the trace (>= 1) after ``first_job``; ``None`` for all
        of them.
        """,
    )
    first_job: int = _p(
        0,
        "skip the trace's first K jobs: the run's jobs are the N after them (a window of the "
        "trace; with a sweep's segments each repetition takes the next window)",
        group="workload",
        check=Integer(low=0),
        metavar="K",
        doc_type="int",
        doc="""
        Jobs of the trace skipped before the run's (>= 0, default 0): the run is the window
        of the trace from job ``first_job + 1``. The owners' local job flows start at the
        window's first submission, as they start at the trace's.
        """,
    )
    offered_load: float | None = _p(
        None,
        "scale the jobs' inter-arrival times to this offered load on the domain's processors: "
        "sum of processors x run time over processors x (last - first submission); sizes, "
        "run times and order stay the trace's (owners' local load comes on top)",
        group="workload",
        check=Real(low=0, low_open=True, finite=True),
        none="the trace's own arrival times",
        metavar="RHO",
        doc_type="float or None",
        doc="""
        Scale those jobs' inter-arrival times so that their offered load on the domain's
        processors (``round(N * MaxProcs / MaxNodes)``; the trace's ``MaxProcs`` with
        ``machine``) is this (> 0; :func:`~vosim.market.workload.scale_to_load`); ``None``
        keeps the trace's times. The owners' local load comes on top of it.
        ``offered_load_traced`` and ``arrival_scale`` record the load before and the factor.
        """,
    )
    nodes: int | None = _p(
        None,
        "physical nodes of the simulated domain (with resources=processors each holds "
        "MaxProcs/MaxNodes processors)",
        group="domain",
        check=Integer(low=1, high=MAX_RESOURCES),
        none="the trace header's MaxNodes, else MaxProcs, else 100",
        doc_type="int or None",
        doc="""
        Physical nodes ``N`` of the simulated domain; ``None`` takes the trace header's
        ``MaxNodes`` (else ``MaxProcs``, else 100). With ``resources="processors"`` each node
        holds the trace's ``MaxProcs / MaxNodes`` processors (1 if the header lacks either),
        ``round(N * MaxProcs / MaxNodes)`` in all, spread as evenly as possible when that is
        not an integer (:func:`~vosim.market.nodes.processor_counts`; UniLu-Gaia's 2004 on 151
        nodes: 41 nodes of 14 processors and 110 of 13).
        """,
    )
    resources: str = _p(
        "processors",
        "what the slots are on: nodes (whole nodes, exclusive: a job gets ceil(p N / MaxProcs)) "
        "or processors (a job of p processors gets p slots; each node holds MaxProcs/MaxNodes "
        "of them, sharing its performance, price, owner and local load; slower: the slot "
        "lists are MaxProcs/MaxNodes times longer); the same on the papers' synthetic domains",
        group="domain",
        check=Choice(_resource_kinds),
        doc_type="str",
        doc="""
        What the slots are on (:data:`~vosim.market.nodes.RESOURCE_KINDS`).
        ``"processors"`` (default; the papers' "CPU nodes"): a job needing ``p``
        processors gets ``p`` slots, and is rejected if ``p`` exceeds the domain's processors;
        the processors of a physical node share its performance, price, owner and local load
        (a local job occupies all of them at once). ``"nodes"``: whole nodes allocated
        exclusively; a job gets ``ceil(p * N / MaxProcs)`` of them (it turns UniLu-Gaia's
        1-processor jobs into whole-node jobs, 1.9 times the trace's node time; on the whole
        trace with 5-10 % local load 92.9 % of the jobs complete).
        The AEP (§3.1) and VO Preferences (§4) experiments' synthetic domains (``synthetic:aep``,
        ``synthetic:vo-preferences``, the ``aep`` and ``vo-preferences`` presets) have one processor
        per CPU node (``MaxProcs = MaxNodes``), so both modes coincide there, as on NASA-iPSC (128
        processors on 128 nodes) and LCG (no ``MaxNodes``: one processor per node), and with
        ``machine`` (ignored there). How a trace's multi-processor nodes are mapped is vosim's
        choice, not the papers'. Slots, windows, ``allocated_resources`` and
        ``task_frame()["resource"]`` hold resource ids ``0 .. node_count - 1``; ``resource_node``
        maps them to physical nodes.
        """,
    )
    owners: int | str = _p(
        10,
        "resource owners, sharing the nodes in contiguous blocks (at most one per node); trace: "
        "one owner per site (SWF partition) of a multi-site trace such as LCG-2005-1, holding "
        "its share of MaxProcs by peak concurrency, one performance and price per site",
        group="domain",
        check=Owners(),
        ui=UIInput(min=1, max=40, step=1),
        doc_type="int or str",
        doc="""
        Resource owners sharing the physical nodes in contiguous blocks (1 <= owners <= N).
        ``"trace"``: the trace's own sites (SWF field 16, named in its header; LCG-2005-1's
        170 grid sites) are the owners (:func:`~vosim.market.sites.trace_sites`): each holds
        its share of ``MaxProcs`` estimated from the whole trace (by peak concurrency with
        every job started at submission, since such a trace records no waits), as
        one-processor nodes of one performance and one price drawn per site
        (:func:`~vosim.market.nodes.site_nodes`); ``nodes`` is then ``MaxProcs``. A trace
        without partitions is refused (:class:`~vosim.errors.ParameterError` naming it).
        """,
    )
    cycle_period: float = _p(
        300.0,
        "time between scheduling cycles, at least 1 (cycles that cannot act are skipped up to "
        "the next event); 0: a pass at every job end and arrival, as batch systems do",
        group="domain",
        unit="s",
        check=Period(zero=True),
        doc_type="float",
        doc="""
        Time between scheduling cycles, model time units (0, or at least
        :data:`~vosim.scenario.MIN_PERIOD` = 1; 0: a pass at every time a job ends or arrives,
        after all ends and arrivals at that time, as batch systems do). Cycles run at its
        multiples, skipping those that cannot act (nothing waits, every reservation has
        started, no pass reprices or reviews owners) up to the next event. Default 300 s:
        UniLu-Gaia's median inter-arrival time is 11 s and its mean 148 s, so a cycle batches a
        few jobs on average while adding at most 5 minutes to any wait, small beside the
        trace's requested times (median 3 days); it also keeps a 3-month trace under 26,000
        cycles. A run whose cycles that may act would exceed
        :data:`~vosim.scenario.MAX_PERIODS` (estimated from the trace) is refused.
        """,
    )
    scheduling_interval: float = _p(
        7 * 86400.0,
        "length L of the interval the slot list covers (longer jobs are rejected)",
        group="domain",
        unit="s",
        check=Real(low=0, low_open=True, finite=True),
        doc_type="float",
        doc="""
        Length ``L`` of the interval the slot list covers, model time units. Default 7 days:
        longer than 99.8 % of UniLu-Gaia's requested times; longer jobs are rejected.
        """,
    )
    look_ahead: float = _p(
        6.0,
        "how far ahead css and availability may place a job's window, in the job's own "
        "requested times (its interval is min(L, look_ahead * requested time)); 6 is VO "
        "Preferences' interval over its shortest job (600/100), so the papers' experiments are "
        "unchanged; inf: one interval L for every job",
        group="policy",
        check=Real(low=0, low_open=True),
        metavar="K",
        doc_type="float",
        doc="""
        How far ahead the cyclic scheme may place a job's window, in the job's own requested
        times: job ``j`` (requested time ``T_j``) is searched in ``[t, t + min(L, look_ahead *
        T_j))``. Default 6, VO Preferences §4's interval over its shortest reservation time
        (600 / 100): every job of the papers' experiments keeps the whole interval, while on
        a real trace a short job's user cannot choose a window days ahead (with one ``L`` for
        all, the scheme's mean wait grows with ``L``, which no paper gives for real traces).
        ``inf``: one interval ``L`` for every job. Read by ``css`` and ``availability``.
        """,
    )
    reference_performance: float = _p(
        6.0,
        "node performance at which the trace's run times hold (within --performance-range)",
        group="domain",
        check=Real(low=0, low_open=True),
        doc_type="float",
        doc="""
        Node performance at which trace run times hold (default 6, the middle of [2, 10]);
        within ``performance_range``.
        """,
    )
    performance_range: tuple[int, int] = _p(
        (2, 10),
        "nodes' performance is a uniform integer in this range (VO Preferences §4: [2, 10])",
        group="domain",
        check=Pair(low=0, low_open=True, integer=True),
        metavar="LOW,HIGH",
        doc_type="(int, int)",
        doc="""
        Inclusive bounds of each physical node's performance, a uniform integer (default
        (2, 10): VO Preferences §4 and AEP §3.1, "performance uniform integer in [2, 10]").
        LCG's sites draw one performance each from it; ignored with ``machine`` (every
        processor at ``reference_performance``). Budgets are set by the dearest cost per
        unit of work over it.
        """,
    )
    budget_range: tuple[float, float] = _p(
        (0.7, 1.6),
        "each user's budget factor is uniform in this range (a job's budget C is the factor "
        "times its work times the dearest base cost per work)",
        group="market",
        check=Pair(low=0, low_open=True),
        metavar="LOW,HIGH",
        doc_type="(float, float)",
        doc="""
        Each user's budget factor is uniform in this range (see :class:`UserAgent`).
        """,
    )
    local_load: tuple[float, float] | None = _p(
        (0.05, 0.10),
        "bounds of the owners' local load (VO Preferences §4's 5-10 %): online, each owner's "
        "share of its processor time is uniform in them; interval, each node's hypergeometric "
        "share of each interval L (ignored with --local-trace)",
        group="domain",
        check=Pair(low=0, high=1, high_open=True),
        none="dedicated nodes, no local jobs",
        metavar="LOW,HIGH",
        doc_type="(float, float) or None",
        doc="""
        Bounds of the owners' local load (default (0.05, 0.10): VO Preferences §4's range for
        owners' local load, taken from the text, not calibrated): with ``local_model
        "online"`` each owner's share of its processor time, uniform in them; with
        ``"interval"`` each node's hypergeometric share of each period ``L``. ``None`` for
        dedicated nodes. Ignored when ``local_trace`` is given.
        """,
    )
    criterion_allocators: dict[str, str] | None = _p(  # noqa: RUF009 - _p is dataclasses.field
        None,
        "window search of each user criterion: CRITERION=METHOD pairs, METHOD a registered "
        "window criterion (AEP §2.2) or a fallback chain such as min_cost>amp",
        group="policy",
        check=Allocators(),
        none="min_finish, min_runtime, min_cost, max_availability",
        metavar="CRITERION=METHOD,...",
        doc_type="dict or None",
        doc="""
        User criterion -> registered window criterion
        (default :data:`~vosim.agents.metascheduler.DEFAULT_CRITERION_ALLOCATORS`).
        """,
    )
    horizon: float | None = _p(
        None,
        "end of the run; jobs not completed by then end unfinished",
        group="workload",
        unit="s",
        check=Real(low=0, low_open=True),
        none="the run drains: until every job has completed or left",
        doc_type="float or None",
        doc="""
        End of the run, model time units; jobs not completed by then end ``unfinished``.
        ``None`` (default): the run drains, going on until every job has completed or left
        (a run that stops at the last submission leaves jobs unfinished that a
        batch system would have run; with ``patience`` every waiting job leaves in time).
        """,
    )
    patience: float | None = _p(
        30 * 86400.0,
        "a job not started this long after its submission is withdrawn by its user",
        group="workload",
        unit="s",
        check=Real(low=0, low_open=True),
        none="jobs wait for ever",
        doc_type="float or None",
        doc="""
        A job not started this long after its submission (model time units) is withdrawn by
        its user (default 30 days); ``None``: jobs wait for ever (a drained run then stops
        when nothing can change, and the jobs still waiting end ``unfinished``).
        """,
    )
    availability: bool = _p(
        False,
        "utilization uncertainty: each reserved window's P_a^w is predicted and its "
        "realisation drawn; vosim run also writes attempts.parquet and calibration.html",
        group="availability",
        check=Flag(),
        ui=UIInput(),
        doc_type="bool",
        doc="""
        Utilization uncertainty (ICCS 2021/2023): owners' local jobs become uncertain event
        chains and every node gets a global event; each reserved window's ``P_a^w`` is
        predicted, and its realisation drawn: a job whose node is taken during its run fails
        at that moment, pays only for what ran and is requeued.
        """,
    )
    global_load: float = _p(
        0.05,
        "standard deviation of the nodes' global occupation probability |N(0, sd)| (ICCS 2021 "
        "§4.1), with --availability",
        group="availability",
        check=Real(low=0, high=1),
        doc_type="float",
        doc="""
        Standard deviation of the nodes' global occupation probability ``|N(0, sd)|`` (ICCS
        2021 §4.1), in [0, 1]; used when ``availability`` is on.
        """,
    )
    availability_method: str = _p(
        "knapsack_p",
        "method of users with the availability criterion at each start of the time scan",
        group="availability",
        check=Choice(_methods, registry=True),
        metavar="METHOD",
        doc_type="str",
        doc="""
        Registered availability method (see :func:`vosim.allocators.methods`) that users with
        the ``availability`` criterion use at each start of the time scan.
        """,
    )
    user_criteria: tuple[str, ...] | None = _p(
        None,
        "criteria users are drawn from, uniformly (comma-separated)",
        group="market",
        check=Subset(_user_criteria),
        none="finish, runtime, cost, plus availability with --availability",
        metavar="CRITERION,...",
        doc_type="tuple of str or None",
        doc="""
        Criteria users are drawn from (uniformly); default finish, runtime, cost, plus
        availability when ``availability`` is on.
        """,
    )
    vo_criterion: str | None = _p(
        None,
        "VO policy overriding the users' criteria: every window maximises P_a^w within budget",
        group="policy",
        check=Choice(lambda: ("availability",)),
        none="each user's own criterion",
        doc_type="str or None",
        doc="""
        A VO policy overriding the users' criteria: ``"availability"`` makes every window
        the one of maximum ``P_a^w`` within budget; ``None`` follows each user's criterion.
        """,
    )
    max_alternatives: int | None = _p(
        1,
        "alternatives searched per job and cycle (step 1); 1 is first fit",
        group="css",
        check=Integer(low=1),
        none="until the slots run out",
        ui=UIInput(value=3, label="alternatives per job", min=1, max=5, step=1),
        doc_type="int or None",
        doc="""
        Alternatives searched per job and cycle (step 1 of the cyclic scheme; >= 1, ``None``
        until the slots run out). 1 (default) is first fit: each job takes the window its
        user's criterion finds, and step 2 has nothing to choose.
        """,
    )
    vo_objective: str = _p(
        "cost",
        "VO criterion of step 2: cost (C -> max, owners' revenue), runtime or finish (T -> min)",
        group="css",
        check=Choice(_vo_objectives),
        label="VO criterion",
        ui=UIInput(),
        doc_type="str",
        doc="""
        VO criterion of step 2: ``"cost"`` (``C -> max``, owners' revenue), ``"runtime"`` or
        ``"finish"`` (``T -> min``). See :class:`~vosim.allocators.vo_choice.VOPolicy`.
        """,
    )
    vo_limit: str = _p(
        "user",
        "what bounds the VO criterion: the users' evaluations U, the batch cost or batch time",
        group="css",
        check=Choice(_vo_limits),
        doc_type="str",
        doc="""
        What bounds it: ``"user"`` (users' evaluations, ``lim U``), ``"cost"`` or ``"time"``.
        """,
    )
    user_evaluation: str = _p(
        "relative",
        "user evaluation U: ordinal (ranks 0..N_a-1) or relative (0-100 %)",
        group="css",
        check=Choice(_evaluations),
        doc_type="str",
        doc="""
        ``"ordinal"`` (ranks) or ``"relative"`` (%) user evaluations ``U``.
        """,
    )
    ua: float | None = _p(
        None,
        "U_a: the mean U allowed per job, or the cost or time limit's position between the "
        "batch's extremes",
        group="css",
        unit="ranks or %",
        check=Real(low=0, finite=True),
        none="no limit, the VO optimum",
        label="U_a",
        ui=UIInput(value=25.0, label="U_a (%)", min=0.0, max=100.0, step=5.0),
        doc_type="float or None",
        doc="""
        ``U_a``, the mean user evaluation allowed per job (ranks or %), or the position of a
        cost or time limit between the batch's extremes (%); ``None``: no limit.
        """,
    )
    pricing_policy: str = _p(
        "fixed",
        "owners' pricing: fixed prices, or demand (prices follow each owner's recent VO "
        "utilization, at most 5 % a cycle, within +-60 % of the market base price)",
        group="market",
        check=Choice(_pricing),
        ui=UIInput(),
        doc_type="str",
        doc="""
        Owners' pricing policy (:data:`~vosim.market.pricing.PRICING_POLICIES`): ``"fixed"``
        (VO Preferences §4) or ``"demand"`` (every cycle each owner's prices move with its VO
        utilization over the last cycle period, at most 5 % per cycle, within ±60 % of the
        market base price; :class:`~vosim.market.pricing.DemandPricing`).
        """,
    )
    owner_exit_revenue: float | None = _p(
        None,
        "owners earning less than this per node and day over the last interval L leave the VO "
        "with their nodes",
        group="market",
        unit="cost units",
        check=Real(low=0, finite=True),
        none="owners never leave",
        doc_type="float or None",
        doc="""
        Owners whose revenue over the last scheduling interval ``L``, per node and per day,
        falls below this (cost units) leave the VO with their nodes (checked each cycle after
        their first ``L``); ``None``: owners never leave.
        """,
    )
    user_exit_satisfaction: float | None = _p(
        None,
        "users whose satisfaction (0-1, from their U and waits) falls below this after 3 "
        "scheduled jobs leave the VO and withdraw their future jobs",
        group="market",
        check=Real(low=0, high=1),
        none="users never leave",
        doc_type="float or None",
        doc="""
        Users whose satisfaction (:meth:`~vosim.agents.user.UserAgent.evaluate`, in [0, 1])
        falls below this after 3 scheduled jobs leave the VO and withdraw their future jobs;
        ``None``: users never leave.
        """,
    )
    budget_period: float | None = _p(
        None,
        "per-period user accounts: every period (at least 1) each user's balance is reset to "
        "its allowance and each reserved window's cost is taken from it; a job may spend "
        "min(C, balance)",
        group="market",
        unit="s",
        check=Period(),
        none="no accounts, each job may spend its budget C",
        metavar="SECONDS",
        doc_type="float or None",
        doc="""
        Length of a budget period, model time units (finite, > 0); ``None`` (default): no
        per-period accounts, each job may spend up to its rule budget ``C``. With a period,
        every user has a balance (cost units), reset without carry-over at time 0 and every
        ``budget_period`` to its allowance ``budget_allowance * sum(C) * budget_period /
        span`` (``sum(C)``: the rule budgets of the user's usable trace jobs; ``span``: the
        trace's last minus first submit time, at least ``budget_period``). A waiting job may
        spend ``min(C, balance)`` in a cycle; a reserved window's cost is taken from the
        balance. See :meth:`~vosim.agents.user.UserAgent.replenish`.
        """,
    )
    budget_allowance: float = _p(
        1.0,
        "with --budget-period: a user's allowance per period is X times the sum of its jobs' "
        "budgets C times the period over the trace's submit span",
        group="market",
        check=Real(low=0, low_open=True, finite=True),
        metavar="X",
        doc_type="float",
        doc="""
        Allowance factor (finite, > 0; default 1): on average a user can afford this many
        times what its jobs' budgets sum to, though bursts exhaust a period's balance. Used
        only with ``budget_period``.
        """,
    )
    local_trace: str | Path | pd.DataFrame | None = _p(  # noqa: RUF009 - _p is dataclasses.field
        None,
        "owners' local job flow replayed from this SWF trace (bundled name or path, read "
        "whole): online, each job arrives at its submit time at the owner user mod owners; "
        "interval, its jobs are placed on the nodes from time 0",
        group="domain",
        check=TraceValue(synthetic=False),
        none="the generated local load",
        metavar="TRACE",
        doc_type="str, Path, pandas.DataFrame or None",
        doc="""
        The owners' local job flow replayed from this SWF trace (a bundled name, a path or a
        :func:`~vosim.market.swf.read_swf` frame, read whole) instead of the generator of
        ``local_load``. Online, each of its jobs arrives at its submit time (the trace's first
        at model time 0) at the owner ``user mod owners``
        (:func:`~vosim.market.local_flow.trace_local_jobs`); interval, its jobs occupy the
        domain's nodes from model time 0 as :class:`~vosim.market.local_trace.TraceLocalFlow`
        places them. ``None`` (default): the generator. May be the same trace as ``trace``.
        """,
    )
    local_model: str | None = _p(
        None,
        "owners' local-load model: online (local jobs arrive over time, a Poisson flow of jobs "
        "of 1 up to a node's processors with lognormal lengths, known when they arrive) or "
        "interval (the papers' load of one scheduling interval drawn ahead, whole nodes; "
        "presets aep and vo-preferences)",
        group="domain",
        check=Choice(_local_models),
        none="online; interval with --availability (ICCS 2021/2023 predict P_a^w from local "
        "jobs known ahead)",
        doc_type="str or None",
        doc="""
        The owners' local-load model (:data:`~vosim.market.local_flow.LOCAL_MODELS`);
        ``None`` (default): ``"online"``, or ``"interval"`` with ``availability`` (ICCS
        2021 §4.1 and ICCS 2023 §2 predict ``P_a^w`` from local jobs scheduled ahead, whose
        start and end are uncertain; online local jobs are unknown until they arrive).
        ``"online"``: each owner's local jobs arrive over time, a Poisson flow
        whose rate gives the owner its share of processor time, each job of 1 up to a node's
        processors (uniform) with a lognormal length
        (:class:`~vosim.market.local_flow.PoissonLocalJobs`), known only when it arrives and
        placed then by ``local_priority`` (:class:`~vosim.agents.local.LocalJobs`; the VO
        learns of it at its next cycle). ``"interval"``: the papers' initial load of one
        scheduling interval, drawn per node one interval ahead, each local job on a whole
        node (AEP §3.1, VO Preferences §4; the ``aep`` and ``vo-preferences`` presets).
        """,
    )
    local_priority: str = _p(
        "displace",
        "online local jobs' priority over the VO: displace (start at once, taking processors "
        "from VO reservations not started, which are re-planned; never preempt a running VO "
        "task), queue (wait behind VO reservations) or preempt (also kill running VO tasks, "
        "requeued)",
        group="domain",
        check=Choice(_local_priorities),
        doc_type="str",
        doc="""
        How an online local job takes processors
        (:data:`~vosim.market.local_placement.LOCAL_PRIORITIES`): ``"displace"`` (default;
        at once, from VO reservations not started, which are cancelled and re-planned; never
        a running VO task), ``"queue"`` (behind VO reservations) or ``"preempt"`` (running VO
        tasks killed and requeued too). Ignored by the interval model.
        """,
    )
    local_length: float | None = _p(
        None,
        "median length of generated online local jobs (lognormal; the rate keeps the share)",
        group="domain",
        unit="s",
        check=Real(low=0, low_open=True, finite=True),
        none="the lognormal fitted to the trace's run times (ICCS 2021 §3.1)",
        metavar="SECONDS",
        doc_type="float or None",
        doc="""
        Median length of generated online local jobs, model time units (> 0); ``None``
        (default): the lognormal fitted to the trace's run times
        (:func:`~vosim.market.local_flow.fitted_lengths`, ICCS 2021 §3.1), capped at ``L``.
        The log-scale deviation is the fitted one either way; the arrival rate keeps the
        share.
        """,
    )
    policy: str = _p(
        "css",
        "scheduling policy deciding each pass: css (the VO's cyclic scheduling scheme), "
        "availability (CSS with every window of maximum P_a^w), or a batch baseline: fcfs, easy "
        "(EASY backfilling), conservative, knapsack (the Knapsack Grid slides' multiple-choice "
        "knapsack), knapsack+easy (the slides' KS+BF)",
        group="policy",
        check=Choice(_policies, registry=True),
        label="scheduling policy",
        ui=UIInput(),
        doc_type="str",
        doc="""
        The scheduling policy deciding each pass: ``"css"`` (default, the cyclic scheduling
        scheme: each user's criterion finds a window, step 2 combines them under the VO
        policy), ``"availability"`` (the CSS with every window the one of maximum ``P_a^w``
        within budget, as ``vo_criterion="availability"``), or a registered batch policy of
        :mod:`vosim.policies` (``"fcfs"``, ``"easy"``, ``"conservative"``).
        """,
    )
    replan: str = _p(
        "always",
        "always: every pass first moves each reservation not started yet to an earlier window "
        "no worse for its user, so no job starts later than first reserved; never: "
        "reservations stay where they were made, as in the papers' single-cycle experiments "
        "(presets aep and vo-preferences); with --availability a move also keeps P_a^w no lower, "
        "and a reservation is searched again only where time was freed since",
        group="policy",
        check=Choice(_replan_modes),
        doc_type="str",
        doc="""
        ``"always"`` (default): every pass first re-plans the reservations that have not
        started, in priority order: each moves to the earliest window that starts earlier and
        is no worse for its user (no longer tasks, no higher cost; see
        :mod:`vosim.policies.replan`), so no job ever starts later than first reserved
        (conservative backfilling does this itself). ``"never"``: a reservation stays where
        it was made, as in the papers' single-cycle scheme (the ``aep`` and
        ``vo-preferences`` presets). With ``availability`` a move must also keep ``P_a^w`` no
        lower at the pass; a reservation is searched again only where time was freed since
        its last search (:class:`~vosim.policies.replan.Replanner`), so a move refused for
        ``P_a^w`` is not retried merely because the pass time changed ``P_a^w`` (searching
        every reservation every pass made 300 Gaia jobs 10x slower, 7.3 s -> 74 s; with this
        rule 4.4 s -> 9.2 s against ``"never"``).
        """,
    )
    machine: bool = _p(
        False,
        "simulate the system the trace was recorded on instead of a VO: MaxProcs identical "
        "processors, one owner, no local load, budgets that never bind; the run drains",
        group="policy",
        check=Flag(),
        doc_type="bool",
        doc="""
        Simulate the system the trace was recorded on instead of a VO: ``MaxProcs`` identical
        processors (performance ``reference_performance``, one price, one owner), no local
        load, budgets that never bind, jobs needing ``p`` processors get ``p`` of them. ``nodes``,
        ``owners``, ``local_load`` are then ignored; the scheduling interval is stretched to
        at least twice the longest requested time, so no job is rejected for its length.
        Cannot be combined with ``availability``, ``local_trace``, ``budget_period``, demand
        pricing or owners leaving.
        """,
    )
    utility_policy: int = _p(
        1,
        "utility policy of the Knapsack Grid slides for --policy knapsack and knapsack+easy "
        "(1: the job's credit; 2-5 weigh its wait in)",
        group="policy",
        check=Choice(_utility_policies),
        metavar="K",
        doc_type="int",
        doc="""
        Utility policy 1-5 of the Knapsack Grid slides for ``policy="knapsack"`` and
        ``"knapsack+easy"`` (1: credit; 2-5 add the wait; see
        :mod:`vosim.policies.knapsack_rules`); ignored by the other policies.
        """,
    )
    fallback_after: str | float | int | None = _p(
        None,
        "budget of a fallback chain's exact link: seconds ('2s', '500ms') or search-tree nodes "
        "('5000', '5000 nodes')",
        group="policy",
        check=Budget(),
        none="each link's own limits",
        metavar="BUDGET",
        doc_type="str, float, int or None",
        doc="""
        Budget of the exact link of a fallback chain named as a window criterion (e.g.
        ``criterion_allocators={"cost": "min_cost>amp"}``, ``vosim run --allocator
        min_cost>amp``): ``"2s"``, ``"5000 nodes"``, a float (seconds) or an int (search-tree
        nodes); ``None``: each link's own limits
        (:class:`~vosim.allocators.fallback.FallbackBudget`). Fallbacks are counted per
        method in ``metascheduler.fallbacks``.
        """,
    )

    def __post_init__(self) -> None:
        values = self.kwargs()
        check_parameters(values)
        check_combination(values)

    def kwargs(self) -> dict[str, Any]:
        """The :class:`~vosim.model.VOModel` keyword arguments (all but ``rng``).

        Returns
        -------
        dict
            Parameter name -> value, in declaration order.
        """
        return {name: getattr(self, name) for name in PARAMETERS}

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Scenario:
        """The preset ``name`` (a key of :data:`PRESETS`) with ``overrides`` applied.

        Raises
        ------
        ParameterError
            An unknown preset (the message lists them) or a bad override.
        """
        return cls(**{**_preset(name).values, **overrides})


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


#: The declaration: parameter name -> :class:`Param`, in VOModel's keyword order.
PARAMETERS: dict[str, Param] = {
    f.name: Param(name=f.name, annotation=f.type, default=f.default, **f.metadata["vosim"])
    for f in fields(Scenario)
}


#: The parameters the live UI exposes, named as the model's (see :mod:`vosim.ui.app`).
def parameter_docs(indent: str = "    ") -> str:
    """Every declared parameter's numpydoc entry (``name : type`` and its description).

    In :data:`PARAMETERS`' order, each line prefixed by ``indent``; what
    :class:`~vosim.model.VOModel`'s docstring shows under Parameters. Source: the declaration
    (:class:`Scenario`), so the model's signature, its documentation, ``vosim run``'s options,
    the sweep keys and the UI inputs come from one text.
    """
    lines = []
    for p in PARAMETERS.values():
        lines.append(f"{indent}{p.name} : {p.doc_type}")
        lines += [f"{indent}    {line}" if line else "" for line in p.doc.split("\n")]
    return "\n".join(lines) + "\n"


UI_PARAMETERS: tuple[str, ...] = tuple(n for n, p in PARAMETERS.items() if p.ui is not None)


def check_parameters(values: Mapping[str, Any]) -> None:
    """Check each declared parameter in ``values`` on its own; other keys are ignored.

    Parameters
    ----------
    values : mapping
        Parameter name -> value (e.g. ``VOModel.__init__``'s ``locals()``).

    Raises
    ------
    ParameterError, UnknownAllocatorError
        The first value outside its parameter's range, in declaration order (the message
        names the parameter and the value).
    """
    for name, param in PARAMETERS.items():
        if name in values:
            param.validate(values[name])


def check_combination(values: Mapping[str, Any]) -> None:
    """Check the rules between parameters that need no data (the trace is not read).

    Rules that need the trace (``owners`` at most the node count) stay in the model.

    Parameters
    ----------
    values : mapping
        Parameter name -> value; a missing name takes its default.

    Raises
    ------
    ParameterError
        ``cycle_period`` 0 with demand pricing; ``machine`` with availability, a local trace,
        budget accounts, demand pricing or owners leaving; ``vo_criterion`` (or
        ``policy="availability"``) together with ``criterion_allocators``;
        ``reference_performance`` outside ``performance_range`` (unless ``machine``).
    """

    def get(name: str) -> Any:
        return values[name] if name in values else PARAMETERS[name].default

    pricing = get("pricing_policy")
    if get("cycle_period") == 0 and pricing != "fixed":
        raise ParameterError(
            "cycle_period 0 (event-driven passes) needs fixed prices: demand pricing "
            "reprices over each cycle period"
        )
    if get("machine"):
        clash = [
            name
            for name, on in [
                ("availability", get("availability")),
                ("local_trace", get("local_trace") is not None),
                ("budget_period", get("budget_period") is not None),
                ("pricing_policy='demand'", pricing != "fixed"),
                ("owner_exit_revenue", get("owner_exit_revenue") is not None),
            ]
            if on
        ]
        if clash:
            raise ParameterError(
                f"machine (the traced system) cannot be combined with {', '.join(clash)}"
            )
    vo_criterion = "availability" if get("policy") == "availability" else get("vo_criterion")
    if vo_criterion is not None and get("criterion_allocators"):
        raise ParameterError("give vo_criterion or criterion_allocators, not both")
    low, high = get("performance_range")
    reference = get("reference_performance")
    if not get("machine") and not low <= reference <= high:
        raise ParameterError(
            f"reference_performance must lie in performance_range [{low}, {high}], "
            f"got {reference!r}"
        )


# -- presets ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """A named set of parameter values (the others keep their defaults).

    Parameters
    ----------
    name : str
        Its key in :data:`PRESETS` (``vosim run --preset NAME``, ``preset = "NAME"``).
    values : mapping
        Parameter name -> value.
    description : str
        One line.
    source : str
        Where the values come from (paper section, or vosim's choice and why).
    """

    name: str
    values: Mapping[str, Any]
    description: str
    source: str


#: The paper scenarios and the traced machine.
PRESETS: dict[str, Preset] = {
    "aep": Preset(
        "aep",
        {
            "trace": "synthetic:aep",
            "jobs": 1000,
            "nodes": 100,
            "scheduling_interval": 600.0,
            "reference_performance": 2.0,
            "local_load": (0.10, 0.50),
            "local_model": "interval",
            "cycle_period": 50.0,
            "replan": "never",
        },
        "AEP §3.1: jobs of 5 slots x 150 on 100 nodes, interval 600, local load 10-50 %",
        "AEP §3.1: 100 nodes of performance U{2..10} (VOModel's node generator), prices "
        "proportional to performance with a normal deviation, scheduling interval [0; 600], "
        "local load 10-50 % (hypergeometric), a job of 5 parallel slots for 150 time units "
        "(T on the slowest node, performance 2: reference_performance 2). The paper schedules "
        "one job per experiment; the stream of such jobs (synthetic:aep, Poisson arrivals of "
        "mean 8) and the 50-unit cycle are vosim's, so the VO runs live. Budgets follow "
        "VOModel's rule, not the paper's fixed 1500. The paper's window, once found, is "
        "final: replan never (re-planning is vosim's).",
    ),
    "vo-preferences": Preset(
        "vo-preferences",
        {
            "trace": "synthetic:vo-preferences",
            "jobs": 1000,
            "nodes": 100,
            "scheduling_interval": 600.0,
            "reference_performance": 2.0,
            "local_load": (0.05, 0.10),
            "local_model": "interval",
            "cycle_period": 150.0,
            "max_alternatives": None,
            "budget_range": (0.7, 1.6),
            "user_criteria": None,
            "pricing_policy": "fixed",
            "vo_objective": "cost",
            "vo_limit": "user",
            "user_evaluation": "relative",
            "ua": None,
            "replan": "never",
        },
        "VO Preferences §4: batches of 40 jobs on 100 nodes, interval 600, local load 5-10 %",
        "VO Preferences §4: 100 nodes of performance U{2..10}, exponential prices +-60 %, "
        "scheduling interval 600, local load 5-10 %, batches of 40 jobs needing U[2, 6] nodes "
        "for T in U[100, 500] on the slowest node (reference_performance 2; "
        "synthetic:vo-preferences, one batch every 600), every job searching alternatives "
        "until the slots run out (max_alternatives None, as the vo-preferences-fig1-6 "
        "experiment). VOModel's defaults already encode the rest of §4 and are restated here: "
        "budget factors U[0.7, 1.6], users' criteria finish, runtime and cost (user_criteria "
        "None without availability), fixed prices, C -> max under lim U with relative U "
        "(Fig. 3), U_a unconstrained. The 150-unit cycle is vosim's. The scheme of §2 plans "
        "one cycle and never revises a chosen window: replan never (re-planning is "
        "vosim's).",
    ),
    "machine": Preset(
        "machine",
        {"machine": True, "policy": "easy", "cycle_period": 0.0},
        "the traced machine: its processors, EASY backfilling, a pass at every end and arrival",
        "The system the trace was recorded on (machine=True: MaxProcs identical processors, "
        "one owner, no local load, budgets that never bind, the run drains) scheduled by EASY "
        "backfilling event by event, as benchmarks/bench_easy.py runs it beside AccaSim.",
    ),
}


def _preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        raise ParameterError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None


# -- the papers' synthetic job streams ---------------------------------------------------------
