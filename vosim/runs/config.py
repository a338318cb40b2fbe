r"""Sweep files: a fixed scenario, the parameters to vary and the repetitions, in TOML.

A sweep file names the model's fixed keyword arguments, the ones to vary and how many random
instances each combination gets::

    name = "vo-policies"                 # names the sweep (progress bar, manifest); required
    description = "VO criterion vs U_a" # optional

    [scenario]                           # fixed VOModel keyword arguments
    preset = "vo-preferences"            # optional: start from a preset (vosim.scenario)
    trace = "UniLu-Gaia-2014-2"          # keys given here override the preset's
    jobs = 300

    [sweep]                              # each key: a non-empty list of values
    vo_objective = ["cost", "finish"]
    ua = ["none", 0.0, 25.0, 50.0]       # "none" is Python None where the parameter allows it
    local_load = [[0.1, 0.5], "none"]    # an array is a tuple: (0.1, 0.5)

    [run]
    repetitions = 3                      # random instances per combination, >= 1 (default 1)
    seed = 1                             # >= 0 (default 1)
    paired = true                        # default true; see "Seeds" below
    segments = false                     # default false; see "Segments" below
    factors = ["local_load"]             # swept keys that set the environment, not the policy

    [[policy]]                           # optional, repeatable: a policy beside the grid
    policy = "knapsack"

    [[baseline]]                         # optional, repeatable: a reference policy
    policy = "easy"

The runs are the cartesian product of the ``[sweep]`` lists, in file order (the first key
varies slowest), then each ``[[policy]]`` and then each ``[[baseline]]`` over the product of
the ``factors`` lists only, times the repetitions: at most :data:`MAX_RUNS` (100,000) of
them. The keys
of ``[scenario]`` and ``[sweep]`` are the parameters :class:`vosim.scenario.Scenario`
declares, i.e. the keyword parameters of :class:`vosim.VOModel` (a test keeps the two equal);
a key may be fixed or swept, not both.
``rng`` is not a key: seeds come from ``[run]``. ``[scenario]`` may also name a ``preset``
(:data:`vosim.scenario.PRESETS`: ``aep``, ``vo-preferences``, ``machine``): its values are
the starting point, and keys given in ``[scenario]`` or swept in ``[sweep]`` override them.

Values are checked against the declaration: the parameter's type first (integers are accepted
for floats, arrays stand for tuples and lists, inline tables (``{cost = "min_cost"}``) for
dicts, and TOML having no null, the string ``"none"`` stands for ``None`` wherever the
parameter allows ``None``), then its allowed values (names with a registry such as
``vo_objective``, ``policy``, ``availability_method``, ``user_criteria``) and its range
(``jobs >= 1``, ``global_load`` in [0, 1], ...). ``trace`` and ``local_trace`` must be a
bundled trace or an existing file (``trace`` may also be a synthetic stream such as
``"synthetic:aep"``); a relative trace path is relative to the sweep file.
Rules between parameters and what needs the trace (such as ``owners`` above the node count)
are left to the model: the run is recorded with its error (see :mod:`vosim.runs.batch`), so
one bad combination does not stop the others.

Baselines
---------
A ``[[baseline]]`` table fixes some parameters (any but the ``factors``; ``policy = "easy"``,
say) to define a reference the swept policies are read against, as a batch system would run
the same jobs. Its runs vary only the ``[run] factors``, the swept keys that describe the
environment (the load, the trace) rather than the policy; the other swept keys keep their
``[scenario]`` values (or defaults) and are empty in its result rows, whose ``baseline``
column names it (``"policy=easy"``; empty for the swept policies). With ``paired = true`` a
baseline's repetition ``r`` uses the same seed as every policy's, so the report pairs each
policy with each baseline at equal factors and repetition (:mod:`vosim.analysis.stats`).

A ``[[policy]]`` table is built the same way (it fixes some parameters, varies only the
factors, same seeds) for a policy the grid's other keys do not apply to (``policy =
"knapsack"`` beside the cyclic scheme's VO objective x U_a): its rows name it in the
``named_policy`` column, and it is compared with the baselines like the swept policies.

Seeds
-----
Each run's seed is drawn from ``numpy.random.SeedSequence(seed)`` keyed by the repetition:
with ``paired = true`` (the default) repetition ``r`` of every combination uses the same seed,
so the combinations are compared on the same instances (same node prices and performances,
same local load; common random numbers, which makes differences between policies far less
noisy than the instances themselves). With ``paired = false`` the key also includes a hash of
the combination's values, giving every run its own instance. Either way a seed depends on the
values, not on positions in the expansion, so adding a value to a list leaves the other runs'
seeds (and their finished results) unchanged, and any worker count gives the same results.

Segments
--------
With ``segments = true`` repetition ``r`` also runs another window of the trace: the
``jobs`` jobs after ``first_job + r * jobs`` (the ``[scenario]`` value of ``first_job``,
default 0), so the repetitions are consecutive, disjoint segments of one trace rather than
one segment under several seeds (D. G. Feitelson's advice on using workload logs: a log's
behaviour changes over time, so an evaluation should use several parts of it). With
``paired = true`` every combination then runs segment ``r`` with seed ``r``. ``jobs`` must
be a fixed integer and ``first_job`` may not be swept or fixed by a ``[[policy]]`` or
``[[baseline]]``; a segment past the trace's end makes its run fail with the model's error.

Errors raise :class:`vosim.errors.ConfigError` naming the file, the line of the key (or of a
syntax error), the key and, where there is a list, the allowed values.

Examples
--------
>>> config = parse_sweep('''
... name = "demo"
... [scenario]
... trace = "NASA-iPSC-1993-3.1-cln"
... jobs = 30
... [sweep]
... vo_objective = ["cost", "finish"]
... ua = ["none", 25]
... [run]
... repetitions = 2
... ''')
>>> config.run_count
8
>>> config.points()[:2]
[{'vo_objective': 'cost', 'ua': None}, {'vo_objective': 'cost', 'ua': 25.0}]
>>> a, b = config.points()[0], config.points()[3]
>>> config.run_seed(a, 0) == config.run_seed(b, 0) != config.run_seed(a, 1)  # paired
True
>>> try:
...     parse_sweep('name = "x"\n[sweep]\nuaa = [1]\n')
... except ConfigError as exc:
...     print(exc.line, exc.message[:60])
3 [sweep] uaa: unknown VOModel parameter (did you mean 'ua'?);
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import inspect
import itertools
import json
import math
import re
import tomllib
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vosim.data import SYNTHETIC_TRACES
from vosim.errors import ConfigError, VosimError
from vosim.scenario import PARAMETERS, PRESETS, Param

__all__ = [
    "MAX_RUNS",
    "SweepConfig",
    "load_sweep",
    "parse_sweep",
    "model_parameters",
    "canonical_json",
    "check_run_count",
    "value_label",
]

#: Top-level keys of a sweep file.
TOP_LEVEL_KEYS = ("name", "description", "scenario", "sweep", "run", "policy", "baseline")
#: Keys of the ``[run]`` table.
RUN_KEYS = ("repetitions", "seed", "paired", "segments", "factors")
#: The string that stands for ``None`` (TOML has no null).
NONE = "none"
#: Most runs a sweep may have (combinations times repetitions); a bigger one is refused before
#: it is expanded (unbounded, 100^5 x 1000 runs died after 15 s at 3.5 GB). Why this
#: bound: planning holds every run at once, about 2 KB each (its
#: :class:`~vosim.runs.backends.RunSpec` and its manifest entry while the manifest is
#: written; 100,000 runs: ~200 MB and ~2.5 s), the
#: manifest keeps ~175 bytes per run (~17 MB), and even the tiniest runs (~0.2 s) make 100,000
#: of them over 5 CPU-hours. Split a bigger study into several sweeps.
MAX_RUNS = 100_000


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no spaces: the same value gives the same text (for hashes).

    Examples
    --------
    >>> canonical_json({"ua": 25.0, "jobs": 30, "load": (0.1, 0.5)})
    '{"jobs":30,"load":[0.1,0.5],"ua":25.0}'
    """
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


