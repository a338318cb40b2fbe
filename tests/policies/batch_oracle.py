"""Reference simulator of FCFS, EASY and conservative backfilling: the test oracle of the policies.

Written from the rules alone, plainly, to check vosim's own batch-scheduling policies against.
The rules are Lifka's EASY backfilling and conservative backfilling as stated by Mu'alem and
Feitelson, "Utilization, predictability, workloads, and user runtime estimates in scheduling
the IBM SP2 with backfilling", IEEE Transactions on Parallel and Distributed Systems 12(6),
2001, on one machine of identical processors with nothing else running.

Model
-----
Job ``j`` is submitted at ``submit[j]``, needs ``procs[j]`` processors, asks for
``estimate[j]`` seconds and would run ``runtime[j]`` seconds; it is killed at its estimate, so
once started at ``s`` it ends at ``s + min(runtime[j], estimate[j])``. The scheduler knows
estimates only: its plans use estimated ends ``s + estimate[j]``, the simulation actual ends.
A job with ``procs <= 0`` or ``procs > machine_procs`` never joins the queue and never starts.

Events are submissions and actual ends. At a time ``t`` every job ending at ``t`` first
releases its processors, then every job submitted at ``t`` joins the queue, then ONE
scheduling pass runs. The queue is in submission order, ties broken by trace order.

Zero-length jobs
----------------
A job with ``estimate == 0`` asks for no processor time: it occupies its processors over the
empty interval ``[t, t)``, so every policy treats it as needing no processors (it fits in
any free count, lowers none, and an empty interval fits anywhere in a profile; holding
processors for an instant could not be expressed in a step-function profile). It starts
as soon as its policy considers it: under FCFS when it becomes the queue head, under EASY
and conservative backfilling in the pass of its submission, and it ends at that instant.
A job with ``runtime == 0 < estimate`` is not known to be short: like any started job it
holds its processors for the rest of the pass, and its end at the same ``t`` is an ordinary
event, processed right after the pass (release, then one more pass at ``t``). Every further
pass at ``t`` thus follows a release, so the simulation always advances.

Policies
--------
``"fcfs"``
    Start queue heads while they fit in the free processors; stop at the first that does not.
``"easy"``
    As FCFS; then for the blocked head ``h`` the shadow time ``s`` is the earliest estimated
    end of the running jobs (those started in this pass included) at which the free
    processors, accumulating releases in order of estimated end (equal ends together), reach
    ``p_h``, and ``extra`` is the free processors at ``s`` less ``p_h``. Each later queued job
    ``j`` then starts now if ``p_j <= free`` and (``t + estimate_j <= s`` or
    ``p_j <= extra``); when it starts and ``t + estimate_j > s``, ``extra -= p_j``.
``"conservative"``
    Every waiting job holds a reservation in a profile of free processors over time built from
    the running jobs' estimated ends and all reservations. Each pass goes through the queue in
    order; a job's reservation is removed and re-inserted at the earliest start ``>= t`` at
    which the profile has ``p_j`` free over ``[start, start + estimate_j)``; a new job gets
    the earliest such start. Jobs reserved at ``t`` start now. The oracle asserts that no
    reservation moves later (the old place stays feasible) and that a job reserved at ``t``
    fits in the processors free now.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass

import numpy as np

#: The policies ``simulate`` knows.
POLICIES = ("fcfs", "easy", "conservative")


@dataclass(frozen=True)
class Schedule:
    """What ``simulate_schedule`` returns; arrays are in trace order, NaN for jobs never started.

    Attributes
    ----------
    start : numpy.ndarray
        Start times (s).
    end : numpy.ndarray
        Actual end times, ``start + min(runtime, estimate)`` (s).
    first_reservation : numpy.ndarray
        Under ``"conservative"``, the start a job was given in the pass where it joined the
        queue; NaN under the other policies.
    """

    start: np.ndarray
    end: np.ndarray
    first_reservation: np.ndarray


def simulate(submit, procs, estimate, runtime, machine_procs, policy):
    """Start times of a trace's jobs under FCFS, EASY or conservative backfilling.

    See the module docstring for the rules, the zero-length jobs and the reference
    (Mu'alem & Feitelson 2001, IEEE TPDS 12(6)).

    Parameters
    ----------
    submit : array_like of float
        Submit times (s), one per job, in trace order.
    procs : array_like of int
        Processors each job needs.
    estimate : array_like of float
        Requested times (s); the job is killed when it has run this long.
    runtime : array_like of float
        Run times (s) the jobs would take unkilled.
    machine_procs : int
        Processors of the machine.
    policy : {"fcfs", "easy", "conservative"}
        Scheduling policy.

    Returns
    -------
    numpy.ndarray
        Start times (s), shape ``(n,)``; NaN for a job that never starts.
    """
    return simulate_schedule(submit, procs, estimate, runtime, machine_procs, policy).start


def simulate_schedule(submit, procs, estimate, runtime, machine_procs, policy):
    """Start times, end times and first reservations; parameters as ``simulate``.

    Returns
    -------
    Schedule
        The start times, actual end times and (conservative only) first reservations.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    submit = np.asarray(submit, dtype=float)
    procs = np.asarray(procs, dtype=np.int64)
    estimate = np.asarray(estimate, dtype=float)
    runtime = np.asarray(runtime, dtype=float)
    n = len(submit)
    jobs = _Jobs(
        submit=submit.tolist(),
        procs=procs.tolist(),
        estimate=estimate.tolist(),
        length=np.minimum(runtime, estimate).tolist(),
        need=np.where(estimate > 0, procs, 0).tolist(),
    )
    start = [math.nan] * n
    first_reservation = [math.nan] * n
    reservation = {}  # conservative: waiting job -> reserved start

    valid = [j for j in range(n) if 0 < jobs.procs[j] <= machine_procs]
    arrivals = sorted(valid, key=lambda j: (jobs.submit[j], j))
    next_arrival = 0
    queue = []  # waiting jobs in submission order
    running = {}  # job -> actual end
    free = machine_procs

    while next_arrival < len(arrivals) or running:
        t = min(running.values(), default=math.inf)
        if next_arrival < len(arrivals):
            t = min(t, jobs.submit[arrivals[next_arrival]])
        for j in [j for j, end in running.items() if end == t]:
            del running[j]
            free += jobs.need[j]
        while next_arrival < len(arrivals) and jobs.submit[arrivals[next_arrival]] == t:
            queue.append(arrivals[next_arrival])
            next_arrival += 1

        estimated_ends = [(start[j] + jobs.estimate[j], jobs.need[j]) for j in running]
        if policy == "fcfs":
            chosen = _fcfs_pass(queue, free, jobs)
        elif policy == "easy":
            chosen = _easy_pass(t, queue, free, estimated_ends, jobs)
        else:
            chosen = _conservative_pass(
                t, queue, free, estimated_ends, reservation, first_reservation, jobs, machine_procs
            )

        for j in chosen:
            queue.remove(j)
            reservation.pop(j, None)
            start[j] = t
            if jobs.need[j] > 0:  # zero-estimate jobs end at once, holding nothing
                running[j] = t + jobs.length[j]
                free -= jobs.need[j]
    assert not queue, "jobs left waiting on an idle machine"

    start = np.array(start)
    return Schedule(
        start=start,
        end=start + np.array(jobs.length),
        first_reservation=np.array(first_reservation),
    )


@dataclass(frozen=True)
class _Jobs:
    """The trace as plain lists (fast scalar access)."""

    submit: list
    procs: list
    estimate: list
    length: list  # min(runtime, estimate)
    need: list  # processors the scheduler must find: procs, 0 when estimate == 0


def _fcfs_pass(queue, free, jobs):
    """Queue heads that start now under FCFS."""
    chosen = []
    for j in queue:
        if jobs.need[j] > free:
            break
        chosen.append(j)
        free -= jobs.need[j]
    return chosen


def _easy_pass(t, queue, free, estimated_ends, jobs):
    """Jobs that start now under EASY: heads while they fit, then backfilling."""
    ends = list(estimated_ends)  # (estimated end, processors) of running jobs
    chosen = []
    i = 0
    while i < len(queue) and jobs.need[queue[i]] <= free:
        j = queue[i]
        chosen.append(j)
        free -= jobs.need[j]
        ends.append((t + jobs.estimate[j], jobs.need[j]))
        i += 1
    if i == len(queue):
        return chosen

    head = queue[i]
    ends.sort()
    available = free
    shadow = extra = None
    k = 0
    while shadow is None:  # an empty machine fits the head, so this ends
        time = ends[k][0]
        while k < len(ends) and ends[k][0] == time:  # equal estimated ends count together
            available += ends[k][1]
            k += 1
        if available >= jobs.need[head]:
            shadow, extra = time, available - jobs.need[head]

    for j in queue[i + 1 :]:
        p, done = jobs.need[j], t + jobs.estimate[j]
        if p <= free and (done <= shadow or p <= extra):
            chosen.append(j)
            free -= p
            if done > shadow:
                extra -= p
    return chosen


def _conservative_pass(
    t, queue, free, estimated_ends, reservation, first_reservation, jobs, machine_procs
):
    """Jobs that start now under conservative backfilling; updates the reservations."""
    times, frees = _profile(t, machine_procs, estimated_ends, reservation, jobs)
    chosen = []
    for j in queue:
        p, e = jobs.need[j], jobs.estimate[j]
        old = reservation.get(j)
        if old is not None:
            _change(times, frees, old, old + e, +p)
        new = _earliest_fit(times, frees, p, e)
        assert old is None or new <= old, "a reservation moved later"
        _change(times, frees, new, new + e, -p)
        reservation[j] = new
        if old is None:
            first_reservation[j] = new
        if new == t:
            assert p <= free, "the profile disagrees with the free processors"
            chosen.append(j)
            free -= p
    return chosen


def _profile(t, machine_procs, estimated_ends, reservation, jobs):
    """Free processors over ``[t, inf)`` as breakpoints and values.

    Returns ``times, frees`` with ``times[0] == t``: ``frees[i]`` processors are free over
    ``[times[i], times[i + 1])``, the last value for ever after.
    """
    delta = {t: 0}
    for end, p in estimated_ends:  # running jobs hold their processors from now
        assert end > t, "a running job outlived its estimate"
        delta[t] -= p
        delta[end] = delta.get(end, 0) + p
    for j, r in reservation.items():
        e, p = jobs.estimate[j], jobs.need[j]
        if e > 0:
            delta[r] = delta.get(r, 0) - p
            delta[r + e] = delta.get(r + e, 0) + p
    times = sorted(delta)
    frees = []
    level = machine_procs
    for time in times:
        level += delta[time]
        frees.append(level)
    return times, frees


def _breakpoint(times, frees, x):
    """Index of breakpoint ``x`` in the profile, splitting a segment if needed."""
    i = bisect.bisect_left(times, x)
    if i == len(times) or times[i] != x:
        times.insert(i, x)
        frees.insert(i, frees[i - 1])
    return i


def _change(times, frees, a, b, dp):
    """Add ``dp`` free processors over ``[a, b)`` (nothing if it is empty)."""
    if b <= a:
        return
    i, k = _breakpoint(times, frees, a), _breakpoint(times, frees, b)
    for m in range(i, k):
        frees[m] += dp


def _earliest_fit(times, frees, p, e):
    """Earliest breakpoint from which ``p`` processors stay free for ``e`` seconds.

    With ``e == 0`` (so ``p == 0``) the first breakpoint, the pass's time.
    """
    candidate = None
    for i, time in enumerate(times):
        if frees[i] < p:
            candidate = None
            continue
        if candidate is None:
            candidate = time
        following = times[i + 1] if i + 1 < len(times) else math.inf
        if following >= candidate + e:
            return candidate
    raise AssertionError("no room even on an empty machine")  # frees[-1] == machine_procs


def heavy_workload(rng, n, machine_procs, *, load=1.0, burst=20, burst_load=5.0):
    """A synthetic heavy workload: bursts of arrivals that build deep queues.

    Jobs arrive in bursts of on average ``burst`` jobs in which the offered load is about
    ``burst_load``, separated by quiet gaps, scaled so that the offered load over the whole
    trace, ``sum(procs * min(runtime, estimate)) / (machine_procs * span)`` with ``span``
    from the first to the last submission, is ``load``. Within a burst
    about 30 % of the jobs share their predecessor's submit time, and submit times are whole
    seconds, so ties are common. Processor counts are powers of two (60 %) or odd sizes
    (40 %), log-uniform up to ``machine_procs``. Run times are whole seconds, log-uniform
    from 1 s to about 10 h. Estimates are ``ceil(runtime * f)`` with ``f`` uniform on
    [1, 10), except 20 % where ``runtime == estimate`` and 5 % killed jobs whose run time
    exceeds their estimate (up to twice); 2 % of jobs have run time 0 (estimates stay >= 1 s).

    Parameters
    ----------
    rng : numpy.random.Generator
        Random source.
    n : int
        Number of jobs.
    machine_procs : int
        Processors of the machine; no job asks for more.
    load : float, optional
        Offered load over the whole trace.
    burst : float, optional
        Mean number of jobs in a burst.
    burst_load : float, optional
        Offered load within a burst, well above 1 so queues get deep; must exceed ``load``.

    Returns
    -------
    submit, procs, estimate, runtime : numpy.ndarray
        Float submit times (s), int processors, float estimates (s) and run times (s), in
        submission order.
    """
    if burst_load <= load:
        raise ValueError("burst_load must exceed load")
    top = math.log2(machine_procs)
    powers = 2 ** np.floor(rng.uniform(0, top + 1, n)).astype(np.int64)
    odd = np.floor(2 ** rng.uniform(0, top, n)).astype(np.int64) | 1
    procs = np.minimum(np.where(rng.random(n) < 0.6, powers, odd), machine_procs)

    runtime = np.round(np.exp(rng.uniform(0, math.log(36_000), n)))
    estimate = np.ceil(runtime * rng.uniform(1, 10, n))
    kind = rng.random(n)
    estimate = np.where(kind < 0.2, runtime, estimate)
    killed = (kind >= 0.2) & (kind < 0.25)
    estimate = np.where(killed, np.maximum(1, np.floor(runtime / rng.uniform(1, 2, n))), estimate)
    runtime = np.where((kind >= 0.25) & (kind < 0.27), 0.0, runtime)

    opens = rng.random(n) < 1 / burst  # this job starts a new burst
    gap = rng.exponential(1.0, n) * (rng.random(n) >= 0.3)  # mean 0.7 within a burst
    gap = np.where(opens, rng.exponential(0.7 * burst * (burst_load / load - 1), n), gap)
    gap[0] = 0.0
    span = float(np.sum(procs * np.minimum(runtime, estimate))) / (machine_procs * load)
    submit = np.floor(np.cumsum(gap) * span / max(float(np.sum(gap)), 1e-9))
    return submit, procs, estimate, runtime


def swf_frame(submit, procs, estimate, runtime, machine_procs):
    """The jobs as a trace read by ``vosim.market.swf.read_swf`` (header ``MaxProcs``), in order.

    Not part of the oracle: a helper that hands the same jobs to vosim.
    """
    import tempfile
    from pathlib import Path

    from vosim.market.swf import read_swf

    lines = [f"; MaxProcs: {machine_procs}\n"]
    for j, (s, p, e, r) in enumerate(zip(submit, procs, estimate, runtime, strict=True)):
        # 17 significant digits: "{:g}" keeps six, and rounds times from 10^6 s on
        fields = f"{j + 1} {s:.17g} -1 {r:.17g} {p} -1 -1 {p} {e:.17g} -1 1 1 1"
        lines.append(f"{fields} -1 -1 -1 -1 -1\n")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "jobs.swf"
        path.write_text("".join(lines))
        return read_swf(path)


def random_trace(seed, n, machine_procs):
    """``n`` random jobs on ``machine_procs`` processors over 20 h, as a trace (``swf_frame``).

    Sizes uniform in ``[1, machine_procs]``, estimates uniform in [600 s, 3 days], run times
    the estimate times ``U(0, 1)^3`` (most jobs end long before their estimate, as in the
    archive's traces), at least 1 s. Not part of the oracle: a test workload.
    """
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, 20 * 3600, n))
    procs = rng.integers(1, machine_procs + 1, n)
    estimate = rng.integers(600, 3 * 86400, n)
    runtime = np.maximum(1, np.round(estimate * rng.uniform(0.0, 1.0, n) ** 3))
    return swf_frame(submit, procs, estimate, runtime, machine_procs)
