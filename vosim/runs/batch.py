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
    DIR/groups/part-<id>.parquet  the run's ``VOModel.group_frame()`` (one row per group of
                                users, LCG-2005-1's VOs: jobs, waits, where its work ran)
                                with a ``run_id`` column, written with its cycles
    DIR/group_sites/part-<id>.parquet  the run's ``VOModel.group_site_frame()`` (one row per
                                group and site it bought from: the site x VO view)
    DIR/networks/part-<id>.graphml  the run's user-owner market (``VOModel.market_graph()``,
                                :mod:`vosim.analysis.network`) as GraphML, written with its
                                cycles (a run that raised has none)

A row has the columns ``run_id``, the swept parameters (JSON text where a value is an array,
a table, or the values mix types; ``None`` is null, NaN in a numeric column), ``repetition``,
``seed``, ``status`` (``"ok"`` or ``"error"``), ``error`` (``"ExceptionType: message"`` or
null), ``seconds`` (wall time of the run) and the metrics: ``VOModel.summary``'s keys (lists such
as ``owners_revenue_by_owner`` as JSON text: ``run_summary``'s, ``mean_vo_evaluation`` and the
market's concentration ``market_*``) plus ``node_count`` and ``cycles``. A run that raises is
recorded with status ``"error"`` and no metrics; the others go on.
:mod:`vosim.runs.sweep_results` reads the directory back: ``load_results`` the finished runs
in one table in the sweep's order, ``load_cycles`` their per-cycle tables (owners and users
active, prices, utilization...), ``load_table`` any of their per-run tables.

Resume: a run's id is a hash of all its model arguments, repetition and seed, the content of
the trace files it reads and the vosim version (:func:`run_id`), so on start every run whose
part exists is skipped; a sweep killed at any point and started again ends with the table an
uninterrupted sweep gives. Parts are content addressed: adding values to a sweep and running it
into the same directory reuses the finished runs, while editing a trace file runs them again; a
directory whose manifest names another vosim version is refused. One sweep at a time may write
a directory (a lock file). Parts are flushed to disk before their rename
(:mod:`vosim.runs.store`); one that cannot be read all the same (zero bytes or truncated, e.g.
by a power cut on a file system that reorders writes) counts as not done: the sweep runs it
again and says so, the loaders skip it and say so (an
:class:`~vosim.runs.sweep_results.UnreadablePartWarning`, one line ``vosim: warning: ...`` at
the command line).
A sweep of more than :data:`vosim.runs.config.MAX_RUNS` runs is refused before it is expanded.

Backends. ``"local"`` runs in this process when ``workers == 1`` and otherwise on a
:class:`concurrent.futures.ProcessPoolExecutor` of spawned processes (spawn-safe: a worker
imports vosim and receives a :class:`~vosim.runs.backends.RunSpec`). It is preferred to Mesa's
:func:`mesa.batchrunner.batch_run`, which returns every result only when the whole batch ends
(so no per-run parts, no resume, and a crash loses all), lets one run's exception abort the
batch, drives ``model.step()`` up to ``max_steps`` rather than vosim's event-driven
``model.run()``, reports DataCollector variables rather than the run summary, and sets the
process-wide start method. A worker exits as soon as the sweep's process is gone (killed
included), so no worker or resource tracker outlives it. ``"ray"`` runs the same
:func:`~vosim.runs.backends.execute` as Ray tasks on a local instance or the cluster at
``ray_address`` (``pip install "vosim[ray]"``; a remote cluster's Python needs the same vosim
installed); the driver writes the parts, so they land on this machine. The backends are
:mod:`vosim.runs.backends`. Results do not depend on the backend
or the worker count: each run is seeded from the sweep, never from a worker.

Examples
--------
>>> import tempfile
>>> from vosim.runs.config import parse_sweep
>>> from vosim.runs.sweep_results import load_results
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
['61f24ad9bc4e', 'f41be8aeec7c']
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
import json
import os
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from vosim import __version__
from vosim.core.code_path import code_path
from vosim.errors import ConfigError, ParameterError
from vosim.runs.backends import (
    BACKENDS,
    RUN_TABLES,
    RunSpec,
    import_ray,
    local_outcomes,
    probe_ray_address,
    ray_outcomes,
)
from vosim.runs.config import SweepConfig, canonical_json, check_run_count
from vosim.runs.store import atomic_write_bytes, write_json, write_table
from vosim.runs.sweep_results import (
    MANIFEST,
    NETWORKS,
    PARTS,
    UnreadablePartWarning,
    network_path,
    part_path,
    parts_text,
    read_statuses,
)
from vosim.scenario import PARAMETERS

