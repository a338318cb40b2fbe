"""The papers' random availability environments and instances, drawn from utilization events.

:func:`generate_environment` is the environment generator of ICCS 2021 §4.1 (global load and
local job load on ``m`` nodes, as a
:class:`~vosim.market.utilization_schedule.UtilizationSchedule`);
:func:`random_groups` the random instances of ICCS 2023 §3.1 (costs, a partition of the
resources into groups, the groups' availabilities). Both draw from a given
``numpy.random.Generator`` only.
"""

from __future__ import annotations

import math

import numpy as np

from vosim.errors import ParameterError
from vosim.market.utilization_schedule import UtilizationSchedule

__all__ = ["generate_environment", "random_groups"]


def generate_environment(
    m: int,
    length: float,
    *,
    global_load: float = 0.05,
    job_load: float = 0.0,
    length_median: float | None = None,
    length_sigma: float = 0.5,
    alloc_uncertainty: float = 0.05,
    release_uncertainty: float = 0.1,
    margin: float = 0.0,
    rng: np.random.Generator,
) -> UtilizationSchedule:
    """The ICCS 2021 §4.1 environment: global load and local job-load on ``m`` nodes.

    * **Global load.** Each node's global occupation probability is
      ``min(|X|, 1)`` with ``X ~ Normal(0, global_load)``: the paper's normal with standard
      deviation ``global_load``, folded at 0 so that, as the paper says, "about 68 % of the
      resources have ``P_o < global_load``" (clipping a normal at 0 instead would give 84 %).
    * **Job-load.** Each node gets single-node local jobs with lognormal lengths
      (median ``length_median``, log-scale standard deviation ``length_sigma``), drawn until
      their total reaches ``job_load * length`` and then scaled so the total is exactly
      that. The jobs keep their order and are placed without overlap inside ``[0, length]``:
      the node's idle time ``(1 - job_load) * length`` is cut at sorted uniform points, which
      is the paper's "start at the submit time or after the previous job" with submit times
      uniform over the idle time, so no job is pushed past the interval. With ``margin > 0``
      the jobs are laid out the same way over ``[-margin, length + margin]`` (job-load is then
      the share of that span), so the interval's ends carry local load on both sides like its
      inside (with ``margin = 0`` the first and last windows have
      uncertain neighbours on one side only, and the best start sits at an end).
    * **Uncertainty.** A job expected on ``[S, F]`` (length ``l = F - S``) gets an
      allocation event at ``S`` with standard deviation ``alloc_uncertainty * l``, a
      release event at ``F`` with standard deviation ``release_uncertainty * l``, and a
      certain execution from ``S + 3 sd_alloc`` to ``F - 3 sd_release`` (three standard
      deviations, where the allocation CDF exceeds 0.9986; a zero uncertainty gives no such
      event and an execution reaching ``S`` or ``F``).

    Parameters
    ----------
    m : int
        Number of nodes (>= 1).
    length : float
        Length ``L`` of the scheduling interval ``[0, L]``, model time units (> 0).
    global_load : float
        Standard deviation of the global occupation probability, >= 0 (paper: 0.05).
    job_load : float
        Share of the interval covered by local jobs on each node, in [0, 1].
    length_median : float, optional
        Median local job length (> 0); default ``length / 8``.
    length_sigma : float
        Log-scale standard deviation of the job lengths (>= 0).
    alloc_uncertainty, release_uncertainty : float
        Standard deviations of allocation and release as fractions of the job length (>= 0,
        ``3 * (alloc_uncertainty + release_uncertainty) < 1`` so that an execution remains).
    margin : float
        Local jobs are also generated over this much time before 0 and after ``length``,
        model time units (finite, >= 0; default 0).
    rng : numpy.random.Generator
        The source of randomness.

    Returns
    -------
    UtilizationSchedule
        ``m`` resources, one chain per local job (no shared chains: every resource is its
        own group until parallel jobs are added with :meth:`UtilizationSchedule.with_chains`).

    Raises
    ------
    ParameterError
        Any parameter outside its range (named).
    TypeError
        ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    The paper leaves open the lognormal parameters of the job lengths ("selected
    experimentally" against the ForHLR II logs), the uncertainty constants and the shape of
    the execution inside a job. Here: median ``L / 8`` (100 for the paper's ``L = 800``: a few
    jobs per node at medium load) with ``length_sigma = 0.5``; allocation standard deviation
    5 % of the length, after Fig. 1 of ICCS 2021 and ICCS 2023 where executions start 48–89
    time units after the expected allocation of jobs 400–540 long (three standard deviations
    of 3.5–6.3 %); release standard deviation 10 %, twice as wide because runtimes are less
    predictable than starts. Times are real numbers.

    References
    ----------
    ICCS 2021 §4.1 (global load, job-load, allocation/release events from the job length),
    §3.1 (lognormal job lengths), §4.2–4.3 (64 nodes, ``L = 800``, global load 0.05).

    Examples
    --------
    >>> env = generate_environment(64, 800.0, global_load=0.05, job_load=0.5,
    ...                            rng=np.random.default_rng(1))
    >>> env.m
    64
    >>> busy = env.release_time - env.alloc_time          # expected job lengths
    >>> round(float(busy[env.resource_of == 0].sum()), 6)  # job_load * L on node 0
    400.0
    >>> env.p_avail(200.0, np.arange(0, 601)).shape
    (64, 601)
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ParameterError(f"m must be an integer >= 1, got {m!r}")
    L = float(length)
    if not (math.isfinite(L) and L > 0):
        raise ParameterError(f"length L must be a finite number > 0, got {length!r}")
    median = L / 8.0 if length_median is None else float(length_median)
    checks = [
        ("global_load", global_load, 0.0 <= global_load < math.inf),
        ("job_load", job_load, 0.0 <= job_load <= 1.0),
        ("length_median", median, 0.0 < median < math.inf),
        ("length_sigma", length_sigma, 0.0 <= length_sigma < math.inf),
        ("alloc_uncertainty", alloc_uncertainty, alloc_uncertainty >= 0),
        ("release_uncertainty", release_uncertainty, release_uncertainty >= 0),
        ("margin", margin, 0.0 <= margin < math.inf),
    ]
    for name, value, ok in checks:
        if not ok:
            raise ParameterError(f"{name} is out of range, got {value!r}")
    if not 3.0 * (alloc_uncertainty + release_uncertainty) < 1.0:
        raise ParameterError(
            "3 * (alloc_uncertainty + release_uncertainty) must be < 1, got "
            f"alloc_uncertainty={alloc_uncertainty!r}, release_uncertainty={release_uncertainty!r}"
        )
    global_p = np.minimum(np.abs(rng.normal(0.0, global_load, m)), 1.0)

    span = L + 2.0 * float(margin)  # local jobs are laid out over [-margin, L + margin]
    target = job_load * span
    if target > 0:
        lengths = np.empty((m, 0))
        mean = median * math.exp(length_sigma**2 / 2)
        while True:  # draw jobs in batches until every node's total reaches the target
            width = max(4, math.ceil(1.5 * target / mean) + 2)
            lengths = np.hstack(
                [lengths, rng.lognormal(math.log(median), length_sigma, (m, width))]
            )
            if np.all(lengths.sum(axis=1) >= target):
                break
        total = np.cumsum(lengths, axis=1)
        count = (total < target).sum(axis=1) + 1  # jobs needed to reach the target
        used = np.arange(lengths.shape[1]) < count[:, None]
        lengths = np.where(used, lengths, 0.0)
        lengths *= target / lengths.sum(axis=1, keepdims=True)
        cuts = np.where(used, rng.uniform(0.0, span - target, lengths.shape), np.inf)
        cuts.sort(axis=1)
        before = np.cumsum(lengths, axis=1) - lengths
        job_start = (cuts + before)[used] - float(margin)
        job_len = lengths[used]
        node = np.nonzero(used)[0]
    else:
        job_start = job_len = np.empty(0)
        node = np.empty(0, dtype=np.int64)
    job_end = job_start + job_len
    sd_a = alloc_uncertainty * job_len
    sd_r = release_uncertainty * job_len
    alloc_time = np.where(sd_a > 0, job_start, np.nan)
    release_time = np.where(sd_r > 0, job_end, np.nan)
    return UtilizationSchedule(
        global_p,
        alloc_time,
        sd_a,
        job_start + 3.0 * sd_a,
        job_end - 3.0 * sd_r,
        release_time,
        sd_r,
        chain_of=np.arange(node.size, dtype=np.int64),
        resource_of=node.astype(np.int64),
    )


def random_groups(
    N: int,
    G: int,
    rng: np.random.Generator,
    *,
    cost_range: tuple[int, int] = (2, 10),
    p_range: tuple[float, float] = (0.47, 0.94),
    cost_noise: float = 1.0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random ICCS 2023 §3 instance: costs, a random partition into groups, group probabilities.

    Every group gets one resource of a random permutation, the remaining ``N - G`` resources
    a uniformly random group ("random uniformly distributed group dependencies ... random
    non-intersecting subsets"), so all ``G`` groups are non-empty. Each group's availability is
    uniform in ``p_range``; a resource's integer cost rises with its group's availability,
    ``round(c_lo + (c_hi - c_lo) u + e)`` clipped to ``cost_range``, with ``u`` the group's
    availability scaled to [0, 1] and ``e`` uniform in ``[-cost_noise, cost_noise]``.

    Parameters
    ----------
    N : int
        Number of resources (>= 1).
    G : int
        Number of groups, ``1 <= G <= N``.
    rng : numpy.random.Generator
        The source of randomness.
    cost_range : (int, int)
        Inclusive bounds ``(c_lo, c_hi)`` of each resource's integer cost for the whole
        reservation (``0 <= c_lo <= c_hi``).
    p_range : (float, float)
        Bounds of the uniform availability probability of each group, ``0 <= low <= high <= 1``.
    cost_noise : float
        Half-width of the uniform noise added to the cost before rounding (>= 0); 0 makes the
        cost a function of the group's availability.

    Returns
    -------
    cost : numpy.ndarray of int, shape (N,)
        In ``cost_range``.
    group : numpy.ndarray of int, shape (N,)
        In ``[0, G)``, every group used.
    group_p : numpy.ndarray, shape (G,)
        In ``p_range``.

    Raises
    ------
    ParameterError
        ``N < 1``, ``G`` outside ``[1, N]``, bad ranges or a negative ``cost_noise``.
    TypeError
        ``rng`` is not a :class:`numpy.random.Generator`.

    Notes
    -----
    The paper gives neither distribution; what its text fixes, and what is vosim's choice:

    * **Cost range** ``{2, ..., 10}`` (§3.3, ``N = 200``, ``n = 20``): "with ``C < 40`` it was
      almost impossible to allocate any 20 resources" puts the cheapest near 2 (20 x 2) and
      "``C > 200`` allows to select almost any resources" the dearest near 10 (20 x 10).
    * **Cost rises with availability.** Greedy (GreedyUnited takes the ``n`` most available
      resources, MaxP, whenever they fit) "reaches BruteForce for ``C > 90``" with ``n = 8``
      (§3.2) and "only ... with ``C > 200``, i.e., without the cost restriction" outperforms
      KnapsackSingle with ``n = 20`` (§3.3): the ``n`` most available resources cost about
      ``n`` times the dearest price, so the most available resources are the dearest. With
      costs drawn apart from availability (vosim's first generator) the budget stopped
      binding at ``C`` about 60 and Greedy never lost more than 8.5 % (the paper: over 20 %).
      The linear form and the +-1 noise (resources of one group differ in cost, so which of
      a group's members to take is a choice) are vosim's: the paper states no function.
    * **Availability range** ``[0.47, 0.94]``, from the paper's Fig. 1 example: a resource
      that only the global utilization event can take (``P_o = 0.06``) has ``P_a = 0.94``; one
      whose job's allocation or release is expected inside the interval (``P_o = 0.5`` at its
      expected time) ``0.5 x 0.94 = 0.47``. Uniform between them is vosim's choice.

    References
    ----------
    ICCS 2023 §2.1 and Fig. 1 (occupation probabilities), §3.1 (N, G, n, C; random groups),
    §3.2–3.3 (N = 21, G = 8; N = 200, G = 40; the budgets' statements above).

    Examples
    --------
    >>> from vosim.allocators.availability_problem import AvailabilityProblem
    >>> cost, group, group_p = random_groups(21, 8, np.random.default_rng(0))
    >>> prob = AvailabilityProblem(cost=cost, group=group, group_p=group_p, n=8, budget=60)
    >>> prob.N, prob.G, sorted(set(group.tolist())) == list(range(8))
    (21, 8, True)
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise ParameterError(f"N must be an integer >= 1, got {N!r}")
    if isinstance(G, bool) or not isinstance(G, (int, np.integer)) or not 1 <= G <= N:
        raise ParameterError(f"G must be an integer in [1, N={N}], got {G!r}")
    c_lo, c_hi = cost_range
    if not (int(c_lo) == c_lo and int(c_hi) == c_hi and 0 <= c_lo <= c_hi):
        raise ParameterError(f"cost_range must be integers 0 <= low <= high, got {cost_range!r}")
    p_lo, p_hi = (float(v) for v in p_range)
    if not 0.0 <= p_lo <= p_hi <= 1.0:
        raise ParameterError(f"p_range must satisfy 0 <= low <= high <= 1, got {p_range!r}")
    if not (math.isfinite(cost_noise) and cost_noise >= 0):
        raise ParameterError(f"cost_noise must be a finite number >= 0, got {cost_noise!r}")
    perm = rng.permutation(N)
    group = np.empty(N, dtype=np.int64)
    group[perm[:G]] = np.arange(G)
    group[perm[G:]] = rng.integers(0, G, N - G)
    group_p = rng.uniform(p_lo, p_hi, G)
    scaled = (group_p[group] - p_lo) / (p_hi - p_lo) if p_hi > p_lo else np.full(N, 0.5)
    raw = c_lo + (c_hi - c_lo) * scaled + rng.uniform(-cost_noise, cost_noise, N)
    cost = np.clip(np.rint(raw), c_lo, c_hi).astype(np.int64)
    return cost, group, group_p
