"""Running a sweep (vosim.runs.batch): expansion, run ids and seeds, segments, resume after a
kill, failed runs and refused results."""

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from sweep_cases import (  # noqa: F401 (fixtures)
    FAILING,
    RUN_SWEEP,
    SHORT_PATIENCE,
    SWEEP,
    TINY,
    _comparable,
    baseline_fixture,
    sweep_file_fixture,
)

import vosim.data
from vosim.errors import ConfigError, ParameterError
from vosim.runs import batch
from vosim.runs.batch import expand, run_sweep
from vosim.runs.config import SweepConfig, parse_sweep
from vosim.runs.sweep_results import (
    load_results,
    part_path,
)

# -- expansion, ids, seeds ---------------------------------------------------------------------


def test_expansion_order_ids_and_seeds_are_stable():
    config = parse_sweep(SWEEP)
    runs = expand(config)
    assert len(runs) == config.run_count == 12
    assert [(r.point["vo_objective"], r.point["ua"], r.repetition) for r in runs[:4]] == [
        ("cost", None, 0),
        ("cost", None, 1),
        ("cost", None, 2),
        ("cost", 25.0, 0),
    ]
    assert len({r.run_id for r in runs}) == 12
    # Ids are a hash of values (and of the vosim version): pinned, so a change
    # to them (which orphans finished parts) is deliberate.
    assert runs[0].run_id == expand(parse_sweep(SWEEP))[0].run_id == "d15ef97ca50c"
    # Paired seeds: repetition r has one seed across the combinations.
    assert {r.seed for r in runs if r.repetition == 0} == {runs[0].seed}
    assert len({r.seed for r in runs}) == 3
    # Adding a value keeps the other runs' ids and seeds.
    grown = expand(parse_sweep(SWEEP.replace('ua = ["none", 25]', 'ua = [10, "none", 25]')))
    assert {r.run_id: r.seed for r in runs}.items() <= {r.run_id: r.seed for r in grown}.items()
    unpaired = expand(parse_sweep(SWEEP.replace("seed = 5", "seed = 5\npaired = false")))
    assert len({r.seed for r in unpaired}) == 12
    assert {r.run_id for r in unpaired}.isdisjoint(r.run_id for r in runs)


def test_segments_give_each_repetition_the_next_window_of_the_trace():
    segmented = SWEEP.replace("seed = 5", "seed = 5\nsegments = true")
    runs = expand(parse_sweep(segmented))
    plain = expand(parse_sweep(SWEEP))
    assert [r.kwargs["first_job"] for r in runs[:3]] == [0, 30, 60]
    assert [r.seed for r in runs] == [r.seed for r in plain]  # paired: segment r, seed r
    assert len({r.run_id for r in runs}) == 12
    assert runs[0].run_id != plain[0].run_id  # first_job is among the run's arguments
    shifted = expand(parse_sweep(segmented.replace("jobs = 30", "jobs = 30\nfirst_job = 100")))
    assert [r.kwargs["first_job"] for r in shifted[:3]] == [100, 130, 160]
    assert all("first_job" not in r.kwargs for r in plain)  # no segments: ids as before


def test_a_segment_runs_the_model_on_its_window():
    from vosim.data import trace_path
    from vosim.market.swf import read_swf
    from vosim.model import VOModel
    from vosim.runs.backends import execute

    text = RUN_SWEEP.replace("seed = 5", "seed = 5\nsegments = true")
    spec = expand(parse_sweep(text))[1]  # cost, U_a none, repetition 1: jobs 31-60
    row = execute(spec)
    model = VOModel(**{**spec.kwargs, "first_job": 30}, rng=spec.seed)
    model.run()
    summary = model.summary(model.job_frame(), model.cycle_frame(), model.market_graph())
    assert row["status"] == "ok" and row["jobs_read"] == 30
    assert row["mean_wait"] == summary["mean_wait"]
    trace = read_swf(trace_path(spec.kwargs["trace"]))
    assert model.job_frame()["job_id"].tolist() == trace["job_id"].iloc[30:60].tolist()


# -- resume after a kill -----------------------------------------------------------------------


def test_resume_after_kill_gives_the_uninterrupted_table(baseline, sweep_file, tmp_path):
    out = tmp_path / "out"
    command = [sys.executable, "-m", "vosim.runs.cli", "sweep", str(sweep_file)]
    command += ["--out", str(out), "--workers", "2", "--quiet"]
    # Its own session, so the kill takes the worker processes too (as a crash or a power cut).
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(out.glob("runs/part-*.parquet"))) < 1:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no run finished in 120 s"
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    finished = len(list(out.glob("runs/part-*.parquet")))
    assert 1 <= finished < 12, "the sweep ended before the kill: make its runs longer"

    again = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{12 - finished} run now, {finished} already done, 0 failed, 0 left" in again.stdout
    assert len(list(out.glob("runs/part-*.parquet"))) == 12
    assert not list(out.glob("runs/.*.tmp"))
    pd.testing.assert_frame_equal(_comparable(load_results(out)), _comparable(baseline))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["vosim_version"] and manifest["sweep_text"] == RUN_SWEEP
    assert [r["seed"] for r in manifest["runs"]] == list(baseline["seed"])


# -- failed runs, reuse, refusal -----------------------------------------------------------------


