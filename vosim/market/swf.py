"""Reader for the Standard Workload Format (SWF) of the Parallel Workloads Archive."""

from __future__ import annotations

import gzip
import io
import re
import warnings
import zlib
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from vosim.errors import TraceFormatError, TraceWarning
from vosim.market.nodes import MAX_RESOURCES

__all__ = ["SWF_COLUMNS", "FIELD_LIMIT", "read_swf", "header_int", "swf_frame"]

#: The 18 SWF fields in file order, as DataFrame column names, with their units.
#: Times are seconds, memory is KB per processor, ``-1`` (kept as ``-1``) means unknown.
SWF_COLUMNS: dict[str, str] = {
    "job_id": "job number (1-based in most logs)",
    "submit_time": "submit time, s from the log start (header UnixStartTime)",
    "wait_time": "wait time in the original system, s",
    "run_time": "run time (wall clock), s",
    "allocated_processors": "number of allocated processors",
    "average_cpu_time": "average CPU time used per processor, s",
    "used_memory": "used memory per processor, KB",
    "requested_processors": "requested number of processors",
    "requested_time": "requested run time (walltime limit), s",
    "requested_memory": "requested memory per processor, KB",
    "status": "1 completed, 0 failed, 5 cancelled (2-4: partial executions)",
    "user_id": "user ID",
    "group_id": "group ID",
    "executable_id": "executable (application) number",
    "queue_id": "queue number",
    "partition_id": "partition number (a grid site in multi-site logs)",
    "preceding_job_id": "preceding job number",
    "think_time": "think time from the preceding job, s",
}

_INT_COLUMNS = [c for c in SWF_COLUMNS if c not in ("average_cpu_time", "used_memory")]
# "Key: value"; a continuation line such as ";   http://..." is not a key.
_HEADER_RE = re.compile(r"^;\s*([A-Za-z][A-Za-z0-9_]*)\s*:(?!//)\s*(.*?)\s*$")


def _open_text(path: Path) -> str:
    """The file's text, line ends untranslated (``newline=""``), undecodable bytes replaced."""
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as fh:
            return fh.read()
    except FileNotFoundError:
        raise TraceFormatError(str(path), None, "no such file") from None
    except IsADirectoryError:
        raise TraceFormatError(str(path), None, "is a directory, not an SWF file") from None
    except (OSError, EOFError, zlib.error) as exc:  # bad gzip stream, permissions
        raise TraceFormatError(str(path), None, f"cannot be read ({exc})") from None


def _lines(text: str) -> list[str]:
    r"""The lines of an SWF file's text, numbered as ``grep -n`` and ``sed`` number them.

    Lines end at ``"\n"`` (a ``"\r\n"`` end loses its ``"\r"``); a stray ``"\r"`` inside a
    line is a space, so it neither splits the line nor shifts the numbers in error messages. A
    text without any ``"\n"`` is split at ``"\r"`` (old Mac line ends). Form feeds and other
    characters ``str.splitlines`` would split at stay inside their line (comments hold them).
    """
    if "\n" not in text:
        return text.split("\r")
    return [line.removesuffix("\r").replace("\r", " ") for line in text.split("\n")]


def _parse_header(lines: Iterable[str]) -> dict[str, str | list[str]]:
    header: dict[str, str | list[str]] = {}
    for line in lines:
        m = _HEADER_RE.match(line)
        if m is None:  # decorative lines (column titles, blank ';')
            continue
        key, value = m.groups()
        if key in header:
            old = header[key]
            header[key] = [*old, value] if isinstance(old, list) else [old, value]
        else:
            header[key] = value
    return header


def header_int(header: dict[str, str | list[str]], key: str) -> int | None:
    """Return an integer header field such as ``MaxNodes``, or ``None`` if absent or not a number.

    Parameters
    ----------
    header : dict
        ``read_swf(...).attrs["header"]``.
    key : str
        Header key without the colon, e.g. ``"MaxProcs"``.

    Examples
    --------
    >>> header_int({"MaxNodes": "151"}, "MaxNodes")
    151
    >>> header_int({}, "MaxNodes") is None
    True
    """
    value = header.get(key)
    if isinstance(value, list):
        value = value[0]
    try:
        return int(str(value).split()[0])
    except (ValueError, IndexError):
        return None


def _find_bad_line(path: Path, numbers: list[tuple[int, str]]) -> TraceFormatError:
    for lineno, line in numbers:
        fields = line.split()
        if len(fields) != 18:
            return TraceFormatError(
                str(path),
                lineno,
                f"expected 18 fields, found {len(fields)}: {_cut(line.strip())!r}",
            )
        for i, tok in enumerate(fields, start=1):
            try:
                value = float(tok)
            except ValueError:
                return TraceFormatError(
                    str(path),
                    lineno,
                    f"field {i} ({list(SWF_COLUMNS)[i - 1]}) is not a number: {_cut(tok)!r}",
                )
            if not np.isfinite(value):
                return TraceFormatError(
                    str(path),
                    lineno,
                    f"field {i} ({list(SWF_COLUMNS)[i - 1]}) is not finite: {_cut(tok)!r}",
                )
    return TraceFormatError(str(path), None, "unparseable job lines")  # pragma: no cover


