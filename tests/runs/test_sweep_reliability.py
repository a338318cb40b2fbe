"""Sweep reliability.

Workers that outlive a killed sweep, sweeps too big to expand, results reused after the trace
changed, an unreachable Ray address, and unreadable parts or manifests.
"""

import gzip
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from test_sweep import SCENARIO, SHORT_PATIENCE  # tiny runs (~0.7 s each with the patience)

import vosim.data
from vosim.errors import ConfigError, ParameterError
from vosim.runs import backends, batch, store
from vosim.runs.batch import expand, run_sweep
from vosim.runs.cli import main
from vosim.runs.config import MAX_RUNS, SweepConfig, parse_sweep
from vosim.runs.sweep_results import (
    UnreadablePartWarning,
    cycles_path,
    load_cycles,
    load_results,
    part_path,
)

TINY = 'name = "tiny"\n' + SCENARIO + SHORT_PATIENCE + '[sweep]\nua = ["none", 25, 50]\n'


def _comparable(table):
    return table.drop(columns="seconds")


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("vosim: error: "), err
    assert "Traceback" not in err
    return lines[0]


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


# -- item 4: workers exit when the sweep's process dies ------------------------------------------


def _process(pid: int) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of a live process from /proc, None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()  # after "pid (comm) "
    return int(fields[1]), fields[0], int(fields[19])


