"""Freed memory handed back to the operating system between a run's output tables."""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import gc

import pyarrow as pa

__all__ = ["release_memory"]


@functools.cache
def _malloc_trim():
    """The C library's ``malloc_trim`` (glibc), or ``None`` where it has none (macOS, musl)."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def release_memory(*, collect: bool = True) -> bool:
    """Give the allocators' free pages back to the system, after a garbage collection.

    A run's records are millions of small objects; once a table is written and its transient
    copies are dropped, the freed pages stay with the allocators, so the process's resident
    size only grows and the next table (or the chart's renderer) is added on top. Two heaps
    hold them: Arrow's (pandas' text columns and Parquet writing; writing whole UniLu-Gaia's
    task table left ~70 MB there) and the C library's, whose ``malloc_trim(0)`` returns
    every wholly free page. Returns whether the C library could be asked (``False``: only
    the collection and Arrow's release ran).

    Parameters
    ----------
    collect : bool
        Run a full garbage collection first (frees objects held only in reference cycles,
        as a freed model's agents are). A table's transients are freed by reference counting
        alone; while the model is alive a full collection walks all of it (~120 ms on whole
        UniLu-Gaia, collecting nothing), so calls between tables pass ``False``.

    Raises
    ------
    Nothing.

    References
    ----------
    glibc manual, ``malloc_trim``; Apache Arrow, ``pyarrow.MemoryPool.release_unused`` (no
    paper: vosim's memory).
    """
    if collect:
        gc.collect()
    pa.default_memory_pool().release_unused()  # Arrow's own heap (mimalloc): Parquet writes
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
