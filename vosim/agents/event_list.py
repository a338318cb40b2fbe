"""The model's pending Mesa events, read in one place: the only use of Mesa's private list.

Mesa 3.5 gives a model no public way to look at the events it has scheduled
(``Model._event_list`` is private), and the metascheduler needs two looks: whether another
event waits at the current time (an event-driven pass then runs after it) and which live
events come next (a periodic cycle that cannot act skips ahead to the next one). Both go
through here, so a Mesa upgrade that changes the list breaks one module and its test
(``tests/agents/test_event_list.py``), not the agents. ``pyproject.toml`` pins
``mesa >= 3.5, < 3.6``.
"""

from __future__ import annotations

import mesa

__all__ = ["earliest_time", "next_live_events"]


def earliest_time(model: mesa.Model) -> float | None:
    """The time of the model's earliest scheduled event, cancelled or not (``None``: none).

    ``O(1)``: the head of Mesa's heap. A cancelled event may be the head; callers use this
    only where an extra look is harmless (an event-driven pass deferred behind an event that
    will not run still runs at the same time).

    Parameters
    ----------
    model : mesa.Model
        A model whose events are scheduled with ``schedule_event`` (times in model time units).

    References
    ----------
    Mesa 3.5, ``mesa.time.events.EventList`` (a heap of ``Event`` ordered by time, priority
    and insertion); no paper: vosim's event-driven passes.
    """
    events = model._event_list._events
    return events[0].time if events else None


def next_live_events(model: mesa.Model, n: int) -> list:
    """The model's next ``n`` events that are not cancelled, earliest first (``n >= 1``).

    ``O(events)`` (Mesa filters the cancelled ones). Fewer than ``n`` when fewer are live;
    empty when none is.

    Parameters
    ----------
    model : mesa.Model
        The model.
    n : int
        How many events to return at most.

    Returns
    -------
    list of mesa.time.Event
        Each with ``time`` (model time units) and ``fn()`` (its callable, ``None`` once the
        callable is gone).

    References
    ----------
    Mesa 3.5, ``EventList.peek_ahead``; no paper: vosim's skipping of idle periodic cycles.
    """
    try:
        return model._event_list.peek_ahead(n)
    except IndexError:  # Mesa raises on a list with no event at all
        return []
