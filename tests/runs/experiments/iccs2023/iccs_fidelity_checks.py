"""Checks shared by the fidelity tests of ICCS 2021 and ICCS 2023 (rows of ``fidelity.md``).

Imported as ``runs.experiments.iccs2023.iccs_fidelity_checks`` (``tests/`` is on the path, as
for ``slot_cases``) by ``test_iccs2021_fidelity.py`` and ``test_iccs2023_fidelity.py``, with
the fixture :func:`quick_table`.
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest

from vosim.runs.experiments import ExperimentConfig, experiments
from vosim.runs.experiments.base import MATCHES, NO_VALUE, NOT_IN_GRID, Fidelity
from vosim.runs.store import write_table


@pytest.fixture(scope="module")
def quick_table(tmp_path_factory) -> Callable[[str], pd.DataFrame]:
    """name -> the experiment's quick table, read back from its parquet as ``vosim`` does."""
    cache: dict[str, pd.DataFrame] = {}

    def get(name: str) -> pd.DataFrame:
        if name not in cache:
            experiment = experiments()[name]
            config = ExperimentConfig(experiment.quick_repetitions, seed=1, quick=True)
            table, _ = experiment.run(config, lambda k: None)
            path = write_table(table, tmp_path_factory.mktemp(name) / f"{name}.parquet")
            cache[name] = pd.read_parquet(path)
        return cache[name]

    return get


def check_quick_rows(
    name: str, function: Callable, count: int, texts: list[str], table: pd.DataFrame, missing: int
) -> None:
    """The quick run's rows: the paper's ``texts`` beside vosim's, ``missing`` not in the grid."""
    assert experiments()[name].fidelity is function
    rows = function(table)
    assert len(rows) == count
    assert all(isinstance(r, Fidelity) and r.match in MATCHES for r in rows)
    papers = [r.paper for r in rows]
    for text in texts:
        assert any(text in paper for paper in papers), (text, papers)
    not_in_grid = [r for r in rows if r.vosim == NOT_IN_GRID]
    assert len(not_in_grid) == missing
    for r in not_in_grid:
        assert r.match == "no" and r.reason.startswith("Not in this run's grid.")
    for r in rows:
        if r.vosim != NOT_IN_GRID:
            assert any(ch.isdigit() for ch in r.vosim) or r.vosim in (
                "no C",
                "at no C",
                NO_VALUE,
            ), r
            # the reason gives the rule, and a cause when the values differ
            assert r.reason.startswith("Yes ")
            if r.match != "yes":
                assert "ause" in r.reason or "notes" in r.reason, r.reason


def check_verdicts(
    function: Callable, count: int, like_paper: pd.DataFrame, far: pd.DataFrame
) -> list[Fidelity]:
    """Every row "yes" on ``like_paper``, "no" on ``far``; the good rows, for further checks."""
    good, bad = function(like_paper), function(far)
    assert len(good) == len(bad) == count
    assert [r.match for r in good] == ["yes"] * count, [(r.quantity, r.vosim) for r in good]
    assert [r.match for r in bad] == ["no"] * count, [(r.quantity, r.vosim) for r in bad]
    # a "yes" gives the rule only, unless the value was calibrated (it says so); a "no" adds a
    # cause (stated, or "Cause unknown")
    assert all(r.reason.startswith("Yes ") for r in good + bad)
    for g, b in zip(good, bad, strict=True):
        assert len(b.reason) > len(g.reason) or (g.reason == b.reason and "Calibrated" in g.reason)
    return good
