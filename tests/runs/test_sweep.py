"""Sweep files, batch runs on local processes and Ray, resume after a kill, the CLI."""

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from vosim.errors import ConfigError, ParameterError, VosimError
from vosim.runs.batch import expand, run_sweep
from vosim.runs.cli import main
from vosim.runs.config import load_sweep, parse_sweep
from vosim.runs.sweep_results import load_results, part_path

# Tiny runs: 30 jobs, one-day slot lists, hourly cycles.
SCENARIO = """
[scenario]
trace = "NASA-iPSC-1993-3.1-cln"
jobs = 30
scheduling_interval = 86400.0
cycle_period = 3600.0
max_alternatives = 3
"""

SWEEP = (
    'name = "tiny"\n'
    + SCENARIO
    + """
[sweep]
vo_objective = ["cost", "finish"]
ua = ["none", 25]

[run]
repetitions = 3
seed = 5
"""
)

#: NASA's 128-node jobs starve behind the owners' local jobs and wait out the default 30-day
#: patience (~700 hourly cycles, ~8 s a run); the sweeps that run end that drain with a short
#: patience (~0.7 s a run). SWEEP itself, whose run ids are pinned below, is left as it was.
SHORT_PATIENCE = "patience = 172800.0\n"
RUN_SWEEP = SWEEP.replace(SCENARIO, SCENARIO + SHORT_PATIENCE)


def _write(tmp_path, text, name="sweep.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def _comparable(table):
    return table.drop(columns="seconds")


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory):
    return _write(tmp_path_factory.mktemp("sweep"), RUN_SWEEP)


@pytest.fixture(scope="module")
def baseline(sweep_file, tmp_path_factory):
    """The table of an uninterrupted sweep on 1 local worker (in process)."""
    out = tmp_path_factory.mktemp("one")
    result = run_sweep(load_sweep(sweep_file), out, workers=1)
    assert (result.ran, result.skipped, result.failed, result.remaining) == (12, 0, 0, 0)
    return load_results(out)


# -- the sweep file --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "line", "needle"),
    [
        ('name = "x"\n[sweep]\nuaa = [1]\n', "uaa", 3, "did you mean 'ua'?"),
        ('name = "x"\n[scenario]\nfoo = 1\n', "foo", 3, "allowed: trace, jobs"),
        ('name = "x"\n[scenario]\njobs = 2.5\n', "jobs", 3, 'an integer or "none"'),
        ('name = "x"\n[scenario]\navailability = 1\n', "availability", 3, "true or false"),
        ('name = "x"\n[sweep]\nua = 25\n', "ua", 3, "expected a list of values"),
        ('name = "x"\n[sweep]\nua = []\n', "ua", 3, "non-empty list"),
        ('name = "x"\n[sweep]\nua = [1, 1.0]\n', "ua", 3, "listed twice"),
        ('name = "x"\n[sweep]\nua = [1, "a"]\n', "ua", 3, 'a number or "none", got "a"'),
        ('name = "x"\n[sweep]\nlocal_load = [[0.1]]\n', "local_load", 3, "array of 2 items"),
        ('name = "x"\n[run]\nrepetitions = 0\n', "repetitions", 3, "integer >= 1"),
        ('name = "x"\n[run]\nrepetitions = 2.0\n', "repetitions", 3, "integer >= 1"),
        ('name = "x"\n[run]\nseed = -1\n', "seed", 3, "integer >= 0"),
        ('name = "x"\n[run]\nrepeats = 3\n', "repeats", 3, "allowed: repetitions, seed, paired"),
        ('name = "x"\n\n[scenario]\nua = 1\n[sweep]\nua = [2]\n', "ua", 6, "both fixed"),
        (
            'name = "x"\n[sweep]\nvo_objective = ["cost", "money"]\n',
            "vo_objective",
            3,
            "'money' is not one of cost, runtime, finish",
        ),
        ('name = "x"\n[scenario]\nvo_limit = "budget"\n', "vo_limit", 3, "user, cost, time"),
        ('name = "x"\n[scenario]\ntrace = "no/such.swf"\n', "trace", 3, "UniLu-Gaia-2014-2"),
        ('name = "x"\n[scenario]\nrng = 3\n', "rng", 3, "[run] seed"),
        ('name = "x"\nsweeps = 1\n', "sweeps", 2, "allowed: name, description, scenario"),
        ("[scenario]\njobs = 3\n", "name", None, "missing"),
    ],
)
def test_validation_errors_name_the_key(text, key, line, needle):
    with pytest.raises(ConfigError) as info:
        parse_sweep(text, path="s.toml")
    error = info.value
    assert isinstance(error, VosimError) and isinstance(error, ValueError)
    assert f"{key}:" in error.message, error.message
    assert needle in error.message, error.message
    assert error.line == line
    assert str(error).startswith(f"s.toml:{line}: " if line else "s.toml: ")


def test_syntax_error_has_the_line_and_missing_file(tmp_path):
    path = _write(tmp_path, 'name = "x"\n[sweep]\nua = [1, 2\n')
    with pytest.raises(ConfigError) as info:
        load_sweep(path)
    assert info.value.line == 3 and "not valid TOML" in str(info.value)
    assert str(info.value).startswith(f"{path}:3: ")
    with pytest.raises(ConfigError, match="no such sweep file"):
        load_sweep(tmp_path / "absent.toml")


def test_values_are_converted_to_the_model_types(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; tiny\n")
    config = parse_sweep(
        'name = " n "\n[scenario]\ntrace = "t.swf"\njobs = "none"\nlocal_load = [0.2, 0.4]\n'
        '[sweep]\nua = ["none", 0]\ncriterion_allocators = [{cost = "min_cost"}, "none"]\n',
        path=tmp_path / "s.toml",
    )
    assert config.name == "n"
    assert config.scenario == {"trace": str(trace), "jobs": None, "local_load": (0.2, 0.4)}
    assert config.sweep["ua"] == (None, 0.0) and isinstance(config.sweep["ua"][1], float)
    assert config.sweep["criterion_allocators"] == ({"cost": "min_cost"}, None)


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


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ("segments = true\n[sweep]\njobs = [10, 20]\n", r"one \[scenario\] jobs"),
        ('segments = true\n[scenario]\njobs = "none"\n', "a number of jobs"),
        ("segments = true\n[sweep]\nfirst_job = [0, 5]\n", "do not vary it"),
        ("segments = 1\n", "expected true or false, got 1"),
    ],
)
def test_bad_segments_are_named_with_their_line(change, needle):
    text = 'name = "x"\n[run]\nrepetitions = 2\n' + change
    with pytest.raises(ConfigError, match=needle) as info:
        parse_sweep(text)
    assert "segments" in str(info.value) and info.value.line == 4


# -- same table from every backend -------------------------------------------------------------


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

FAILING = (
    'name = "failing"\n'
    + SCENARIO.replace("max_alternatives = 3\n", SHORT_PATIENCE)
    + "[sweep]\nowners = [2, 1000]\n"  # NASA has 128 nodes: 1000 owners is rejected
)


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


# -- the command line ----------------------------------------------------------------------------


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
