"""A job flow fitted to a real trace: ``trace = "fitted:UniLu-Gaia-2014-2"`` with any job count.

:meth:`FittedWorkload.fit` fits four marginals of a trace with ``scipy.stats``, each by
maximum likelihood, the families chosen from the trace's shape before fitting:

- **arrivals**: bursts of jobs submitted in the same second (job arrays and scripts: 20 % of
  UniLu-Gaia's submissions come in the second of the one before), the burst sizes geometric
  (maximum likelihood ``p = 1 / mean size``), the bursts' starts a non-homogeneous Poisson
  process whose rate is piecewise constant by hour of the day (the trace's mean rate of bursts
  in each hour: the daily cycle), drawn by thinning. The bursts were added after a first fit
  of single-job arrivals gave an inter-arrival K-S of 0.568 on UniLu-Gaia: a model of a
  feature the data show, not a parameter moved toward a number;
- **processors**: point masses at the trace's *popular sizes*, each size asked by at least
  :data:`POPULAR_SHARE` (1 %) of the jobs, with their shares (the multinomial
  maximum-likelihood estimate), and a lognormal for the other jobs' sizes, rounded up and
  capped at the machine's ``MaxProcs`` (ICCS 2021 §3.1 models job sizes lognormal). Requests
  crowd on a few sizes: one processor (36 % of UniLu-Gaia's jobs), one 12-core node (47 %),
  powers of two on NASA's hypercube (Lublin & Feitelson 2003 model the latter's emphasis);
  a lognormal alone cannot put 47 % of its mass on one integer (UniLu-Gaia K-S 0.244 with a
  mass at 1 only). The 1 % threshold was set once, not searched: K-S on UniLu-Gaia is at
  most 0.02 for any threshold from 0.5 % to 3 %;
- **run times**: lognormal (ICCS 2021 §3.1: "the lognormal was chosen as the most suitable for
  modeling the jobs' length"), in whole seconds, at least 1;
- **estimate ratios** ``run / requested``: a point mass at 1 (jobs that ran to their request)
  and a beta on (0, 1) for the others;

and users are drawn with the trace's own shares of jobs (an empirical distribution, not a
fit). :meth:`FittedWorkload.ks` reports each marginal's two-sample Kolmogorov-Smirnov
statistic between the trace and a generated flow of the same length (ICCS 2021 Fig. 2 reports
0.14 for its job sizes). Nothing here was tuned to a K-S value: the families and their
parameters are the maximum-likelihood fits above. It is reached through
:func:`vosim.market.synthetic.load_trace` like the other synthetic streams.

Examples
--------
>>> import numpy as np
>>> flow = fitted_workload("NASA-iPSC-1993-3.1-cln")
>>> frame = flow.generate(50, np.random.default_rng(1))
>>> len(frame), frame.attrs["header"]["MaxProcs"]
(50, '128')
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy  # scipy.stats loads on first use (~58 MB a run on a recorded trace never needs)

from vosim.data import TRACES, trace_path
from vosim.errors import ParameterError
from vosim.market.swf import header_int, read_swf, swf_frame

__all__ = ["FITTED", "FittedWorkload", "fitted_workload", "fitted_trace", "usable_columns"]

#: A size asked by at least this share of a trace's jobs is a point mass of the size model.
POPULAR_SHARE = 0.01
#: Prefix of fitted job flows' names: ``fitted:<bundled trace>``.
FITTED = "fitted:"
_DAY = 86_400.0
_HOUR = 3_600.0


@dataclass(frozen=True)
class FittedWorkload:
    """The fitted marginals of one trace (see the module docstring), ready to generate.

    Parameters
    ----------
    name : str
        The trace it was fitted to.
    max_procs, max_nodes : int
        The traced machine's processors and nodes (copied to generated headers).
    hourly_rate : numpy.ndarray, shape (24,)
        Mean bursts of submissions per second in each hour of the day (UTC of
        ``UnixStartTime``).
    burst_p : float
        Geometric parameter of the jobs per burst, in (0, 1] (1: one job per burst).
    start_offset : float
        Seconds from midnight of the log's first day to its time 0 (``UnixStartTime`` mod one
        day), so that generated times share the trace's clock.
    popular : numpy.ndarray of int, shape (q,)
        The popular sizes (processors), increasing.
    popular_share : numpy.ndarray of float, shape (q,)
        Share of the jobs asking each popular size (sum <= 1).
    size : tuple of float
        ``scipy.stats.lognorm`` ``(s, loc, scale)`` of the processors of the other jobs
        (empty when every job asks a popular size).
    run : tuple of float
        ``lognorm`` ``(s, loc, scale)`` of run times, s.
    full_share : float
        Share of jobs whose run time reached their requested time.
    ratio : tuple of float
        ``scipy.stats.beta`` ``(a, b, loc, scale)`` of ``run / requested`` for the others.
    users : numpy.ndarray
        User ids (SWF field 12).
    user_share : numpy.ndarray
        Each user's share of the trace's jobs, same shape as ``users``.
    jobs : int
        Jobs of the trace (the default length of a generated flow).
    """

    name: str
    max_procs: int
    max_nodes: int
    hourly_rate: np.ndarray
    burst_p: float
    start_offset: float
    popular: np.ndarray
    popular_share: np.ndarray
    size: tuple[float, ...]
    run: tuple[float, ...]
    full_share: float
    ratio: tuple[float, ...]
    users: np.ndarray
    user_share: np.ndarray
    jobs: int

    @classmethod
    def fit(cls, frame: pd.DataFrame, name: str = "") -> FittedWorkload:
        """Fit the marginals to the jobs of ``frame`` whose size and run time are known.

        Parameters
        ----------
        frame : pandas.DataFrame
            A :func:`~vosim.market.swf.read_swf` trace, shape (k, 18), k >= 10.
        name : str
            The trace's name (kept for messages).

        Returns
        -------
        FittedWorkload

        Raises
        ------
        ParameterError
            Fewer than 10 jobs with a known size, run time and requested time, or a trace
            spanning less than a day.

        References
        ----------
        ICCS 2021 §3.1 (lognormal job lengths and sizes, K-S 0.14 in Fig. 2); Feitelson,
        *Workload Modeling for Computer Systems Performance Evaluation* (2015), §8.2 (daily
        cycles of arrivals) and §4.2 (maximum-likelihood fits); Lublin & Feitelson, "The
        workload on parallel supercomputers: modeling the characteristics of rigid jobs",
        JPDC 63(11), 2003 (serial jobs and emphasised sizes as their own components).
        """
        sizes, run, requested, submit, users = usable_columns(frame)
        if sizes.size < 10:
            raise ParameterError(
                f"cannot fit a job flow to {name or 'this trace'}: {sizes.size} jobs with a "
                "known size, run time and requested time, at least 10 needed"
            )
        header = frame.attrs.get("header", {})
        start = header_int(header, "UnixStartTime") or 0
        offset = float(start % _DAY)
        span = float(submit.max() - submit.min())
        if span < _DAY:
            raise ParameterError(f"cannot fit a daily cycle to {name}: it spans {span:g} s")
        times = np.sort(np.rint(submit))
        starts = np.concatenate([[True], np.diff(times) > 0])  # a burst: one second's jobs
        hours = ((times[starts] + offset) % _DAY // _HOUR).astype(int)
        rate = np.bincount(hours, minlength=24) / (span / _DAY) / _HOUR
        ratio = run / requested
        partial = ratio < 1
        max_procs = header_int(header, "MaxProcs") or int(sizes.max())
        ids, counts = np.unique(users, return_counts=True)
        values, freq = np.unique(sizes, return_counts=True)
        popular = freq >= POPULAR_SHARE * sizes.size
        rest = sizes[~np.isin(sizes, values[popular])]
        return cls(
            name=name,
            max_procs=max_procs,
            max_nodes=header_int(header, "MaxNodes") or max_procs,
            hourly_rate=rate,
            burst_p=float(starts.sum() / starts.size),  # 1 / mean jobs per burst
            start_offset=offset,
            popular=values[popular].astype(np.int64),
            popular_share=freq[popular] / sizes.size,
            size=tuple(scipy.stats.lognorm.fit(rest, floc=0)) if rest.size >= 2 else (),
            run=tuple(scipy.stats.lognorm.fit(run, floc=0)),
            full_share=float(1 - partial.mean()),
            ratio=tuple(scipy.stats.beta.fit(ratio[partial], floc=0, fscale=1))
            if partial.any()
            else (),
            users=ids,
            user_share=counts / counts.sum(),
            jobs=len(frame),
        )

    def generate(self, jobs: int | None, rng: np.random.Generator) -> pd.DataFrame:
        """A job flow of ``jobs`` jobs (default: the trace's count) drawn from the fits.

        Parameters
        ----------
        jobs : int or None
            Number of jobs (>= 1).
        rng : numpy.random.Generator
            The only source of randomness.

        Returns
        -------
        pandas.DataFrame
            :func:`~vosim.market.swf.read_swf` format, shape (jobs, 18), submit times from 0
            (s), the trace's ``MaxProcs`` and ``MaxNodes`` in its header.

        Raises
        ------
        ParameterError
            ``jobs`` not an integer >= 1.
        """
        k = self.jobs if jobs is None else jobs
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise ParameterError(f"jobs must be an integer >= 1, got {jobs!r}")
        submit = self._arrivals(int(k), rng)
        sizes = self._sizes(k, rng)
        run = np.maximum(1.0, np.rint(scipy.stats.lognorm.rvs(*self.run, size=k, random_state=rng)))
        full = rng.random(k) < self.full_share
        if self.ratio:
            ratio = scipy.stats.beta.rvs(*self.ratio, size=k, random_state=rng)
        else:
            ratio = np.ones(k)
        ratio = np.where(full, 1.0, np.clip(ratio, 1e-6, 1.0))
        requested = np.maximum(run, np.ceil(run / ratio))
        users = rng.choice(self.users, size=k, p=self.user_share)
        frame = swf_frame(
            submit, sizes, requested, run, users, nodes=self.max_procs, note=f"{FITTED}{self.name}"
        )
        frame.attrs["header"] = {
            "MaxNodes": str(self.max_nodes),
            "MaxProcs": str(self.max_procs),
            "Note": f"job flow fitted to {self.name} (vosim.market.fitted)",
        }
        return frame

    def _sizes(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """``k`` processor counts: a popular size by its share, else the rounded lognormal."""
        edges = np.cumsum(self.popular_share)
        pick = np.searchsorted(edges, rng.random(k), side="right")  # q: not a popular size
        if self.size:
            other = np.ceil(scipy.stats.lognorm.rvs(*self.size, size=k, random_state=rng))
        else:  # every job asked a popular size: the draws past the shares' sum are rounding
            pick = np.minimum(pick, self.popular.size - 1)
            other = np.ones(k)
        padded = np.append(self.popular, 0)
        sizes = np.where(pick < self.popular.size, padded[pick], np.clip(other, 1, self.max_procs))
        return sizes.astype(np.int64)

    def _arrivals(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """``k`` submit times from 0, whole seconds: geometric bursts at hourly-rate times.

        The bursts' times are drawn by thinning (Lewis & Shedler 1979).
        """
        peak = float(self.hourly_rate.max())
        mean_rate = max(float(self.hourly_rate.mean()), 1e-12)
        times: list[np.ndarray] = []
        t, found = 0.0, 0
        while found < k:
            bursts = (k - found) * self.burst_p  # expected bursts still needed
            batch = max(64, int(1.5 * bursts * peak / mean_rate))
            candidate = t + np.cumsum(rng.exponential(1 / peak, size=batch))
            t = float(candidate[-1])
            hour = ((candidate + self.start_offset) % _DAY // _HOUR).astype(int)
            kept = candidate[rng.random(batch) * peak < self.hourly_rate[hour]]
            sizes = rng.geometric(self.burst_p, size=kept.size)
            times.append(np.repeat(np.rint(kept), sizes))
            found += int(sizes.sum())
        return np.concatenate(times)[:k]

    def ks(self, frame: pd.DataFrame, rng: np.random.Generator) -> dict[str, float]:
        """Two-sample K-S statistics of each marginal: the trace against a generated flow.

        Parameters
        ----------
        frame : pandas.DataFrame
            The trace the flow was fitted to.
        rng : numpy.random.Generator
            Draws the generated flow (as many jobs as the trace).

        Returns
        -------
        dict of str to float
            ``interarrival``, ``processors``, ``run_time``, ``estimate_ratio``: the largest
            distance between the two empirical CDFs (``scipy.stats.ks_2samp``), in [0, 1].

        References
        ----------
        ICCS 2021 §3.1, Fig. 2 (0.14 for job sizes, its ForHLR II log).
        """
        sizes, run, requested, submit, _ = usable_columns(frame)
        flow = self.generate(len(frame), rng)
        g_sizes, g_run, g_requested, g_submit, _ = usable_columns(flow)
        pairs = {
            "interarrival": (np.diff(np.sort(submit)), np.diff(np.sort(g_submit))),
            "processors": (sizes, g_sizes),
            "run_time": (run, g_run),
            "estimate_ratio": (run / requested, g_run / g_requested),
        }
        return {k: float(scipy.stats.ks_2samp(a, b).statistic) for k, (a, b) in pairs.items()}


def usable_columns(frame: pd.DataFrame) -> tuple[np.ndarray, ...]:
    """Processors, run time, requested time (run time if unknown), submit, user of usable jobs.

    Usable: processors (field 8, else 5) and run time (field 4) known and > 0; the run time is
    cut at the requested time (field 9) as the model kills a job there.

    Parameters
    ----------
    frame : pandas.DataFrame
        SWF jobs (:func:`vosim.market.swf.read_swf`) or a generated flow.

    Returns
    -------
    tuple of numpy.ndarray, each shape (k,)
        Processors, run time (s), requested time (s), submit time (s) and user id of the
        ``k`` usable jobs, in the frame's order.

    References
    ----------
    SWF fields (Parallel Workloads Archive); ICCS 2021 §3.1 (the marginals fitted).
    """
    req_p = frame["requested_processors"].to_numpy()
    sizes = np.where(req_p > 0, req_p, frame["allocated_processors"].to_numpy())
    run = frame["run_time"].to_numpy(dtype=float)
    requested = frame["requested_time"].to_numpy(dtype=float)
    requested = np.where(requested > 0, requested, run)
    ok = (sizes > 0) & (run > 0)
    run = np.minimum(run, requested)
    submit = frame["submit_time"].to_numpy(dtype=float)
    users = frame["user_id"].to_numpy()
    return sizes[ok], run[ok], requested[ok], submit[ok], users[ok]


@functools.cache
def fitted_workload(trace: str) -> FittedWorkload:
    """The job flow fitted to bundled trace ``trace`` (fitted once per process).

    ``trace`` is a name of :data:`vosim.data.TRACES`; see :meth:`FittedWorkload.fit` for the
    fits and their sources (ICCS 2021 §3.1).

    Raises
    ------
    ParameterError
        ``trace`` is not a bundled trace, or cannot be fitted (:meth:`FittedWorkload.fit`).
    """
    if trace not in TRACES:
        raise ParameterError(
            f"a fitted job flow needs a bundled trace ({', '.join(TRACES)}), got {trace!r}"
        )
    return FittedWorkload.fit(read_swf(trace_path(trace)), trace)


def fitted_trace(name: str, jobs: int | None, rng: np.random.Generator) -> pd.DataFrame:
    """``jobs`` jobs (default: as many as the trace) of the flow ``name`` = ``fitted:<trace>``.

    Returns a :func:`~vosim.market.swf.read_swf` frame, shape (jobs, 18), times in s, drawn
    from ``rng`` only (:meth:`FittedWorkload.generate`).

    Raises
    ------
    ParameterError
        ``name`` does not start with ``fitted:`` or names no bundled trace.
    """
    if not name.startswith(FITTED):
        raise ParameterError(f"a fitted job flow is named {FITTED}<trace>, got {name!r}")
    return fitted_workload(name.removeprefix(FITTED)).generate(jobs, rng)
