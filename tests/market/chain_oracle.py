"""Event chains by the papers' definitions, one value at a time, and hypothesis strategies.

The independent scalar reference (math.erfc) the vectorised chain maths, event chains and
utilization schedules are tested against (ICCS 2023 §2.1).
"""

from __future__ import annotations

import math

from hypothesis import settings
from hypothesis import strategies as st

from vosim.market.event_chains import (
    EventChain,
    allocation_event,
    occupation_event,
    release_event,
)
from vosim.market.utilization_schedule import UtilizationSchedule

SETTINGS = settings(max_examples=60, deadline=None)


def ref_step_cdf(d: float, sd: float) -> float:
    """Phi(d / sd), with the step limit for sd = 0."""
    if sd == 0:
        return 1.0 if d > 0 else (0.5 if d == 0 else 0.0)
    return 0.5 * math.erfc(-d / (sd * math.sqrt(2)))


def ref_shape(median: float, sd: float) -> float:
    r = sd / median
    return math.sqrt(math.log((1 + math.sqrt(1 + 4 * r * r)) / 2))


def ref_release_sf(ch: EventChain, s: float) -> float:
    """P(R > s) for s >= end."""
    x = s - ch.end
    if x == 0:
        return 1.0
    median = ch.release_time - ch.end
    return 1.0 - ref_step_cdf(math.log(x) - math.log(median), ref_shape(median, ch.release_sd))


def ref_sup_po(ch: EventChain, t: float, duration: float) -> float:
    """sup of the chain's P_o over [t, t + T), by the rules of ICCS 2023 §2.1."""
    u = t + duration
    if u <= ch.start:
        return 0.0 if math.isnan(ch.alloc_time) else ref_step_cdf(u - ch.alloc_time, ch.alloc_sd)
    if t >= ch.end:
        return 0.0 if math.isnan(ch.release_time) else ref_release_sf(ch, t)
    return 1.0


def ref_availability(chains, t, duration, global_p=()) -> float:
    out = 1.0
    for p in global_p:
        out *= 1.0 - p
    for ch in chains:
        out *= 1.0 - ref_sup_po(ch, t, duration)
    return out


times = st.integers(0, 400).map(float)


sds = st.one_of(st.just(0.0), st.integers(1, 60).map(float))


@st.composite
def chains(draw) -> EventChain:
    kind = draw(st.sampled_from(["chain", "alloc", "occupation", "release", "bare"]))
    if kind == "alloc":
        return allocation_event(draw(times), draw(sds))
    a = draw(times)
    b = a + draw(st.integers(1, 150))
    if kind == "occupation":
        return occupation_event(a, b)
    if kind == "release":
        return release_event(b + draw(st.integers(1, 80)), draw(sds), origin=b)
    alloc = draw(st.one_of(st.none(), st.integers(-50, 0)))
    release = draw(st.one_of(st.none(), st.integers(1, 80)))
    return EventChain(
        start=a,
        end=b,
        alloc_time=math.nan if alloc is None else a + alloc,
        alloc_sd=draw(sds),
        release_time=math.nan if release is None else b + release,
        release_sd=draw(sds),
    )


@st.composite
def schedules(draw, max_m=5, max_chains=8):
    m = draw(st.integers(1, max_m))
    items = []
    for _ in range(draw(st.integers(0, max_chains))):
        members = draw(st.lists(st.integers(0, m - 1), min_size=1, max_size=3, unique=True))
        items.append((members, draw(chains())))
    gp = draw(st.lists(st.integers(0, 20).map(lambda v: v / 100), min_size=m, max_size=m))
    return UtilizationSchedule.from_chains(m, items, global_p=gp)


starts_lists = st.lists(st.integers(-100, 700).map(float), min_size=1, max_size=25)


durations = st.integers(1, 300).map(float)
