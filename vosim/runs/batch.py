"""Running a sweep on local processes or Ray tasks: one Parquet part per finished run, resumable.

A sweep (:mod:`vosim.runs.config`) expands into runs, one per combination of swept values and
repetition. Each run builds ``VOModel(**scenario, **combination, rng=seed)``, runs it and is
summarised by :func:`vosim.analysis.metrics.run_summary`. The output directory holds::

    DIR/manifest.json           the sweep file's text, the validated sweep, the vosim version,
                                and every run's id, combination, repetition and seed
    DIR/runs/part-<id>.parquet  one row per finished run, written atomically (temporary file,
                                then rename), so a part that exists is complete
    DIR/cycles/part-<id>.parquet  the run's ``VOModel.cycle_frame()`` (one row per scheduling
                                cycle) with a ``run_id`` column, written atomically just before
                                the run's part (a run that raised has none)

A row has the columns ``run_id``, the swept parameters (JSON text where a value is an array,
a table, or the values mix types; ``None`` is null, NaN in a numeric column), ``repetition``,
``seed``, ``status`` (``"ok"`` or ``"error"``), ``error`` (``"ExceptionType: message"`` or
null), ``seconds`` (wall time of the run) and the metrics: ``run_summary``'s keys (lists such
as ``owners_revenue_by_owner`` as JSON text) plus ``node_count``, ``cycles`` and
``mean_vo_evaluation``. A run that raises is recorded with status ``"error"`` and no metrics;
the others go on.
:func:`load_results` reads the finished runs into one table in the sweep's order,
:func:`load_cycles` their per-cycle tables (owners and users active, prices, utilization...).

Resume: a run's id is a hash of all its model arguments, repetition and seed, so on start every
run whose part exists is skipped; a sweep killed at any point and started again ends with the
table an uninterrupted sweep gives. Parts are content addressed: adding values to a sweep and
running it into the same directory reuses the finished runs; a directory whose manifest names
another vosim version is refused. One sweep at a time may write a directory (a lock file).

Backends. ``"local"`` runs in this process when ``workers == 1`` and otherwise on a
:class:`concurrent.futures.ProcessPoolExecutor` of spawned processes (spawn-safe: a worker
imports vosim and receives a :class:`RunSpec`). It is preferred to Mesa's
:func:`mesa.batchrunner.batch_run`, which returns every result only when the whole batch ends
(so no per-run parts, no resume, and a crash loses all), lets one run's exception abort the
batch, drives ``model.step()`` up to ``max_steps`` rather than vosim's event-driven
``model.run()``, reports DataCollector variables rather than the run summary, and sets the
process-wide start method. ``"ray"`` runs the same :func:`execute` as Ray tasks on a local
instance or the cluster at ``ray_address`` (``pip install "vosim[ray]"``; a remote cluster's
Python needs the same vosim installed); the driver writes the parts, so they land on this
machine. Results do not depend on the backend or the worker count: each run is seeded from the
sweep, never from a worker.

Examples
--------
>>> import tempfile
>>> from vosim.runs.config import parse_sweep
>>> config = parse_sweep('''
... name = "demo"
... [scenario]
... trace = "NASA-iPSC-1993-3.1-cln"
... jobs = 20
... scheduling_interval = 86400.0
... cycle_period = 3600.0
... [sweep]
... owners = [2, 1000]
... ''')
>>> [spec.run_id for spec in expand(config)]
['2f0d61ffead8', '6aa06f9ebf98']
>>> with tempfile.TemporaryDirectory() as out:
...     result = run_sweep(config, out, workers=1)
...     table = load_results(out)
>>> result.ran, result.failed
(2, 1)
>>> table[["owners", "status", "jobs_read"]]
   owners status  jobs_read
0       2     ok       20.0
1    1000  error        NaN
>>> table.loc[1, "error"][:48]
'ParameterError: owners must be an integer in [1,'
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from vosim import __version__
from vosim.errors import ConfigError, ParameterError
from vosim.runs.config import SweepConfig, canonical_json
from vosim.runs.store import write_json, write_table

__all__ = [
    "BACKENDS",
    "RunSpec",
    "SweepResult",
    "expand",
    "execute",
    "run_sweep",
    "load_results",
    "load_cycles",
    "part_path",
    "cycles_path",
]

#: Execution backends of :func:`run_sweep`.
BACKENDS = ("local", "ray")
#: Columns every row has, besides the swept parameters and the metrics.
RESERVED_COLUMNS = ("run_id", "repetition", "seed", "status", "error", "seconds")
MANIFEST = "manifest.json"
PARTS = "runs"
CYCLES = "cycles"


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One run of a sweep: everything a worker needs, picklable.

    Parameters
    ----------
    run_id : str
        12 hex digits of the SHA-256 of the run's model arguments, repetition and seed.
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


@dataclass(frozen=True, slots=True)
class SweepResult:
    """What :func:`run_sweep` did.

    Parameters
    ----------
    out : Path
        The output directory.
    total : int
        Runs of the sweep.
    ran : int
        Runs executed by this call (ok or error).
    skipped : int
        Runs whose part already existed.
    failed : int
        Runs of the whole table recorded with status ``"error"`` (this call's and earlier).
    seconds : float
        Wall time of this call.
    interrupted : bool
        Stopped by ``KeyboardInterrupt`` (Ctrl-C); the finished parts are kept.
    """

    out: Path
    total: int
    ran: int
    skipped: int
    failed: int
    seconds: float
    interrupted: bool

    @property
    def remaining(self) -> int:
        """Runs with no part yet (0 once the sweep is complete)."""
        return self.total - self.ran - self.skipped


# -- expansion -----------------------------------------------------------------------------------


def _column_encoder(values: Sequence[Any]) -> Callable[[Any], Any]:
    """How a swept parameter's values go in a table column of one type."""
    kinds = {type(v) for v in values if v is not None}
    if len(kinds) <= 1 and kinds <= {bool, int, float, str}:
        return lambda v: v
    if kinds == {int, float}:
        return lambda v: None if v is None else float(v)
    return lambda v: None if v is None else json.dumps(v)


def run_id(kwargs: dict[str, Any], repetition: int, seed: int) -> str:
    """The id of a run: 12 hex digits of a hash of its model arguments, repetition and seed.

    Examples
    --------
    >>> run_id({"jobs": 30, "ua": 25.0}, 0, 7)
    'ea189844607d'
    """
    text = canonical_json({"kwargs": kwargs, "repetition": repetition, "seed": seed})
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def expand(config: SweepConfig) -> list[RunSpec]:
    """The runs of a sweep: each combination of swept values (file order), each repetition.

    Parameters
    ----------
    config : SweepConfig
        A validated sweep.

    Returns
    -------
    list of RunSpec
        ``config.run_count`` runs, combinations in :meth:`SweepConfig.points` order and
        repetitions innermost; ids are distinct and stable (they depend on values only).
    """
    encoders = {key: _column_encoder(values) for key, values in config.sweep.items()}
    runs = []
    for point in config.points():
        kwargs = {**config.scenario, **point}
        columns = {key: encoders[key](value) for key, value in point.items()}
        for repetition in range(config.repetitions):
            seed = config.run_seed(point, repetition)
            runs.append(
                RunSpec(run_id(kwargs, repetition, seed), point, repetition, seed, kwargs, columns)
            )
    return runs


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
        Column -> value (see the module docstring); ``status`` is ``"error"`` and ``error``
        ``"ExceptionType: message"`` when building or running the model raised.
    """
    return execute_with_cycles(spec)[0]


def execute_with_cycles(spec: RunSpec) -> tuple[dict[str, Any], pd.DataFrame | None]:
    """Run one model; return its table row and its per-cycle table (what the backends run).

    Parameters
    ----------
    spec : RunSpec
        The run.

    Returns
    -------
    row : dict
        As :func:`execute` returns it.
    cycles : pandas.DataFrame or None
        ``VOModel.cycle_frame()`` (one row per scheduling cycle) with a first column
        ``run_id``; ``None`` when the run raised.
    """
    started = time.perf_counter()
    row: dict[str, Any] = {"run_id": spec.run_id, **spec.columns}
    row.update(repetition=spec.repetition, seed=spec.seed, status="ok", error=None)
    metrics: dict[str, Any] = {}
    cycle_table: pd.DataFrame | None = None
    try:
        from vosim.model import VOModel

        model = VOModel(**spec.kwargs, rng=spec.seed)
        model.run()
        jobs = model.job_frame()
        cycles = model.cycle_frame()
        metrics = model.summary(jobs, cycles)
        metrics["node_count"] = model.node_count
        metrics["cycles"] = len(cycles)
        cycle_table = cycles.reset_index(drop=True)
        cycle_table.insert(0, "run_id", spec.run_id)
    except Exception as exc:
        row.update(status="error", error=f"{type(exc).__name__}: {exc}")
        metrics = {}
        cycle_table = None
    row["seconds"] = time.perf_counter() - started
    for key, value in metrics.items():
        row[key if key not in row else f"result_{key}"] = _flat(value)
    return row, cycle_table


def _failed_row(spec: RunSpec, message: str) -> dict[str, Any]:
    row: dict[str, Any] = {"run_id": spec.run_id, **spec.columns}
    row.update(repetition=spec.repetition, seed=spec.seed, status="error", error=message)
    row["seconds"] = math.nan
    return row


# -- backends ------------------------------------------------------------------------------------


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C is the parent's to handle (it stops the workers)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


Outcome = tuple[dict[str, Any], "pd.DataFrame | None"]


def _local_rows(pending: list[RunSpec], workers: int) -> Iterator[Outcome]:
    if workers == 1:
        for spec in pending:
            yield execute_with_cycles(spec)
        return
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_ignore_sigint,
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


def _import_ray():
    try:
        import ray
    except ImportError as exc:
        raise ParameterError(
            'backend "ray" needs Ray, an optional extra: pip install "vosim[ray]"'
        ) from exc
    return ray


def _ray_rows(
    pending: list[RunSpec], workers: int | None, address: str | None
) -> Iterator[Outcome]:
    ray = _import_ray()
    started = False
    if not ray.is_initialized():
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
        if address is None and workers is not None:
            options["num_cpus"] = workers
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
                    outcome = (_failed_row(spec, message), None)
                yield outcome
                following = next(queue, None)
                if following is not None:
                    in_flight[task.remote(following)] = following
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


# -- the sweep -----------------------------------------------------------------------------------


def part_path(out: str | Path, run_id: str) -> Path:
    """Where the part of run ``run_id`` is written under ``out``."""
    return Path(out) / PARTS / f"part-{run_id}.parquet"


def cycles_path(out: str | Path, run_id: str) -> Path:
    """Where the per-cycle table of run ``run_id`` is written under ``out``."""
    return Path(out) / CYCLES / f"part-{run_id}.parquet"


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@contextmanager
def _lock(out: Path) -> Iterator[None]:
    """Hold ``out/.lock`` so two sweeps do not write one directory at once (POSIX only)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".lock", "w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(
                str(out), None, "another vosim sweep is writing to this directory"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _manifest(config: SweepConfig, runs: list[RunSpec]) -> dict[str, Any]:
    return {
        "name": config.name,
        "description": config.description,
        "vosim_version": __version__,
        "sweep_file": str(Path(config.path).resolve()) if config.path else None,
        "sweep_text": config.text,
        "sweep": config.to_dict(),
        "parameters": list(config.sweep),
        "runs": [
            {
                "run_id": spec.run_id,
                "repetition": spec.repetition,
                "seed": spec.seed,
                "parameters": json.loads(json.dumps(spec.point)),
            }
            for spec in runs
        ],
    }


def _statuses(out: Path, ids: Sequence[str]) -> dict[str, str]:
    """Status of each run of ``ids`` whose part exists."""
    import pyarrow.parquet as pq

    found = {}
    for rid in ids:
        path = part_path(out, rid)
        if path.exists():
            found[rid] = pq.read_table(path, columns=["status"]).column("status")[0].as_py()
    return found


def run_sweep(
    config: SweepConfig,
    out: str | Path,
    *,
    workers: int | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    retry_failed: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> SweepResult:
    """Run every run of a sweep not yet finished in ``out``; write one part per run.

    Parameters
    ----------
    config : SweepConfig
        The sweep (:func:`vosim.runs.config.load_sweep`).
    out : str or Path
        Output directory (created); see the module docstring for its layout.
    workers : int or None
        Runs at once (>= 1). ``None``: this machine's CPUs for ``"local"``; as many as the Ray
        cluster schedules for ``"ray"``. 1 with ``"local"`` runs in this process.
    backend : {"local", "ray"}
        Processes on this machine, or Ray tasks.
    ray_address : str or None
        Ray cluster to connect to (e.g. ``"auto"``, ``"ray://host:10001"``); ``None`` starts
        a local Ray instance (unless Ray is already initialised). Only with ``"ray"``.
    retry_failed : bool
        Run again the runs recorded with status ``"error"`` (by default they count as done).
    progress : callable or None
        Called as ``progress(done, total)`` once after planning (``done`` = runs already
        finished) and after each run.

    Returns
    -------
    SweepResult

    Raises
    ------
    ParameterError
        Unknown backend, ``workers < 1``, ``ray_address`` without Ray, or Ray not installed.
    ConfigError
        ``out`` holds results of another vosim version, or another sweep is writing to it.
    RuntimeError
        A local worker process died (the finished parts are kept).
    """
    if backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ParameterError(f"workers must be an integer >= 1 or None, got {workers!r}")
    if ray_address is not None and backend != "ray":
        raise ParameterError("ray_address is only for backend 'ray'")
    if backend == "ray":
        _import_ray()
    started = time.perf_counter()
    out = Path(out)
    runs = expand(config)
    with _lock(out):
        manifest_path = out / MANIFEST
        if manifest_path.exists() and any((out / PARTS).glob("part-*.parquet")):
            try:
                version = json.loads(manifest_path.read_text()).get("vosim_version")
            except (OSError, ValueError):
                version = None
            if version is not None and version != __version__:
                raise ConfigError(
                    str(manifest_path),
                    None,
                    f"{out} holds runs of vosim {version}, this is vosim {__version__}; "
                    "use a new output directory",
                )
        write_json(_manifest(config, runs), manifest_path)
        for folder in (PARTS, CYCLES):  # temporary files left by a sweep killed mid-write
            for stale in (out / folder).glob(".part-*.tmp"):
                stale.unlink(missing_ok=True)

        statuses = _statuses(out, [spec.run_id for spec in runs])
        if retry_failed:
            statuses = {rid: s for rid, s in statuses.items() if s != "error"}
        failed = sum(s == "error" for s in statuses.values())
        pending = [spec for spec in runs if spec.run_id not in statuses]
        skipped = len(runs) - len(pending)
        if progress is not None:
            progress(skipped, len(runs))
        ran = 0
        interrupted = False
        if pending:
            if backend == "local":
                count = min(workers or _cpus(), len(pending))
                rows = _local_rows(pending, count)
            else:
                rows = _ray_rows(pending, workers, ray_address)
            try:
                with closing(rows):
                    for row, cycles in rows:
                        if cycles is not None:  # before the part, which marks the run done
                            write_table(cycles, cycles_path(out, row["run_id"]))
                        write_table(pd.DataFrame([row]), part_path(out, row["run_id"]))
                        ran += 1
                        failed += row["status"] == "error"
                        if progress is not None:
                            progress(skipped + ran, len(runs))
            except KeyboardInterrupt:
                interrupted = True
    return SweepResult(
        out=out,
        total=len(runs),
        ran=ran,
        skipped=skipped,
        failed=failed,
        seconds=time.perf_counter() - started,
        interrupted=interrupted,
    )


def _finished(out: str | Path, path_of) -> tuple[dict, list[Path]]:
    """The manifest of ``out`` and ``path_of(out, run_id)`` of each finished run, in order.

    A run is finished when its result part exists; ``path_of`` names the file wanted
    (the part itself, or the run's cycle table, listed only if it exists too).
    """
    out = Path(out)
    manifest = json.loads((out / MANIFEST).read_text())
    paths = []
    for entry in manifest["runs"]:
        path = path_of(out, entry["run_id"])
        if path.exists() and part_path(out, entry["run_id"]).exists():
            paths.append(path)
    return manifest, paths


def load_results(out: str | Path) -> pd.DataFrame:
    """The table of a sweep's finished runs, in the sweep's order.

    Parameters
    ----------
    out : str or Path
        A :func:`run_sweep` output directory.

    Returns
    -------
    pandas.DataFrame
        One row per finished run of the manifest (in its order: combinations in file order,
        repetitions innermost; unfinished runs are absent), columns as in the module
        docstring. Integer metrics of a table with failed runs are floats (NaN where failed).

    Raises
    ------
    FileNotFoundError
        ``out`` has no ``manifest.json``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    manifest, parts = _finished(out, part_path)
    tables = [pq.read_table(path).replace_schema_metadata(None) for path in parts]
    if not tables:
        columns = ["run_id", *manifest["parameters"], *RESERVED_COLUMNS[1:]]
        return pd.DataFrame(columns=columns)
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


def load_cycles(out: str | Path) -> pd.DataFrame:
    """The per-cycle tables of a sweep's finished runs, stacked in the sweep's order.

    Parameters
    ----------
    out : str or Path
        A :func:`run_sweep` output directory.

    Returns
    -------
    pandas.DataFrame
        One row per scheduling cycle of each finished run that has a cycle table (runs that
        raised, and runs written by a vosim without cycle tables, have none): ``run_id`` then
        the columns of ``VOModel.cycle_frame()`` (``time`` in model seconds,
        ``owners_active``, ``users_active``, ``utilization``, ...). Empty, with the column
        ``run_id`` only, when no run has one.

    Raises
    ------
    FileNotFoundError
        ``out`` has no ``manifest.json``.
    """
    _, parts = _finished(out, cycles_path)
    frames = [pd.read_parquet(path) for path in parts]
    if not frames:
        return pd.DataFrame(columns=["run_id"])
    return pd.concat(frames, ignore_index=True)
