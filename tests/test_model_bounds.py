"""Runs that never end, and domains too large to build, are made short or refused.

Periodic cycles skip idle stretches; periods and run lengths are bounded; ``nodes``, and
processors after ``resources="processors"``, are at most ``MAX_RESOURCES``. Every refusal is
one line naming the parameter and the value.
"""

from __future__ import annotations

import gzip
import time

import pytest

from vosim.data import trace_path
from vosim.errors import ConfigError, ParameterError
from vosim.market.nodes import MAX_RESOURCES
from vosim.model import VOModel
from vosim.runs.cli import main
from vosim.runs.config import parse_sweep
from vosim.scenario import Scenario

UNIX = 1_400_000_000  # a Unix timestamp of 2014, as logs that keep absolute submit times


def _gaia_swf(path, shift: int = 0, last_at: int | None = None) -> str:
    """UniLu-Gaia's header and first 20 jobs, submit times (field 2) moved; the path."""
    text = gzip.open(trace_path("UniLu-Gaia-2014-2"), "rt").read().splitlines()
    header = [line for line in text if line.startswith(";")]
    jobs = [line.split() for line in text if line.strip() and not line.startswith(";")][:20]
    for fields in jobs:
        fields[1] = str(int(float(fields[1])) + shift)
    if last_at is not None:
        jobs[-1][1] = str(last_at)
    path.write_text("\n".join(header + [" ".join(f) for f in jobs]) + "\n")
    return str(path)


def _watchdog(seconds: float):
    """A ``VOModel.run`` progress callback failing the test once ``seconds`` have passed."""
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        elapsed = time.perf_counter() - started
        assert elapsed < seconds, f"{done}/{total} jobs done after {elapsed:.0f} s"

    return progress


