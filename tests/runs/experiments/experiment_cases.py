"""Tiny registered experiments shared by the tests of vosim.runs.experiments (base, fidelity)."""

from __future__ import annotations

import altair as alt
import pandas as pd

from vosim.runs.experiments.base import Experiment, Fidelity, verdict


def _experiment(name: str, calls: list[str], value: float = 0.93, fail: bool = False, rows=True):
    def run(config, progress):
        calls.append(name)
        if fail:
            raise ValueError("boom | with a pipe")
        progress(1)
        table = pd.DataFrame({"x": [0.0, 1.0], "p": [value, 0.5], "seed": config.seed})
        return table, alt.Chart(table).mark_line().encode(x="x:Q", y="p:Q")

    def fidelity(table: pd.DataFrame) -> list[Fidelity]:
        v = float(table["p"].iloc[0])
        return [
            Fidelity(
                "Paper Fig. 1", "peak", "0.93", f"{v:.2f}", verdict(v, 0.93, 0.05, 0.25), "rule"
            )
        ]

    return Experiment(
        name, f"{name} test", 2, 1, run, lambda quick: 1, False, fidelity if rows else None
    )
