"""Every :class:`~vosim.model.VOModel` parameter, declared once; named presets.

:class:`Scenario` is a frozen dataclass with one field per keyword parameter of
:class:`~vosim.model.VOModel` (all but ``rng``), in the constructor's order. Each field
declares the parameter once: its name, type (the annotation, as text identical to VOModel's),
default, unit, allowed values, one-line help and validation. From it are generated or checked:

* ``VOModel(**fields)``: the constructor keeps its explicit keyword signature (Mesa style,
  ``rng`` last) and calls :func:`check_parameters` on its arguments, so every single-parameter
  check lives here; ``tests/scenario/test_declaration.py`` asserts the signature's names,
  annotations and defaults equal the declaration's;
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

The package's modules: :mod:`~vosim.scenario.declaration` (:class:`Scenario`, the rules
between parameters), :mod:`~vosim.scenario.param` (:class:`Param`: help, text form, UI
input), :mod:`~vosim.scenario.checks` (single-parameter checks),
:mod:`~vosim.scenario.limits` (the run-size bounds) and :mod:`~vosim.scenario.presets`.

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
>>> from vosim.errors import ParameterError
>>> try:
...     Scenario(jobs=0)
... except ParameterError as exc:
...     print(exc)
jobs must be an integer >= 1 or None, got 0
"""

from __future__ import annotations

from vosim.data import SYNTHETIC_TRACES
from vosim.scenario.checks import Choice, Flag, Integer, Real
from vosim.scenario.declaration import (
    GROUPS,
    PARAMETERS,
    UI_PARAMETERS,
    Scenario,
    check_combination,
    check_parameters,
    parameter_docs,
)
from vosim.scenario.limits import MAX_LOCAL_ARRIVALS, MAX_LOCAL_DRAWS, MAX_PERIODS, MIN_PERIOD
from vosim.scenario.param import Param, UIInput
from vosim.scenario.presets import PRESETS, Preset

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
    "Choice",
    "Flag",
    "Integer",
    "Param",
    "Preset",
    "Real",
    "Scenario",
    "UIInput",
    "check_combination",
    "check_parameters",
]