def _one_line_exit_2(argv, capsys) -> str:
    """Run ``vosim`` with ``argv``; assert exit status 2 and one error line; the line."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_unix_timestamp_submit_times_run_fast_with_few_cycle_rows(tmp_path):
    """Before: one cycle per 300 s from time 0 to 1.4e9, 4.7 million rows and minutes."""
    unix = _gaia_swf(tmp_path / "unix.swf", shift=UNIX)
    # whole nodes, so that every job fits 5 of them; local load: 11,600 draws
    model = VOModel(trace=unix, nodes=5, owners=5, resources="nodes", rng=1)
    model.run(progress=_watchdog(15))
    states = model.job_frame()["state"]  # 5 nodes: a few wait past their patience
    assert model.done and (states == "completed").sum() >= 10
    cycles = model.cycle_frame()
    assert 0 < len(cycles) < 10_000
    assert cycles["time"].iloc[0] == 0.0 and cycles["time"].iloc[1] >= UNIX  # gap skipped
    assert model.periodic.skipped > UNIX / 300 - 1


def test_a_submit_time_of_1e15_is_refused_with_local_load_and_runs_without(tmp_path):
    trace = _gaia_swf(tmp_path / "far.swf", last_at=10**15)
    with pytest.raises(ParameterError, match=r"^scheduling_interval 604800 .*local load") as err:
        VOModel(trace=trace, local_model="interval", rng=1)  # drawn per interval: 2.5e11 draws
    assert "1e+15" in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(ParameterError, match=r"^local_load .* online local jobs") as err:
        VOModel(trace=trace, rng=1)  # arrivals over 1e15 s
    assert "1e+15" in str(err.value) and "MAX_LOCAL_ARRIVALS" in str(err.value)
    model = VOModel(trace=trace, local_load=None, rng=1)
    model.run(progress=_watchdog(15))
    jobs = model.job_frame()
    assert (jobs["state"] == "completed").all() and jobs["starting_time"].max() >= 1e15
    assert len(model.cycle_frame()) < 10_000


@pytest.mark.parametrize(
    ("name", "value", "flag"),
    [("cycle_period", 1e-9, "--cycle-period"), ("budget_period", 1e-6, "--budget-period")],
)
def test_periods_below_the_minimum_are_refused_naming_the_parameter(
    name, value, flag, tmp_path, capsys
):
    """Before: ``vosim run --cycle-period 1e-9`` (or ``--budget-period 1e-6``) never ended."""
    for make in (Scenario, lambda **kw: VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=5, **kw)):
        with pytest.raises(ParameterError, match=rf"^{name} must be .*>= 1.*, got {value!r}$"):
            make(**{name: value})
    line = _one_line_exit_2(["run", flag, str(value), "--out", str(tmp_path / "x")], capsys)
    assert flag in line and repr(value) in line
    scenario = 'name = "tiny"\n[scenario]\ntrace = "NASA-iPSC-1993-3.1-cln"\njobs = 5\n'
    sweep = f"{scenario}[sweep]\n{name} = [3600, {value}]\n"
    with pytest.raises(ConfigError, match=rf"{name}.*{value!r}"):
        parse_sweep(sweep)


def test_runs_beyond_the_period_bound_are_refused_before_they_start(tmp_path):
    """A cycle period, budget period or pricing that would step 10^6 times is refused."""
    unix = _gaia_swf(tmp_path / "unix.swf", shift=UNIX)
    # demand pricing reprices every cycle from time 0: 4.7 million cycles at 300 s
    with pytest.raises(ParameterError, match=r"^cycle_period 300 makes about 4.67e\+06 .*acts"):
        VOModel(trace=unix, local_load=None, pricing_policy="demand", rng=1)
    # accounts reset from time 0: 1.6 million budget periods of 900 s
    with pytest.raises(ParameterError, match=r"^budget_period 900 makes about 1.56e\+06"):
        VOModel(trace=unix, local_load=None, budget_period=900.0, rng=1)
    # two jobs 23 days apart, each active for its request (capped at the interval, 7 days):
    # 1.2 million cycles of 1 s, 605,000 of 2 s; the gap between them is skipped
    two = tmp_path / "two.swf"
    job = "{} {} 0 100 1 -1 -1 1 1000000 -1 1 1 1 -1 1 -1 -1 -1"
    two.write_text(f"; MaxNodes: 4\n; MaxProcs: 4\n{job.format(1, 0)}\n{job.format(2, 2000000)}\n")
    with pytest.raises(ParameterError, match=r"^cycle_period 1 makes about 1.21e\+06 .*active"):
        VOModel(trace=str(two), owners=1, local_load=None, cycle_period=1.0, rng=1)
    VOModel(trace=str(two), owners=1, local_load=None, cycle_period=2.0, rng=1)  # within


def test_nodes_above_the_bound_are_refused_naming_value_and_bound(tmp_path, capsys):
    """Before: ``vosim run --nodes 2000000000`` was killed for memory."""
    for make in (Scenario, lambda **kw: VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=5, **kw)):
        with pytest.raises(ParameterError, match=rf"^nodes must .*{MAX_RESOURCES}.*2000000000$"):
            make(nodes=2_000_000_000)
    line = _one_line_exit_2(["run", "--nodes", "2000000000", "--out", str(tmp_path / "x")], capsys)
    assert "2000000000" in line and str(MAX_RESOURCES) in line
    Scenario(nodes=MAX_RESOURCES)  # the bound itself is allowed


def test_processors_above_the_bound_are_refused_before_building(tmp_path):
    """10 nodes of 200,000 processors each (MaxProcs/MaxNodes) are 2 million processors."""
    path = tmp_path / "wide.swf"
    path.write_text(
        "; MaxNodes: 5\n; MaxProcs: 1000000\n1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
    )
    started = time.perf_counter()
    with pytest.raises(ParameterError, match=r"make 2000000 processors, above .*1000000"):
        VOModel(trace=str(path), nodes=10, resources="processors", rng=1)
    assert time.perf_counter() - started < 5  # refused before anything of that size is built
    VOModel(trace=str(path), nodes=10, resources="nodes", rng=1)  # whole nodes: 10 resources
