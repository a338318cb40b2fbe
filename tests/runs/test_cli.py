"""The command line (vosim.runs.cli): ``vosim run`` and ``vosim sweep``, their outputs and
one-line errors for bad input and interrupted runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest
from sweep_cases import (
    FAILING,
    _write,
)

from vosim.analysis.network import graphml_text
from vosim.core.code_path import code_path
from vosim.model import VOModel
from vosim.runs import store
from vosim.runs.cli import _attach_negative_values, main
from vosim.scenario import Scenario

NASA = "NASA-iPSC-1993-3.1-cln"
#: NASA's 128-node jobs starve behind the owners' local jobs and wait out the default 30-day
#: patience (~8,000 cycles of an unchanged queue): runs that test something else end that
#: drain with a short patience.
SHORT = ["--patience", "172800"]


def test_run_writes_every_output(tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(["run", "--trace", NASA, "--jobs", "120", *SHORT, "--out", str(out), "--quiet"]) == 0
    )
    printed = capsys.readouterr().out
    assert "jobs read 120" in printed and "jobs/s" in printed
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert len(jobs) == 120
    summary = json.loads((out / "summary.json").read_text())
    states = ("completed", "rejected", "withdrawn", "unfinished")
    assert sum(summary[k] for k in states) == 120
    assert summary["unfinished"] == 0  # no --horizon: the run drains
    assert summary["code_path"] == code_path()  # "fast", or "reference" (VOSIM_REFERENCE=1)
    assert summary["completed"] == int((jobs["state"] == "completed").sum())
    cycles = pd.read_parquet(out / "cycles.parquet")
    assert {
        "time",
        "batch_size",
        "jobs_scheduled",
        "queue_length",
        "utilization",
        "revenue",
    } <= set(cycles.columns)
    assert (out / "chart.html").stat().st_size > 1000


def test_run_writes_the_models_own_task_table_market_and_site_view(tmp_path, monkeypatch):
    """``tasks.parquet`` (written a row group at a time from the task log), the site x VO
    view and the market graph are what the same model gives for them."""
    monkeypatch.setattr(store, "ROW_GROUP", 64)  # many row groups, cut at window boundaries
    out = tmp_path / "out"
    args = ["run", "--trace", NASA, "--jobs", "60", *SHORT, "--seed", "4", "--quiet"]
    assert main([*args, "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    model = VOModel(**Scenario(**summary["parameters"]).kwargs(), rng=4)
    model.run()
    tasks = pd.read_parquet(out / "tasks.parquet")
    assert pq.ParquetFile(out / "tasks.parquet").metadata.num_row_groups > 2
    pd.testing.assert_frame_equal(tasks, model.task_frame(), check_exact=True)
    pairs = pd.read_parquet(out / "group_sites.parquet")
    pd.testing.assert_frame_equal(pairs, model.group_site_frame(), check_exact=True)
    assert (out / "network.graphml").read_text() == graphml_text(model.market_graph())


def test_allocator_sets_every_users_window_search(tmp_path):
    out, default = tmp_path / "amp", tmp_path / "default"
    base = ["run", "--trace", NASA, "--jobs", "80", *SHORT, "--quiet", "--availability"]
    assert main([*base, "--allocator", "amp", "--out", str(out)]) == 0
    assert main([*base, "--out", str(default)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["criterion_allocators"] == {
        "finish": "amp",
        "runtime": "amp",
        "cost": "amp",
        "availability": "max_availability",
    }
    assert json.loads((default / "summary.json").read_text())["criterion_allocators"]["cost"] == (
        "min_cost"
    )
    amp = pd.read_parquet(out / "jobs.parquet")
    own = pd.read_parquet(default / "jobs.parquet")
    assert len(amp) == len(own) == 80
    assert not amp["starting_time"].equals(own["starting_time"])


def test_cli_end_to_end_as_a_process(tmp_path):
    out = tmp_path / "o"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vosim.runs.cli",
            "run",
            "--trace",
            NASA,
            "--jobs",
            "60",
            *SHORT,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "completed" in proc.stdout
    assert (out / "jobs.parquet").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "--jobs", "0"], "--jobs"),
        (["run", "--jobs", "abc"], "--jobs"),
        (["run", "--trace", "/no/such.swf"], "/no/such.swf"),
        (["run", "--cycle-period", "-5"], "--cycle-period"),
        (["run", "--allocator", "fastest"], "fastest"),
        (["run", "--allocator", "amp", "--vo-criterion", "availability"], "--allocator"),
        (["run", "--allocator", "min_cost>nope"], "'nope' in chain"),
        (["run", "--fallback-after", "2.5"], "--fallback-after"),
        (["run", "--policy", "sjf"], "--policy"),
        (["run", "--machine", "--availability"], "machine"),
        (["run", "--seed", "-1"], "--seed"),
    ],
)
def test_bad_input_exit_2_one_line(args, needle, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "vosim.runs.cli", *args, "--out", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert needle in lines[0]
    assert "Traceback" not in proc.stderr


def test_malformed_trace_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxNodes: 4\n1 0 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1\n2 x\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vosim.runs.cli",
            "run",
            "--trace",
            str(bad),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert f"{bad}:3:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_repeated_ids_warn_on_one_line_and_the_run_goes_on(tmp_path, capsys):
    trace = tmp_path / "dup.swf"
    line = "{} {} -1 10 1 -1 -1 1 20 -1 1 1 1 -1 -1 -1 -1 -1"
    trace.write_text(
        "; MaxNodes: 4\n; MaxProcs: 4\n" + "\n".join(line.format(5, t) for t in (0, 3))
    )
    args = ["run", "--trace", str(trace), "--machine", "--out", str(tmp_path / "o"), "--quiet"]
    assert main(args) == 0
    err = capsys.readouterr().err
    warning = [x for x in err.splitlines() if x.startswith("vosim: warning: ")]
    assert len(warning) == 1 and f"{trace}:" in warning[0] and "lines 3 and 4" in warning[0]
    assert (pd.read_parquet(tmp_path / "o" / "jobs.parquet")["state"] == "completed").all()


def test_help_explains_outputs():
    proc = subprocess.run(
        [sys.executable, "-m", "vosim.runs.cli", "run", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert "jobs.parquet" in proc.stdout and "--trace" in proc.stdout
    # an option whose help already names its default does not get a second "(default: ...)"
    assert "never leave) (default" not in " ".join(proc.stdout.split())
    assert "(default: 2000)" in proc.stdout


def test_fallback_chain_counted_in_summary(tmp_path):
    base = ["run", "--trace", NASA, "--jobs", "60", *SHORT, "--quiet"]
    base += ["--allocator", "min_cost>amp"]
    tight, ample = tmp_path / "tight", tmp_path / "ample"
    assert main([*base, "--fallback-after", "1 node", "--out", str(tight)]) == 0
    assert main([*base, "--fallback-after", "100000 nodes", "--out", str(ample)]) == 0
    fell = json.loads((tight / "summary.json").read_text())["fallbacks"]["min_cost>amp"]
    kept = json.loads((ample / "summary.json").read_text())["fallbacks"]["min_cost>amp"]
    assert fell["fell_back"] > 0 and fell["answered_by"].get("amp", 0) > 0
    assert kept["fell_back"] == 0 and set(kept["answered_by"]) == {"min_cost"}


def test_policy_and_machine_recorded(tmp_path):
    out = tmp_path / "easy"
    args = ["run", "--trace", NASA, "--jobs", "80", "--quiet", "--out", str(out)]
    assert main([*args, "--policy", "easy", "--machine", "--cycle-period", "0"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["policy"] == "easy" and summary["machine"] is True
    assert summary["nodes"] == 128 and summary["owners"] == 1
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert set(jobs["state"]) <= {"completed", "rejected"}  # the machine drains


def test_summary_parameters_repeat_the_run(tmp_path, capsys):
    """summary.json's ``parameters`` hold every model argument: the run is repeated from them."""
    from vosim.model import VOModel
    from vosim.scenario import PARAMETERS, Scenario

    out = tmp_path / "o"
    args = ["run", "--trace", "NASA-iPSC-1993-3.1-cln", "--jobs", "40", "--seed", "7", "--quiet"]
    # patience a day: the 4 jobs that find no window leave after it, not after 30 days of cycles
    extra = ["--max-alternatives", "3", "--ua", "25", "--budget-range", "0.8,1.2",
             "--pricing-policy", "demand", "--look-ahead", "3",
             "--patience", "86400"]  # fmt: skip
    assert main([*args, *extra, "--out", str(out)]) == 0
    capsys.readouterr()
    summary = json.loads((out / "summary.json").read_text())
    parameters = summary["parameters"]
    assert set(parameters) == set(PARAMETERS)
    assert parameters["ua"] == 25 and parameters["budget_range"] == [0.8, 1.2]
    assert parameters["patience"] == 86400
    model = VOModel(**Scenario(**parameters).kwargs(), rng=summary["seed"])
    model.run()
    again = model.job_frame().drop(columns="workload_name")
    recorded = pd.read_parquet(out / "jobs.parquet").drop(columns="workload_name")
    pd.testing.assert_frame_equal(again, recorded, check_dtype=False)


