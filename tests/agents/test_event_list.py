"""The one reader of Mesa's private event list: what the agents rely on, pinned."""

from __future__ import annotations

import mesa

from vosim.agents.event_list import earliest_time, next_live_events


class _Model(mesa.Model):
    """A model with no step events (as VOModel: its default step schedule stopped)."""

    def __init__(self) -> None:
        super().__init__()
        self._default_schedule.stop()

    def tick(self) -> None:
        pass


def test_the_earliest_event_counts_cancelled_ones_and_the_live_ones_skip_them():
    model = _Model()
    first = model.schedule_event(model.tick, at=0.5)
    model.schedule_event(model.tick, at=7.0)
    model.schedule_event(model.tick, at=9.0, priority=mesa.time.Priority.LOW)
    model.schedule_event(model.tick, at=6.0)
    assert earliest_time(model) == 0.5
    first.cancel()
    assert earliest_time(model) == 0.5  # the head may be cancelled: O(1), harmless
    assert [e.time for e in next_live_events(model, 2)] == [6.0, 7.0]
    assert [e.time for e in next_live_events(model, 9)] == [6.0, 7.0, 9.0]
    assert next_live_events(model, 1)[0].fn() is not None


def test_a_list_of_cancelled_events_has_no_live_event():
    model = _Model()  # its step event at 1.0 is cancelled
    assert earliest_time(model) == 1.0
    assert next_live_events(model, 2) == []
    model.schedule_event(model.tick, at=3.0).cancel()
    assert next_live_events(model, 2) == []


def test_no_other_module_reads_mesas_private_event_list():
    from pathlib import Path

    import vosim

    root = Path(vosim.__file__).parent
    readers = [
        str(p.relative_to(root))
        for p in root.rglob("*.py")
        if "_event_list" in p.read_text() and p.name != "event_list.py"
    ]
    assert readers == []
