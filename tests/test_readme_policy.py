"""The README's example policy runs: registered, chosen by name, its windows reserved."""

from __future__ import annotations

import re
from pathlib import Path

from vosim.core import registry
from vosim.model import VOModel
from vosim.policies import base

README = Path(__file__).parents[1] / "README.md"


def test_the_readmes_example_policy_runs_a_trace():
    text = README.read_text()
    block = re.search(r"<!-- example-policy -->\n```python\n(.*?)```", text, re.S).group(1)
    code = block.strip().splitlines()
    assert len([line for line in code if line.strip()]) <= 20 + 2  # "20 lines" (+ imports)
    namespace: dict = {}
    try:
        exec(compile(block, "README.md (example policy)", "exec"), namespace)
        model = VOModel(trace="NASA-iPSC-1993-3.1-cln", jobs=60, policy="smallest-first", rng=1)
        model.run()
        assert model.metascheduler.scheduler.name == "smallest-first"
        assert model.ledger.completed > 30 and model.ledger.settled
    finally:
        registry._ENTRIES["policy"].pop("smallest-first", None)
    assert "smallest-first" not in base.policies()
