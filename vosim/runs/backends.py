"""Where a sweep's runs execute: one run in a worker, local processes or Ray tasks.

:func:`execute_with_cycles` runs one :class:`RunSpec` (the model, its summary row, its
per-run tables and market); :func:`local_outcomes` runs many in this process or on a pool of
spawned processes that exit with the sweep's process; :func:`ray_outcomes` runs them as Ray
tasks on a local instance or a cluster (:func:`probe_ray_address` first checks that a
cluster's address answers). :func:`vosim.runs.batch.run_sweep` chooses the backend and writes
what they return. A run is seeded from the sweep, never from a worker, so results do not
depend on the backend or the number of workers.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

import pandas as pd

from vosim.errors import ParameterError

__all__ = [
    "BACKENDS",
    "RUN_TABLES",
    "RunSpec",
    "execute",
    "execute_with_cycles",
    "import_ray",
    "local_outcomes",
    "probe_ray_address",
    "ray_outcomes",
]

#: Execution backends of :func:`vosim.runs.batch.run_sweep`.
BACKENDS = ("local", "ray")
CYCLES = "cycles"
GROUPS = "groups"
GROUP_SITES = "group_sites"
#: The per-run tables a run returns, each written in its folder of the sweep directory
#: (``<folder>/part-<id>.parquet``).
RUN_TABLES = (CYCLES, GROUPS, GROUP_SITES)
#: Seconds between a local worker's checks that the sweep's process is alive: a worker
#: outlives a killed sweep by at most this long (plus its exit).
PARENT_POLL_SECONDS = 0.5
#: Seconds to wait for a Ray address to accept a TCP connection before ``ray.init``, which
#: would otherwise retry an unreachable address for many minutes.
RAY_CONNECT_TIMEOUT = 10.0

#: What a backend returns per run: its row, its tables (:data:`RUN_TABLES` folder -> table)
#: and its market as GraphML text.
Outcome = tuple[dict[str, Any], "dict[str, pd.DataFrame] | None", "str | None"]


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One run of a sweep: everything a worker needs, picklable.

    Parameters
    ----------
    run_id : str
        12 hex digits of the SHA-256 of the run's model arguments, repetition, seed, trace
        file contents and vosim version (:func:`run_id`).
    point : dict
        The swept parameters' values (model types).
    repetition : int
        0-based repetition of the combination.
    seed : int
        The model's ``rng`` seed (see :meth:`SweepConfig.run_seed`).
    kwargs : dict
        All :class:`vosim.VOModel` keyword arguments but ``rng``: scenario and point.
    columns : dict
        The point as table values (JSON text for arrays, tables and mixed types).
    """

    run_id: str
    point: dict[str, Any]
    repetition: int
    seed: int
    kwargs: dict[str, Any]
    columns: dict[str, Any]


# -- one run -------------------------------------------------------------------------------------


def _flat(value: Any) -> Any:
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value)
    if hasattr(value, "item"):  # a numpy scalar
        return value.item()
    return value


def execute(spec: RunSpec) -> dict[str, Any]:
    """Run one model and return its table row; an exception is recorded, not raised.

    Parameters
    ----------
    spec : RunSpec
        The run.

    Returns
    -------
    dict
        Column -> value (the row :mod:`vosim.runs.batch` describes); ``status`` is
        ``"error"`` and ``error`` ``"ExceptionType: message"`` when building or running the
        model raised.
    """
    return execute_with_cycles(spec)[0]


