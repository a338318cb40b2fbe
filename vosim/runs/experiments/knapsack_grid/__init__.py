"""The Knapsack Grid comparison: knapsack policies against FCFS, EASY backfilling and gang.

Parra-Hernandez, Vanderster, Dimopoulos, *Resource Management and Knapsack Formulations on
the Grid* (slides, ``knapsack-grid-slides.md``), "Experimental Evaluation of the Knapsack
Strategy". Two experiments run the same strategies on the same tasks, on the slides'
preemptive grid (:mod:`vosim.runs.experiments.knapsack_grid_simulator`, simulated for this
experiment only):

``knapsack-grid``
    The slides' grid (4 clusters of 4, 8, 16, 32 processors) and stream: Poisson arrivals with
    mean inter-arrival ``lambda = 0.64 h``, bimodal demand, 2000 tasks
    (:func:`~vosim.runs.experiments.knapsack_grid_simulator.workload.poisson_tasks`).
``knapsack-grid-lambda``
    The same stream at mean inter-arrival times ``lambda`` = 0.32, 0.64 and 1.28 h, one
    strategy per family: the sweep the slides' "for lambda = 0.64 hr" implies.
``knapsack-grid-example``
    The slides' two-task example ("Two Tasks and Their Options"), optimum 20.
``knapsack-grid-swf``
    The bundled real trace UniLu-Gaia-2014-2 (first 500 jobs): the grid's clusters are the
    processors of a VO of 4 resource owners sharing Gaia's 2004 processors in contiguous blocks
    (501 each, :func:`trace_clusters`); each job's options come from its requested processors
    (:func:`~vosim.runs.experiments.knapsack_grid_simulator.workload.swf_tasks`: the reference
    option on one cluster, a split across two, half the processors for twice as long, the
    other clusters), with base credits drawn uniformly from [1, 10] because SWF carries none.
    With clusters this large the exact knapsack runs as a MILP (HiGHS): usually a fraction of
    a second per cycle, but a rare cycle can take minutes, so each is limited to
    :data:`MILP_TIME_LIMIT` seconds (the column ``suboptimal_cycles`` counts the cycles that
    hit it and ran HiGHS's best choice so far).

Reported per strategy (mean over repetitions): the overall completion time (the last task's
finish, hours), the mean turnaround, the mean per-task speedup relative to FCFS (FCFS
turnaround / the strategy's turnaround, "Speedup Relative to FCFS") and its quantiles over the
tasks of every stream (10, 25, 50, 75, 90 %), the Spearman
correlation of each task's credit value with its speedup ("Correlation of Credit-Value-Metric
with Speedup"), preemptions per task, and the knapsack's solve time per cycle. The slides'
claims are checked and reported as rows of kind ``claim`` (``holds`` True/False):

1. KS+BF has the lowest overall completion time;
2. the knapsack does better than gang (overall completion time);
3. the knapsack gives the largest task speedup, judged on the median task (the mean of
   per-task ratios is dominated by the few tasks FCFS made wait longest: gang's mean was 47x
   with a median of 0.47);
4. QoS policies favour high-value tasks without raising the overall completion time: the
   credit-value policies 1-3 at ``tau = 1 h`` have a credit-speedup correlation above 0 and an
   overall completion time at most FCFS's.

Choices the slides leave open: the strategies' parameters (gang slices of 1 h and 10 h; the
knapsack with every policy at ``tau = 1 h``, policy 1 also at 0.25 h and 4 h; KS+BF with
policies 1 and 5 at 1 h) and the number of repetitions (8 streams by default). Each claim's
row also counts the streams in which it holds (``streams_holding``): a claim that holds on
the means but in few streams is not reproduced.

The package, one module per part of the procedure:

* :mod:`~vosim.runs.experiments.knapsack_grid.setup`: the strategies compared
  (:func:`strategies`), the table's columns, the claims, the task streams (the slides'
  ``lambda``, :func:`trace_clusters`) and the worked example's tasks;
* :mod:`~vosim.runs.experiments.knapsack_grid.compare`: one comparison, every strategy
  simulated on the same streams, its metrics averaged and the claims judged;
* :mod:`~vosim.runs.experiments.knapsack_grid.run`: the procedures of the four experiments
  (:func:`run_synthetic`, :func:`run_lambda`, :func:`run_swf`, :func:`run_example`);
* :mod:`~vosim.runs.experiments.knapsack_grid.charts`: their charts;
* :mod:`~vosim.runs.experiments.knapsack_grid.fidelity`: the slides' claims and the
  example's optimum beside vosim's (:func:`grid_fidelity`, :func:`lambda_fidelity`,
  :func:`example_fidelity`).
"""

from __future__ import annotations

