"""Writes the CSS regression oracle: the job records of prefixes of the bundled traces.

First run before the scheduling cycle became a pluggable policy; re-recorded once, when each
owner's interval local load got its own random stream (the draws changed, nothing else),
under the oracle's settings :data:`BEFORE`, from the repository root:
``python tests/policies/make_css_oracle.py``. The files it writes are the oracle of
``test_css_regression.py``; regenerating them after a change to the cyclic scheme defeats
the test, so do it only when a change of records is intended and said in the commit.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from vosim.model import VOModel

HERE = Path(__file__).parent / "oracle"

#: (file stem, VOModel keyword arguments): the default CSS on each bundled trace, step 2 with
#: three alternatives, availability uncertainty with requeued failures, and demand pricing.
#: LCG has no MaxNodes header: its 24,515 processors as nodes need gigabytes, so 300 nodes.
CASES: dict[str, dict] = {
    "gaia-default": dict(trace="UniLu-Gaia-2014-2", jobs=600, rng=1),
    "nasa-default": dict(trace="NASA-iPSC-1993-3.1-cln", jobs=300, rng=2),
    "lcg-default": dict(trace="LCG-2005-1", jobs=400, nodes=300, rng=3),
    "gaia-alternatives": dict(
        trace="UniLu-Gaia-2014-2", jobs=300, max_alternatives=3, ua=50.0, rng=4
    ),
    "nasa-availability": dict(trace="NASA-iPSC-1993-3.1-cln", jobs=150, availability=True, rng=5),
    "gaia-demand": dict(trace="UniLu-Gaia-2014-2", jobs=300, pricing_policy="demand", rng=6),
}


#: The oracle's settings where today's defaults differ (``test_css_regression.py`` says why).
BEFORE = {
    "patience": None,
    "replan": "never",
    "resources": "nodes",
    "local_load": (0.10, 0.50),
    "local_model": "interval",  # drawn per interval ahead
    "look_ahead": math.inf,  # one interval L for every job, as the papers search
}


def records(kwargs: dict):
    """Job records of one case, as ``vosim run`` writes ``jobs.parquet``."""
    model = VOModel(**kwargs)
    model.run()
    return model.job_frame()


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from conftest import last_submission_plus_l

    for name, kwargs in CASES.items():
        old = pd.read_parquet(HERE / f"{name}.parquet")  # its columns: the oracle's
        options = {**kwargs, **BEFORE, "horizon": last_submission_plus_l(**kwargs)}
        got = records(options)
        frame = pd.DataFrame({c: got["window_cost" if c == "cost" else c] for c in old.columns})
        frame["state"] = frame["state"].cat.set_categories(old["state"].cat.categories)
        frame.to_parquet(HERE / f"{name}.parquet")
        print(name, len(frame), frame["state"].value_counts().to_dict())