def execute_with_cycles(spec: RunSpec) -> Outcome:
    """Run one model; return its table row, per-run tables and market (what backends run).

    Parameters
    ----------
    spec : RunSpec
        The run.

    Returns
    -------
    row : dict
        As :func:`execute` returns it.
    tables : dict of str to pandas.DataFrame, or None
        ``"cycles"``: ``VOModel.cycle_frame()`` (one row per scheduling cycle run; idle ones
        are skipped); ``"groups"``: ``VOModel.group_frame()`` (one row per group of users);
        ``"group_sites"``: ``VOModel.group_site_frame()`` (one row per group and site it
        bought from); each with a first column ``run_id``; ``None`` when the run raised.
    network : str or None
        ``VOModel.market_graph()`` as GraphML text
        (:func:`~vosim.analysis.network.graphml_text`); ``None`` when the run raised.
    """
    started = time.perf_counter()
    row: dict[str, Any] = {"run_id": spec.run_id, **spec.columns}
    row.update(repetition=spec.repetition, seed=spec.seed, status="ok", error=None)
    metrics: dict[str, Any] = {}
    tables: dict[str, pd.DataFrame] | None = None
    network: str | None = None
    try:
        from vosim.analysis.network import TASK_COLUMNS, graphml_text
        from vosim.model import VOModel

        model = VOModel(**spec.kwargs, rng=spec.seed)
        model.run()
        jobs = model.job_frame()
        cycles = model.cycle_frame()
        # the columns the market and the site x VO view read, the model's task log handed
        # to them
        tasks = model.task_frame(release=True, columns=TASK_COLUMNS)
        market = model.market_graph(tasks)
        metrics = model.summary(jobs, cycles, market)
        metrics["node_count"] = model.node_count
        metrics["cycles"] = len(cycles)
        pairs = model.group_site_frame(tasks)
        tables = {
            CYCLES: cycles.reset_index(drop=True),
            GROUPS: model.group_frame(jobs, pairs),
            GROUP_SITES: pairs,
        }
        for table in tables.values():
            table.insert(0, "run_id", spec.run_id)
        network = graphml_text(market)
    except Exception as exc:
        row.update(status="error", error=f"{type(exc).__name__}: {exc}")
        metrics = {}
        tables = network = None
    row["seconds"] = time.perf_counter() - started
    for key, value in metrics.items():
        row[key if key not in row else f"result_{key}"] = _flat(value)
    return row, tables, network


def _failed_row(spec: RunSpec, message: str) -> dict[str, Any]:
    row: dict[str, Any] = {"run_id": spec.run_id, **spec.columns}
    row.update(repetition=spec.repetition, seed=spec.seed, status="error", error=message)
    row["seconds"] = math.nan
    return row


# -- backends ------------------------------------------------------------------------------------


def _init_worker(parent: int) -> None:
    """Worker initializer: leave Ctrl-C to the parent; exit when the parent is gone.

    Ctrl-C is the parent's to handle (it stops the workers). A daemon thread checks every
    :data:`PARENT_POLL_SECONDS` that the worker's parent is still ``parent`` (the sweep's
    process: with the spawn context it starts the workers itself); once the parent dies, even
    by SIGKILL, the worker is re-parented and exits at once, in a run or waiting for one.
    Otherwise it would wait forever for work, since it holds the write end of its own task
    queue; and the multiprocessing resource tracker, which lives until every holder of its
    pipe is gone, ends with the last worker. POSIX: on Windows a process's parent id does not
    change when the parent dies, and the thread just sleeps.

    Parameters
    ----------
    parent : int
        Process id of the sweep's process.

    References
    ----------
    vosim's rule: a worker ends with its sweep (without the check, two workers and the
    resource tracker were alive 38 minutes after the sweep was killed).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if os.getppid() != parent:  # already gone while this worker started
        os._exit(1)
    watch = threading.Thread(
        target=_watch_parent, args=(parent,), name="vosim-watch-parent", daemon=True
    )
    watch.start()


def _watch_parent(parent: int) -> None:
    """Exit this process as soon as its parent is no longer ``parent``."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def local_outcomes(pending: list[RunSpec], workers: int) -> Iterator[Outcome]:
    """Run ``pending`` here (``workers == 1``) or on ``workers`` spawned processes.

    Yields each run's :data:`Outcome` as it finishes (in the order they finish). Workers
    ignore Ctrl-C and exit when the sweep's process is gone (:func:`_init_worker`); an
    interrupted or failed sweep terminates the runs in flight.

    Raises
    ------
    RuntimeError
        A worker process died (e.g. out of memory); the outcomes yielded so far stand.

    References
    ----------
    vosim's sweep runner (no paper).
    """
    if workers == 1:
        for spec in pending:
            yield execute_with_cycles(spec)
        return
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_init_worker,
        initargs=(os.getpid(),),
    )
    finished = False
    try:
        futures = [pool.submit(execute_with_cycles, spec) for spec in pending]
        try:
            for future in as_completed(futures):
                yield future.result()
        except BrokenProcessPool:
            raise RuntimeError(
                "a worker process died (out of memory?); the finished runs are kept: run the "
                "same command again to resume"
            ) from None
        finished = True
    finally:
        if not finished:  # interrupted or failed: stop the runs in flight now
            processes = list((getattr(pool, "_processes", None) or {}).values())
            terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
            if terminate is not None:
                terminate()
            else:
                for process in processes:
                    process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def import_ray():
    """The ``ray`` module (``ParameterError`` naming the install command if it is absent).

    Source: vosim's sweep runner (no paper).
    """
    try:
        import ray
    except ImportError as exc:
        raise ParameterError(
            'backend "ray" needs Ray, an optional extra: pip install "vosim[ray]"'
        ) from exc
    return ray


