"""Writing a run's results: Parquet tables and a JSON summary, each written atomically.

Atomically and durably: the data go to a temporary file in the target's directory, which is
flushed to disk (``fsync``) before it is renamed over the target, and the directory is flushed
after the rename. Without the first flush a power cut after the rename can leave a zero-byte or
truncated file under the final name (the rename reached the disk, the data did not); without
the second the rename itself may be lost.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pandas as pd

__all__ = ["write_table", "write_json", "atomic_write_bytes"]


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _fsync_directory(directory: Path) -> None:
    """Flush ``directory``'s entries (a rename into it) to disk; a no-op where unsupported."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # e.g. Windows cannot open a directory
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a directory
        pass
    finally:
        os.close(fd)


def _write_atomically(path: Path, write) -> Path:
    """Call ``write(fh)`` on a temporary file next to ``path``, flush it, rename it to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_directory(path.parent)
    return path


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a flushed temporary file and a rename.

    The file under ``path`` is never half-written, even after a power cut (see the module
    docstring).
    """
    _write_atomically(Path(path), lambda fh: fh.write(data))


def write_table(frame: pd.DataFrame, path: Path) -> Path:
    """Write ``frame`` as Parquet at ``path`` atomically and durably; returns ``path``.

    Readable with ``pandas.read_parquet(path)``; the file is flushed to disk before it is
    renamed to ``path`` (see the module docstring).
    """
    return _write_atomically(Path(path), lambda fh: frame.to_parquet(fh, index=False))


def write_json(obj: dict, path: Path) -> Path:
    """Write ``obj`` as indented JSON at ``path`` atomically (NaN as null); returns ``path``."""

    def clean(x):
        if isinstance(x, float) and x != x:
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list):
            return [clean(v) for v in x]
        return x

    atomic_write_bytes(Path(path), (json.dumps(clean(obj), indent=2) + "\n").encode())
    return Path(path)