def _children(parent: int) -> dict[int, int]:
    """Child pid -> its start time, for the live children of ``parent``."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            info = _process(int(entry))
            if info is not None and info[0] == parent and info[1] != "Z":
                found[int(entry)] = info[2]
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _survivors(started: dict[int, int]) -> list[int]:
    """The processes of ``started`` still running (not gone, not a zombie, not a new pid)."""
    alive = []
    for pid, start in started.items():
        info = _process(pid)
        if info is not None and info[1] != "Z" and info[2] == start:
            alive.append(pid)
    return alive


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_workers_and_resource_tracker_exit_when_the_sweep_is_killed(tmp_path):
    # 4 runs of ~7 s on 2 workers: the sweep is still running when it is killed.
    sweep = tmp_path / "slow.toml"
    sweep.write_text(
        'name = "slow"\n[scenario]\ntrace = "NASA-iPSC-1993-3.1-cln"\njobs = 300\n'
        "[sweep]\nua = [0, 10, 20, 30]\n"
    )
    command = [sys.executable, "-m", "vosim.runs.cli", "sweep", str(sweep)]
    command += ["--out", str(tmp_path / "out"), "--workers", "2", "--quiet"]
    proc = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    children: dict[int, int] = {}
    try:
        deadline = time.monotonic() + 60
        while True:  # the two workers (and the resource tracker) are the sweep's children
            children = _children(proc.pid)
            workers = [pid for pid in children if b"spawn_main" in _cmdline(pid)]
            if len(workers) == 2:
                break
            assert proc.poll() is None, "the sweep ended before its workers started"
            assert time.monotonic() < deadline, f"no 2 workers in 60 s: {children}"
            time.sleep(0.05)
        time.sleep(1.5)  # let them start a run
        children = _children(proc.pid)
        assert any(b"resource_tracker" in _cmdline(pid) for pid in children), children
        os.kill(proc.pid, signal.SIGKILL)  # the sweep only, not its process group
        proc.wait()
        deadline = time.monotonic() + 20
        while _survivors(children) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = _survivors(children)
        assert not survivors, f"processes of the killed sweep still running: {survivors}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in _survivors(children):  # a failing test leaves no orphans behind
            os.kill(pid, signal.SIGKILL)


# -- item 5: a sweep too big to expand is refused before expanding --------------------------------


def _values(start: int, count: int = 100) -> str:
    return "[" + ", ".join(str(start + i) for i in range(count)) + "]"


HUGE = (
    'name = "huge"\n[scenario]\ntrace = "NASA-iPSC-1993-3.1-cln"\n[sweep]\n'
    f"jobs = {_values(1)}\nowners = {_values(1)}\nua = {_values(0)}\n"
    f"max_alternatives = {_values(1)}\ncycle_period = {_values(60)}\n"
    "[run]\nrepetitions = 1000\n"
)


def test_a_huge_sweep_is_refused_before_expanding():
    started = time.perf_counter()
    with pytest.raises(ConfigError) as info:
        parse_sweep(HUGE, path="huge.toml")
    assert time.perf_counter() - started < 2
    error = info.value
    assert error.path == "huge.toml" and error.line == 4  # the [sweep] table
    message = str(error)
    assert "\n" not in message
    assert "10,000,000,000,000 runs" in message, message
    for key in ("jobs 100", "owners 100", "ua 100", "max_alternatives 100", "cycle_period 100"):
        assert key in message, message
    assert "repetitions 1000" in message and f"{MAX_RUNS:,}" in message, message


def test_a_sweep_at_the_bound_is_accepted_and_one_more_run_is_refused():
    text = f'name = "edge"\n[sweep]\nua = {_values(0, 100)}\n[run]\nrepetitions = '
    assert MAX_RUNS % 100 == 0
    assert parse_sweep(text + str(MAX_RUNS // 100)).run_count == MAX_RUNS
    with pytest.raises(ConfigError, match=f"{MAX_RUNS + 100:,} runs"):
        parse_sweep(text + str(MAX_RUNS // 100 + 1))


def test_expand_refuses_a_huge_config_built_directly():
    config = SweepConfig(name="direct", sweep={"ua": tuple(range(101))}, repetitions=1000)
    started = time.perf_counter()
    with pytest.raises(ConfigError, match=r"101,000 runs \(ua 101 x repetitions 1000\)"):
        expand(config)
    assert time.perf_counter() - started < 1


def test_cli_refuses_a_huge_sweep_in_one_line(tmp_path, capsys):
    path = tmp_path / "huge.toml"
    path.write_text(HUGE)
    assert main(["sweep", str(path), "--out", str(tmp_path / "o")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert f"{path}:4:" in line and "10,000,000,000,000 runs" in line
    assert not (tmp_path / "o").exists()


# -- item 7: run ids follow the trace's content and the vosim version -----------------------------


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


# -- item 8: an unreachable Ray address is a quick, clear error ----------------------------------


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_ray_address_fails_fast_at_the_cli(tmp_path):
    pytest.importorskip("ray", reason='the "ray" extra is not installed: pip install "vosim[ray]"')
    sweep = tmp_path / "s.toml"
    sweep.write_text(TINY)
    address = f"127.0.0.1:{_closed_port()}"
    command = [sys.executable, "-m", "vosim.runs.cli", "sweep", str(sweep), "--out"]
    command += [str(tmp_path / "o"), "--backend", "ray", "--ray-address", address]
    started = time.monotonic()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert time.monotonic() - started < 30
    assert proc.returncode == 2, proc.stderr
    line = _one_line(proc.stderr)
    assert repr(address) in line and "cannot reach" in line, line


@pytest.mark.parametrize("form", ["{}", "ray://{}"])
def test_ray_address_probe(form, monkeypatch):
    address = form.format(f"127.0.0.1:{_closed_port()}")
    with pytest.raises(ParameterError, match=rf"{address!r}.*refused"):
        backends.probe_ray_address(address)
    # An address that does not answer (TEST-NET-1): a bounded wait, never a hang.
    monkeypatch.setattr(backends, "RAY_CONNECT_TIMEOUT", 0.5)
    started = time.monotonic()
    with pytest.raises(ParameterError, match=r"192\.0\.2\.1:6379"):
        backends.probe_ray_address(form.format("192.0.2.1:6379"))
    assert time.monotonic() - started < 3
    with socket.socket() as server:  # something listens: the probe lets Ray go on
        server.bind(("127.0.0.1", 0))
        server.listen()
        backends.probe_ray_address(form.format(f"127.0.0.1:{server.getsockname()[1]}"))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    for name in ("auto", "local", None):  # Ray finds these itself, at once
        backends.probe_ray_address(name)
    monkeypatch.setenv("RAY_ADDRESS", address)  # what ray.init(address=None) would use
    with pytest.raises(ParameterError, match=r"\(RAY_ADDRESS\).*refused"):
        backends.probe_ray_address(None)


# -- item 9: unreadable parts and manifests --------------------------------------------------------


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


def test_parts_are_flushed_to_disk_before_the_rename(tmp_path, monkeypatch):
    synced = []
    fsync = os.fsync

    def record(fd):
        info = os.fstat(fd)
        synced.append((stat.S_ISDIR(info.st_mode), info.st_ino))
        fsync(fd)

    monkeypatch.setattr(store.os, "fsync", record)
    target = tmp_path / "runs" / "part-x.parquet"
    store.write_table(pd.DataFrame({"a": [1, 2]}), target)
    inode = target.stat().st_ino  # the temporary file renamed: same inode
    assert (False, inode) in synced
    assert (True, target.parent.stat().st_ino) in synced
    assert synced.index((False, inode)) < synced.index((True, target.parent.stat().st_ino))
    synced.clear()
    store.write_json({"runs": []}, tmp_path / "manifest.json")
    assert (False, (tmp_path / "manifest.json").stat().st_ino) in synced
    assert (True, tmp_path.stat().st_ino) in synced
