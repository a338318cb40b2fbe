"""Layout rules of issue 17 that a refactoring could silently undo."""

from __future__ import annotations

import inspect

from vosim.agents import metascheduler


def test_the_metascheduler_stays_one_short_cycle():
    """Issue 17 §5: one cycle path in MetaschedulerAgent, its module at most 300 lines."""
    lines = inspect.getsource(metascheduler).count("\n")
    assert lines <= 300, f"vosim/agents/metascheduler.py has {lines} lines (limit 300)"
    methods = [n for n, _ in inspect.getmembers(metascheduler.MetaschedulerAgent)]
    assert "cycle" in methods
    assert not [n for n in methods if n.startswith("_cycle")], "a second cycle path"
