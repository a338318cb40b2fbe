"""The values the AEP paper states for Figs. 1-3 and Tables 1-2 (AEP §3.2).

Read from the text of §3.2 (the figures themselves are not in the source); the package
notes of :mod:`vosim.runs.experiments.aep` say how the values it gives only in words are
read.
"""

from __future__ import annotations

#: The paper's means over 5000 cycles (AEP §3.2), by (algorithm, metric); see the package notes.
PAPER_FIG1_3: dict[tuple[str, str], float] = {
    ("amp", "start"): 0.0,
    ("min_finish", "start"): 0.0,
    ("csa", "start"): 0.0,
    ("min_runtime", "start"): 53.0,
    ("min_proc_time", "start"): 514.9,
    ("min_cost", "start"): 193.0,
    ("min_runtime", "runtime"): 33.0,
    ("min_finish", "runtime"): 34.4,
    ("min_proc_time", "runtime"): 37.7,
    ("csa", "runtime"): 38.0,
    ("min_finish", "finish"): 34.4,
    ("csa", "finish"): 52.6,
    ("min_cost", "finish"): 307.7,
    ("min_runtime", "cpu_time"): 158.0,
    ("min_finish", "cpu_time"): 161.9,
    ("csa", "cpu_time"): 168.6,
    ("min_proc_time", "cpu_time"): 171.6,
    ("min_cost", "cost"): 1027.3,
    ("csa", "cost"): 1352.0,
    ("min_runtime", "cost"): 1334.5,  # "29.9 % more expensive" than minCost's 1027.3
    ("csa", "alternatives"): 57.0,  # Table 1, 100 nodes
}

#: AEP Table 1, per node count of :data:`TABLE1_NODES`: ms per call, CSA's alternatives.
PAPER_TABLE1: dict[str, tuple[float, ...]] = {
    "alternatives": (25.9, 57.0, 128.4, 187.3, 252.0),
    "csa_per_alternative": (0.33, 0.99, 3.16, 6.79, 11.83),
    "csa": (8.5, 56.5, 405.2, 1271.0, 2980.9),
    "amp": (0.3, 0.5, 1.1, 1.6, 2.2),
    "min_runtime": (3.2, 12.0, 45.5, 97.2, 169.2),
    "min_finish": (3.2, 12.0, 45.1, 96.9, 169.0),
    "min_proc_time": (1.5, 5.2, 19.4, 42.1, 74.1),
    "min_cost": (1.7, 6.3, 23.6, 52.3, 91.5),
}
#: AEP Table 2, per interval length of :data:`TABLE2_INTERVALS`: ms per call, slots, alternatives.
PAPER_TABLE2: dict[str, tuple[float, ...]] = {
    "slots": (472.6, 779.4, 1092.0, 1405.1, 1718.8, 2030.6),
    "alternatives": (57.0, 125.4, 196.2, 269.8, 339.7, 412.5),
    "csa_per_alternative": (0.95, 1.91, 2.88, 3.88, 4.87, 5.88),
    "csa": (54.2, 239.8, 565.7, 1045.7, 1650.5, 2424.4),
    "amp": (0.5, 0.82, 1.1, 1.44, 1.79, 2.14),
    "min_runtime": (11.7, 26.0, 40.9, 55.5, 69.4, 84.6),
    "min_finish": (11.6, 25.7, 40.6, 55.3, 69.0, 84.1),
    "min_proc_time": (5.0, 11.1, 17.4, 23.5, 29.5, 35.8),
    "min_cost": (6.1, 13.4, 20.9, 28.5, 35.7, 43.5),
}