# -- the declared model parameters -------------------------------------------------------------


def model_parameters() -> dict[str, Param]:
    """The parameters a sweep file may set: :data:`vosim.scenario.PARAMETERS` (all but ``rng``).

    Returns
    -------
    dict
        Parameter name -> :class:`vosim.scenario.Param` (``.type``: the annotation as a
        typing object; ``.default``; ``.choices``; ``.validate``), in VOModel's order.
    """
    return dict(PARAMETERS)


def _choices() -> dict[str, Sequence[Any]]:
    """Allowed values of the parameters that name registered things (read from the registries)."""
    return {name: p.choices for name, p in PARAMETERS.items() if p.choices is not None}


class _Bad(Exception):
    """A value does not match an annotation (the message says what was expected)."""


def _describe(annotation: Any) -> str:
    """A reader's name for what an annotation accepts in TOML."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return "any value"
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_describe(a) for a in args)
    if annotation is type(None):
        return f'"{NONE}"'
    simple = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
    if annotation in simple:
        return simple[annotation]
    if annotation is Path:
        return "a path (string)"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"an array of ({_describe(args[0])})"
        return f"an array of {len(args)} items ({', '.join(_describe(a) for a in args)})"
    if origin in (list, Sequence):
        return f"an array of ({_describe(args[0])})" if args else "an array"
    if origin is dict:
        return f"a table of ({_describe(args[1])})" if len(args) == 2 else "a table"
    if origin is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in args)
    return getattr(annotation, "__name__", str(annotation))


# Complexity above 15: one case per annotation form TOML values take (scalars, unions, tuples,
# lists, tables), each with its own refusal.
def _convert(value: Any, annotation: Any) -> Any:  # noqa: C901
    """``value`` (as tomllib parsed it) converted to ``annotation``, or :class:`_Bad`."""
    if annotation is Any or annotation is inspect.Parameter.empty:
        return value
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        if value == NONE and type(None) in args:
            return None
        for arm in args:
            try:
                return _convert(value, arm)
            except _Bad:
                continue
        raise _Bad(annotation)
    if annotation is type(None):
        if value == NONE:
            return None
        raise _Bad(annotation)
    if annotation is bool:
        if isinstance(value, bool):
            return value
        raise _Bad(annotation)
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _Bad(annotation)
    if annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise _Bad(annotation)
    if annotation in (str, Path):
        if isinstance(value, str):
            return value
        raise _Bad(annotation)
    if origin is tuple:
        if not isinstance(value, list):
            raise _Bad(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_convert(v, args[0]) for v in value)
        if args and len(args) != len(value):
            raise _Bad(annotation)
        if not args:
            return tuple(value)
        return tuple(_convert(v, a) for v, a in zip(value, args, strict=True))
    if origin in (list, Sequence):
        if not isinstance(value, list):
            raise _Bad(annotation)
        return [_convert(v, args[0]) for v in value] if args else list(value)
    if origin is dict:
        if not isinstance(value, dict):
            raise _Bad(annotation)
        if len(args) != 2:
            return dict(value)
        return {_convert(k, args[0]): _convert(v, args[1]) for k, v in value.items()}
    if origin is typing.Literal:
        if value in args:
            return value
        raise _Bad(annotation)
    if isinstance(annotation, type):
        if isinstance(value, annotation):
            return value
        raise _Bad(annotation)
    return value  # an annotation vosim does not know how to check


def value_label(value: Any) -> str:
    """A parameter value as a label in tables and charts: ``ua=0``, ``policy=easy``.

    ``None`` and NaN (a value a row does not have) as ``none``, integral floats without
    ``.0``, arrays and tables as compact JSON, anything else as ``str``. The one label of
    sweep values: baselines' names, the report's policy labels, the tests' factor levels.

    Examples
    --------
    >>> [value_label(v) for v in (None, float("nan"), 25.0, 0.5, (1, 2), "easy")]
    ['none', 'none', '25', '0.5', '[1,2]', 'easy']
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NONE
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (tuple, list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _show(value: Any) -> str:
    return json.dumps(value) if isinstance(value, (str, list, dict)) else repr(value)


# -- locating a key in the file ------------------------------------------------------------------


def _key_line(text: str, table: str | None, key: str) -> int | None:
    """1-based line of ``key = ...`` in ``[table]`` (top level if ``None``), best effort."""
    current: str | None = None
    pattern = re.compile(rf"""^\s*(["']?){re.escape(key)}\1\s*=""")
    header = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]")  # [table] or [[array]]
    for number, line in enumerate(text.splitlines(), start=1):
        m = header.match(line)
        if m:
            current = m.group(1).strip("\"'")
        elif current == table and pattern.match(line):
            return number
    return None