__all__ = [
    "SweepResult",
    "run_id",
    "expand",
    "run_sweep",
]

#: Model arguments that may name a file the run reads: their content goes in the run id.
FILE_ARGUMENTS = ("trace", "local_trace")


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


#: Digests of the trace files read by this process: (absolute path, size, mtime_ns) -> SHA-256.
_DIGESTS: dict[tuple[str, int, int], str] = {}


def _hash_file(path: str) -> str:
    """SHA-256 (hex) of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _file_digest(path: str) -> str:
    """:func:`_hash_file` of ``path``, cached per (path, size, mtime): one read per sweep."""
    info = os.stat(path)
    key = (os.path.abspath(path), info.st_size, info.st_mtime_ns)
    digest = _DIGESTS.get(key)
    if digest is None:
        digest = _DIGESTS[key] = _hash_file(path)
    return digest


def _file_digests(kwargs: dict[str, Any]) -> dict[str, str]:
    """SHA-256 of each :data:`FILE_ARGUMENTS` value that is a file, not a bundled name."""
    from vosim.data import SYNTHETIC_TRACES, TRACES

    digests = {}
    for key in FILE_ARGUMENTS:
        value = kwargs.get(key)
        if isinstance(value, Path):
            value = str(value)
        if not isinstance(value, str) or value in TRACES or value in SYNTHETIC_TRACES:
            continue
        try:
            digests[key] = _file_digest(value)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise ParameterError(f"{key} {value!r}: cannot read the file: {reason}") from None
    return digests


def run_id(
    kwargs: dict[str, Any],
    repetition: int,
    seed: int,
    digests: dict[str, str] | None = None,
) -> str:
    """The id of a run: 12 hex digits of a SHA-256 of everything known to shape its results.

    Covered: the model arguments ``kwargs`` (values, so a trace file's path too), the
    repetition, the seed, the *content* of the files named by ``trace`` and ``local_trace``
    (SHA-256 of the bytes; bundled trace names such as ``"UniLu-Gaia-2014-2"`` and synthetic
    streams such as ``"synthetic:aep"`` are fixed by the vosim version and not read) and
    ``vosim.__version__``. Not covered: edits to vosim's own code that keep its version (a
    development checkout), and the versions of its dependencies (Mesa, NumPy, pandas); use a
    new output directory after such changes.

    Parameters
    ----------
    kwargs : dict
        The run's :class:`vosim.VOModel` keyword arguments but ``rng`` (JSON values).
    repetition : int
        0-based repetition.
    seed : int
        The model's seed.
    digests : dict or None
        Argument -> SHA-256 of its file, as computed here when ``None`` (each file is read
        once per process while its size and modification time stay the same).

    Returns
    -------
    str
        12 lowercase hex digits.

    Raises
    ------
    ParameterError
        A trace file named in ``kwargs`` cannot be read (it names the argument and path).

    References
    ----------
    vosim's rule: a trace file's content is part of the run id, so an edited trace file does
    not reuse the old results.

    Examples
    --------
    >>> run_id({"jobs": 30, "ua": 25.0}, 0, 7)
    '3e183c45ba1f'
    """
    if digests is None:
        digests = _file_digests(kwargs)
    text = canonical_json(
        {
            "kwargs": kwargs,
            "repetition": repetition,
            "seed": seed,
            "files": digests,
            "vosim": __version__,
        }
    )
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def expand(config: SweepConfig) -> list[RunSpec]:
    """The runs of a sweep: each swept combination, [[policy]], baseline, each repetition.

    Parameters
    ----------
    config : SweepConfig
        A validated sweep.

    Returns
    -------
    list of RunSpec
        ``config.run_count`` runs: combinations in :meth:`SweepConfig.points` order, then
        :meth:`SweepConfig.policy_points` (column ``named_policy``) and
        :meth:`SweepConfig.baseline_points` (column ``baseline``), repetitions innermost;
        ids are distinct and stable (they depend on values, trace contents and the vosim
        version only; see :func:`run_id`).

    Raises
    ------
    ConfigError
        More than :data:`vosim.runs.config.MAX_RUNS` runs (counted before expanding).
    ParameterError
        A trace file cannot be read.
    """
    check_run_count(config)
    fixed = {k: config.scenario.get(k, PARAMETERS[k].default) for k in config.columns}
    encoders = {
        key: _column_encoder(
            [
                *config.sweep.get(key, ()),
                *(b[key] for b in (*config.policies, *config.baselines) if key in b),
                fixed[key],
            ]
        )
        for key in config.columns
    }
    points = [(None, None, point) for point in config.points()]
    points += [(named, None, point) for named, point in config.policy_points()]
    points += [(None, base, point) for base, point in config.baseline_points()]
    runs = []
    for named, baseline, point in points:
        kwargs = {**config.scenario, **point}
        digests = _file_digests(kwargs)
        # a swept policy shows the fixed tables' keys at its own values; a [[policy]] or a
        # baseline leaves the swept keys it does not vary empty
        grid = named is None and baseline is None
        shown = {k: point.get(k, fixed[k] if grid else None) for k in config.columns}
        columns = {key: encoders[key](value) for key, value in shown.items()}
        if config.policies:
            columns["named_policy"] = named
        if config.baselines:
            columns["baseline"] = baseline
        for repetition in range(config.repetitions):
            seed = config.run_seed(point, repetition)
            window = config.window(kwargs, repetition)  # with segments, its own window
            rid = run_id(window, repetition, seed, digests)
            runs.append(RunSpec(rid, point, repetition, seed, window, columns))
    return runs


# -- the sweep -----------------------------------------------------------------------------------


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
        "code_path": code_path(),
        "sweep_file": str(Path(config.path).resolve()) if config.path else None,
        "sweep_text": config.text,
        "sweep": config.to_dict(),
        "parameters": config.columns,
        "factors": list(config.factors),
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


# Complexity above 15: checks, lock, resume and the write of each outcome share one directory and
# one lock, held across the backends' generator.
def run_sweep(  # noqa: C901
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
        a new local Ray instance, even while a cluster runs on this machine (unless Ray is
        already initialised in this process, or the ``RAY_ADDRESS`` environment variable
        names a cluster). Only with ``"ray"``.
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
        Unknown backend, ``workers < 1``, ``ray_address`` without Ray, Ray not installed, or
        nothing answers at ``ray_address`` within :data:`RAY_CONNECT_TIMEOUT`.
    ConfigError
        ``out`` holds results of another vosim version, another sweep is writing to it, or the
        sweep has more than :data:`vosim.runs.config.MAX_RUNS` runs.
    RuntimeError
        A local worker process died (the finished parts are kept).

    Warns
    -----
    UnreadablePartWarning
        Parts of ``out`` cannot be read: they are named, and their runs run again.
    """
    if backend not in BACKENDS:
        raise ParameterError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ParameterError(f"workers must be an integer >= 1 or None, got {workers!r}")
    if ray_address is not None and backend != "ray":
        raise ParameterError("ray_address is only for backend 'ray'")
    if backend == "ray" and not import_ray().is_initialized():
        probe_ray_address(ray_address)
    started = time.perf_counter()
    out = Path(out)
    runs = expand(config)
    with _lock(out):
        manifest_path = out / MANIFEST
        if manifest_path.exists() and any((out / PARTS).glob("part-*.parquet")):
            try:
                previous = json.loads(manifest_path.read_text())
            except (OSError, ValueError):
                previous = None
            version = previous.get("vosim_version") if isinstance(previous, dict) else None
            if version is not None and version != __version__:
                raise ConfigError(
                    str(manifest_path),
                    None,
                    f"{out} holds runs of vosim {version}, this is vosim {__version__}; "
                    "use a new output directory",
                )
        write_json(_manifest(config, runs), manifest_path)
        for folder in (PARTS, *RUN_TABLES, NETWORKS):  # temporary files of a sweep killed mid-write
            for stale in (out / folder).glob(".part-*.tmp"):
                stale.unlink(missing_ok=True)

        statuses, unreadable = read_statuses(out, [spec.run_id for spec in runs])
        if unreadable:
            count = len(unreadable)
            warnings.warn(
                f"{parts_text(unreadable)}: running {'it' if count == 1 else 'them'} again",
                UnreadablePartWarning,
                stacklevel=2,
            )
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
                rows = local_outcomes(pending, count)
            else:
                rows = ray_outcomes(pending, workers, ray_address)
            try:
                with closing(rows):
                    for row, tables, network in rows:
                        for kind, table in (tables or {}).items():  # before the part, which
                            write_table(table, out / kind / f"part-{row['run_id']}.parquet")
                        if network is not None:  # marks the run done
                            atomic_write_bytes(network_path(out, row["run_id"]), network.encode())
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