def test_a_failing_run_is_recorded_and_the_others_go_on(tmp_path):
    config = parse_sweep(FAILING)
    result = run_sweep(config, tmp_path, workers=1)
    assert (result.ran, result.failed) == (2, 1)
    table = load_results(tmp_path)
    assert list(table["status"]) == ["ok", "error"]
    assert table.loc[1, "error"].startswith("ParameterError: owners must be an integer")
    assert table.loc[0, "completed"] > 0 and pd.isna(table.loc[1, "completed"])
    # Finished runs (errors included) are skipped, unless asked to retry the errors.
    again = run_sweep(config, tmp_path, workers=1)
    assert (again.ran, again.skipped, again.failed) == (0, 2, 1)
    retried = run_sweep(config, tmp_path, workers=1, retry_failed=True)
    assert (retried.ran, retried.skipped, retried.failed) == (1, 1, 1)
    # A grown sweep reuses the finished runs.
    grown = run_sweep(
        parse_sweep(FAILING.replace("[2, 1000]", "[2, 1000, 4]")), tmp_path, workers=1
    )
    assert (grown.ran, grown.skipped) == (1, 2)
    assert list(load_results(tmp_path)["owners"]) == [2, 1000, 4]


def test_results_of_another_version_are_refused(tmp_path):
    config = parse_sweep(FAILING.replace("[2, 1000]", "[1000]"))
    run_sweep(config, tmp_path, workers=1)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["vosim_version"] = "0.0.0"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match=r"vosim 0\.0\.0"):
        run_sweep(config, tmp_path, workers=1)
    part_path(tmp_path, expand(config)[0].run_id).unlink()
    assert run_sweep(config, tmp_path, workers=1).ran == 1  # nothing to mix up any more


def test_bad_arguments(tmp_path):
    config = parse_sweep(FAILING)
    with pytest.raises(ParameterError, match="backend"):
        run_sweep(config, tmp_path, backend="dask")
    with pytest.raises(ParameterError, match="workers"):
        run_sweep(config, tmp_path, workers=0)
    with pytest.raises(ParameterError, match="ray_address"):
        run_sweep(config, tmp_path, ray_address="auto")


# -- run ids follow the trace's content and the vosim version ---------------------------------


def test_expand_refuses_a_huge_config_built_directly():
    config = SweepConfig(name="direct", sweep={"ua": tuple(range(101))}, repetitions=1000)
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=r"101,000 runs \(ua 101 x repetitions 1000\)"):
        expand(config)
    assert time.perf_counter() - started < 1


def _small_trace(path: Path, jobs: int = 40) -> Path:
    """The header and first ``jobs`` jobs of the bundled NASA trace, as a plain SWF file."""
    source = Path(vosim.data.__file__).parent / "NASA-iPSC-1993-3.1-cln.swf.gz"
    lines, count = [], 0
    with gzip.open(source, "rt") as fh:
        for line in fh:
            if not line.startswith(";"):
                count += 1
                if count > jobs:
                    break
            lines.append(line)
    path.write_text("".join(lines))
    return path


def _edit_first_job(path: Path) -> None:
    """Double the run time (field 4) of the trace's first job."""
    lines = path.read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if not line.startswith(";"))
    fields = lines[first].split()
    fields[3] = str(int(fields[3]) * 2 + 1)
    lines[first] = " ".join(fields) + "\n"
    path.write_text("".join(lines))


def test_editing_the_trace_reruns_the_sweep(tmp_path):
    trace = _small_trace(tmp_path / "small.swf")
    text = (
        f'name = "edited"\n[scenario]\ntrace = "{trace}"\njobs = 20\n'
        "scheduling_interval = 86400.0\ncycle_period = 3600.0\n"
        + SHORT_PATIENCE  # the starving 128-node jobs are withdrawn after 2 days, not 30
        + "[sweep]\nua = [0, 50]\n"
    )
    out = tmp_path / "out"
    first = run_sweep(parse_sweep(text), out, workers=1)
    assert (first.ran, first.skipped) == (2, 0)
    again = run_sweep(parse_sweep(text), out, workers=1)
    assert (again.ran, again.skipped) == (0, 2)  # unchanged trace: the results are reused
    _edit_first_job(trace)
    edited = run_sweep(parse_sweep(text), out, workers=1)
    assert (edited.ran, edited.skipped) == (2, 0)  # edited trace: not the same runs any more
    ids = [spec.run_id for spec in expand(parse_sweep(text))]
    assert list(load_results(out)["run_id"]) == ids


def test_local_trace_content_is_in_the_id(tmp_path):
    local = _small_trace(tmp_path / "local.swf")
    text = f'name = "local"\n[scenario]\nlocal_trace = "{local}"\n[sweep]\nua = [0, 50]\n'
    before = [spec.run_id for spec in expand(parse_sweep(text))]
    assert before == [spec.run_id for spec in expand(parse_sweep(text))]
    _edit_first_job(local)
    after = [spec.run_id for spec in expand(parse_sweep(text))]
    assert set(before).isdisjoint(after)


def test_the_vosim_version_is_in_the_id(monkeypatch):
    config = parse_sweep(TINY)
    before = [spec.run_id for spec in expand(config)]
    monkeypatch.setattr(batch, "__version__", "99.0.0")
    assert set(before).isdisjoint(spec.run_id for spec in expand(config))


def test_a_trace_file_is_read_once_per_sweep(tmp_path, monkeypatch):
    trace = _small_trace(tmp_path / "once.swf")
    reads = []
    digest = batch._hash_file
    monkeypatch.setattr(batch, "_hash_file", lambda path: reads.append(path) or digest(path))
    monkeypatch.setattr(batch, "_DIGESTS", {})
    text = f'name = "once"\n[scenario]\ntrace = "{trace}"\n[sweep]\nua = [0, 25, 50]\n'
    text += "[run]\nrepetitions = 4\n"
    assert len(expand(parse_sweep(text))) == 12
    expand(parse_sweep(text))
    assert len(reads) == 1
    _edit_first_job(trace)
    expand(parse_sweep(text))
    assert len(reads) == 2  # a changed size or mtime reads it again
    expand(parse_sweep(TINY))  # a bundled trace: no file read
    assert len(reads) == 2
