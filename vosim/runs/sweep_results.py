"""A sweep's directory read back: its layout, its finished runs' tables, unreadable parts.

:func:`vosim.runs.batch.run_sweep` writes the directory (its layout is described there);
:func:`load_results` reads the finished runs into one table in the sweep's order,
:func:`load_cycles` their per-cycle tables and :func:`load_table` any of their per-run
tables. A part that cannot be read (zero bytes or truncated) is skipped with an
:class:`UnreadablePartWarning` naming it; the sweep runs it again.
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from vosim.errors import ConfigError
from vosim.runs.backends import CYCLES, RUN_TABLES

__all__ = [
    "MANIFEST",
    "UnreadablePartWarning",
    "cycles_path",
    "load_cycles",
    "load_results",
    "load_table",
    "network_path",
    "part_path",
    "parts_text",
    "read_statuses",
]

MANIFEST = "manifest.json"
PARTS = "runs"
NETWORKS = "networks"
#: Columns every row has, besides the swept parameters and the metrics.
RESERVED_COLUMNS = ("run_id", "repetition", "seed", "status", "error", "seconds")


class UnreadablePartWarning(UserWarning):
    """A part of a sweep directory cannot be read (zero bytes, truncated, not Parquet).

    :func:`~vosim.runs.batch.run_sweep` runs such a run again, :func:`load_results` and
    :func:`load_cycles` skip it; the message names the parts. The CLI prints it as one line
    ``vosim: warning: ...``.
    """


def part_path(out: str | Path, run_id: str) -> Path:
    """Where the part of run ``run_id`` is written under ``out``."""
    return Path(out) / PARTS / f"part-{run_id}.parquet"


def cycles_path(out: str | Path, run_id: str) -> Path:
    """Where the per-cycle table of run ``run_id`` is written under ``out``."""
    return Path(out) / CYCLES / f"part-{run_id}.parquet"


def network_path(out: str | Path, run_id: str) -> Path:
    """Where the market graph (GraphML) of run ``run_id`` is written under ``out``.

    ``out/networks/part-<run_id>.graphml`` (:func:`vosim.analysis.network.graphml_text`).
    """
    return Path(out) / NETWORKS / f"part-{run_id}.graphml"


#: What reading a spoiled Parquet file raises (pyarrow's errors are ValueError or OSError).
_UNREADABLE = (OSError, ValueError, KeyError, IndexError)


def _unreadable(path: Path) -> str | None:
    """Why the Parquet file ``path`` cannot be read (zero bytes, truncated), or ``None``."""
    import pyarrow.parquet as pq

    try:
        pq.read_metadata(path)
    except _UNREADABLE as exc:
        return _reason(exc)
    return None


def _reason(exc: BaseException) -> str:
    """The first line of an exception's message, without pyarrow's long path prefix."""
    text = (str(exc).splitlines() or [""])[0]
    text = re.sub(r"^Could not open Parquet input source '[^']*': ", "", text)
    return text or type(exc).__name__


def parts_text(unreadable: list[tuple[Path, str]]) -> str:
    """``"2 unreadable parts: runs/part-a.parquet (reason), ..."`` (at most 5 named).

    ``unreadable``: ``(path, reason)`` pairs, at least one. Source: vosim's sweep store.
    """
    count = len(unreadable)
    shown = [f"{path.parent.name}/{path.name} ({reason})" for path, reason in unreadable[:5]]
    more = f" and {count - 5} more" if count > 5 else ""
    return f"{count} unreadable part{'s' if count > 1 else ''}: {', '.join(shown)}{more}"


def read_statuses(out: Path, ids: Sequence[str]) -> tuple[dict[str, str], list[tuple[Path, str]]]:
    """Status of each run of ``ids`` whose part can be read, and the unreadable parts.

    ``out``: a sweep directory; ``ids``: run ids (12 hex digits), shape (r,). Returns
    ``({run_id: "ok" or "error"}, [(path, reason), ...])``. A run is done when its part reads
    and holds a status; one whose part, or whose ``"ok"`` run's cycle or group table, cannot
    be read (zero bytes, truncated) is not done, and its file is listed with the reason.
    Raises nothing for unreadable files (that is what it reports). Source: vosim's resumable
    sweep store (no paper).
    """
    import pyarrow.parquet as pq

    found: dict[str, str] = {}
    unreadable: list[tuple[Path, str]] = []
    for rid in ids:
        path = part_path(out, rid)
        if not path.exists():
            continue
        try:
            status = pq.read_table(path, columns=["status"]).column("status")[0].as_py()
        except _UNREADABLE as exc:
            unreadable.append((path, _reason(exc)))
            continue
        tables = [Path(out) / kind / f"part-{rid}.parquet" for kind in RUN_TABLES]
        broken = [
            (table, reason)
            for table in tables
            if status == "ok" and table.exists() and (reason := _unreadable(table))
        ]
        if broken:
            unreadable.extend(broken)
            continue
        found[rid] = status
    return found, unreadable


def _read_manifest(out: Path) -> dict:
    """The manifest of ``out``, checked to list its runs.

    Raises FileNotFoundError when there is none, and :class:`ConfigError` naming the file
    when it cannot be read or parsed or has no ``runs`` list of entries with a ``run_id``.
    """
    path = out / MANIFEST
    try:
        manifest = json.loads(path.read_bytes().decode("utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise ConfigError(str(path), None, f"cannot read the manifest: {_reason(exc)}") from None
    runs = manifest.get("runs") if isinstance(manifest, dict) else None
    if not isinstance(runs, list) or not all(
        isinstance(entry, dict) and isinstance(entry.get("run_id"), str) for entry in runs
    ):
        raise ConfigError(
            str(path),
            None,
            "no 'runs' list with a run_id per run: not a complete vosim sweep manifest (run "
            "the sweep again into this directory to rewrite it)",
        )
    return manifest


def _finished(out: str | Path, path_of) -> tuple[dict, list[Path], list[tuple[Path, str]]]:
    """The manifest of ``out`` and ``path_of(out, run_id)`` of each finished run, in order.

    A run is finished when its result part exists; ``path_of`` names the file wanted
    (the part itself, or the run's cycle table, listed only if it exists too and the run's
    part can be read: the third item lists the runs' parts that cannot, with the reason).
    """
    import pyarrow.parquet as pq

    out = Path(out)
    manifest = _read_manifest(out)
    paths, unreadable = [], []
    for entry in manifest["runs"]:
        part = part_path(out, entry["run_id"])
        path = path_of(out, entry["run_id"])
        if not (path.exists() and part.exists()):
            continue
        if path != part:  # a run whose part is unreadable is not finished
            try:
                pq.read_metadata(part)
            except _UNREADABLE as exc:
                unreadable.append((part, _reason(exc)))
                continue
        paths.append(path)
    return manifest, paths, unreadable


def _read_parts(paths: list[Path], read, unreadable: list[tuple[Path, str]]) -> list:
    """``read(path)`` of each path that can be read; warn once naming the others."""
    tables, unreadable = [], list(unreadable)
    for path in paths:
        try:
            tables.append(read(path))
        except _UNREADABLE as exc:
            unreadable.append((path, _reason(exc)))
    if unreadable:
        count = len(unreadable)
        warnings.warn(
            f"skipped {parts_text(unreadable)}; run the sweep again to redo "
            f"{'it' if count == 1 else 'them'}",
            UnreadablePartWarning,
            stacklevel=3,
        )
    return tables


def load_results(out: str | Path) -> pd.DataFrame:
    """The table of a sweep's finished runs, in the sweep's order.

    Parameters
    ----------
    out : str or Path
        A :func:`~vosim.runs.batch.run_sweep` output directory.

    Returns
    -------
    pandas.DataFrame
        One row per finished run of the manifest (in its order: combinations in file order,
        repetitions innermost; unfinished runs are absent), columns as
        :mod:`vosim.runs.batch` describes them. Integer metrics of a table with failed runs
        are floats (NaN where failed).

    Raises
    ------
    FileNotFoundError
        ``out`` has no ``manifest.json``.
    ConfigError
        The manifest cannot be read or lists no runs.

    Warns
    -----
    UnreadablePartWarning
        Parts that cannot be read (zero bytes, truncated) are skipped and named.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    manifest, parts, _ = _finished(out, part_path)
    tables = _read_parts(parts, lambda path: pq.read_table(path).replace_schema_metadata(None), [])
    if not tables:
        parameters = manifest.get("parameters")
        parameters = parameters if isinstance(parameters, list) else []
        columns = ["run_id", *parameters, *RESERVED_COLUMNS[1:]]
        return pd.DataFrame(columns=columns)
    return pa.concat_tables(tables, promote_options="permissive").to_pandas()


def load_cycles(out: str | Path) -> pd.DataFrame:
    """The per-cycle tables of a sweep's finished runs, stacked in the sweep's order.

    Parameters
    ----------
    out : str or Path
        A :func:`~vosim.runs.batch.run_sweep` output directory.

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
    ConfigError
        The manifest cannot be read or lists no runs.

    Warns
    -----
    UnreadablePartWarning
        Cycle tables that cannot be read (zero bytes, truncated), and those of runs whose
        part cannot be read, are skipped; the unreadable files are named.
    """
    return _load_tables(out, cycles_path)


def load_table(out: str | Path, kind: str) -> pd.DataFrame:
    """One kind of per-run table of a sweep's finished runs, stacked in the sweep's order.

    Parameters
    ----------
    out : str or Path
        A :func:`~vosim.runs.batch.run_sweep` output directory.
    kind : str
        One of :data:`RUN_TABLES`: ``"cycles"`` (:func:`load_cycles`), ``"groups"``
        (``VOModel.group_frame()``: one row per group of users, LCG-2005-1's VOs, with its
        jobs, waits in s and where its work ran) or ``"group_sites"``
        (``VOModel.group_site_frame()``: one row per group and site it bought from).

    Returns
    -------
    pandas.DataFrame
        ``run_id`` then the table's columns, for each finished run that has one. Empty, with
        the column ``run_id`` only, when no run has one.

    Raises
    ------
    ValueError
        ``kind`` is not one of :data:`RUN_TABLES` (the message lists them).
    FileNotFoundError
        ``out`` has no ``manifest.json``.
    ConfigError
        The manifest cannot be read or lists no runs.

    Warns
    -----
    UnreadablePartWarning
        As :func:`load_cycles`.

    References
    ----------
    vosim's sweep store (:mod:`vosim.runs.batch` describes it); no paper.
    """
    if kind not in RUN_TABLES:
        raise ValueError(f"unknown per-run table {kind!r}; available: {', '.join(RUN_TABLES)}")
    return _load_tables(out, lambda out, rid: Path(out) / kind / f"part-{rid}.parquet")


def _load_tables(out: str | Path, path_of) -> pd.DataFrame:
    """The per-run tables at ``path_of(out, run_id)`` of the finished runs, stacked."""
    _, parts, unreadable = _finished(out, path_of)
    frames = _read_parts(parts, pd.read_parquet, unreadable)
    if not frames:
        return pd.DataFrame(columns=["run_id"])
    return pd.concat(frames, ignore_index=True)
