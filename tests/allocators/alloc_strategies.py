"""Hypothesis strategies of slot lists shared by the allocator tests (windows, screens)."""

import numpy as np
from hypothesis import strategies as st

from vosim.core import Slot, SlotList


@st.composite
def instances(draw):
    slots = []
    nodes = draw(st.integers(1, 5))
    for node in range(nodes):
        perf = float(draw(st.integers(2, 10)))
        price = float(draw(st.integers(1, 5)))
        t = 0.0
        for _ in range(draw(st.integers(1, 2))):
            start = t + draw(st.integers(0, 50))
            end = start + draw(st.integers(20, 200))
            slots.append(Slot(node, float(start), float(end), price, perf))
            t = end
    # availability depends on the node and on the start (a step in time)
    base = np.array([draw(st.floats(0.05, 1.0)) for _ in range(nodes)])
    cut = draw(st.integers(0, 150))
    n = draw(st.integers(1, nodes))
    volume = float(draw(st.integers(20, 300)))
    return SlotList(slots), base, cut, n, volume


@st.composite
def slot_lists(draw):
    slots = []
    for node in range(draw(st.integers(1, 6))):
        perf = float(draw(st.integers(2, 10)))
        price = draw(st.floats(0.5, 5.0))
        t = 0.0
        for _ in range(draw(st.integers(0, 3))):
            start = t + draw(st.integers(0, 100))
            end = start + draw(st.integers(1, 300))
            slots.append(Slot(node, float(start), float(end), price, perf))
            t = end
    return SlotList(slots)
