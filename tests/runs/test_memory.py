"""release_memory: freed pages go back to the system."""

from __future__ import annotations

import sys

import pyarrow as pa
import pytest

from vosim.runs import memory
from vosim.runs.memory import release_memory


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or memory._malloc_trim() is None,
    reason="malloc_trim is glibc's",
)
def test_freed_pages_inside_the_heap_go_back():
    # 600-byte objects come from the C heap, not Python's small-object arenas; a block kept
    # after them keeps the heap's top in place, so glibc does not trim the hole by itself
    chunks = [bytes(600) + i.to_bytes(4, "little") for i in range(120_000)]  # ~75 MB
    pin = bytes(600) + b"pin"
    before_free = _rss_mb()
    del chunks
    freed_not_trimmed = _rss_mb()
    assert release_memory() is True
    after = _rss_mb()
    assert before_free - freed_not_trimmed < 20  # glibc kept the hole ...
    assert freed_not_trimmed - after > 40  # ... and release_memory gave it back
    assert pin


def test_arrow_is_asked_to_release_its_heap(monkeypatch):
    asked = []

    class Pool:
        def release_unused(self):
            asked.append(True)

    monkeypatch.setattr(pa, "default_memory_pool", Pool)
    release_memory()
    assert asked == [True]


def test_no_c_library_trim_still_collects(monkeypatch):
    monkeypatch.setattr(memory, "_malloc_trim", lambda: None)
    assert release_memory() is False


def test_collect_false_skips_the_collection(monkeypatch):
    collected = []
    monkeypatch.setattr(memory.gc, "collect", lambda: collected.append(True) or 0)
    release_memory(collect=False)
    assert collected == []
    release_memory()
    assert collected == [True]
