"""The local load costs the VO what its processor time costs (Gaia's first 5,000 jobs, 3 seeds).

The "+ local load" step of the validation ladder beside its matched controls: the same
processor time removed as capacity, and added to the queue as trace-like jobs; and the local
jobs' median length halved and doubled at the same share. A local-load model that makes jobs
wait far longer than its processor time explains, or whose length moves the headline, fails.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from vosim.market.synthetic import load_trace
from vosim.runs.experiments.validation import local_load_rows

SEEDS = (1, 2, 3)


def _waits(seed: int) -> dict[str, float]:
    trace = load_trace("UniLu-Gaia-2014-2", 5000, np.random.default_rng(seed))
    return {step: s["mean_wait"] for step, s in local_load_rows(trace, seed).items()}


@pytest.fixture(scope="module")
def waits() -> dict[str, float]:
    with ProcessPoolExecutor(2) as pool:  # 15 runs of 5,000 jobs: both cores
        per_seed = list(pool.map(_waits, SEEDS))
    return {step: float(np.mean([w[step] for w in per_seed])) for step in per_seed[0]}


def test_local_load_is_within_2x_of_both_matched_controls(waits):
    local = waits["+ local load"]
    for control in ("control: fewer processors", "control: added jobs"):
        ratio = local / waits[control]
        assert 0.5 <= ratio <= 2.0, f"{control}: {waits[control]:,.0f} s, local {local:,.0f} s"


def test_local_job_length_halved_or_doubled_moves_the_wait_by_under_25_percent(waits):
    local = waits["+ local load"]
    for step in ("local length x0.5", "local length x2"):
        assert abs(waits[step] / local - 1) < 0.25, f"{step}: {waits[step]:,.0f} s vs {local:,.0f}"