from vosim.runs.experiments.base import Experiment, register_experiment
from vosim.runs.experiments.knapsack_grid.fidelity import CLAIM_SLIDES as CLAIM_SLIDES
from vosim.runs.experiments.knapsack_grid.fidelity import CLAIM_STREAMS_YES as CLAIM_STREAMS_YES
from vosim.runs.experiments.knapsack_grid.fidelity import example_fidelity as example_fidelity
from vosim.runs.experiments.knapsack_grid.fidelity import grid_fidelity as grid_fidelity
from vosim.runs.experiments.knapsack_grid.fidelity import lambda_fidelity as lambda_fidelity
from vosim.runs.experiments.knapsack_grid.run import run_example as run_example
from vosim.runs.experiments.knapsack_grid.run import run_lambda as run_lambda
from vosim.runs.experiments.knapsack_grid.run import run_swf as run_swf
from vosim.runs.experiments.knapsack_grid.run import run_synthetic as run_synthetic
from vosim.runs.experiments.knapsack_grid.setup import CLAIMS as CLAIMS
from vosim.runs.experiments.knapsack_grid.setup import COLUMNS as COLUMNS
from vosim.runs.experiments.knapsack_grid.setup import EXAMPLE_CHOICE as EXAMPLE_CHOICE
from vosim.runs.experiments.knapsack_grid.setup import EXAMPLE_COLUMNS as EXAMPLE_COLUMNS
from vosim.runs.experiments.knapsack_grid.setup import EXAMPLE_OPTIMUM as EXAMPLE_OPTIMUM
from vosim.runs.experiments.knapsack_grid.setup import LAMBDAS as LAMBDAS
from vosim.runs.experiments.knapsack_grid.setup import SLIDES_LAMBDA as SLIDES_LAMBDA
from vosim.runs.experiments.knapsack_grid.setup import SPEEDUP_QUANTILES as SPEEDUP_QUANTILES
from vosim.runs.experiments.knapsack_grid.setup import strategies as strategies
from vosim.runs.experiments.knapsack_grid.setup import trace_clusters as trace_clusters

__all__ = [
    "COLUMNS",
    "CLAIMS",
    "CLAIM_SLIDES",
    "CLAIM_STREAMS_YES",
    "EXAMPLE_CHOICE",
    "EXAMPLE_COLUMNS",
    "EXAMPLE_OPTIMUM",
    "LAMBDAS",
    "SLIDES_LAMBDA",
    "SPEEDUP_QUANTILES",
    "example_fidelity",
    "grid_fidelity",
    "lambda_fidelity",
    "strategies",
    "trace_clusters",
]

KNAPSACK_GRID = register_experiment(
    Experiment(
        name="knapsack-grid",
        description=(
            "Knapsack Grid slides: FCFS, EASY backfilling, gang (1 h, 10 h slices), the "
            "knapsack with utility policies 1-5 and tau = 0.25/1/4 h, KS+BF; 2000 tasks, "
            "lambda = 0.64 h, clusters 4/8/16/32; 8 streams by default"
        ),
        default_repetitions=8,
        quick_repetitions=1,
        run=run_synthetic,
        points=lambda quick: 1 if quick else 8,
        fidelity=grid_fidelity,
    )
)

KNAPSACK_GRID_LAMBDA = register_experiment(
    Experiment(
        name="knapsack-grid-lambda",
        description=(
            "Knapsack Grid slides' comparison at mean inter-arrival lambda = 0.32, 0.64, 1.28 h "
            "(one strategy per family: FCFS, EASY, gang 1 h, knapsack and KS+BF policy 1, "
            "tau = 1 h); 2000 tasks, 8 streams per lambda by default"
        ),
        default_repetitions=8,
        quick_repetitions=1,
        run=run_lambda,
        points=lambda quick: len(LAMBDAS) * (1 if quick else 8),
        fidelity=lambda_fidelity,
    )
)

KNAPSACK_GRID_SWF = register_experiment(
    Experiment(
        name="knapsack-grid-swf",
        description=(
            "The Knapsack Grid comparison on the bundled UniLu-Gaia trace (first 500 jobs) "
            "on 4 clusters of 501 processors (a VO of 4 owners); 1 run by default"
        ),
        default_repetitions=1,
        quick_repetitions=1,
        run=run_swf,
        points=lambda quick: 1,
    )
)

KNAPSACK_GRID_EXAMPLE = register_experiment(
    Experiment(
        name="knapsack-grid-example",
        description=(
            "Knapsack Grid slides' worked example: two tasks' options on clusters of 16 and 8 "
            "processors, solved by the multiple-choice knapsack (DP and MILP; paper: 20)"
        ),
        default_repetitions=1,
        quick_repetitions=1,
        run=run_example,
        points=lambda quick: 1,
        fidelity=example_fidelity,
    )
)
