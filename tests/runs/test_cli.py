import json
import subprocess
import sys

import pandas as pd
import pytest

from vosim.runs.cli import main

NASA = "NASA-iPSC-1993-3.1-cln"


def test_run_writes_every_output(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["run", "--trace", NASA, "--jobs", "120", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "jobs read 120" in printed and "jobs/s" in printed
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert len(jobs) == 120
    summary = json.loads((out / "summary.json").read_text())
    assert summary["completed"] + summary["rejected"] + summary["unfinished"] == 120
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


def test_allocator_sets_every_users_window_search(tmp_path):
    out, default = tmp_path / "amp", tmp_path / "default"
    base = ["run", "--trace", NASA, "--jobs", "80", "--quiet", "--availability"]
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
