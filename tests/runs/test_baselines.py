"""Baselines in sweeps: reference policies over the factors, paired by seed."""

from __future__ import annotations

import pandas as pd
import pytest

from vosim.analysis.report import write_report
from vosim.errors import ConfigError
from vosim.runs.batch import expand, run_sweep
from vosim.runs.config import parse_sweep
from vosim.runs.sweep_results import load_results

SWEEP = """
name = "baselines"
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = 40
# NASA's 128-node jobs take the whole domain and starve behind the owners' online local jobs:
# a short patience ends the drain (the sweep, not the starvation, is under test)
patience = 172800.0
[sweep]
offered_load = [0.3, 0.6]
ua = [0, 100]
[run]
repetitions = 2
factors = ["offered_load"]
[[baseline]]
policy = "easy"
[[baseline]]
policy = "fcfs"
"""


def test_baselines_vary_only_the_factors():
    config = parse_sweep(SWEEP)
    assert config.run_count == (2 * 2 + 2 * 2) * 2
    assert config.columns == ["offered_load", "ua", "policy"]
    runs = expand(config)
    assert len(runs) == config.run_count
    base = [r for r in runs if r.columns["baseline"]]
    assert {r.columns["baseline"] for r in base} == {"policy=easy", "policy=fcfs"}
    assert all(r.columns["ua"] is None and "ua" not in r.kwargs for r in base)
    assert {r.kwargs["offered_load"] for r in base} == {0.3, 0.6}
    swept = [r for r in runs if r.columns["baseline"] is None]
    assert {r.columns["policy"] for r in swept} == {"css"}  # the scenario's (default) value
    # common random numbers: repetition r has one seed for every policy and baseline
    for rep in (0, 1):
        assert len({r.seed for r in runs if r.repetition == rep}) == 1
    assert len({r.run_id for r in runs}) == len(runs)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (SWEEP.replace('factors = ["offered_load"]', 'factors = ["jobs"]'), "not a swept key"),
        (SWEEP.replace('policy = "fcfs"', "offered_load = 0.9"), "is a factor"),
        (SWEEP.replace('policy = "fcfs"', 'polcy = "fcfs"'), "did you mean 'policy'"),
        (SWEEP.replace('policy = "fcfs"', 'policy = "easy"'), "fix the same values"),
        (SWEEP.replace('policy = "fcfs"', 'policy = "lifo"'), "'lifo' is not one of"),
        (SWEEP.replace('factors = ["offered_load"]', "factors = 3"), "list of swept keys"),
    ],
)
def test_bad_baselines_are_named(text, needle):
    with pytest.raises(ConfigError, match=needle) as info:
        parse_sweep(text)
    assert info.value.line is not None


@pytest.fixture(scope="module")
def local_table(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    result = run_sweep(parse_sweep(SWEEP), out, workers=1)
    assert result.failed == 0
    return out


def test_ray_and_two_processes_give_the_same_table(local_table, tmp_path):
    pytest.importorskip("ray", reason='the "ray" extra is not installed: pip install "vosim[ray]"')
    expected = load_results(local_table).drop(columns="seconds")
    for backend, out in (("ray", tmp_path / "ray"), ("local", tmp_path / "two")):
        result = run_sweep(parse_sweep(SWEEP), out, workers=2, backend=backend)
        assert (result.ran, result.failed) == (16, 0)
        got = load_results(out).drop(columns="seconds")
        pd.testing.assert_frame_equal(got, expected)


def test_a_sweep_with_baselines_runs_and_reports_paired_tests(local_table, tmp_path):
    import shutil

    shutil.copytree(local_table, tmp_path, dirs_exist_ok=True)
    result = run_sweep(parse_sweep(SWEEP), tmp_path, workers=1)
    assert result.ran == 0  # resumed: every run was done
    table = load_results(tmp_path)
    assert table["baseline"].isna().sum() == 8 and table["baseline"].notna().sum() == 8
    written = write_report(tmp_path)
    tests = pd.read_csv(tmp_path / "report-tests.csv")
    assert tmp_path / "report-tests.csv" in written
    metrics = tests["metric"].nunique()
    assert len(tests) == metrics * 2 * 2 * 2  # metrics x policies x baselines x loads
    assert set(tests["baseline"]) == {"policy=easy", "policy=fcfs"}
    assert set(tests["factors"]) == {"offered_load=0.3", "offered_load=0.6"}
    assert (tests["n"] == 2).all()
    summary = pd.read_csv(tmp_path / "report-summary.csv")
    labels = summary["label"].tolist()
    assert "offered_load=0.3, policy=easy" in labels and "offered_load=0.6, ua=100" in labels
    page = (tmp_path / "report.html").read_text()
    assert "Policies against baselines (paired tests)" in page


#: SWEEP with a [[policy]] table beside the grid and EASY as the only baseline.
NAMED = SWEEP.replace('name = "baselines"', 'name = "named"').replace(
    '[[baseline]]\npolicy = "easy"\n[[baseline]]\npolicy = "fcfs"\n',
    '[[policy]]\npolicy = "knapsack"\n[[baseline]]\npolicy = "easy"\n',
)


def test_policy_tables_vary_only_the_factors_and_are_named():
    config = parse_sweep(NAMED)
    assert config.run_count == (2 * 2 + 2 * 2) * 2
    runs = expand(config)
    named = [r for r in runs if r.columns["named_policy"]]
    assert len(named) == 4 and {r.kwargs["policy"] for r in named} == {"knapsack"}
    assert all(r.columns["ua"] is None and r.columns["baseline"] is None for r in named)
    assert {r.kwargs["offered_load"] for r in named} == {0.3, 0.6}
    assert len({r.seed for r in runs if r.repetition == 0}) == 1  # common random numbers
    assert config.to_dict()["policy"] == [{"policy": "knapsack"}]
    with pytest.raises(ConfigError, match="is a factor") as info:
        parse_sweep(NAMED.replace('policy = "knapsack"', "offered_load = 0.9"))
    assert info.value.line is not None
    with pytest.raises(ConfigError, match="fix the same values"):
        parse_sweep(NAMED.replace('policy = "knapsack"', 'policy = "easy"'))


def test_policy_tables_are_compared_with_the_baselines(tmp_path):
    config = parse_sweep(NAMED.replace("offered_load = [0.3, 0.6]", "offered_load = [0.6]"))
    assert run_sweep(config, tmp_path, workers=1).failed == 0
    write_report(tmp_path)
    tests = pd.read_csv(tmp_path / "report-tests.csv")
    assert set(tests["policy"]) == {"ua=0", "ua=100", "policy=knapsack"}
    assert set(tests["baseline"]) == {"policy=easy"} and (tests["n"] == 2).all()
    labels = pd.read_csv(tmp_path / "report-summary.csv")["label"].tolist()
    assert labels == [
        "offered_load=0.6, ua=0",
        "offered_load=0.6, ua=100",
        "offered_load=0.6, policy=knapsack",
        "offered_load=0.6, policy=easy",
    ]
    page = (tmp_path / "report.html").read_text()
    assert "other VO policy" in page  # the trade-off legend of the [[policy]] tables
