"""A sweep's directory read back (vosim.runs.sweep_results): unreadable parts are run again
and named, bad manifests are config errors."""

import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
from sweep_cases import TINY, _comparable, _one_line

from vosim.errors import ConfigError
from vosim.runs.batch import run_sweep
from vosim.runs.cli import main
from vosim.runs.config import parse_sweep
from vosim.runs.sweep_results import (
    UnreadablePartWarning,
    cycles_path,
    load_cycles,
    load_results,
    part_path,
)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A finished 3-run sweep directory and its table (copy it before spoiling it)."""
    out = tmp_path_factory.mktemp("tiny")
    result = run_sweep(parse_sweep(TINY), out, workers=1)
    assert (result.ran, result.failed) == (3, 0)
    return out, load_results(out)


@pytest.fixture
def spoilable(finished, tmp_path):
    out, table = finished
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    return copy, table


# -- unreadable parts and manifests ---------------------------------------------------------------


def _spoil(path: Path, how: str) -> None:
    if how == "empty":
        path.write_bytes(b"")
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def test_unreadable_parts_are_run_again_and_named(spoilable):
    out, table = spoilable
    ids = list(table["run_id"])
    _spoil(part_path(out, ids[0]), "empty")
    _spoil(part_path(out, ids[2]), "truncated")
    with pytest.warns(UnreadablePartWarning) as caught:
        result = run_sweep(parse_sweep(TINY), out, workers=1)
    message = str(caught[0].message)
    assert f"part-{ids[0]}.parquet" in message and f"part-{ids[2]}.parquet" in message
    assert "running them again" in message
    assert (result.ran, result.skipped, result.failed) == (2, 1, 0)
    pd.testing.assert_frame_equal(_comparable(load_results(out)), _comparable(table))


def test_an_unreadable_cycle_table_makes_the_run_not_done(spoilable):
    out, table = spoilable
    rid = table.loc[1, "run_id"]
    _spoil(cycles_path(out, rid), "truncated")
    with pytest.warns(UnreadablePartWarning, match=f"cycles/part-{rid}.parquet"):
        result = run_sweep(parse_sweep(TINY), out, workers=1)
    assert (result.ran, result.skipped) == (1, 2)
    assert list(dict.fromkeys(load_cycles(out)["run_id"])) == list(table["run_id"])


def test_loading_skips_unreadable_parts_and_says_so(spoilable):
    out, table = spoilable
    ids = list(table["run_id"])
    _spoil(part_path(out, ids[1]), "empty")
    with pytest.warns(UnreadablePartWarning, match=f"skipped.*runs/part-{ids[1]}.parquet"):
        loaded = load_results(out)
    assert list(loaded["run_id"]) == [ids[0], ids[2]]
    _spoil(cycles_path(out, ids[0]), "truncated")
    with pytest.warns(UnreadablePartWarning) as caught:
        cycles = load_cycles(out)
    message = str(caught[0].message)
    assert message.startswith("skipped 2 unreadable parts: "), message
    assert f"cycles/part-{ids[0]}.parquet" in message and f"runs/part-{ids[1]}" in message
    # Run 1's cycle table is intact, but its run is not finished: left out too.
    assert list(dict.fromkeys(cycles["run_id"])) == [ids[2]]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"name": "tiny"}', "no 'runs' list"),
        ('{"runs": [{"seed": 1}]}', "no 'runs' list"),
        ("[]", "no 'runs' list"),
        ('{"runs": [', "cannot read"),
        ("", "cannot read"),
    ],
)
def test_a_bad_manifest_is_a_config_error(spoilable, content, needle):
    out, _ = spoilable
    (out / "manifest.json").write_text(content)
    for load in (load_results, load_cycles):
        with pytest.raises(ConfigError, match=needle) as info:
            load(out)
        assert info.value.path == str(out / "manifest.json")


def test_cli_sweep_names_the_part_it_runs_again(spoilable, capsys):
    out, table = spoilable
    rid = table.loc[0, "run_id"]
    _spoil(part_path(out, rid), "empty")
    sweep = out.parent / "tiny.toml"
    sweep.write_text(TINY)
    assert main(["sweep", str(sweep), "--out", str(out), "--workers", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "1 run now, 2 already done" in captured.out
    warning = [line for line in captured.err.splitlines() if line.startswith("vosim: warning:")]
    assert len(warning) == 1 and f"part-{rid}.parquet" in warning[0], captured.err


def test_cli_report_skips_an_unreadable_part_and_a_bad_manifest_is_one_line(
    spoilable, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # no PNG figures: seconds faster
    out, table = spoilable
    rid = table.loc[2, "run_id"]
    _spoil(part_path(out, rid), "truncated")
    assert main(["report", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"vosim: warning: skipped 1 unreadable part: runs/part-{rid}.parquet" in err, err
    (out / "manifest.json").write_text('{"name": "tiny"}')
    assert main(["report", str(out)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert str(out / "manifest.json") in line and "no 'runs' list" in line


def test_paths_of_a_run_and_the_unreadable_parts_text(tmp_path):
    from vosim.runs.sweep_results import network_path, parts_text

    assert part_path(tmp_path, "abc") == tmp_path / "runs" / "part-abc.parquet"
    assert cycles_path(str(tmp_path), "abc") == tmp_path / "cycles" / "part-abc.parquet"
    assert network_path(tmp_path, "abc") == tmp_path / "networks" / "part-abc.graphml"
    one = [(Path("out/runs/part-a.parquet"), "zero bytes")]
    assert parts_text(one) == "1 unreadable part: runs/part-a.parquet (zero bytes)"
    seven = [(Path(f"o/runs/part-{k}.parquet"), "x") for k in range(7)]
    text = parts_text(seven)
    assert text.startswith("7 unreadable parts: runs/part-0.parquet (x), ")
    assert "part-4.parquet (x) and 2 more" in text and "part-5" not in text


def test_read_statuses_of_good_missing_and_spoiled_parts(spoilable):
    from vosim.runs.sweep_results import read_statuses

    out, table = spoilable
    ids = table["run_id"].tolist()
    part_path(out, ids[0]).write_bytes(b"")
    found, unreadable = read_statuses(out, [*ids, "000000000000"])
    assert found == dict.fromkeys(ids[1:], "ok")
    assert [path for path, _ in unreadable] == [part_path(out, ids[0])]
