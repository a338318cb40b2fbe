"""Every experiment chart: one colour per method, and the paper's values beside vosim's.

Every experiment chart shows the paper's values beside vosim's, with one colour per method
across all charts.
"""

from __future__ import annotations

import json
import re

import pytest

from vosim.errors import ParameterError
from vosim.runs.experiments import ExperimentConfig, experiments
from vosim.runs.experiments.base import METHOD_COLOURS, method_colour

#: Experiments whose charts colour methods, with the labels each must draw.
METHOD_CHARTS = {
    "aep-fig1-3": {"AMP", "AMP (paper)", "minCost", "CSA", "CSA (paper)"},
    "aep-table1-2": {"AMP", "AMP (paper)", "minCost", "CSA", "CSA (paper)"},
    "iccs2021-fig5": {"Knapsack", "GreedyJnt"},
    "iccs2021-table1": {"Knapsack", "GreedyJnt"},
    "iccs2023-fig4-5": {"KnapsackSingle", "KnapsackGroup", "Greedy", "BruteForce"},
    "knapsack-grid-lambda": {"FCFS", "BF", "gang", "KS", "KS+BF"},
}


def _colour_scales(spec) -> list[tuple[list, list]]:
    """Every (domain, range) of a colour scale in a Vega-Lite spec."""
    found = []
    if isinstance(spec, dict):
        colour = spec.get("color")
        if isinstance(colour, dict) and "scale" in colour:
            scale = colour["scale"]
            found.append((scale.get("domain"), scale.get("range")))
        for value in spec.values():
            found += _colour_scales(value)
    elif isinstance(spec, list):
        for value in spec:
            found += _colour_scales(value)
    return found


#: Every experiment that reproduces a paper figure (those with a fidelity function).
PAPER_EXPERIMENTS = sorted(n for n, e in experiments().items() if e.fidelity is not None)


@pytest.fixture(scope="module")
def quick() -> dict[str, tuple]:
    """Each paper experiment's quick run: name -> (table, chart spec as a dict)."""
    out = {}
    for name in PAPER_EXPERIMENTS:
        experiment = experiments()[name]
        config = ExperimentConfig(experiment.repetitions(True), 1, True)
        table, chart = experiment.run(config, lambda k: None)
        out[name] = (table, chart.to_dict())
    return out


@pytest.fixture(scope="module")
def scales(quick) -> dict[str, list[tuple[list, list]]]:
    return {name: _colour_scales(quick[name][1]) for name in METHOD_CHARTS}


def _numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*\.?\d*", text)]


@pytest.mark.parametrize("name", PAPER_EXPERIMENTS)
def test_the_chart_shows_the_papers_values(quick, name):
    """Most values the experiment's fidelity rows quote from the paper are drawn on its chart.

    A paper value counts as drawn when one of the numbers in its ``paper`` text occurs in the
    chart's spec (its data, labels or titles); the chart must also name the paper.
    """
    table, spec = quick[name]
    text = json.dumps(spec)
    assert "paper" in text
    drawn = set(_numbers(text))
    rows = experiments()[name].fidelity(table)
    quoted = [r for r in rows if _numbers(r.paper)]
    shown = [r for r in quoted if any(x in drawn for x in _numbers(r.paper))]
    assert len(shown) >= 0.5 * len(quoted), [r.paper for r in quoted if r not in shown]


def test_each_method_has_one_colour_on_every_chart(scales):
    seen: dict[str, str] = {}
    for name, found in scales.items():
        assert found, f"{name}: no colour scale with an explicit domain"
        labels = set()
        for domain, colours in found:
            assert domain is not None and colours is not None, name
            for label, colour in zip(domain, colours, strict=True):
                assert colour == METHOD_COLOURS[label]
                assert seen.setdefault(label, colour) == colour
                labels.add(label)
            assert len(set(colours)) == len(colours), f"{name}: two methods share a colour"
        assert METHOD_CHARTS[name] <= labels, name


def test_the_same_method_under_two_papers_names_has_one_colour():
    # knapsack_p: ICCS 2021 calls it Knapsack, ICCS 2023 KnapsackSingle
    assert METHOD_COLOURS["Knapsack"] == METHOD_COLOURS["KnapsackSingle"]
    assert METHOD_COLOURS["GreedyJnt"] != METHOD_COLOURS["Greedy"]  # different methods


def test_a_method_without_a_colour_is_named():
    with pytest.raises(ParameterError, match=r"\['Nameless'\]"):
        method_colour("label", ["Knapsack", "Nameless"])
    encoding = method_colour("label", ["Greedy", "Knapsack"]).to_dict()
    assert encoding["scale"]["domain"] == ["Knapsack", "Greedy"]  # the palette's order