def test_cli_summary_and_exit_status(tmp_path, capsys):
    path = _write(tmp_path, FAILING)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o"), "--workers", "1"]) == 1
    captured = capsys.readouterr()
    assert "failing: 2 runs: 2 run now, 0 already done, 1 failed, 0 left;" in captured.out
    assert "owners must be an integer" in captured.err
    assert (tmp_path / "o" / "manifest.json").exists()


@pytest.mark.parametrize(
    ("text", "args", "needle"),
    [
        ('name = "x"\n[sweep]\nuaa = [1]\n', [], "sweep.toml:3: [sweep] uaa: unknown"),
        ('name = "x"\n[sweep]\nua = [1,, 2]\n', [], "sweep.toml:3: not valid TOML"),
        ('name = "x"\n', ["--ray-address", "auto"], "--ray-address needs --backend ray"),
    ],
)
def test_cli_errors_are_one_line_exit_2(tmp_path, capsys, text, args, needle):
    path = _write(tmp_path, text)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o"), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vosim: error: ") and needle in err, err


def test_cli_errors_as_a_process(tmp_path):
    for args, needle in [
        (["sweep", str(tmp_path / "absent.toml"), "--out", str(tmp_path)], "no such sweep file"),
        (["sweep", "x.toml", "--out", str(tmp_path), "--workers", "0"], "--workers"),
        (["sweep", "x.toml"], "--out"),
    ]:
        proc = subprocess.run(
            [sys.executable, "-m", "vosim.runs.cli", *args],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0] and "Traceback" not in proc.stderr


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


