"""Param (vosim.scenario.param): a parameter's text form, read back by ``vosim run``; errors."""

from __future__ import annotations

import math

import pytest
from scenario_cases import _run_args

from vosim.errors import ParameterError
from vosim.runs.cli import run_values
from vosim.scenario import (
    PARAMETERS,
    Flag,
)


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


def test_from_text_names_unreadable_text():
    with pytest.raises(ParameterError, match=r"jobs must be an integer >= 1 or None, got 'abc'"):
        PARAMETERS["jobs"].from_text("abc")
    with pytest.raises(ParameterError, match=r"local_load .*got '0\.1'"):
        PARAMETERS["local_load"].from_text("0.1")
    with pytest.raises(ParameterError, match=r"owners .*got None"):
        PARAMETERS["owners"].validate(None)


def hand_param(**kw):
    """A parameter declared here, independent of VOModel's."""
    from vosim.scenario.checks import Integer
    from vosim.scenario.param import Param

    fields = dict(
        name="widgets",
        annotation="int | None",
        default=3,
        help="how many widgets",
        group="test",
        unit="units",
        check=Integer(low=1),
        none="all",
    )
    fields.update(kw)
    return Param(**fields)


def test_a_hand_declared_parameter_by_hand():
    p = hand_param()
    assert p.optional and p.flag == "--widgets" and p.choices is None
    assert p.help_text == "how many widgets (units; default: 3)"
    assert p.to_text(None) == "none" and p.from_text(" none ") is None
    assert p.from_text("7") == 7 and p.to_text(7) == "7"
    with pytest.raises(ParameterError, match=r"^widgets must be an integer >= 1 or None, got 0$"):
        p.from_text("0")
    strict = hand_param(annotation="int", default=None)
    assert not strict.optional and strict.help_text == "how many widgets (units; default: all)"
    with pytest.raises(ParameterError, match=r"^widgets must be an integer >= 1, got None$"):
        strict.validate(None)
    with pytest.raises(ParameterError, match="widgets is not an input of the live UI"):
        p.ui_spec()


def test_to_text_forms():
    p = hand_param()
    assert [p.to_text(v) for v in (True, False, 2.0, 0.1, 1e16, math.inf)] == [
        "true",
        "false",
        "2",
        "0.1",
        "1e+16",
        "inf",
    ]
    assert p.to_text((0.5, 2.0)) == "0.5,2" and p.to_text({"a": 1, "b": "x"}) == "a=1,b=x"


def test_ui_spec_of_a_slider():
    from vosim.scenario.param import UIInput

    p = hand_param(ui=UIInput(min=1, max=9, step=1))
    assert p.ui_spec() == {
        "type": "SliderInt",
        "label": "widgets",
        "value": 3,
        "min": 1,
        "max": 9,
        "step": 1,
    }
    assert hand_param(ui=UIInput(value=5, label="W")).ui_spec()["value"] == 5
