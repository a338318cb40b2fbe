"""Single-parameter checks (vosim.scenario.checks): every bad value is refused everywhere, named."""

from __future__ import annotations

import math

import pytest
from scenario_cases import _run_args, _toml

from vosim.errors import ConfigError, ParameterError, UnknownAllocatorError, VosimError
from vosim.model import VOModel
from vosim.runs.config import parse_sweep
from vosim.scenario import (
    PARAMETERS,
    Flag,
    Scenario,
)

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


def test_checks_accept_numpy_scalars():
    import numpy as np

    s = Scenario(jobs=np.int64(5), global_load=np.float64(0.1), availability=np.True_)
    assert s.jobs == 5
    with pytest.raises(VosimError, match="True"):
        Scenario(budget_period=True)
