"""The bounds a run's size and periods must keep: what a parameter check or the model refuses."""

from __future__ import annotations

__all__ = ["MAX_LOCAL_ARRIVALS", "MAX_LOCAL_DRAWS", "MAX_PERIODS", "MIN_PERIOD"]

#: The shortest ``cycle_period`` (other than 0) and ``budget_period``, model time units.
#: Trace times are whole seconds (SWF) and model time units are seconds: a shorter
#: period adds only cycles or budget resets between the events a pass can react to, and
#: ``cycle_period 0`` already gives a pass at every job end and arrival. Periods of 1e-9 and
#: 1e-6 made runs that never ended (``vosim run --cycle-period 1e-9``).
MIN_PERIOD = 1.0

#: The most scheduling cycles that can act, or budget periods, a run may have, estimated from
#: its trace before it starts (:class:`~vosim.model.VOModel`). A cycle with
#: jobs waiting took 0.3-0.5 ms on 300 Gaia or NASA jobs, 13 ms when owners may leave
#: (measured), and a budget period resets every balance and wakes a cycle: 10^6 of them take
#: minutes to hours; beyond, a run is a typo of the period rather than a study. The whole Gaia
#: trace (3 months) has 26,000 cycles at the default 300 s and 770,000 at 10 s; idle stretches
#: are skipped and not counted.
MAX_PERIODS = 10**6

#: The most draws of the owners' local load a run may make: physical nodes times the
#: scheduling intervals ``L`` from time 0 to the trace's end (every node's local jobs are
#: drawn per interval ``L`` from time 0 on and kept for the whole run).
#: 10^6 draws took 13 s and 850 MB (measured: 20 Unix-timestamp jobs, 1.4e9 s, on 430
#: nodes); UniLu-Gaia's 151 nodes over its 3 months make 2,000, a trace of Unix-timestamp
#: submit times 350,000, and one job at 1e15 s 2.5e11, which would never end.
MAX_LOCAL_DRAWS = 10**6

#: The most online local jobs a run may expect (:class:`~vosim.market.local_flow.PoissonLocalJobs`
#: over the trace's span). Each is placed once, at about 50 us; LCG-2005-1's two weeks on its
#: 24,515 one-processor nodes at 5-10 % local load bring about 2 x 10^6; beyond 10^7 a run is a
#: typo of the load or of the trace's times rather than a study.
MAX_LOCAL_ARRIVALS = 10**7