def _table_line(text: str, table: str) -> int | None:
    header = re.compile(rf"^\s*\[\[?\s*{re.escape(table)}\s*\]")  # [table] or [[array]]
    for number, line in enumerate(text.splitlines(), start=1):
        if header.match(line):
            return number
    return None


# -- the configuration ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepConfig:
    """A validated sweep: fixed model arguments, the values to vary, repetitions and seed.

    Build it with :func:`load_sweep` or :func:`parse_sweep` (which validate); the fields hold
    values already converted to the model's types (``"none"`` to ``None``, arrays to tuples).

    Parameters
    ----------
    name : str
        Name of the sweep.
    scenario : dict
        Fixed :class:`vosim.VOModel` keyword arguments (a preset's values included).
    sweep : dict of str to tuple
        Swept keyword arguments, each with its non-empty tuple of distinct values, in file
        order.
    repetitions : int
        Random instances per combination (>= 1).
    seed : int
        Root seed (>= 0).
    paired : bool
        Same seed for repetition ``r`` of every combination (common random numbers).
    segments : bool
        Repetition ``r`` runs the ``r``-th window of ``jobs`` jobs from ``first_job``
        (:meth:`window`).
    description : str
        Free text.
    path : str or None
        The file read (``None`` for text given directly); relative trace paths were resolved
        against its directory.
    text : str
        The file's contents, as read (kept in the results' manifest).
    preset : str or None
        The ``[scenario]`` preset the values start from (``None``: the declared defaults).
    factors : tuple of str
        Swept keys that set the environment (``[run] factors``): baselines vary them, and
        policies are compared at equal factors.
    baselines : tuple of dict
        The ``[[baseline]]`` tables: each fixes some parameters (model types), in file order.
    policies : tuple of dict
        The ``[[policy]]`` tables, likewise: policies beside the grid, compared with the
        baselines.
    """

    name: str
    scenario: dict[str, Any] = field(default_factory=dict)
    sweep: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    repetitions: int = 1
    seed: int = 1
    paired: bool = True
    segments: bool = False
    description: str = ""
    path: str | None = None
    text: str = ""
    preset: str | None = None
    factors: tuple[str, ...] = ()
    baselines: tuple[dict[str, Any], ...] = ()
    policies: tuple[dict[str, Any], ...] = ()

    @property
    def run_count(self) -> int:
        """Number of runs: combinations times repetitions (counted, not expanded)."""
        swept = math.prod(len(values) for values in self.sweep.values())
        factors = math.prod(len(self.sweep[f]) for f in self.factors)
        fixed = len(self.baselines) + len(self.policies)
        return (swept + fixed * factors) * self.repetitions

    @staticmethod
    def baseline_label(baseline: dict[str, Any]) -> str:
        """A baseline's (or ``[[policy]]``'s) name in result tables: ``"policy=easy"``.

        Its keys and values, in file order.

        vosim's own design (baselines beside the VO policies).
        """
        return ", ".join(f"{k}={value_label(v)}" for k, v in baseline.items())

    @property
    def columns(self) -> list[str]:
        """The parameter columns of the results: swept keys, then the fixed tables' others.

        A list of parameter names (:data:`vosim.scenario.PARAMETERS` keys), in file order
        (``[[policy]]`` tables' keys before ``[[baseline]]`` tables').
        """
        tables = (*self.policies, *self.baselines)
        extra = [k for b in tables for k in b if k not in self.sweep]
        return list(dict.fromkeys([*self.sweep, *extra]))

    def points(self) -> list[dict[str, Any]]:
        """The combinations of swept values, in file order (the first key varies slowest).

        Returns
        -------
        list of dict
            One ``{key: value}`` per combination; ``[{}]`` when nothing is swept.
        """
        keys = list(self.sweep)
        return [
            dict(zip(keys, combo, strict=True))
            for combo in itertools.product(*(self.sweep[k] for k in keys))
        ]

    def baseline_points(self) -> list[tuple[str, dict[str, Any]]]:
        """Each baseline's runs: ``(label, {factor: value, ..., baseline keys})``, file order.

        A baseline varies the :attr:`factors` only (first factor slowest), its own keys fixed:
        ``len(baselines) * prod(len(sweep[f]) for f in factors)`` points
        (baselines at every load).
        """
        return self._over_factors(self.baselines)

    def policy_points(self) -> list[tuple[str, dict[str, Any]]]:
        """Each ``[[policy]]`` table's runs, like :meth:`baseline_points`.

        ``len(policies) * prod(len(sweep[f]) for f in factors)`` points ``(label, point)``
        (e.g. ``knapsack`` and ``availability`` beside the cyclic scheme).
        """
        return self._over_factors(self.policies)

    def _over_factors(self, tables) -> list[tuple[str, dict[str, Any]]]:
        combos = list(itertools.product(*(self.sweep[f] for f in self.factors)))
        return [
            (self.baseline_label(b), {**dict(zip(self.factors, combo, strict=True)), **b})
            for b in tables
            for combo in combos
        ]

    def window(self, kwargs: dict[str, Any], repetition: int) -> dict[str, Any]:
        """The model arguments of repetition ``repetition`` of a run with ``kwargs``.

        With :attr:`segments`, ``first_job`` moves on by ``repetition * jobs`` (the
        ``repetition``-th consecutive window of the trace); otherwise ``kwargs`` as given.
        """
        if not self.segments:
            return kwargs
        first = kwargs.get("first_job", 0) + repetition * kwargs["jobs"]
        return {**kwargs, "first_job": first}

    def run_seed(self, point: dict[str, Any], repetition: int) -> int:
        """The seed of repetition ``repetition`` of combination ``point``, in [0, 2**63).

        Drawn from ``numpy.random.SeedSequence(seed, spawn_key=key)`` with ``key =
        (repetition,)`` when ``paired``, else ``(repetition, *hash of point)``; it depends on
        values, never on positions, so it is the same for any worker count or sweep order.
        """
        key: tuple[int, ...] = (repetition,)
        if not self.paired:
            digest = hashlib.sha256(canonical_json(point).encode()).digest()
            key += tuple(int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4))
        state = np.random.SeedSequence(self.seed, spawn_key=key).generate_state(1, np.uint64)
        return int(state[0] >> np.uint64(1))

    def to_dict(self) -> dict[str, Any]:
        """The validated configuration as JSON-ready data (tuples as lists, ``None`` as null)."""
        preset = {} if self.preset is None else {"preset": self.preset}
        return json.loads(
            json.dumps(
                {
                    "name": self.name,
                    "description": self.description,
                    **preset,
                    "scenario": self.scenario,
                    "sweep": {k: list(v) for k, v in self.sweep.items()},
                    "run": {
                        "repetitions": self.repetitions,
                        "seed": self.seed,
                        "paired": self.paired,
                        "factors": list(self.factors),
                    },
                    **({"policy": list(self.policies)} if self.policies else {}),
                    "baseline": list(self.baselines),
                }
            )
        )