def test_a_directory_as_trace_is_called_a_directory(tmp_path, capsys):
    """Before: "no such file and not a bundled trace"."""
    assert main(["run", "--trace", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "is a directory" in one_error_line(capsys)


@pytest.mark.parametrize(
    ("option", "value", "field"),
    [
        ("--budget-range", "-1,1", "budget_range"),
        ("--local-load", "-0.1,0.5", "local_load"),
        ("--budget-range", "-.5,2", "budget_range"),
    ],
)
def test_a_negative_list_value_is_read_as_a_value(tmp_path, capsys, option, value, field):
    """Before: argparse took "-1,1" for an option ("expected one argument")."""
    with pytest.raises(SystemExit) as exited:  # argparse's own exit for an option's value
        main(["run", option, value, "--quiet", "--out", str(tmp_path / "o")])
    assert exited.value.code == 2
    line = one_error_line(capsys)
    assert field in line and "expected one argument" not in line


def test_attach_negative_values():
    assert _attach_negative_values(["run", "--budget-range", "-1,1", "--quiet"]) == [
        "run",
        "--budget-range=-1,1",
        "--quiet",
    ]
    assert _attach_negative_values(["--seed", "-inf", "--a=b"]) == ["--seed=-inf", "--a=b"]
    # options, "--" and what follows it are left alone
    assert _attach_negative_values(["--quiet", "--jobs", "5"]) == ["--quiet", "--jobs", "5"]
    assert _attach_negative_values(["--", "--x", "-1"]) == ["--", "--x", "-1"]


def test_out_is_checked_before_the_simulation(tmp_path, capsys, monkeypatch):
    """Before: a bad --out failed only after the whole simulation, losing it."""
    import vosim.model

    built = []
    monkeypatch.setattr(vosim.model, "VOModel", lambda **kw: built.append(kw))
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["run", "--jobs", "5", "--quiet", "--out", str(blocker / "sub")]) == 2
    line = one_error_line(capsys)
    assert "--out" in line and str(blocker / "sub") in line
    assert built == []  # no model was built


def test_an_interrupted_run_says_interrupted_not_horizon(tmp_path, capsys, monkeypatch):
    """Before: jobs stopped by Ctrl-C got "still pending at the horizon"."""
    import vosim.model

    real_run = vosim.model.VOModel.run

    def run_then_ctrl_c(self, progress=None, chunks=200):
        self.run_until(self.time + 20 * 3600.0)  # some jobs done, some waiting or pending
        raise KeyboardInterrupt

    monkeypatch.setattr(vosim.model.VOModel, "run", run_then_ctrl_c)
    out = tmp_path / "o"
    assert main(["run", "--jobs", "300", "--quiet", "--out", str(out)]) == 130
    monkeypatch.setattr(vosim.model.VOModel, "run", real_run)
    jobs = pd.read_parquet(out / "jobs.parquet")
    left = jobs[jobs["state"] == "unfinished"]
    assert len(left) > 0 and (jobs["state"] == "completed").any()
    assert left["reason"].str.contains("interrupted at t=").all()
    assert not left["reason"].str.contains("horizon").any()
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--local-load", "1.5"], "local_load"),
        (["--local-priority", "x"], "'x'"),
        (["--owners", "trace"], "UniLu-Gaia-2014-2 records none"),
    ],
)
def test_local_and_owner_options_refuse_bad_values(tmp_path, capsys, argv, words):
    try:
        code = main(["run", "--jobs", "5", "--quiet", "--out", str(tmp_path / "o"), *argv])
    except SystemExit as exited:  # argparse's own exit for an option's value
        code = exited.code
    assert code == 2
    assert words in one_error_line(capsys)
    assert not (tmp_path / "o" / "jobs.parquet").exists()


def test_a_run_says_why_it_waits_for_another_process_compiling_the_kernels(
    monkeypatch, tmp_path, capsys
):
    from vosim.core import precompile
    from vosim.runs import cli

    told = []
    monkeypatch.setattr(precompile, "start", lambda **kwargs: told.append(kwargs) or ())
    assert main(["run", "--jobs", "20", "--out", str(tmp_path / "a")]) == 0
    assert main(["run", "--jobs", "20", "--quiet", "--out", str(tmp_path / "b")]) == 0
    from vosim.core.code_path import _notify  # the kernels' own call: the compile notice

    by_cli = [kwargs["waiting"] for kwargs in told if kwargs["waiting"] is not _notify]
    assert by_cli == [cli._waiting_for_kernels, None]
    capsys.readouterr()
    cli._waiting_for_kernels(True)
    cli._waiting_for_kernels(False)
    assert capsys.readouterr().err == (
        "vosim: waiting for another vosim process compiling the kernels (first run only)\n"
    )
