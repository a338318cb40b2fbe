"""Golden tables: every policy on a prefix of each bundled trace gives the recorded tables.

A change that should not change behaviour (a refactoring, a speed-up, a new data structure)
must leave every table of these runs as recorded in ``tests/golden/tables.json``: the jobs,
tasks, cycles and owners' local jobs of each, as digests of their CSV text with floats to 10
significant digits (so the digests do not depend on the last bits of a sum). A change that
is meant to change behaviour rewrites the file, and says why in its commit::

    .venv/bin/python tests/test_golden.py --write

A failure names the run and the table; ``benchmarks/bench_previous.py`` then shows the rows
that differ against the commit the file was written at.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

GOLDEN = Path(__file__).parent / "golden" / "tables.json"
POLICIES = ("css", "availability", "conservative", "easy", "fcfs", "knapsack", "knapsack+easy")
TRACES = {
    "gaia": {"trace": "UniLu-Gaia-2014-2"},
    "nasa": {"trace": "NASA-iPSC-1993-3.1-cln"},
    "lcg": {"trace": "LCG-2005-1", "owners": "trace"},
}
#: Each run's VOModel arguments, by name: every policy on every trace's first 150 jobs,
#: and the owners' three rules for an arriving local job under a local load high enough
#: that they differ.
RUNS: dict[str, dict] = {
    f"{t}-{p}": {**kwargs, "jobs": 150, "policy": p}
    for t, kwargs in TRACES.items()
    for p in POLICIES
}
RUNS |= {
    f"gaia-css-local-{rule}": {
        **TRACES["gaia"],
        "jobs": 150,
        "local_load": (0.4, 0.6),
        "local_priority": rule,
    }
    for rule in ("displace", "queue", "preempt")
}


def _digest(frame: pd.DataFrame) -> dict[str, object]:
    text = frame.to_csv(index=False, float_format="%.10g")
    return {"rows": len(frame), "sha256": hashlib.sha256(text.encode()).hexdigest()}


def tables(kwargs: dict) -> dict[str, dict[str, object]]:
    """Run ``VOModel(**kwargs, rng=1)`` and digest its tables (rows and sha256 per table)."""
    from vosim.model import VOModel

    model = VOModel(**kwargs, rng=1)
    model.run()
    frames = {
        "jobs": model.job_frame(),
        "tasks": model.task_frame(),
        "cycles": model.cycle_frame(),
    }
    if model.local_jobs is not None:
        frames["local_jobs"] = model.local_jobs.frame()
    return {name: _digest(frame) for name, frame in frames.items()}


def _recorded() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_run_gives_its_recorded_tables(name):
    recorded = _recorded()
    assert name in recorded, f"{name} has no recorded tables: run tests/test_golden.py --write"
    got = tables(RUNS[name])
    for table, want in recorded[name].items():
        assert got.get(table) == want, (
            f"{name}: the {table} table differs from the recorded one "
            f"({got.get(table, {}).get('rows')} rows, recorded {want['rows']})"
        )
    assert set(got) == set(recorded[name])


def test_every_run_is_recorded_and_every_record_is_a_run():
    assert set(_recorded()) == set(RUNS)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_golden.py --write")
    GOLDEN.parent.mkdir(exist_ok=True)
    out = {}
    for name in sorted(RUNS):
        out[name] = tables(RUNS[name])
        print(name, {t: d["rows"] for t, d in out[name].items()}, flush=True)
    GOLDEN.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