def read_swf(path: str | Path, max_jobs: int | None = None) -> pd.DataFrame:
    """Read an SWF trace (plain or ``.gz``) into a DataFrame, one row per job line.

    Every line starting with ``;`` is header; ``Key: value`` header lines are collected into
    ``df.attrs["header"]`` (a key that repeats, such as ``Queue`` or ``Partition``, maps to a list).
    Blank lines are skipped. Every other line must hold 18 whitespace-separated numbers; fields
    are parsed as floats (some logs write decimals) and stored as ``int64`` except
    ``average_cpu_time`` and ``used_memory``, which stay ``float64``.

    Parameters
    ----------
    path : str or Path
        The trace file. A ``.gz`` suffix is read through gzip.
    max_jobs : int, optional
        Read only the first ``max_jobs`` job lines (a prefix of the trace). Must be >= 1.

    Returns
    -------
    pandas.DataFrame
        Columns are :data:`SWF_COLUMNS` in file order (times in seconds; ``-1`` = unknown).
        ``df.attrs`` holds ``"header"`` (dict) and ``"path"`` (str).

    Raises
    ------
    TraceFormatError
        The file is missing or unreadable, holds no job line, or a job line has the wrong
        number of fields, a non-numeric field or a field of magnitude above
        :data:`FIELD_LIMIT` (2^53), or a ``MaxNodes``/``MaxProcs`` header line whose value
        is not an integer in ``[1, MAX_RESOURCES]``; the message names the file and the line
        (a quoted line or field is cut to 80 characters).
    ValueError
        ``max_jobs < 1``.

    Warns
    -----
    TraceWarning
        Job ids repeat (several ``-1`` included): harmless to a run, which tells jobs apart by
        their position in the trace; the output tables carry the ids as read.

    References
    ----------
    Feitelson, Tsafrir, Krakov, "Experience with using the Parallel Workloads Archive",
    J. Parallel Distrib. Comput. 74(10), 2014; the SWF definition of the archive.

    Examples
    --------
    >>> from vosim.data import trace_path
    >>> df = read_swf(trace_path("NASA-iPSC-1993-3.1-cln"), max_jobs=3)
    >>> df[["job_id", "submit_time", "run_time", "allocated_processors"]].to_numpy().tolist()
    [[1, 0, 1451, 128], [2, 1460, 3726, 128], [3, 5198, 1067, 128]]
    >>> df.attrs["header"]["MaxNodes"]
    '128'
    """
    if max_jobs is not None and max_jobs < 1:
        raise ValueError(f"max_jobs must be >= 1, got {max_jobs}")
    path = Path(path)
    text = _open_text(path)
    header_lines: list[str] = []
    job_lines: list[tuple[int, str]] = []
    for lineno, line in enumerate(_lines(text), start=1):
        stripped = line.lstrip()
        if not stripped:
            continue
        if stripped.startswith(";"):
            header_lines.append(stripped)
            _check_size_line(path, lineno, stripped)
            continue
        if max_jobs is not None and len(job_lines) >= max_jobs:
            break
        job_lines.append((lineno, line))
    if not job_lines:
        raise TraceFormatError(str(path), None, "holds no job line (is it an SWF file?)")
    # pandas' C parser reads the fields; any line it cannot read as 18 finite numbers
    # (too many fields raise, too few give NaN) is found and named by _find_bad_line
    text = "\n".join(line for _, line in job_lines)
    try:
        values = pd.read_csv(
            io.StringIO(text), sep=r"\s+", header=None, dtype=np.float64, engine="c"
        ).to_numpy()
    except (ValueError, pd.errors.ParserError):
        raise _find_bad_line(path, job_lines) from None
    if values.shape != (len(job_lines), 18) or not np.isfinite(values).all():
        raise _find_bad_line(path, job_lines)
    _check_range(path, job_lines, values)
    df = pd.DataFrame(values, columns=list(SWF_COLUMNS))
    df[_INT_COLUMNS] = df[_INT_COLUMNS].round().astype(np.int64)
    df.attrs["header"] = _parse_header(header_lines)
    df.attrs["path"] = str(path)
    _warn_repeated_ids(path, job_lines, df["job_id"].to_numpy())
    return df


#: Header keys that size the domain (``VOModel`` builds that many nodes or processors).
SIZE_KEYS = ("MaxNodes", "MaxProcs")


