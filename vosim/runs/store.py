"""Writing a run's results: Parquet tables and a JSON summary, each written atomically."""

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


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_table(frame: pd.DataFrame, path: Path) -> Path:
    """Write ``frame`` as Parquet at ``path`` atomically; returns ``path``.

    Readable with ``pandas.read_parquet(path)``.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        frame.to_parquet(tmp, index=False)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


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