def load_sweep(path: str | Path) -> SweepConfig:
    """Read and validate a sweep file.

    Parameters
    ----------
    path : str or Path
        A TOML file in the format of this module's docstring.

    Returns
    -------
    SweepConfig

    Raises
    ------
    ConfigError
        The file cannot be read, is not TOML (with the line) or breaks a rule (with the key,
        its line, and the allowed values).
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), None, "no such sweep file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), None, f"cannot read: {exc}") from None
    return parse_sweep(text, path=path)


def parse_sweep(text: str, path: str | Path | None = None) -> SweepConfig:
    """Validate the TOML ``text`` of a sweep file.

    Parameters
    ----------
    text : str
        The file's contents.
    path : str, Path or None
        Where it was read from: named in errors, and the base of relative trace paths (the
        working directory when ``None``).

    Returns
    -------
    SweepConfig

    Raises
    ------
    ConfigError
        Not TOML; an unknown key (the allowed ones are listed); a wrong type; an empty or
        repeated list of values; a key both fixed and swept; ``repetitions < 1`` or
        ``seed < 0``; a name outside its registry; a value outside its parameter's range
        (:meth:`vosim.scenario.Param.validate`); a trace that does not exist; an unknown
        preset; more than :data:`MAX_RUNS` runs (counted before expanding).
    """
    sweep_file = _SweepFile(text, path)
    data = sweep_file.toml()
    name, description = sweep_file.top(data)
    repetitions, seed, paired, segments, factors = sweep_file.run(data.get("run", {}))
    tables_raw = {kind: data.get(kind, []) for kind in ("policy", "baseline")}
    for kind, raw in tables_raw.items():
        if not (isinstance(raw, list) and all(isinstance(b, dict) for b in raw)):
            sweep_file.fail(None, kind, f"expected [[{kind}]] tables, one per policy")
    preset, scenario, sweep = sweep_file.scenario_and_sweep(data)
    sweep_file.factors(factors, sweep)
    tables = {kind: sweep_file.fixed_tables(kind, raw, factors) for kind, raw in tables_raw.items()}
    labels = [SweepConfig.baseline_label(b) for kind in tables for b in tables[kind]]
    if len(set(labels)) != len(labels):
        sweep_file.fail(
            "baseline", None, "two [[policy]] or [[baseline]] tables fix the same values"
        )
    config = SweepConfig(
        name=name.strip(),
        scenario=scenario,
        preset=preset,
        sweep=sweep,
        repetitions=repetitions,
        seed=seed,
        paired=paired,
        segments=segments,
        description=description,
        path=str(path) if path is not None else None,
        text=text,
        factors=tuple(factors),
        baselines=tuple(tables["baseline"]),
        policies=tuple(tables["policy"]),
    )
    if segments:
        _check_segments(config, sweep_file.fail)
    too_big = _run_count_error(config)
    if too_big is not None:
        if sweep:
            sweep_file.fail("sweep", None, too_big)
        sweep_file.fail("run", "repetitions", too_big)
    return config


class _SweepFile:
    """One sweep file's text being checked: each table's checks, errors with file and line.

    ``fail(table, key, message)`` raises the :class:`~vosim.errors.ConfigError` naming the
    file, the key's line (or the table's) and the table and key; the other methods check one
    part of the file each, in the order :func:`parse_sweep` calls them.
    """

    def __init__(self, text: str, path: str | Path | None) -> None:
        self.text = text
        self.where = str(path) if path is not None else "<string>"
        self.base = Path(path).resolve().parent if path is not None else Path.cwd()
        self.params = model_parameters()

    def toml(self) -> dict[str, Any]:
        """The parsed TOML; a :class:`ConfigError` with the line of a syntax error."""
        try:
            return tomllib.loads(self.text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            m = re.search(r"\(at line (\d+), column \d+\)", message)
            line = int(m.group(1)) if m else None
            if line is None and "end of document" in message:
                line = max(1, len(self.text.splitlines()))
            raise ConfigError(self.where, line, f"not valid TOML: {message}") from None

    def fail(self, table: str | None, key: str | None, message: str) -> typing.NoReturn:
        """Raise the :class:`ConfigError` of ``message`` at ``[table] key``."""
        line = None
        if key is not None:
            line = _key_line(self.text, table, key)
        elif table is not None:
            line = _table_line(self.text, table)
        prefix = f"[{table}] " if table else ""
        raise ConfigError(self.where, line, f"{prefix}{key + ': ' if key else ''}{message}")

    def unknown(self, table: str | None, key: str, allowed: Sequence[str], what: str) -> None:
        """Refuse an unknown ``key``, with the closest allowed name as a hint."""
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        self.fail(table, key, f"unknown {what}{hint}; allowed: {', '.join(allowed)}")

    def top(self, data: dict[str, Any]) -> tuple[str, str]:
        """The top-level keys checked: ``(name, description)``."""
        fail = self.fail
        for key in data:
            if key not in TOP_LEVEL_KEYS:
                self.unknown(None, key, TOP_LEVEL_KEYS, "top-level key")
        name = data.get("name")
        if name is None:
            fail(None, "name", 'missing: name the sweep at the top of the file (name = "my-sweep")')
        if not isinstance(name, str) or not name.strip():
            fail(None, "name", f"expected a non-empty string naming the sweep, got {_show(name)}")
        description = data.get("description", "")
        if not isinstance(description, str):
            fail(None, "description", f"expected a string, got {_show(description)}")
        for table in ("scenario", "sweep", "run"):
            if not isinstance(data.get(table, {}), dict):
                fail(None, table, f"expected a table [{table}], got {_show(data[table])}")
        return name, description

    def run(self, run: dict[str, Any]) -> tuple[int, int, bool, bool, list[str]]:
        """``[run]`` checked: ``(repetitions, seed, paired, segments, factors)``."""
        fail = self.fail
        for key in run:
            if key not in RUN_KEYS:
                self.unknown("run", key, RUN_KEYS, "key")
        repetitions = run.get("repetitions", 1)
        if isinstance(repetitions, bool) or not isinstance(repetitions, int) or repetitions < 1:
            fail("run", "repetitions", f"expected an integer >= 1, got {_show(repetitions)}")
        seed = run.get("seed", 1)
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            fail("run", "seed", f"expected an integer >= 0, got {_show(seed)}")
        paired = run.get("paired", True)
        if not isinstance(paired, bool):
            fail("run", "paired", f"expected true or false, got {_show(paired)}")
        segments = run.get("segments", False)
        if not isinstance(segments, bool):
            fail("run", "segments", f"expected true or false, got {_show(segments)}")
        factors = run.get("factors", [])
        if not (isinstance(factors, list) and all(isinstance(f, str) for f in factors)):
            fail("run", "factors", f"expected a list of swept keys, got {_show(factors)}")
        return repetitions, seed, paired, segments, factors

    def check(self, table: str, key: str, value: Any) -> Any:
        """``value`` of the model parameter ``key`` converted to its type and validated."""
        p = self.params[key]
        try:
            converted = _convert(value, p.type)
        except _Bad:
            self.fail(table, key, f"expected {_describe(p.type)}, got {_show(value)}")
        choices = p.choices
        if choices is not None and converted is not None:
            names = converted if isinstance(converted, (tuple, list)) else (converted,)
            for n in names:
                if n not in choices:
                    self.fail(table, key, f"{n!r} is not one of {', '.join(map(str, choices))}")
        if key in ("trace", "local_trace") and isinstance(converted, str):
            synthetic = key == "trace"
            refuse = functools.partial(self.fail, table, key)
            converted = _check_trace(converted, self.base, refuse, synthetic)
        try:
            p.validate(converted)
        except VosimError as exc:
            self.fail(table, key, str(exc))
        return converted

    def scenario_and_sweep(self, data: dict[str, Any]):
        """``[scenario]`` and ``[sweep]`` checked: ``(preset, scenario, sweep)``.

        The scenario starts from the preset's values that neither table sets; each swept
        key's values are converted, non-empty and distinct.
        """
        fail, params = self.fail, self.params
        scenario_raw = dict(data.get("scenario", {}))
        sweep_raw = data.get("sweep", {})
        preset = scenario_raw.pop("preset", None)
        if preset is not None and (not isinstance(preset, str) or preset not in PRESETS):
            presets = ", ".join(PRESETS)
            fail("scenario", "preset", f"{_show(preset)} is not a preset; presets: {presets}")
        if "preset" in sweep_raw:
            fail(
                "sweep",
                "preset",
                'a preset is a starting point: set it in [scenario] (preset = "...")',
            )
        for table, raw in (("scenario", scenario_raw), ("sweep", sweep_raw)):
            for key in raw:
                if key == "rng":
                    fail(table, key, "seeds are set by [run] seed (and repetitions), not by rng")
                if key not in params:
                    self.unknown(table, key, list(params), "VOModel parameter")
        scenario = {
            key: value
            for key, value in (PRESETS[preset].values.items() if preset is not None else ())
            if key not in sweep_raw and key not in scenario_raw
        }
        scenario.update(
            {key: self.check("scenario", key, value) for key, value in scenario_raw.items()}
        )
        sweep: dict[str, tuple[Any, ...]] = {}
        for key, values in sweep_raw.items():
            if key in scenario_raw:
                fail("sweep", key, "is both fixed in [scenario] and swept in [sweep]; keep one")
            sweep[key] = self.swept(key, values)
        return preset, scenario, sweep

    def swept(self, key: str, values: Any) -> tuple[Any, ...]:
        """The values of ``[sweep] key`` converted: a non-empty list, no value twice."""
        if not isinstance(values, list):
            self.fail("sweep", key, f"expected a list of values, got {_show(values)}")
        if not values:
            self.fail("sweep", key, "expected a non-empty list of values, got []")
        converted = [self.check("sweep", key, v) for v in values]
        seen: set[str] = set()
        for raw_value, v in zip(values, converted, strict=True):
            text_value = canonical_json(v)
            if text_value in seen:
                self.fail("sweep", key, f"value {_show(raw_value)} is listed twice")
            seen.add(text_value)
        return tuple(converted)

    def factors(self, factors: list[str], sweep: dict[str, tuple[Any, ...]]) -> None:
        """``[run] factors`` checked against the swept keys: each swept, none twice."""
        for f in factors:
            if f not in sweep:
                swept = ", ".join(sweep) or "none"
                self.fail("run", "factors", f"{f!r} is not a swept key; swept: {swept}")
        if len(set(factors)) != len(factors):
            self.fail("run", "factors", "a factor is listed twice")

    def fixed_tables(
        self, kind: str, raw: list[dict[str, Any]], factors: list[str]
    ) -> list[dict[str, Any]]:
        """The ``[[policy]]`` or ``[[baseline]]`` tables (``kind``) checked and converted."""
        tables = []
        for b in raw:
            if not b:
                self.fail(kind, None, f"an empty [[{kind}]] table: fix at least one parameter")
            for key in b:
                if key not in self.params:
                    self.unknown(kind, key, list(self.params), "VOModel parameter")
                if key in factors:
                    self.fail(
                        kind, key, f"is a factor: [[{kind}]] runs vary the factors, not fix them"
                    )
            tables.append({key: self.check(kind, key, value) for key, value in b.items()})
        return tables


def _check_segments(config: SweepConfig, fail: Callable[..., typing.NoReturn]) -> None:
    """Refuse ``segments = true`` without one fixed ``jobs`` or with a varied ``first_job``.

    ``fail(table, key, message)`` raises the :class:`~vosim.errors.ConfigError`.
    """
    tables = (*config.policies, *config.baselines)
    if "jobs" in config.sweep or any("jobs" in t for t in tables):
        fail("run", "segments", "segments need one [scenario] jobs, not a varied one")
    if config.scenario.get("jobs", PARAMETERS["jobs"].default) is None:
        fail("run", "segments", 'segments need a number of jobs, not jobs = "none"')
    if "first_job" in config.sweep or any("first_job" in t for t in tables):
        fail("run", "segments", "segments move first_job themselves: do not vary it")


def _run_count_error(config: SweepConfig) -> str | None:
    """Why ``config`` has too many runs (see :data:`MAX_RUNS`), or ``None`` if it has not."""
    count = config.run_count
    if count <= MAX_RUNS:
        return None
    factors = [f"{key} {len(values)}" for key, values in config.sweep.items()]
    factors.append(f"repetitions {config.repetitions}")
    fixed = len(config.baselines) + len(config.policies)
    also = f", {fixed} [[policy]] and [[baseline]] tables included" if fixed else ""
    return (
        f"{count:,} runs ({' x '.join(factors)}{also}), more than the {MAX_RUNS:,} a sweep may "
        "have (MAX_RUNS); sweep fewer values or split it into several sweeps"
    )


def check_run_count(config: SweepConfig) -> None:
    """Refuse a sweep of more than :data:`MAX_RUNS` runs, counted without expanding it.

    :func:`parse_sweep` already checks this (with the line of ``[sweep]``);
    :func:`vosim.runs.batch.expand` checks it again for a :class:`SweepConfig` built directly.

    Parameters
    ----------
    config : SweepConfig
        The sweep.

    Raises
    ------
    ConfigError
        ``config.run_count > MAX_RUNS``: the message (one line) names the count and the
        number of values of each swept key and the repetitions that make it.

    References
    ----------
    vosim's rule; :data:`MAX_RUNS` says why the bound is where it is.

    Examples
    --------
    >>> config = SweepConfig(name="big", sweep={"ua": tuple(range(100))}, repetitions=2000)
    >>> try:
    ...     check_run_count(config)
    ... except ConfigError as exc:
    ...     print(exc.message[:55])
    200,000 runs (ua 100 x repetitions 2000), more than the
    """
    message = _run_count_error(config)
    if message is not None:
        raise ConfigError(config.path or "<sweep>", None, message)


def _check_trace(
    value: str, base: Path, fail: Callable[[str], typing.NoReturn], synthetic: bool = False
) -> str:
    """A bundled trace name as is, or an existing file's path resolved against ``base``.

    With ``synthetic`` a name of :data:`vosim.data.SYNTHETIC_TRACES` is kept as is too.
    """
    from vosim.data import TRACES

    if value in TRACES or (synthetic and value in SYNTHETIC_TRACES):
        return value
    candidate = Path(value).expanduser()
    if not candidate.is_absolute():
        candidate = base / candidate
    if candidate.is_file():
        return str(candidate)
    fail(f"{value!r} is neither a bundled trace ({', '.join(TRACES)}) nor an existing file")