def _check_size_line(path: Path, lineno: int, line: str) -> None:
    """Raise :class:`TraceFormatError` (file and line) if ``line`` gives a bad domain size.

    A ``MaxNodes`` or ``MaxProcs`` header line's value must start with an integer in
    ``[1, MAX_RESOURCES]`` (:data:`vosim.market.nodes.MAX_RESOURCES`; words may follow it,
    as in ``MaxProcs: 128 (4 per node)``; an empty value is as if absent): ``0``, ``-5``,
    ``151.5`` or ``lots`` would
    otherwise be ignored or build an impossible domain.
    """
    m = _HEADER_RE.match(line)
    if m is None or m.group(1) not in SIZE_KEYS:
        return
    key, value = m.groups()
    if not value:  # "MaxNodes:" with no value: as if absent
        return
    first = value.split()[0]
    if re.fullmatch(r"[+]?\d+", first) and 1 <= int(first) <= MAX_RESOURCES:
        return
    raise TraceFormatError(
        str(path),
        lineno,
        f"header {key} must be an integer in [1, {MAX_RESOURCES:,}], got {_cut(value)!r}",
    )


def _cut(text: str, limit: int = 80) -> str:
    """``text``, cut to ``limit`` characters with its length said (messages quote lines)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


#: The largest magnitude a field may have: every integer up to it is exact in float64, so
#: the ``int64`` columns hold exactly what the file says (larger values would wrap or round).
FIELD_LIMIT = 2**53


def _check_range(path: Path, job_lines: list[tuple[int, str]], values: np.ndarray) -> None:
    """Raise :class:`TraceFormatError` at the first field of magnitude above the limit.

    ``values``: the job lines' fields, shape (k, 18); the limit is :data:`FIELD_LIMIT`.
    """
    bad = np.abs(values) > FIELD_LIMIT
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise TraceFormatError(
            str(path),
            job_lines[row][0],
            f"field {col + 1} ({list(SWF_COLUMNS)[col]}) = {values[row, col]:g} is out of "
            f"range: its magnitude must be at most 2^53 = {FIELD_LIMIT}",
        )


def _warn_repeated_ids(path: Path, job_lines: list[tuple[int, str]], ids: np.ndarray) -> None:
    """Warn once (:class:`~vosim.errors.TraceWarning`) if job ids repeat, naming the lines.

    vosim tells jobs apart by their position in the trace, never by id, so a repeated id
    (or several ``-1``, SWF's "unknown") changes nothing in a run; output tables carry the
    ids as read, so two rows may share one.
    """
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    again = np.flatnonzero(first[inverse] != np.arange(ids.size))  # lines repeating an id
    if again.size == 0:
        return
    repeated, j = again.size, int(again[0])
    i = int(first[inverse[j]])
    warnings.warn(
        f"{path}: {repeated} job line(s) repeat an earlier job id (id {ids[i]} on lines "
        f"{job_lines[i][0]} and {job_lines[j][0]}); vosim tells jobs apart by their position "
        "in the trace, and output tables carry the ids as read",
        TraceWarning,
        stacklevel=3,
    )


def swf_frame(
    submit: np.ndarray,
    n: np.ndarray,
    requested_time: np.ndarray,
    run_time: np.ndarray,
    user: np.ndarray,
    *,
    nodes: int,
    note: str,
) -> pd.DataFrame:
    """Build a trace in :func:`~vosim.market.swf.read_swf` format from job columns.

    Parameters
    ----------
    submit : array of float, shape (k,)
        Submit times, model time units, non-decreasing.
    n : array of int, shape (k,)
        Node count of each job (``MaxProcs = MaxNodes = nodes``, so processors are nodes).
    requested_time, run_time : arrays of float, shape (k,)
        Reservation time ``T`` and actual run time on a node of the reference performance.
    user : array of int, shape (k,)
        User id of each job (SWF field 12).
    nodes : int
        Domain size written to the header.
    note : str
        Header ``Note`` (the source of the parameters).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`~vosim.market.swf.SWF_COLUMNS`; unknown fields are ``-1``.

    Examples
    --------
    >>> import numpy as np
    >>> f = swf_frame(np.array([0.0]), np.array([5]), np.array([150.0]), np.array([150.0]),
    ...               np.array([1]), nodes=100, note="AEP")
    >>> int(f.loc[0, "requested_processors"]), f.attrs["header"]["MaxNodes"]
    (5, '100')
    """
    k = len(submit)
    frame = pd.DataFrame({c: np.full(k, -1, dtype=np.int64) for c in SWF_COLUMNS})
    frame["average_cpu_time"] = -1.0
    frame["used_memory"] = -1.0
    frame["job_id"] = np.arange(1, k + 1)
    frame["submit_time"] = np.rint(submit).astype(np.int64)
    frame["wait_time"] = 0
    frame["run_time"] = np.rint(run_time).astype(np.int64)
    frame["allocated_processors"] = np.asarray(n, dtype=np.int64)
    frame["requested_processors"] = np.asarray(n, dtype=np.int64)
    frame["requested_time"] = np.rint(requested_time).astype(np.int64)
    frame["status"] = 1
    frame["user_id"] = np.asarray(user, dtype=np.int64)
    frame.attrs["header"] = {"MaxNodes": str(nodes), "MaxProcs": str(nodes), "Note": note}
    frame.attrs["path"] = note
    return frame
