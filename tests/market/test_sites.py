"""Sites of a multi-site SWF trace (vosim.market.sites): counts, peaks, capacities, errors."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vosim.data import TRACES, trace_path
from vosim.errors import ParameterError
from vosim.market.sites import RULES, Sites, _largest_remainder, trace_sites
from vosim.market.swf import SWF_COLUMNS, read_swf

LCG = "LCG-2005-1"
GAIA = "UniLu-Gaia-2014-2"
SHARED = Path("/work/shared/data")


def bundled_or_shared(name: str) -> Path:
    """The bundled trace, else the shared copy; skip only if neither file exists."""
    if name in TRACES:
        path = trace_path(name)
        if path.is_file():
            return path
    path = SHARED / f"{name}.swf.gz"
    if not path.is_file():
        pytest.skip(f"{name} is neither bundled nor in {SHARED}")
    return path


@pytest.fixture(scope="module")
def lcg() -> pd.DataFrame:
    return read_swf(bundled_or_shared(LCG))


@pytest.fixture(scope="module")
def lcg_sites(lcg) -> dict[str, Sites]:
    return {rule: trace_sites(lcg, rule=rule) for rule in RULES}


def frame(rows, header=None, path="hand-made.swf"):
    """SWF frame from (partition, submit, run, processors) rows, as read_swf gives it."""
    data = {c: [-1] * len(rows) for c in SWF_COLUMNS}
    data["job_id"] = list(range(1, len(rows) + 1))
    for k, (part, submit, run, procs) in enumerate(rows):
        data["partition_id"][k] = part
        data["submit_time"][k] = submit
        data["run_time"][k] = run
        data["allocated_processors"][k] = procs
    df = pd.DataFrame(data).astype({c: np.int64 for c in SWF_COLUMNS})
    df.attrs["header"] = {} if header is None else header
    df.attrs["path"] = path
    return df


def brute_peak(rows, partition) -> int:
    """Peak processors in use at one partition: the level just after each start, [s, s + r)."""
    jobs = [(s, s + r, p) for q, s, r, p in rows if q == partition and r > 0 and p > 0]
    return max(
        (sum(p for s, e, p in jobs if s <= t < e) for t, _, _ in jobs),
        default=0,
    )


def exact_quotas(weights, total) -> list[Fraction]:
    """Exact quotas ``total * w / sum(w)`` (equal shares if every weight is 0)."""
    weights = [Fraction(w) for w in weights]
    whole = sum(weights)
    if whole == 0:
        return [Fraction(total, len(weights))] * len(weights)
    return [total * w / whole for w in weights]


def check_hamilton(capacity, weights, total) -> None:
    """Largest remainder with a floor of 1: the properties every apportionment must have."""
    capacity = [int(c) for c in capacity]
    quota = exact_quotas(weights, total)
    assert sum(capacity) == total
    assert min(capacity) >= 1
    for c, q in zip(capacity, quota, strict=True):
        if q < 1:
            assert c == 1  # raised to the minimum, never more
        else:
            assert c <= math.ceil(q)  # never above its quota's ceiling
    # monotone: a larger weight never gets fewer processors
    for i in range(len(weights)):
        for j in range(len(weights)):
            if weights[i] > weights[j]:
                assert capacity[i] >= capacity[j]
    if all(q >= 1 for q in quota):
        # the minimum does not bind: plain Hamilton, each within 1 of its quota (floor or
        # ceiling), and the extra processors went to the largest fractional parts
        assert all(math.floor(q) <= c <= math.ceil(q) for c, q in zip(capacity, quota, strict=True))
        got = [q - math.floor(q) for c, q in zip(capacity, quota, strict=True) if c > q]
        missed = [q - math.floor(q) for c, q in zip(capacity, quota, strict=True) if c < q]
        if got and missed:
            assert min(got) >= max(missed) - Fraction(1, 10**9)


# --------------------------------------------------------------------------------------------
# LCG-2005-1: 170 sites, MaxProcs 24515


def test_lcg_has_170_sites_named_from_the_header(lcg, lcg_sites):
    sites = lcg_sites["peak"]
    assert len(sites) == 170
    assert sites.partition.tolist() == list(range(1, 171))
    assert sites.name[0] == "grid.ici.ro"
    assert sites.name[1] == "lancs.ac.uk"
    assert sites.name[-1] == "lcg-lrz-ce.lrz-muenchen.de"
    assert not any(n.startswith("partition ") for n in sites.name)
    header = {int(line.split()[0]): line.split()[1] for line in lcg.attrs["header"]["Partition"]}
    assert [header[p] for p in sites.partition.tolist()] == list(sites.name)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_lcg_capacities_sum_to_maxprocs_each_at_least_one(lcg_sites, rule):
    sites = lcg_sites[rule]
    assert sites.capacity.dtype == np.int64
    assert int(sites.capacity.sum()) == 24515 == sites.max_procs
    assert int(sites.capacity.min()) >= 1


def test_lcg_job_counts(lcg, lcg_sites):
    sites = lcg_sites["peak"]
    at40, at12 = sites.owner_of(np.array([40, 12])).tolist()
    assert sites.jobs[at40] == 30966
    assert sites.name[at40] == "lxgate13.cern.ch"  # "; Partition: 40 lxgate13.cern.ch   "
    assert sites.name[at12] == "rl.ac.uk"
    assert sites.jobs[sites.partition == 52][0] == 13895
    assert sites.jobs[sites.partition == 12][0] == 9190
    assert int(sites.jobs.sum()) == 188041
    # owner_of maps every job to its site: the counts again
    owners = sites.owner_of(lcg["partition_id"].to_numpy())
    assert np.bincount(owners, minlength=170).tolist() == sites.jobs.tolist()


def test_lcg_processor_time_is_run_time_of_its_serial_jobs(lcg, lcg_sites):
    sites = lcg_sites["work"]
    expected = lcg.groupby("partition_id")["run_time"].sum()
    assert sites.processor_time.tolist() == expected.loc[sites.partition].astype(float).tolist()


def test_lcg_peak_matches_a_sweep_per_site(lcg, lcg_sites):
    sites = lcg_sites["peak"]
    peaks = {}
    for part, group in lcg[lcg["run_time"] > 0].groupby("partition_id"):
        submit = group["submit_time"].tolist()
        end = (group["submit_time"] + group["run_time"]).tolist()
        # serial jobs; (time, 0) ends sort before (time, 1) starts
        events = sorted([(s, 1) for s in submit] + [(e, 0) for e in end])
        level = peak = 0
        for _, start in events:
            level += 1 if start else -1
            peak = max(peak, level)
        peaks[part] = peak
    assert sites.peak.tolist() == [peaks.get(p, 0) for p in sites.partition.tolist()]
    assert int(sites.peak[sites.partition == 40][0]) == 1410


def test_lcg_peak_rule_is_hamilton_on_peaks(lcg_sites):
    sites = lcg_sites["peak"]
    quota = exact_quotas(sites.peak.tolist(), 24515)
    assert min(quota) >= 1  # every LCG site needs a processor at its peak: no minimum binds
    check_hamilton(sites.capacity, sites.peak.tolist(), 24515)
    top = np.argsort(-sites.capacity, kind="stable")[:5]
    assert sites.partition[top].tolist() == [40, 52, 8, 156, 41]
    assert sites.capacity[top].tolist() == [3507, 2425, 1517, 1505, 1383]


def test_lcg_work_rule_is_hamilton_on_processor_time(lcg_sites):
    sites = lcg_sites["work"]
    check_hamilton(sites.capacity, sites.processor_time.tolist(), 24515)
    top = np.argsort(-sites.capacity, kind="stable")[:5]
    assert sites.partition[top].tolist() == [40, 52, 41, 8, 17]
    assert sites.capacity[top].tolist() == [5614, 3831, 2804, 1169, 961]
    # sites with little work keep one processor (their quotas are below 1)
    quota = 24515 * sites.processor_time / sites.processor_time.sum()
    assert (sites.capacity[quota < 1] == 1).all()
    assert (quota < 1).sum() > 0


def test_lcg_max_procs_argument_sizes_the_grid(lcg):
    sites = trace_sites(lcg, max_procs=1000)
    assert sites.max_procs == 1000
    assert trace_sites(lcg, max_procs=170).capacity.tolist() == [1] * 170


def test_lcg_max_procs_below_the_sites_names_both_numbers(lcg):
    with pytest.raises(ParameterError, match=r"MaxProcs 169 .*170 sites") as info:
        trace_sites(lcg, max_procs=169)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------------------------
# traces without partitions


def test_gaia_records_no_partitions():
    df = read_swf(bundled_or_shared(GAIA), max_jobs=500)
    with pytest.raises(ParameterError) as info:
        trace_sites(df)
    message = str(info.value)
    assert message == (
        "owners='trace' needs a trace that records partitions (SWF field 16); "
        "UniLu-Gaia-2014-2 records none"
    )


def test_no_partition_errors_name_the_trace():
    rows = [(-1, 0, 10, 1), (0, 5, 10, 1)]
    with pytest.raises(ParameterError, match=r"; hand-made records none$"):
        trace_sites(frame(rows, {"MaxProcs": "4"}))
    with pytest.raises(ParameterError, match=r"; mine records none$"):
        trace_sites(frame(rows, {"MaxProcs": "4"}), name="mine")
    df = frame(rows, {"MaxProcs": "4"}).drop(columns="partition_id")
    with pytest.raises(ParameterError, match="records none"):
        trace_sites(df)
    header = {"MaxProcs": "4", "Partition": ["1 a.org", "2 b.org"]}
    with pytest.raises(ParameterError, match=r"names 2 partition\(s\), but no job records one"):
        trace_sites(frame(rows, header))
    df = frame(rows)
    del df.attrs["path"]
    with pytest.raises(ParameterError, match="the trace records none"):
        trace_sites(df)


def test_parameter_errors():
    df = frame([(1, 0, 10, 1), (2, 0, 10, 1)])
    with pytest.raises(ParameterError, match="no MaxProcs header line: pass max_procs"):
        trace_sites(df)
    with pytest.raises(ParameterError, match=r"MaxProcs 1 is smaller than the 2 sites"):
        trace_sites(df, max_procs=1)
    with pytest.raises(ParameterError, match=r"rule must be one of 'peak', 'work', got 'x'"):
        trace_sites(df, max_procs=4, rule="x")
    for bad in (True, 4.0, "4"):
        with pytest.raises(ParameterError, match="max_procs must be an integer"):
            trace_sites(df, max_procs=bad)


# --------------------------------------------------------------------------------------------
# hand-built frames


def test_argument_overrides_header_maxprocs():
    df = frame([(1, 0, 10, 1), (2, 0, 10, 3)], {"MaxProcs": "8"})
    assert trace_sites(df).capacity.tolist() == [2, 6]
    assert trace_sites(df, max_procs=4).capacity.tolist() == [1, 3]


def test_ends_come_before_starts_and_unknown_runs_are_skipped():
    rows = [
        (1, 0, 10, 2),  # [0, 10)
        (1, 10, 10, 2),  # [10, 20): starts as the first ends, peak stays 2
        (1, 5, 0, 7),  # run time 0: no processors held
        (1, 5, -1, 9),  # unknown run time: skipped
        (2, 0, 5, 1),
        (2, 1, 5, 1),  # overlaps: peak 2
    ]
    sites = trace_sites(frame(rows), max_procs=10)
    assert sites.jobs.tolist() == [4, 2]
    assert sites.peak.tolist() == [2, 2]
    assert sites.processor_time.tolist() == [40.0, 10.0]
    assert sites.capacity.tolist() == [5, 5]


def test_requested_processors_stand_in_for_unknown_allocation():
    df = frame([(1, 0, 10, -1), (2, 0, 10, 1)], {"MaxProcs": "4"})
    df.loc[0, "requested_processors"] = 3
    sites = trace_sites(df)
    assert sites.peak.tolist() == [3, 1]
    assert sites.processor_time.tolist() == [30.0, 10.0]
    assert sites.capacity.tolist() == [3, 1]


def test_header_names_sites_without_jobs_and_jobs_name_unnamed_sites():
    header = {"MaxProcs": "10", "Partition": ["2 b.org", "5", "x not a number", "2 again"]}
    sites = trace_sites(frame([(2, 0, 10, 1), (3, 0, 10, 1)], header))
    assert sites.partition.tolist() == [2, 3, 5]
    assert sites.name == ("b.org", "partition 3", "partition 5")
    assert sites.jobs.tolist() == [1, 1, 0]
    assert sites.capacity.tolist() == [5, 4, 1]  # quotas 5, 5, 0: partition 5 gets the floor
    one = trace_sites(frame([(4, 0, 1, 1)], {"MaxProcs": "3", "Partition": "4 d.org"}))
    assert one.name == ("d.org",) and one.capacity.tolist() == [3]


def test_jobs_of_unknown_partition_belong_to_no_site():
    sites = trace_sites(frame([(1, 0, 10, 1), (-1, 0, 10, 5), (0, 0, 10, 5)]), max_procs=3)
    assert sites.partition.tolist() == [1]
    assert sites.jobs.tolist() == [1]
    assert sites.peak.tolist() == [1]


def test_all_zero_weights_share_equally():
    sites = trace_sites(frame([(1, 0, 0, 1), (2, 0, -1, 1), (3, 0, 0, 1)]), max_procs=10)
    assert sites.peak.tolist() == [0, 0, 0]
    assert sites.capacity.tolist() == [4, 3, 3]


def test_minimum_binds_where_many_sites_have_small_quotas():
    # the exact quotas are 3, 0, 0: each site needs a processor, so the large one gets 1, not
    # "within 1 of its quota" -- the floor of 1 has to come from somewhere
    assert _largest_remainder(np.array([5.0, 0.0, 0.0]), 3).tolist() == [1, 1, 1]
    assert _largest_remainder(np.array([98.0, 1.0, 1.0]), 10).tolist() == [8, 1, 1]


def test_trace_name_from_path():
    rows = [(-1, 0, 10, 1)]
    for path, shown in [
        ("/x/LCG-2005-1.swf.gz", "LCG-2005-1"),
        ("y/t.swf", "t"),
        ("z.log", "z.log"),
    ]:
        with pytest.raises(ParameterError, match=rf"; {shown} records none$"):
            trace_sites(frame(rows, path=path))


# --------------------------------------------------------------------------------------------
# Sites itself


def test_owner_of_keeps_shape_and_names_unknown_partitions():
    sites = trace_sites(frame([(3, 0, 1, 1), (9, 0, 1, 1), (5, 0, 1, 1)]), max_procs=3)
    assert sites.owner_of(np.array([[9, 3], [5, 5]])).tolist() == [[2, 0], [1, 1]]
    assert sites.owner_of(np.array([9.0, 3.0])).tolist() == [2, 0]
    assert sites.owner_of(np.array([], dtype=np.int64)).shape == (0,)
    with pytest.raises(ParameterError, match=r"partition 4 is not a site \(2 unknown"):
        sites.owner_of(np.array([3, 4, 10]))
    with pytest.raises(ParameterError, match=r"partition -1 is not a site"):
        sites.owner_of(np.array([-1]))
    with pytest.raises(ParameterError, match=r"partition 3.5 is not a site"):
        sites.owner_of(np.array([3.5]))
    with pytest.raises(ParameterError, match=r"partition nan is not a site"):
        sites.owner_of(np.array([3.0, np.nan]))


def test_sites_are_validated_and_read_only():
    good = dict(
        partition=[1, 2],
        name=("a", "b"),
        jobs=[1, 1],
        processor_time=[1.0, 1.0],
        peak=[1, 1],
        capacity=[1, 1],
    )
    sites = Sites(**good)
    assert sites.partition.dtype == np.int64 and sites.processor_time.dtype == np.float64
    with pytest.raises(ValueError, match="read-only"):
        sites.capacity[0] = 5
    for field, value, match in [
        ("capacity", [1, 0], "capacity must be >= 1"),
        ("partition", [2, 1], "strictly increasing"),
        ("partition", [0, 1], "strictly increasing"),
        ("jobs", [1, -1], "jobs must be >= 0"),
        ("peak", [1, 1, 1], "one length"),
        ("name", ("a",), "one length"),
    ]:
        with pytest.raises(ParameterError, match=match):
            Sites(**(good | {field: value}))


# --------------------------------------------------------------------------------------------
# properties on random small frames

rows_strategy = st.lists(
    st.tuples(
        st.integers(1, 6),  # partition
        st.integers(0, 40),  # submit
        st.integers(-1, 25),  # run time (-1 unknown, 0 instant)
        st.integers(1, 4),  # processors
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(rows=rows_strategy, extra=st.integers(0, 60), rule=st.sampled_from(sorted(RULES)))
def test_random_frames(rows, extra, rule):
    parts = sorted({q for q, *_ in rows})
    total = len(parts) + extra
    sites = trace_sites(frame(rows), max_procs=total, rule=rule)
    assert sites.partition.tolist() == parts
    assert sites.jobs.tolist() == [sum(q == p for q, *_ in rows) for p in parts]
    assert sites.peak.tolist() == [brute_peak(rows, p) for p in parts]
    work = [sum(n * max(r, 0) for q, _, r, n in rows if q == p) for p in parts]
    assert sites.processor_time.tolist() == [float(w) for w in work]
    check_hamilton(sites.capacity, sites.peak.tolist() if rule == "peak" else work, total)


@settings(max_examples=300, deadline=None)
@given(
    weights=st.lists(st.integers(0, 1000), min_size=1, max_size=12),
    extra=st.integers(0, 500),
)
def test_largest_remainder_properties(weights, extra):
    total = len(weights) + extra
    capacity = _largest_remainder(np.array(weights, dtype=np.float64), total)
    check_hamilton(capacity, weights, total)
