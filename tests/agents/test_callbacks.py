"""Event callbacks: the agent's method, held by Mesa through a plain weak reference."""

from __future__ import annotations

import gc
import weakref

import mesa
import pytest

from vosim.agents.callbacks import callback
from vosim.model import VOModel


class _Clock(mesa.Agent):
    def __init__(self, model):
        super().__init__(model)
        self.ticks = []
        self._tick = callback(self, "tick")

    def tick(self):
        self.ticks.append(self.model.time)


class _LoudClock(_Clock):
    def tick(self):
        self.ticks.append(-self.model.time)


@pytest.mark.parametrize(("cls", "sign"), [(_Clock, 1), (_LoudClock, -1)])
def test_a_callback_runs_the_agents_own_method(cls, sign):
    model = mesa.Model()
    clock = cls(model)
    for t in (2.0, 5.0):
        model.schedule_event(clock._tick, at=t)
    model.run_until(10.0)
    assert clock.ticks == [sign * 2.0, sign * 5.0]


def test_events_of_a_run_hold_plain_weak_references():
    """Submissions and completions: no WeakMethod (made twice per event, ~1 us each)."""
    model = VOModel(
        trace="UniLu-Gaia-2014-2", jobs=200, machine=True, cycle_period=0, policy="easy", rng=1
    )
    model.run_until(model.jobs[100].submit_time)
    events = [e for e in model._event_list._events if not e.CANCELED]
    assert events
    assert all(type(e.fn) is weakref.ref for e in events)


def test_a_removed_agents_callback_lapses():
    model = mesa.Model()
    clock = _Clock(model)
    model.schedule_event(clock._tick, at=1.0)
    ref = weakref.ref(clock)
    clock.remove()
    del clock
    gc.collect()
    assert ref() is None
    model.run_until(2.0)  # the event finds its callable gone and does nothing
