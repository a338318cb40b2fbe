"""The quick AEP runs shared by the tests of vosim.runs.experiments.aep (run, fidelity)."""

import pandas as pd
import pytest

from vosim.runs.experiments import experiments, run_experiment

SEED = 3


@pytest.fixture(scope="module", name="quick_runs")
def quick_runs_fixture(tmp_path_factory):
    """Run each AEP experiment once in quick mode; name -> (table, files written, out dir)."""
    cache = {}

    def get(name):
        if name not in cache:
            out = tmp_path_factory.mktemp(name)
            ticks = []
            written = run_experiment(name, out, quick=True, seed=SEED, progress=ticks.append)
            assert sum(ticks) == experiments()[name].points(True)
            cache[name] = (pd.read_parquet(out / f"{name}.parquet"), written, out)
        return cache[name]

    return get
