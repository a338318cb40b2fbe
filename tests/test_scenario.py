"""The parameter declaration (vosim.scenario) and the four places generated from it.

``VOModel``'s signature, ``vosim run``'s options, sweep-file keys and the live UI's inputs must
agree with :data:`vosim.scenario.PARAMETERS` (names, annotations, defaults, choices); presets
and the synthetic job streams; every check's error names the parameter and the bad value.
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import re
import subprocess
import sys

import pytest

from vosim.errors import ConfigError, ParameterError, UnknownAllocatorError, VosimError
from vosim.model import VOModel
from vosim.runs.cli import build_parser, main, run_values
from vosim.runs.config import _choices, model_parameters, parse_sweep
from vosim.scenario import (
    GROUPS,
    PARAMETERS,
    PRESETS,
    UI_PARAMETERS,
    Flag,
    Scenario,
    check_combination,
)

NASA = "NASA-iPSC-1993-3.1-cln"

#: A value outside each parameter's range, and the error it raises. Every declared parameter
#: must have one: a new parameter without a check (or without a row here) fails below.
BAD = {
    "trace": (5, ParameterError),
    "jobs": (0, ParameterError),
    "first_job": (-1, ParameterError),
    "offered_load": (0.0, ParameterError),
    "nodes": (-1, ParameterError),
    "resources": ("cores", ParameterError),
    "owners": (0, ParameterError),
    "cycle_period": (-5.0, ParameterError),
    "scheduling_interval": (0.0, ParameterError),
    "look_ahead": (0.0, ParameterError),
    "reference_performance": (0.0, ParameterError),
    "performance_range": ((3, 2), ParameterError),
    "budget_range": ((1.6, 0.7), ParameterError),
    "local_load": ((0.5, 1.0), ParameterError),
    "criterion_allocators": ({"cost": "nope"}, UnknownAllocatorError),
    "horizon": (-1.0, ParameterError),
    "patience": (0.0, ParameterError),
    "replan": ("sometimes", ParameterError),
    "availability": ("yes", ParameterError),
    "global_load": (1.5, ParameterError),
    "availability_method": ("nope", UnknownAllocatorError),
    "user_criteria": (("speed",), ParameterError),
    "vo_criterion": ("cost", ParameterError),
    "max_alternatives": (0, ParameterError),
    "vo_objective": ("profit", ParameterError),
    "vo_limit": ("energy", ParameterError),
    "user_evaluation": ("cardinal", ParameterError),
    "ua": (-3.0, ParameterError),
    "pricing_policy": ("auction", ParameterError),
    "owner_exit_revenue": (-1.0, ParameterError),
    "user_exit_satisfaction": (1.5, ParameterError),
    "budget_period": (math.inf, ParameterError),
    "budget_allowance": (0.0, ParameterError),
    "local_trace": ("synthetic:aep", ParameterError),
    "local_model": ("weekly", ParameterError),
    "local_priority": ("x", ParameterError),
    "local_length": (0.0, ParameterError),
    "policy": ("sjf", UnknownAllocatorError),
    "machine": (1, ParameterError),
    "utility_policy": (7, ParameterError),
    "fallback_after": ("2.5", ParameterError),
}

#: ``vosim run`` options that are not model parameters, and the aliases of parameters.
HAND_WRITTEN = {"-h", "--help", "--preset", "--seed", "--out", "--csv", "--quiet"}
ALIASES = {"--all-jobs": "jobs", "--no-local-load": "local_load", "--allocator": "allocator"}


def _run_parser() -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["run"]


def _run_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["run", *argv])


def _toml(value) -> str:
    """A TOML value for a parameter value ("none" for None, arrays for tuples)."""
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


# -- the declaration itself ----------------------------------------------------------------------
@pytest.mark.parametrize("name", list(PARAMETERS))
def test_every_parameter_is_fully_declared(name):
    p = PARAMETERS[name]
    assert p.help and "\n" not in p.help, "one line of help"
    assert p.doc_type and p.doc and p.doc == inspect.cleandoc(p.doc), "documented once, here"
    assert p.group in GROUPS
    assert p.check is not None, "every parameter declares its check"
    assert bool(p.none) == p.optional, "an optional parameter says what None means"
    p.validate(p.default)  # the default passes its own check
    if p.ui is not None:
        p.validate(p.ui_value)


def test_declaration_imports_neither_mesa_nor_pandas():
    code = (
        "import sys, vosim.scenario as s\n"
        "s.Scenario.preset('aep'); s.PARAMETERS['jobs'].help_text\n"
        "bad = sorted(m for m in ('mesa', 'pandas') if m in sys.modules)\n"
        "assert not bad, bad\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


# -- 1. VOModel(**fields) ------------------------------------------------------------------------
def test_vomodel_signature_is_the_declaration():
    params = list(inspect.signature(VOModel.__init__).parameters.values())
    assert params[0].name == "self" and params[-1].name == "rng"
    assert params[-1].default is None
    declared = [(p.name, p.annotation, p.default) for p in PARAMETERS.values()]
    signature = [(p.name, p.annotation, p.default) for p in params[1:-1]]
    assert signature == declared
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params[1:])


def test_vomodel_documents_every_parameter_from_the_declaration():
    doc = inspect.cleandoc(VOModel.__doc__)
    section = doc[doc.index("Parameters\n----------\n") : doc.index("\nRaises\n")]
    names = re.findall(r"^(\w+) : ", section, flags=re.M)
    assert names == [*PARAMETERS, "rng"]  # the signature's order
    for p in PARAMETERS.values():
        entry = f"{p.name} : {p.doc_type}\n" + "\n".join(
            f"    {line}" if line else "" for line in p.doc.split("\n")
        )
        assert entry in section


@pytest.mark.parametrize(
    ("name", "value"),
    [(n, v) for n, p in PARAMETERS.items() if p.choices is not None for v in p.choices],
)
def test_every_declared_choice_builds_the_model(name, value):
    if name == "user_criteria":
        value = (value,)
    extra = {"availability": True} if value == "availability" else {}
    model = VOModel(trace=NASA, jobs=5, rng=1, **extra, **{name: value})
    assert model.node_count == 128


def test_scenario_kwargs_build_the_model():
    scenario = Scenario(trace=NASA, jobs=20, owners=3, max_alternatives=2)
    model = VOModel(**scenario.kwargs(), rng=1)
    assert len(model.jobs) == 20 and len(model.owners) == 3
    assert model.vo_policy.max_alternatives == 2


# -- 2. vosim run's options -----------------------------------------------------------------------
def test_run_options_are_the_declaration():
    actions = {s: a for a in _run_parser()._actions for s in a.option_strings}
    for name, p in PARAMETERS.items():
        action = actions[p.flag]
        assert action.dest == name
        assert action.default is argparse.SUPPRESS  # a preset may change the default
        if action.choices is not None:
            assert list(action.choices) == list(p.choices)
        if not isinstance(p.check, Flag):
            shown = p.none if p.default is None else p.to_text(p.default)
            assert f"default: {shown})" in action.help.replace("%%", "%")
    declared = {p.flag for p in PARAMETERS.values()}
    assert set(actions) == declared | HAND_WRITTEN | set(ALIASES)


def test_run_without_options_gives_the_declared_defaults():
    assert run_values(_run_args()) == {n: p.default for n, p in PARAMETERS.items()}


@pytest.mark.parametrize("name", list(PARAMETERS))
def test_run_option_reads_back_what_it_shows(name):
    p = PARAMETERS[name]
    if isinstance(p.check, Flag):
        assert run_values(_run_args(p.flag))[name] is True
        return
    if p.default is not None:
        assert run_values(_run_args(p.flag, p.to_text(p.default)))[name] == p.default
    if p.optional:
        assert run_values(_run_args(p.flag, "none"))[name] is None


@pytest.mark.parametrize(
    ("argv", "name", "value"),
    [
        (["--all-jobs"], "jobs", None),
        (["--no-local-load"], "local_load", None),
        (["--local-load", "0.05,0.1"], "local_load", (0.05, 0.1)),
        (["--budget-range", "0.5, 2"], "budget_range", (0.5, 2.0)),
        (["--user-criteria", "cost,finish"], "user_criteria", ("cost", "finish")),
        (["--criterion-allocators", "cost=amp,finish=min_cost>amp"], "criterion_allocators",
         {"cost": "amp", "finish": "min_cost>amp"}),
        (["--fallback-after", "2s"], "fallback_after", "2s"),
        (["--utility-policy", "3"], "utility_policy", 3),
        (["--horizon", "inf"], "horizon", math.inf),
    ],
)  # fmt: skip
def test_run_option_forms(argv, name, value):
    assert run_values(_run_args(*argv))[name] == value


def test_allocator_alias_sets_criterion_allocators():
    values = run_values(_run_args("--allocator", "amp"))
    assert {values["criterion_allocators"][c] for c in ("finish", "runtime", "cost")} == {"amp"}


# -- 3. sweep-file keys ---------------------------------------------------------------------------
def test_sweep_keys_are_the_declaration():
    assert list(model_parameters()) == list(PARAMETERS)
    assert _choices() == {n: p.choices for n, p in PARAMETERS.items() if p.choices is not None}


def test_sweep_reads_every_default_back():
    lines = [f"{n} = {_toml(p.default)}" for n, p in PARAMETERS.items()]
    config = parse_sweep('name = "defaults"\n[scenario]\n' + "\n".join(lines) + "\n")
    assert config.scenario == {n: p.default for n, p in PARAMETERS.items()}


# -- 4. the UI's inputs ---------------------------------------------------------------------------
def test_ui_inputs_are_the_declaration():
    pytest.importorskip("solara")
    from vosim.ui.app import MODEL_PARAMS, PAGE_INPUTS
    from vosim.ui.scenarios import LiveModel

    assert set(MODEL_PARAMS) & set(PARAMETERS) == set(UI_PARAMETERS)
    assert set(MODEL_PARAMS) == set(UI_PARAMETERS) | set(PAGE_INPUTS)
    for name in UI_PARAMETERS:
        p, spec = PARAMETERS[name], MODEL_PARAMS[name]
        assert spec == p.ui_spec()
        assert spec["value"] == p.ui_value
        if p.choices is not None:
            assert spec["values"] == list(p.choices)
    signature = inspect.signature(LiveModel.__init__).parameters
    assert [n for n in signature if n != "self"] == list(MODEL_PARAMS)
    for name, spec in MODEL_PARAMS.items():
        assert signature[name].default == spec["value"], name


# -- presets --------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(PRESETS))
def test_presets_are_valid_scenarios(name):
    preset = PRESETS[name]
    assert preset.name == name and preset.description and preset.source
    assert set(preset.values) <= set(PARAMETERS)
    scenario = Scenario.preset(name)
    for key, value in preset.values.items():
        assert getattr(scenario, key) == value


def test_paper_presets_hold_the_papers_values():
    aep, vop = Scenario.preset("aep"), Scenario.preset("vo-preferences")
    for s in (aep, vop):  # AEP §3.1 and VO Preferences §4: 100 nodes, interval 600, T on p = 2
        assert (s.nodes, s.scheduling_interval, s.reference_performance) == (100, 600.0, 2.0)
    assert aep.local_load == (0.10, 0.50) and aep.trace == "synthetic:aep"
    assert vop.local_load == (0.05, 0.10) and vop.trace == "synthetic:vo-preferences"
    assert vop.max_alternatives is None
    # VO Preferences §4 values that are also VOModel's defaults are restated, and still equal
    for key in ("budget_range", "pricing_policy", "vo_objective", "vo_limit", "user_evaluation"):
        assert PRESETS["vo-preferences"].values[key] == PARAMETERS[key].default
    machine = Scenario.preset("machine")
    assert (machine.machine, machine.policy, machine.cycle_period) == (True, "easy", 0.0)


@pytest.mark.parametrize("name", ["aep", "vo-preferences", "machine"])
def test_every_preset_runs(name):
    overrides = {"trace": NASA} if "trace" not in PRESETS[name].values else {}
    model = VOModel(**Scenario.preset(name, jobs=60, **overrides).kwargs(), rng=1)
    model.run()
    states = model.job_frame()["state"]
    assert len(states) == 60 and (states == "completed").sum() > 0


def test_preset_overrides_and_unknown_preset():
    assert Scenario.preset("aep", jobs=10, nodes=50).nodes == 50
    with pytest.raises(ParameterError, match=r"'nope'.*aep, vo-preferences, machine"):
        Scenario.preset("nope")
    with pytest.raises(ParameterError, match=r"machine .*availability"):
        Scenario.preset("machine", availability=True)


def test_run_preset_then_explicit_options():
    values = run_values(_run_args("--preset", "aep", "--nodes", "40", "--no-local-load"))
    assert values["trace"] == "synthetic:aep" and values["scheduling_interval"] == 600.0
    assert values["nodes"] == 40 and values["local_load"] is None
    assert run_values(_run_args("--preset", "machine"))["policy"] == "easy"
    with pytest.raises(SystemExit):
        _run_args("--preset", "nope")


def test_run_with_a_preset_writes_it_to_the_summary(tmp_path):
    out = tmp_path / "aep"
    assert main(["run", "--preset", "aep", "--jobs", "40", "--quiet", "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["preset"] == "aep" and summary["trace"] == "synthetic:aep"
    assert summary["nodes"] == 100 and summary["scheduling_interval"] == 600.0
    assert summary["completed"] + summary["rejected"] + summary["unfinished"] == 40


def test_sweep_preset_is_overridden_by_scenario_and_sweep_keys():
    config = parse_sweep(
        'name = "p"\n[scenario]\npreset = "vo-preferences"\njobs = 80\n'
        '[sweep]\nlocal_load = [[0.1, 0.2], "none"]\n'
    )
    assert config.preset == "vo-preferences" and config.to_dict()["preset"] == "vo-preferences"
    assert config.scenario["trace"] == "synthetic:vo-preferences"
    assert config.scenario["jobs"] == 80 and "local_load" not in config.scenario
    assert "preset" not in parse_sweep('name = "q"\n').to_dict()
    for text, needle in [
        ('name = "p"\n[scenario]\npreset = "nope"\n', "presets: aep, vo-preferences, machine"),
        ('name = "p"\n[sweep]\npreset = ["aep"]\n', "set it in [scenario]"),
    ]:
        with pytest.raises(ConfigError, match="preset: ") as info:
            parse_sweep(text)
        assert needle in info.value.message


# -- validation -----------------------------------------------------------------------------------
def test_every_parameter_has_a_bad_value_here():
    assert set(BAD) == set(PARAMETERS)


@pytest.mark.parametrize("name", list(BAD))
def test_bad_value_error_names_parameter_and_value(name):
    value, error = BAD[name]
    for build in (lambda: Scenario(**{name: value}), lambda: VOModel(**{name: value}, rng=1)):
        with pytest.raises(error) as info:
            build()
        message = str(info.value)
        assert name in message, message
        shown = "'nope'" if name == "criterion_allocators" else repr(value)
        assert shown in message, message


@pytest.mark.parametrize(
    "name", [n for n, p in PARAMETERS.items() if not isinstance(p.check, Flag)]
)
def test_bad_value_is_refused_by_run_and_sweep(name, capsys):
    value, _ = BAD[name]
    p = PARAMETERS[name]
    if name != "trace":  # any text is a path to the command line; the reader names it
        with pytest.raises(SystemExit) as exit_info:
            _run_args(p.flag, p.to_text(value))
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert p.flag in err, err
    with pytest.raises(ConfigError) as info:
        parse_sweep(f'name = "bad"\n[scenario]\n{name} = {_toml(value)}\n')
    assert f"{name}:" in info.value.message and info.value.line == 3


def test_from_text_names_unreadable_text():
    with pytest.raises(ParameterError, match=r"jobs must be an integer >= 1 or None, got 'abc'"):
        PARAMETERS["jobs"].from_text("abc")
    with pytest.raises(ParameterError, match=r"local_load .*got '0\.1'"):
        PARAMETERS["local_load"].from_text("0.1")
    with pytest.raises(ParameterError, match=r"owners .*got None"):
        PARAMETERS["owners"].validate(None)


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({"cycle_period": 0, "pricing_policy": "demand"}, "cycle_period 0"),
        ({"machine": True, "local_trace": NASA, "budget_period": 10.0}, "local_trace, budget"),
        ({"machine": True, "owner_exit_revenue": 1.0}, "owner_exit_revenue"),
        ({"vo_criterion": "availability", "criterion_allocators": {"cost": "amp"}}, "not both"),
        ({"policy": "availability", "criterion_allocators": {"cost": "amp"}}, "not both"),
        ({"reference_performance": 11.0}, r"must lie in performance_range \[2, 10\], got 11.0"),
        ({"performance_range": (3, 5)}, r"must lie in performance_range \[3, 5\], got 6.0"),
    ],
)
def test_rules_between_parameters(values, needle):
    with pytest.raises(ParameterError, match=needle):
        check_combination(values)
    with pytest.raises(ParameterError, match=needle):
        VOModel(trace=NASA, jobs=5, rng=1, **values)
    check_combination({})  # the defaults are a valid combination


def test_owners_above_the_trace_nodes_is_left_to_the_model():
    Scenario(owners=1000)  # the node count needs the trace
    with pytest.raises(ParameterError, match=r"owners must be an integer in \[1, nodes=128\]"):
        VOModel(trace=NASA, jobs=5, owners=1000, rng=1)


def test_checks_accept_numpy_scalars():
    import numpy as np

    s = Scenario(jobs=np.int64(5), global_load=np.float64(0.1), availability=np.True_)
    assert s.jobs == 5
    with pytest.raises(VosimError, match="True"):
        Scenario(budget_period=True)
