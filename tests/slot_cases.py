"""Hypothesis strategies and the brute-force free-slot oracle shared by the slot and schedule tests.

Coordinates are multiples of 1/4 so sums and differences are exact in float64: the cut
property can then be checked with ==, not approximately.
"""

from __future__ import annotations

import numpy as np
from hypothesis import settings
from hypothesis import strategies as st

from vosim.core.slots import Slot
from vosim.market.slots import free_slots

SETTINGS = settings(max_examples=200, deadline=None)


# Coordinates are multiples of 1/4 so sums and differences are exact in float64: the cut
# property can then be checked with ==, not approximately.
Q = 4


def as_tuples(sl) -> list[tuple]:
    return [(s.node, s.start, s.end, s.price, s.performance) for s in sl]


@st.composite
def node_intervals(draw, max_count=3, lo=0, hi=400, touch=True):
    """Sorted disjoint intervals [a, b) in quarter units; touching ones allowed if ``touch``."""
    count = draw(st.integers(0, max_count))
    t = draw(st.integers(lo, lo + 40))
    out = []
    for _ in range(count):
        gap = draw(st.integers(0 if touch else 1, 40))
        length = draw(st.integers(1, 80))
        a, b = t + gap, t + gap + length
        if b > hi:
            break
        out.append((a / Q, b / Q))
        t = b
    return out


@st.composite
def slot_lists(draw, max_nodes=8, max_per_node=3):
    """Lists of valid slots: disjoint (possibly touching) slots per node, per-node attributes."""
    n_nodes = draw(st.integers(0, max_nodes))
    slots = []
    for node in draw(st.permutations(range(max_nodes)))[:n_nodes]:
        price = draw(st.integers(0, 20)) / Q
        perf = draw(st.integers(2, 10))
        for a, b in draw(node_intervals(max_per_node)):
            slots.append(Slot(node, a, b, price, float(perf)))
    return draw(st.permutations(slots))


def reference_free_slots(nodes, price, perf, busy, start, end):
    """Brute force: per node, the gaps between its sorted busy intervals clipped to the interval."""
    out = []
    for k in nodes:
        cur = start
        for a, b in sorted((a, b) for n, a, b in busy if n == k):
            a, b = max(a, start), min(b, end)
            if b <= a:
                continue  # outside [start, end)
            if a > cur:
                out.append((k, cur, a))
            cur = max(cur, b)
        if end > cur:
            out.append((k, cur, end))
    return sorted((k, a, b, float(price[k]), float(perf[k])) for k, a, b in out)


@st.composite
def busy_cases(draw):
    nodes = draw(st.lists(st.integers(0, 7), min_size=1, max_size=8, unique=True))
    price = np.asarray([draw(st.integers(0, 20)) / Q for _ in range(8)])
    perf = np.asarray([float(draw(st.integers(2, 10))) for _ in range(8)])
    busy = []
    for k in nodes:
        busy += [(k, a, b) for a, b in draw(node_intervals(max_count=5, lo=0, hi=500))]
    busy = draw(st.permutations(busy))
    start = draw(st.integers(0, 60)) / Q
    end = start + draw(st.integers(1, 120)) / Q
    return nodes, price, perf, busy, start, end


def call_free_slots(nodes, price, perf, busy, start, end):
    node = np.asarray([b[0] for b in busy], dtype=np.int64)
    a = np.asarray([b[1] for b in busy], dtype=float)
    b = np.asarray([b[2] for b in busy], dtype=float)
    return free_slots(np.asarray(nodes), price, perf, node, a, b, start, end)
