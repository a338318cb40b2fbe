"""The compiled concurrency bound of a sleeping request class gives the numpy bound's float."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.core import Slot, SlotList
from vosim.policies import sleep_kernels
from vosim.policies.request_classes import RequestClasses, tail_starts


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**20),
    nodes=st.integers(1, 60),
    speeds=st.integers(1, 20),
    n=st.integers(2, 40),
    volume=st.sampled_from([50.0, 400.0, 3000.0]),
)
def test_compiled_concurrency_bound_is_the_numpy_bound(seed, nodes, speeds, n, volume):
    """``VOSIM_REFERENCE=1`` computes the bound in numpy; the compiled form gives the same float."""
    rng = np.random.default_rng(seed)
    performance = rng.integers(1, speeds + 1, nodes).astype(float) * 2.0
    classes = RequestClasses(1, performance, np.ones(nodes), interval=1000.0)
    cid = classes.assign(0, n, volume, np.inf, "amp", -1)
    now, horizon = 100.0, 1100.0
    rows = []
    for k in range(nodes):
        t = now
        for _ in range(rng.integers(0, 4)):
            a = t + float(rng.choice([0.0, 25.0, rng.uniform(0.0, 300.0)]))
            b = min(a + float(rng.choice([100.0, rng.uniform(1.0, 600.0)])), horizon)
            if a >= horizon:
                break
            rows.append(Slot(k, a, b, 1.0, performance[k]))
            t = b + 10.0
    slots = SlotList(rows)
    f = tail_starts(slots, horizon, nodes)
    pays = rng.random(nodes) < 0.8
    bounds = []
    with pytest.MonkeyPatch.context() as patch:
        for value in ("1", "0"):
            patch.setenv("VOSIM_REFERENCE", value)
            bounds.append(classes._concurrent_end(cid, pays, slots, f, now))
    assert bounds[0] == bounds[1]


def test_the_fast_path_calls_the_compiled_bound_and_the_reference_path_does_not(monkeypatch):
    performance = np.array([2.0, 2.0, 4.0])
    classes = RequestClasses(1, performance, np.ones(3), interval=1000.0)
    cid = classes.assign(0, 3, 400.0, np.inf, "amp", -1)
    slots = SlotList(
        [
            Slot(0, 100.0, 300.0, 1.0, 2.0),
            Slot(1, 250.0, 900.0, 1.0, 2.0),
            Slot(2, 500.0, 1100.0, 1.0, 4.0),
        ]
    )
    f = tail_starts(slots, 1100.0, 3)
    calls = []
    compiled = sleep_kernels.concurrent_end

    def spy(*args):
        calls.append(args)
        return compiled(*args)

    monkeypatch.setattr(sleep_kernels, "concurrent_end", spy)
    bounds = []
    for value in ("0", "1"):
        monkeypatch.setenv("VOSIM_REFERENCE", value)
        bounds.append(classes._concurrent_end(cid, np.ones(3, dtype=bool), slots, f, 100.0))
    assert len(calls) == 1  # the fast path only
    assert bounds[0] == bounds[1]
