"""Where runs execute (vosim.runs.backends): every backend gives the one-process table,
workers die with the sweep, and a Ray address is probed before the sweep starts."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from sweep_cases import (  # noqa: F401 (fixtures)
    TINY,
    _comparable,
    _one_line,
    baseline_fixture,
    sweep_file_fixture,
)

from vosim.errors import ParameterError
from vosim.runs import backends
from vosim.runs.batch import expand, run_sweep
from vosim.runs.config import load_sweep
from vosim.runs.sweep_results import (
    load_results,
)


def test_two_local_workers_give_the_same_table(baseline, sweep_file, tmp_path):
    assert list(baseline.columns[:7]) == [
        "run_id",
        "vo_objective",
        "ua",
        "repetition",
        "seed",
        "status",
        "error",
    ]
    assert (baseline["status"] == "ok").all() and baseline["error"].isna().all()
    assert (baseline["completed"] > 0).all()
    assert baseline["owners_revenue_by_owner"].map(lambda s: len(json.loads(s))).eq(10).all()
    assert list(baseline["run_id"]) == [r.run_id for r in expand(load_sweep(sweep_file))]
    result = run_sweep(load_sweep(sweep_file), tmp_path, workers=2)
    assert result.ran == 12
    pd.testing.assert_frame_equal(_comparable(load_results(tmp_path)), _comparable(baseline))


def test_ray_gives_the_same_table(baseline, sweep_file, tmp_path):
    pytest.importorskip("ray", reason='the "ray" extra is not installed: pip install "vosim[ray]"')
    result = run_sweep(load_sweep(sweep_file), tmp_path, workers=2, backend="ray")
    assert (result.ran, result.failed) == (12, 0)
    pd.testing.assert_frame_equal(_comparable(load_results(tmp_path)), _comparable(baseline))


def test_a_two_node_ray_cluster_on_loopback_gives_the_one_process_table(
    baseline, sweep_file, tmp_path, monkeypatch
):
    """A Ray cluster of two nodes (one CPU each) on 127.0.0.1, reached by its address.

    With two runs in flight and one CPU a node, each node runs one of them: the sweep is
    spread over both, and its table is the one-process table. Ray puts a multi-node
    cluster on the machine's outward address unless told that only this machine takes part
    (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, read by the driver and inherited by the
    nodes' processes): so every process of the test listens on the loopback address.
    """
    ray = pytest.importorskip(
        "ray", reason='the "ray" extra is not installed: pip install "vosim[ray]"'
    )
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    monkeypatch.setenv(ray_constants.ENABLE_RAY_CLUSTERS_ENV_VAR, "0")
    monkeypatch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        assert cluster.address.startswith("127.0.0.1:")
        result = run_sweep(
            load_sweep(sweep_file), tmp_path, workers=2, backend="ray", ray_address=cluster.address
        )
        assert (result.ran, result.failed) == (12, 0)
        pd.testing.assert_frame_equal(_comparable(load_results(tmp_path)), _comparable(baseline))
        ray.init(address=cluster.address, logging_level="warning", log_to_driver=False)
        nodes = [node for node in ray.nodes() if node["Alive"]]
        assert [node["NodeManagerAddress"] for node in nodes] == ["127.0.0.1"] * 2
        ray.shutdown()
        # without an address: a new local instance, not the cluster running beside it
        alone = tmp_path / "alone"
        result = run_sweep(load_sweep(sweep_file), alone, workers=2, backend="ray")
        assert (result.ran, result.failed) == (12, 0)
        pd.testing.assert_frame_equal(_comparable(load_results(alone)), _comparable(baseline))
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_ray_missing_is_a_clear_error(monkeypatch, sweep_file, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ParameterError, match=r'pip install "vosim\[ray\]"'):
        run_sweep(load_sweep(sweep_file), tmp_path, backend="ray")


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
