"""Event callbacks that Mesa weak-references cheaply."""

from __future__ import annotations

from functools import partial

__all__ = ["callback"]


def callback(agent: object, method: str) -> partial:
    """``agent.method`` as a callable to keep on ``agent`` and pass to ``schedule_event``.

    Mesa (3.5) holds an event's callable by weak reference: a bound method through
    ``weakref.WeakMethod``, a Python object made twice per event and called once (~2 µs per
    event), any other callable through a plain ``weakref.ref``. A ``functools.partial`` of
    the class's function and ``agent``, stored on the agent, lives as long as the agent and
    takes the plain reference; a trace run schedules ~90,000 events.

    Parameters
    ----------
    agent : object
        The object whose method the events call.
    method : str
        The method's name, looked up on ``type(agent)`` (so a subclass's override is used).

    Raises
    ------
    AttributeError
        ``type(agent)`` has no attribute ``method``.

    References
    ----------
    Mesa 3.5, ``mesa.time.events._create_callable_reference`` (no paper: vosim's speed).
    """
    return partial(getattr(type(agent), method), agent)
