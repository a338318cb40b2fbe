"""Layout rules that a refactoring could silently undo."""

from __future__ import annotations

import inspect

from vosim.agents import metascheduler


def test_the_metascheduler_stays_one_short_cycle():
    """One cycle path in MetaschedulerAgent, its module at most 300 lines."""
    lines = inspect.getsource(metascheduler).count("\n")
    assert lines <= 300, f"vosim/agents/metascheduler.py has {lines} lines (limit 300)"
    methods = [n for n, _ in inspect.getmembers(metascheduler.MetaschedulerAgent)]
    assert "cycle" in methods
    assert not [n for n in methods if n.startswith("_cycle")], "a second cycle path"


def test_the_code_carries_no_history():
    """History lives in git and docs/decisions.md: no issue numbers or dates in vosim/.

    A docstring describes the code as it is; "issue 18" or a date says when it changed. The
    pattern also catches a number on the next line ("issue\\n    18").
    """
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "vosim"
    pattern = re.compile(r"\bissues?\s+\d+|\b20\d\d-\d\d-\d\d\b", re.IGNORECASE)
    found = [
        f"{path.relative_to(root.parent)}:{text[: m.start()].count(chr(10)) + 1}: {m.group()}"
        for path in sorted(root.rglob("*.py"))
        for text in [path.read_text(encoding="utf-8")]
        for m in pattern.finditer(text)
    ]
    assert not found, "history in the code:\n" + "\n".join(found)
