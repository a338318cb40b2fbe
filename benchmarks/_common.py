"""Helpers shared by the benchmarks (not a benchmark itself)."""

from __future__ import annotations

import subprocess
from pathlib import Path

#: The repository root.
ROOT = Path(__file__).resolve().parents[1]


def commit(*paths: str) -> str:
    """Short HEAD commit, with ``+changes`` when any of ``paths`` differs from it."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", *paths], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return "unknown"
    return f"{head or 'unknown'}{' +changes' if dirty else ''}"
