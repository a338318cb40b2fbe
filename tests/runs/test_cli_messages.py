"""CLI messages for bad input and interrupted runs."""

from __future__ import annotations

import pandas as pd
import pytest

from vosim.allocators.availability_problem import AvailabilityProblem
from vosim.errors import ProblemError
from vosim.runs.cli import _attach_negative_values, main


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
    ("field", "value"),
    [
        ("cost", ["a", 1]),
        ("cost", [1j, 1]),
        ("cost", None),
        ("group", [True, False]),
        ("group", ["0", "1"]),
        ("group_p", ["x", 0.5]),
        ("budget", "a"),
        ("budget", None),
        ("budget", 1j),
    ],
)
def test_problem_fields_of_the_wrong_type_are_named(field, value):
    """Before: numpy's ValueError/TypeError named no field, and boolean groups passed."""
    fields = dict(cost=[1.0, 2.0], group=[0, 1], group_p=[0.5, 0.9], n=1, budget=10.0)
    fields[field] = value
    with pytest.raises(ProblemError, match=f"^{field} must be"):
        AvailabilityProblem(**fields)


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
