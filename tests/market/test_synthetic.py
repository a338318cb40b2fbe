"""Synthetic job streams (vosim.market.synthetic): the AEP and VO Preferences ones, load_trace."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from vosim.data import SYNTHETIC_TRACES
from vosim.errors import ParameterError, TraceFormatError
from vosim.market.synthetic import aep_trace, load_trace, synthetic_trace, vo_preferences_trace
from vosim.model import VOModel

NASA = "NASA-iPSC-1993-3.1-cln"


@pytest.mark.parametrize("name", list(SYNTHETIC_TRACES))
def test_synthetic_traces_are_reproducible_streams(name):
    import numpy as np

    a = load_trace(name, 90, np.random.default_rng(4))
    b = load_trace(name, 90, np.random.default_rng(4))
    assert len(a) == 90 and a.equals(b)
    if name.startswith("synthetic:"):  # a fitted flow keeps its trace's machine
        assert a.attrs["header"]["MaxNodes"] == "100"
    model = VOModel(trace=name, jobs=30, nodes=50, rng=2)
    source = name.removeprefix("fitted:") if name.startswith("fitted:") else NASA
    plain = VOModel(trace=source, jobs=30, nodes=50, rng=2)
    # the stream is drawn from a spawned generator: the domain is the same as for any trace
    assert (model.node_price == plain.node_price).all()
    assert model.trace_name == name and len(model.jobs) == 30


def test_aep_trace_is_the_base_job_arriving_as_a_poisson_stream():
    f = aep_trace(np.random.default_rng(7), jobs=4000, users=3, nodes=40, mean_interarrival=5.0)
    assert len(f) == 4000
    assert set(f["requested_processors"]) == {5} and set(f["requested_time"]) == {150}
    assert (f["run_time"] == f["requested_time"]).all()
    assert set(f["user_id"]) == {1, 2, 3}
    assert f.attrs["header"]["MaxNodes"] == "40"
    submit = f["submit_time"].to_numpy(float)
    assert submit[0] == 0 and (np.diff(submit) >= 0).all()
    # exponential gaps of mean 5 (submit times are whole seconds in SWF)
    assert np.diff(submit).mean() == pytest.approx(5.0, rel=0.05)


def test_vo_preferences_trace_draws_batches_within_the_ranges():
    f = vo_preferences_trace(
        np.random.default_rng(3), batches=50, batch_size=4, node_range=(2, 3), batch_period=60.0
    )
    assert len(f) == 200
    assert f["submit_time"].tolist() == [60 * (i // 4) for i in range(200)]
    assert set(f["requested_processors"]) == {2, 3}
    assert f["requested_time"].between(100, 500).all()
    assert (f["run_time"] == f["requested_time"]).all()
    assert f["user_id"].between(1, 10).all()


@pytest.mark.parametrize(
    ("build", "word"),
    [
        (lambda rng: aep_trace(rng, jobs=0), "jobs must be an integer >= 1, got 0"),
        (lambda rng: aep_trace(rng, users=True), "users must be an integer >= 1, got True"),
        (lambda rng: aep_trace(rng, mean_interarrival=0.0), "mean_interarrival must be > 0"),
        (lambda rng: vo_preferences_trace(rng, batches=2.0), "batches must be an integer"),
        (lambda rng: vo_preferences_trace(rng, batch_size=0), "batch_size"),
        (lambda rng: vo_preferences_trace(rng, batch_period=-1.0), "batch_period must be > 0"),
        (lambda rng: synthetic_trace("synthetic:nope", 5, rng), "unknown synthetic trace"),
    ],
)
def test_bad_stream_parameters_name_the_value(build, word):
    with pytest.raises(ParameterError, match=word):
        build(np.random.default_rng(0))


def test_synthetic_trace_cuts_whole_batches_to_the_jobs_asked():
    f = synthetic_trace("synthetic:vo-preferences", 50, np.random.default_rng(1))
    assert len(f) == 50 and f["submit_time"].tolist() == [0] * 40 + [600] * 10
    assert f.attrs["header"]["MaxNodes"] == "100"
    assert len(synthetic_trace("synthetic:aep", None, np.random.default_rng(1))) == 1000


def test_load_trace_passes_a_frame_through_and_draws_a_stream_from_a_spawned_generator():
    frame = aep_trace(np.random.default_rng(0), jobs=3)
    assert load_trace(frame, 1, np.random.default_rng(0)) is frame
    rng = np.random.default_rng(11)
    got = load_trace("synthetic:aep", 20, rng)
    want = aep_trace(np.random.default_rng(11).spawn(1)[0], jobs=20)
    pd.testing.assert_frame_equal(got, want)
    with pytest.raises(TraceFormatError):
        load_trace("no-such-trace", 5, np.random.default_rng(0))
