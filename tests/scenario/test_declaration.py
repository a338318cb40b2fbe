"""The parameter declaration (vosim.scenario.declaration) and the four places generated from it.

``VOModel``'s signature, ``vosim run``'s options, sweep-file keys and the live UI's inputs must
agree with :data:`vosim.scenario.PARAMETERS` (names, annotations, defaults, choices); the rules
between parameters are checked by the declaration and by the model alike.
"""

from __future__ import annotations

import argparse
import inspect
import re
import subprocess
import sys

import pytest
from scenario_cases import _run_args, _run_parser, _toml

from vosim.errors import ParameterError
from vosim.model import VOModel
from vosim.runs.cli import run_values
from vosim.runs.config import _choices, model_parameters, parse_sweep
from vosim.scenario import (
    GROUPS,
    PARAMETERS,
    UI_PARAMETERS,
    Flag,
    Scenario,
    check_combination,
)

NASA = "NASA-iPSC-1993-3.1-cln"


#: ``vosim run`` options that are not model parameters, and the aliases of parameters.
HAND_WRITTEN = {"-h", "--help", "--preset", "--seed", "--out", "--csv", "--quiet"}
ALIASES = {"--all-jobs": "jobs", "--no-local-load": "local_load", "--allocator": "allocator"}


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
