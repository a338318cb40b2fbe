"""Writes the CSS regression oracle: today's job records on prefixes of the bundled traces.

Run once, before the scheduling cycle became a pluggable policy, from the repository root:
``python tests/policies/make_css_oracle.py``. The files it writes are the oracle of
``test_css_regression.py``; regenerating them after a change to the cyclic scheme defeats
the test, so do it only when a change of records is intended and said in the commit.
"""

from __future__ import annotations

from pathlib import Path

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


def records(kwargs: dict):
    """Job records of one case, as ``vosim run`` writes ``jobs.parquet``."""
    model = VOModel(**kwargs)
    model.run()
    return model.job_frame()


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    for name, kwargs in CASES.items():
        frame = records(kwargs)
        frame.to_parquet(HERE / f"{name}.parquet")
        print(name, len(frame), frame["state"].value_counts().to_dict())
