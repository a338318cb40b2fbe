"""WindowColumns: windows kept as columns equal the windows read one by one."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vosim.core import ResourceRequest, Window
from vosim.core.window_columns import WindowColumns
from vosim.core.windows import Spans

SPAN_COLUMNS = ("node", "start", "end", "price", "performance")


def window(rng: np.random.Generator, k: int) -> Window:
    """A window of ``k`` spans with random columns (their values are what is compared)."""
    start = float(rng.integers(0, 1000))
    end = start + rng.integers(1, 100, size=k).astype(float)
    spans = Spans(
        rng.integers(0, 500, size=k), np.full(k, start), end, rng.random(k), 1 + rng.random(k)
    )
    return Window(slots=spans, start=start, runtime=float((end - start).max()), cost=rng.random())


def plain(held: dict[int, tuple[int, float, Window]], jobs: list[int], budget: np.ndarray):
    """The columns built from the windows one by one (the form compression had before)."""
    rows = [held[j] for j in jobs]
    spans = [w.spans for _, _, w in rows]
    offsets = np.concatenate([[0], np.cumsum([sp.node.size for sp in spans])]).astype(np.int64)
    return (
        np.array([n for n, _, _ in rows], dtype=np.int64),
        np.array([v for _, v, _ in rows]),
        budget,
        np.array([w.start for _, _, w in rows]),
        np.array([w.runtime for _, _, w in rows]),
        np.array([w.cost for _, _, w in rows]),
        offsets,
        *(np.concatenate([getattr(sp, f) for sp in spans]) for f in SPAN_COLUMNS),
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    ops=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 40)), min_size=1, max_size=300),
)
def test_columns_equal_the_windows_after_any_writes_and_clears(seed, ops):
    """Writes (some re-writing a job, as a re-binding does), clears, growth and compaction."""
    rng = np.random.default_rng(seed)
    held = WindowColumns(60)
    kept: dict[int, tuple[int, float, Window]] = {}
    for job, k in ops:
        if k == 0:
            held.clear(job)
            kept.pop(job, None)
            continue
        w = window(rng, k)
        n, volume = int(rng.integers(1, 9)), float(rng.random())
        held.write(job, n, volume, w)
        kept[job] = (n, volume, w)
        jobs = rng.permutation(sorted(kept)).tolist()
        budget = rng.random(len(jobs))
        got = held.columns(np.array(jobs, dtype=np.int64), budget)
        want = plain(kept, jobs, budget)
        assert len(got) == len(want) == 12
        for g, e in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, e)
            assert g.dtype == e.dtype and g.flags.c_contiguous


def test_of_holds_each_reserved_window_and_a_cleared_job_has_no_span():
    rng = np.random.default_rng(1)
    w0, w3 = window(rng, 3), window(rng, 2)
    reserved = [
        (ResourceRequest(index=3, n=2, volume=5.0, budget=9.0), w3),
        (ResourceRequest(index=0, n=3, volume=1.0, budget=2.0), w0),
    ]
    held = WindowColumns.of(reserved)
    n, volume, budget, start, _, _, offsets, node, *_ = held.columns(
        np.array([3, 0]), np.array([9.0, 2.0])
    )
    assert n.tolist() == [2, 3] and volume.tolist() == [5.0, 1.0] and budget.tolist() == [9.0, 2.0]
    assert start.tolist() == [w3.start, w0.start] and offsets.tolist() == [0, 2, 5]
    np.testing.assert_array_equal(node, np.concatenate([w3.spans.node, w0.spans.node]))
    held.clear(3)
    assert held.columns(np.array([3, 0]), np.zeros(2))[6].tolist() == [0, 0, 3]


def test_a_negative_size_or_job_index_is_refused_by_name():
    with pytest.raises(ValueError, match="size must be >= 0, got -1"):
        WindowColumns(-1)
    w = window(np.random.default_rng(0), 1)
    with pytest.raises(ValueError, match="job indices must be >= 0, got -2"):
        WindowColumns.of([(ResourceRequest(index=-2, n=1, volume=1.0, budget=1.0), w)])


def test_rewrites_past_the_store_compact_it_and_keep_every_window():
    """Re-written windows leave garbage; the store compacts and grows, the columns hold."""
    rng = np.random.default_rng(7)
    held = WindowColumns(10)
    kept: dict[int, tuple[int, float, Window]] = {}
    for step in range(400):  # ~8,000 span rows written into a store of 1,024 at first
        job, w = int(rng.integers(0, 10)), window(rng, int(rng.integers(1, 40)))
        held.write(job, step, float(step), w)
        kept[job] = (step, float(step), w)
        jobs = sorted(kept)  # read after every write: a compaction moved the others' spans
        got = held.columns(np.array(jobs), np.zeros(len(jobs)))
        for g, e in zip(got, plain(kept, jobs, np.zeros(len(jobs))), strict=True):
            np.testing.assert_array_equal(g, e, err_msg=f"step {step}")
