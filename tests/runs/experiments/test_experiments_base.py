"""The experiment registry and the fidelity-row helpers (vosim.runs.experiments.base)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from experiment_cases import _experiment

from vosim import __version__
from vosim.errors import ParameterError, UnknownAllocatorError
from vosim.runs.cli import main
from vosim.runs.experiments.base import (
    CAUSE_UNKNOWN,
    NO_VALUE,
    NOT_IN_GRID,
    PAPER_SHAPE,
    ExperimentConfig,
    Fidelity,
    cell,
    close_row,
    experiment_settings,
    factor_row,
    fidelity_row,
    paper_marks,
    percent,
    register_experiment,
    run_experiment,
    value_labels,
    verdict,
)

NASA = "NASA-iPSC-1993-3.1-cln"


def test_fidelity_rows_are_checked():
    with pytest.raises(ParameterError, match="match must be one of"):
        Fidelity("F", "q", "1", "1", "maybe", "r")
    with pytest.raises(ParameterError, match="reason is empty"):
        Fidelity("F", "q", "1", "1", "yes", " ")
    with pytest.raises(ParameterError, match="tolerances"):
        verdict(1.0, 1.0, 0.3, 0.1)
    assert verdict(float("nan"), 1.0, 0.1, 0.3) == "no"
    with pytest.raises(ValueError, match="'all' names every experiment"):
        register_experiment(_experiment("all", []))


def test_a_trace_is_refused_where_an_experiment_has_its_own_instances(tmp_path, capsys):
    with pytest.raises(ParameterError, match="takes no trace"):
        run_experiment("aep-fig1-3", tmp_path, quick=True, trace=NASA)
    assert main(["experiment", "aep-fig1-3", "--trace", NASA, "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "takes no trace" in err and "Traceback" not in err


# -- the registry and the runner ---------------------------------------------------------------


def test_config_streams_are_one_per_repetition_keyed_by_the_point():
    config = ExperimentConfig(repetitions=3, seed=7, quick=True)
    first = [rng.random() for rng in config.rngs(1, 2)]
    assert len(first) == 3 and len(set(first)) == 3
    assert first == [rng.random() for rng in config.rngs(1, 2)]  # the same point: same streams
    assert first[1] == np.random.default_rng([7, 1, 2, 1]).random()
    assert first != [rng.random() for rng in config.rngs(1, 3)]  # another point: others


def test_experiment_repetitions_quick_or_full():
    experiment = _experiment("x", [])
    assert (experiment.repetitions(False), experiment.repetitions(True)) == (2, 1)


def test_run_experiment_refuses_bad_arguments_before_running(tmp_path):
    with pytest.raises(UnknownAllocatorError, match=r"unknown experiment 'nope'; available: .*aep"):
        run_experiment("nope", tmp_path)
    with pytest.raises(ValueError, match="repetitions must be >= 1, got 0"):
        run_experiment("aep-fig1-3", tmp_path, repetitions=0)
    with pytest.raises(ParameterError, match="jobs must be >= 1, got 0"):
        run_experiment("validation", tmp_path, jobs=0)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_experiment_settings_record_what_determines_the_table():
    settings = experiment_settings("aep-fig1-3", 1, 5, 3, None, None)
    assert settings == {
        "experiment": "aep-fig1-3",
        "quick": True,
        "repetitions": 5,
        "seed": 3,
        "trace": None,
        "jobs": None,
        "vosim": __version__,
    }
    assert type(settings["quick"]) is bool


# -- fidelity rows -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("vosim", "match"),
    [(10.5, "yes"), (9.5, "yes"), (10.51, "partly"), (12.5, "partly"), (12.51, "no")],
)
def test_verdict_boundaries(vosim, match):
    # paper 10, yes within 5 % (0.5), partly within 25 % (2.5), both sides
    assert verdict(vosim, 10.0, 0.05, 0.25) == match
    assert verdict(20.0 - vosim, 10.0, 0.05, 0.25) == match


def test_cell_reads_the_first_matching_row():
    table = pd.DataFrame(
        {"name": ["a", "b", "b"], "load": [0.1 + 0.2, 0.9, 0.9], "v": [1.0, 2.0, 3.0]}
    )
    assert cell(table, "v", load=0.3) == 1.0  # 0.1 + 0.2 is not 0.3, but close
    assert cell(table, "v", name="b", load=0.9) == 2.0
    assert cell(table, "v", name="c") is None
    assert cell(table, "v", name="a", load=0.9) is None


def test_percent_as_the_papers_write_it():
    assert [percent(s) for s in (0.134, 0.001, 0.25, 1.0)] == ["13.4 %", "0.1 %", "25 %", "100 %"]


def test_fidelity_row_of_a_missing_or_nan_value():
    def row(value, cause=CAUSE_UNKNOWN):
        return fidelity_row("F", "q", "1", value, "{:.1f}".format, lambda v: "partly", "R.", cause)

    missing = row(None)
    assert (missing.vosim, missing.match) == (NOT_IN_GRID, "no")
    assert missing.reason == "Not in this run's grid. R."
    nan = row(math.nan)
    assert (nan.vosim, nan.match, nan.reason) == (NO_VALUE, "no", f"R. {CAUSE_UNKNOWN}")
    judged = row(2.0)
    assert (judged.vosim, judged.match, judged.reason) == ("2.0", "partly", f"R. {CAUSE_UNKNOWN}")


def test_fidelity_row_states_the_cause_of_a_miss_or_a_calibration():
    def row(cause):
        return fidelity_row("F", "q", "1", 1.0, str, lambda v: "yes", "R.", cause)

    assert row("Domain differs.").reason == "R."  # a match needs no cause
    assert row("Calibrated: k chosen.").reason == "R. Calibrated: k chosen."


def test_close_row_shows_the_papers_decimals_and_states_the_rule():
    row = close_row("F", "q", 1027.3, 1100.0, 0.05, 0.10)
    assert (row.paper, row.vosim, row.match) == ("1027.3", "1100.00", "partly")  # 7.1 % off
    assert row.reason.startswith("Yes if vosim differs from the paper's value by at most 5 %")
    assert row.reason.endswith(CAUSE_UNKNOWN)
    row = close_row("F", "q", 0.123, 0.12, 0.05, 0.10, stated="12.3 %", note="Mean of 3.")
    assert (row.paper, row.vosim, row.match) == ("12.3 %", "0.120", "yes")
    assert row.reason.endswith("partly at most 10 %. Mean of 3.")


@pytest.mark.parametrize(
    ("value", "match"), [(20.0, "yes"), (5.0, "yes"), (40.0, "partly"), (2.5, "partly")]
)
def test_factor_row_judges_the_ratio_either_way(value, match):
    # paper 10: yes within a factor 2, partly within 4
    row = factor_row("F", "q", 10.0, value, 2.0, 4.0, stated="10 ms", show="{:g} ms".format)
    assert (row.paper, row.vosim, row.match) == ("10 ms", f"{value:g} ms", match)
    assert row.reason.startswith("Yes within a factor 2 of the paper's value, partly within 4.")


@pytest.mark.parametrize("value", [41.0, 2.4, 0.0, -1.0])
def test_factor_row_beyond_the_factor_or_not_positive_is_no(value):
    row = factor_row("F", "q", 10.0, value, 2.0, 4.0, stated="10", show=str)
    assert row.match == "no"


# -- chart layers --------------------------------------------------------------------------------


def test_paper_marks_are_labelled_black_crosses():
    points = pd.DataFrame({"t": [834.0], "p": [0.93], "text": ["paper: 0.93 at t = 834"]})
    spec = paper_marks(points, "t:Q", "p:Q").to_dict()
    marks = [layer["mark"] for layer in spec["layer"]]
    assert marks[0] == {
        "type": "point",
        "shape": PAPER_SHAPE,
        "size": 160,
        "color": "black",
        "strokeWidth": 2,
    }
    assert marks[1]["type"] == "text" and spec["layer"][1]["encoding"]["text"]["field"] == "text"
    for layer in spec["layer"]:
        assert (layer["encoding"]["x"]["field"], layer["encoding"]["y"]["field"]) == ("t", "p")
    with pytest.raises(ParameterError, match=r"'text' column, got \['t', 'p'\]"):
        paper_marks(points.drop(columns="text"), "t:Q", "p:Q")


def test_value_labels_step_down_a_tenth_of_y():
    spec = value_labels("t:Q", "p:Q", (5.0, 0.9), ["vosim: 1", "paper: 2", "c"]).to_dict()
    rows = next(iter(spec["datasets"].values()))
    assert [r["t"] for r in rows] == [5.0, 5.0, 5.0]
    assert [r["p"] for r in rows] == pytest.approx([0.9, 0.8, 0.7])
    assert [r["text"] for r in rows] == ["vosim: 1", "paper: 2", "c"]
    assert spec["mark"] == {"type": "text", "align": "left", "color": "black"}
