"""Tiny sweeps shared by the tests of vosim.runs: their TOML text, fixtures and comparisons."""

import pytest

from vosim.runs.batch import run_sweep
from vosim.runs.config import load_sweep
from vosim.runs.sweep_results import (
    load_results,
)

# Tiny runs: 30 jobs, one-day slot lists, hourly cycles.
SCENARIO = """
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = 30
scheduling_interval = 86400.0
cycle_period = 3600.0
max_alternatives = 3
"""


SWEEP = (
    'name = "tiny"\n'
    + SCENARIO
    + """
[sweep]
vo_objective = ["cost", "finish"]
ua = ["none", 25]

[run]
repetitions = 3
seed = 5
"""
)


#: NASA's 128-node jobs starve behind the owners' local jobs and wait out the default 30-day
#: patience (~700 hourly cycles, ~8 s a run); the sweeps that run end that drain with a short
#: patience (~0.7 s a run). SWEEP itself, whose run ids are pinned below, is left as it was.
SHORT_PATIENCE = "patience = 172800.0\n"


RUN_SWEEP = SWEEP.replace(SCENARIO, SCENARIO + SHORT_PATIENCE)


def _write(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _comparable(table):
    return table.drop(columns="seconds")


@pytest.fixture(scope="module", name="sweep_file")
def sweep_file_fixture(tmp_path_factory):
    return _write(tmp_path_factory.mktemp("sweep"), RUN_SWEEP)


@pytest.fixture(scope="module", name="baseline")
def baseline_fixture(sweep_file, tmp_path_factory):
    """The table of an uninterrupted sweep on 1 local worker (in process)."""
    out = tmp_path_factory.mktemp("one")
    result = run_sweep(load_sweep(sweep_file), out, workers=1)
    assert (result.ran, result.skipped, result.failed, result.remaining) == (12, 0, 0, 0)
    return load_results(out)


FAILING = (
    'name = "failing"\n'
    + SCENARIO.replace("max_alternatives = 3\n", SHORT_PATIENCE)
    + "[sweep]\nowners = [2, 1000]\n"  # NASA has 128 nodes: 1000 owners is rejected
)


TINY = 'name = "tiny"\n' + SCENARIO + SHORT_PATIENCE + '[sweep]\nua = ["none", 25, 50]\n'


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vosim: error: "), err
    assert "Traceback" not in err
    return lines[0]
