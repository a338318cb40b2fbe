"""The small slot market and the criterion names shared by the AEP and window-registry tests."""

from __future__ import annotations

from vosim.core import Slot, SlotList

CRITERIA = ("amp", "min_cost")


def market() -> SlotList:
    """Two dear nodes free from 0, two cheap ones free from 30 and 40 (all performance 2)."""
    return SlotList(
        [
            Slot(0, 0.0, 100.0, 5.0, 2.0),
            Slot(1, 0.0, 100.0, 5.0, 2.0),
            Slot(2, 30.0, 100.0, 1.0, 2.0),
            Slot(3, 40.0, 100.0, 1.0, 2.0),
        ]
    )
