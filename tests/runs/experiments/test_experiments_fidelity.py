"""``vosim experiment all``: every experiment run or reused, fidelity.md and fidelity.csv."""

from __future__ import annotations

import pandas as pd
import pytest
from experiment_cases import _experiment

from vosim.core import registry as vosim_registry
from vosim.runs import cli
from vosim.runs.experiments.base import Fidelity
from vosim.runs.experiments.fidelity import COLUMNS, fidelity_frame, fidelity_markdown, run_all


@pytest.fixture
def registry(monkeypatch):
    """A registry of three tiny experiments (one without paper values); records each run."""
    calls: list[str] = []
    fake = {
        "a-close": _experiment("a-close", calls, 0.94),
        "b-far": _experiment("b-far", calls, 0.10),
        "c-own": _experiment("c-own", calls, rows=False),
    }
    monkeypatch.setitem(vosim_registry._ENTRIES, "experiment", fake)
    return calls


def test_all_runs_every_experiment_and_writes_fidelity(tmp_path, registry):
    result = run_all(tmp_path, seed=3)
    assert registry == ["a-close", "b-far", "c-own"]
    assert list(result.rows.columns) == COLUMNS
    assert result.rows.set_index("experiment")["match"].to_dict() == {
        "a-close": "yes",
        "b-far": "no",
    }
    assert result.rows.set_index("experiment")["vosim"].to_dict() == {
        "a-close": "0.94",
        "b-far": "0.10",
    }
    text = (tmp_path / "fidelity.md").read_text()
    assert "**yes 1 · partly 0 · no 1** of 2 stated values" in text
    assert "| a-close | Paper Fig. 1 | peak | 0.93 | 0.94 | yes | rule |" in text
    assert "no paper figure: c-own" in text
    assert "seed 3" in text
    assert pd.read_csv(tmp_path / "fidelity.csv")["match"].tolist() == ["yes", "no"]
    for name in registry:  # every experiment's own files, settings last
        assert (tmp_path / f"{name}.parquet").exists() and (tmp_path / f"{name}.json").exists()


def test_all_reuses_results_with_the_same_settings_only(tmp_path, registry):
    run_all(tmp_path, seed=3)
    registry.clear()
    again = run_all(tmp_path, seed=3)
    assert registry == [] and again.reused == ["a-close", "b-far", "c-own"]
    assert again.rows["match"].tolist() == ["yes", "no"]  # rows from the stored tables
    other_seed = run_all(tmp_path, seed=4)
    assert registry == ["a-close", "b-far", "c-own"] and other_seed.reused == []
    registry.clear()
    run_all(tmp_path, seed=4, redo=True)
    assert registry == ["a-close", "b-far", "c-own"]
    registry.clear()
    (tmp_path / "b-far.json").write_text("{not json")  # a damaged record: run it again
    run_all(tmp_path, seed=4)
    assert registry == ["b-far"]
    registry.clear()
    (tmp_path / "a-close.parquet").write_bytes(b"garbage")  # a damaged table: run it again
    again = run_all(tmp_path, seed=4)
    assert registry == ["a-close"] and again.rows["match"].tolist() == ["yes", "no"]


def test_a_failing_experiment_is_reported_and_the_others_run(tmp_path, monkeypatch):
    calls: list[str] = []
    fake = {
        "a-close": _experiment("a-close", calls, 0.94),
        "b-broken": _experiment("b-broken", calls, fail=True),
    }
    monkeypatch.setitem(vosim_registry._ENTRIES, "experiment", fake)
    result = run_all(tmp_path)
    assert result.ran == ["a-close"] and list(result.failed) == ["b-broken"]
    text = (tmp_path / "fidelity.md").read_text()
    assert "`b-broken`: ValueError: boom \\| with a pipe" in text  # the pipe cannot break the table
    status = cli.main(["experiment", "all", "--out", str(tmp_path), "--quiet"])
    assert status == 1  # a-close reused, b-broken fails again


def test_cli_all(tmp_path, registry, capsys):
    assert cli.main(["experiment", "all", "--out", str(tmp_path), "--quiet", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "3 ran, 0 reused, 0 failed" in out and "yes 1, partly 0, no 1" in out
    assert cli.main(["experiment", "all", "--out", str(tmp_path), "--repetitions", "3"]) == 2
    assert "own --repetitions" in capsys.readouterr().err
    assert cli.main(["experiment", "a-close", "--out", str(tmp_path), "--redo"]) == 2
    assert "--redo goes with 'all'" in capsys.readouterr().err
    assert cli.main(["experiment", "--list"]) == 0
    assert "all " in capsys.readouterr().out


def test_markdown_of_no_rows():
    text = fidelity_markdown(pd.DataFrame(columns=COLUMNS), "quick grids", [], {})
    assert "**yes 0 · partly 0 · no 0** of 0 stated values." in text


def test_frame_and_markdown_of_hand_made_rows():
    rows = [
        ("x", Fidelity("Fig. 1", "peak", "0.93", "0.94", "yes", "rule")),
        ("x", Fidelity("Fig. 2", "a | b", "1", "3", "no", "rule;\ncause")),
        ("y", Fidelity("Table 1", "ms", "2", "2.5", "partly", "rule")),
    ]
    frame = fidelity_frame(rows)
    assert list(frame.columns) == COLUMNS
    assert frame["experiment"].tolist() == ["x", "x", "y"]
    assert frame["match"].tolist() == ["yes", "no", "partly"]
    text = fidelity_markdown(frame, "seed 5", ["z"], {})
    assert "**yes 1 · partly 1 · no 1** of 3 stated values." in text
    assert "| x | Fig. 2 | a \\| b | 1 | 3 | no | rule; cause |" in text  # one line, one cell
    assert "Experiments that reproduce no paper figure: z." in text
    assert "seed 5" in text and "Not run" not in text
    assert list(fidelity_frame([]).columns) == COLUMNS