def probe_ray_address(address: str | None) -> None:
    """Check that a Ray address accepts a TCP connection within :data:`RAY_CONNECT_TIMEOUT`.

    ``ray.init`` retries an unreachable ``host:port`` for many minutes; this fails at once
    (connection refused) or after the timeout instead. Only ``host:port`` and
    ``ray://host:port`` addresses are probed; ``"auto"`` and ``"local"`` are left to Ray,
    which resolves them quickly. Not covered: a port that accepts connections but is not a Ray
    head (``ray.init`` may still wait there).

    Parameters
    ----------
    address : str or None
        The ``ray_address`` of :func:`run_sweep`; ``None``: the ``RAY_ADDRESS`` environment
        variable, which ``ray.init`` uses then, if it is set.

    Raises
    ------
    ParameterError
        Nothing accepts a connection at the address; the message names it and the reason.

    References
    ----------
    vosim's rule: an unreachable address fails within :data:`RAY_CONNECT_TIMEOUT` (without the
    probe, ``--ray-address 127.0.0.1:1`` hung for more than 500 s).
    """
    origin = ""
    if address is None:
        address = os.environ.get("RAY_ADDRESS") or None
        origin = " (RAY_ADDRESS)"
    if address is None:
        return
    scheme, sep, rest = address.strip().rpartition("://")
    if sep and scheme != "ray":
        return
    rest = rest.split("/", 1)[0]
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        return  # "auto", "local", a bare host name: Ray's own rules
    host = host.strip("[]")  # an IPv6 literal
    try:
        with socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        if isinstance(exc, TimeoutError):
            reason = f"no answer within {RAY_CONNECT_TIMEOUT:g} s"
        else:
            reason = exc.strerror or str(exc) or type(exc).__name__
        raise ParameterError(
            f"cannot reach the Ray cluster at {address!r}{origin}: {reason} (is a Ray head running "
            "there? start one with: ray start --head)"
        ) from None


def ray_outcomes(
    pending: list[RunSpec], workers: int | None, address: str | None
) -> Iterator[Outcome]:
    """Run ``pending`` as Ray tasks, at most ``workers`` at a time (``None``: all at once).

    On the cluster at ``address``, or a new local instance (``workers`` CPUs) when neither it
    nor ``RAY_ADDRESS`` is set; an instance started here is shut down at the end. Yields each
    run's :data:`Outcome` as it finishes; a task that fails (its worker died) gives an error
    row.

    Raises
    ------
    ParameterError
        Ray is not installed, or the instance cannot be started or reached.

    References
    ----------
    vosim's sweep runner on Ray (no paper).
    """
    ray = import_ray()
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None and workers is not None:
            options["num_cpus"] = workers
        if address is None and not os.environ.get("RAY_ADDRESS"):
            address = "local"  # a new instance, not a cluster this machine happens to run
        try:
            ray.init(address=address, logging_level="warning", **options)
        except Exception as exc:
            where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
            raise ParameterError(f"cannot start or reach {where}: {exc}") from exc
        started = True
    task = ray.remote(num_cpus=1)(execute_with_cycles)
    queue = iter(pending)
    in_flight: dict[Any, RunSpec] = {}
    try:
        for spec in itertools.islice(queue, workers or len(pending)):
            in_flight[task.remote(spec)] = spec
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                spec = in_flight.pop(ref)
                try:
                    outcome = ray.get(ref)
                except Exception as exc:  # the task itself failed (worker died, ...)
                    message = f"{type(exc).__name__}: {exc}".splitlines()[0]
                    outcome = (_failed_row(spec, message), None, None)
                yield outcome
                following = next(queue, None)
                if following is not None:
                    in_flight[task.remote(following)] = following
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
