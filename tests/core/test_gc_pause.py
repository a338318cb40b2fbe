"""deferred_full_collections: no automatic full collection inside, thresholds restored after."""

from __future__ import annotations

import gc
import threading

import pytest

from vosim.core.gc_pause import deferred_full_collections


def test_thresholds_are_restored_after_nested_contexts_and_errors():
    before = gc.get_threshold()
    with deferred_full_collections():
        inside = gc.get_threshold()
        assert inside[:2] == before[:2] and inside[2] > 10**6
        with deferred_full_collections():
            assert gc.get_threshold() == inside
        assert gc.get_threshold() == inside  # the outer context still holds
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), deferred_full_collections():
        raise RuntimeError("boom")
    assert gc.get_threshold() == before


def test_concurrent_contexts_restore_the_first_thresholds():
    before = gc.get_threshold()
    entered, release = threading.Barrier(3), threading.Event()

    def work():
        with deferred_full_collections():
            entered.wait()
            release.wait()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    entered.wait()
    assert gc.get_threshold()[2] > 10**6
    release.set()
    for t in threads:
        t.join()
    assert gc.get_threshold() == before


def test_young_generations_still_collect_inside():
    """Short-lived reference cycles are freed inside as outside; no full collection runs."""
    with deferred_full_collections():
        young = gc.get_stats()[0]["collections"]
        full = gc.get_stats()[2]["collections"]
        kept = []
        for i in range(300_000):
            a = [i]
            a.append(a)  # a cycle, garbage at once
            if i % 3 == 0:
                kept.append([i])  # long-lived objects, as a run's records
        assert gc.get_stats()[0]["collections"] > young
        assert gc.get_stats()[2]["collections"] == full
    assert gc.get_threshold()[2] < 10**6
