"""Named presets (vosim.scenario.presets): valid scenarios of the papers' values, runnable."""

from __future__ import annotations

import json

import pytest
from scenario_cases import _run_args

from vosim.errors import ConfigError, ParameterError
from vosim.model import VOModel
from vosim.runs.cli import main, run_values
from vosim.runs.config import parse_sweep
from vosim.scenario import (
    PARAMETERS,
    PRESETS,
    Scenario,
)

NASA = "NASA-iPSC-1993-3.1-cln"


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
