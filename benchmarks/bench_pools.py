"""What a pool's free count would save: the rows a window search reads, per pass, both ways.

A *pool* is the processors that share owner, performance and price: interchangeable, so a
search needs only how many of them are free over time (a
:class:`~vosim.market.profile.FreeProfile`), not which. This script runs the model and, at
every ``--every``-th scheduling pass, takes the slot list the policies read (one row per
processor and free span) and counts:

- ``rows``: its rows, what every search, cut and compression pass reads today;
- ``alike``: its distinct ``(pool, start, end)``, the rows if equal spans of a pool were
  counted once (processors still bound as today);
- ``levels``: the rows of each pool's level decomposition
  (:meth:`FreeProfile.levels <vosim.market.profile.FreeProfile.levels>`) of the same free
  count, the rows of a count-based slot list;
- ``joined``: the share of ``rows`` that the levels' spans (their counts added up) no longer
  need: free time the per-processor binding splits between two processors and a pool joins
  into one span (0: the binding loses nothing; the free processor-time is the same).

It prints the means over the sampled passes and the ratios. It times nothing: the share of
a run's time that reads rows is a profile's (``benchmarks/README.md``).

``--windows`` measures instead what binding costs the model: at every ``--every``-th window
search of the cyclic scheme (a new job's, with its criterion and budget), the same search runs
again on the count view of the same slot list (:func:`~vosim.market.free_time.count_view`:
each pool's processors re-assigned, so ``k`` tasks fit wherever ``k`` processors are free)
and the two windows are compared: found only by count, an earlier start, an earlier finish,
a lower cost. The run itself is unchanged (its windows are the per-processor ones), so this
is the static gap at each search, not what counting would do to a whole run.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_pools.py --jobs 5000
    PYTHONPATH=. .venv/bin/python benchmarks/bench_pools.py --trace LCG-2005-1 \\
        --owners trace --jobs 5000
    PYTHONPATH=. .venv/bin/python benchmarks/bench_pools.py --windows --every 5
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import vosim.policies.cyclic_scheme as scheme
from vosim.market.free_time import FreeTime, count_view
from vosim.model import VOModel


def pass_rows(slots, free_time: FreeTime, now: float, until: float) -> dict:
    """The counts of one pass's slot list, per processor and as its pools' free counts.

    Parameters
    ----------
    slots : SlotList
        The pass's slot list over ``[now, until)`` (model time units), ``m`` rows.
    free_time : FreeTime
        The model's pools and their free counts (read from the same busy time).
    now, until : float
        The pass's interval, model time units.

    Returns
    -------
    dict
        ``rows`` (``m``), ``alike`` (distinct ``(pool, start, end)``), ``levels`` (rows of
        the level decompositions of the pools in the slot list) and ``expanded`` (their
        counts added up).

    Raises nothing for a slot list the model built. Source: AEP §2.1 (the slot list);
    the pools and their levels are vosim's (:meth:`FreeProfile.levels`).
    """
    rows = len(slots)
    of = free_time.pool[slots.node]
    alike = len(set(zip(of.tolist(), slots.start.tolist(), slots.end.tolist(), strict=True)))
    levels = expanded = 0
    for p in np.unique(of).tolist():
        _, _, count = free_time.profile(p, now).levels(now, until)
        levels += count.size
        expanded += int(count.sum())
    return {"rows": rows, "alike": alike, "levels": levels, "expanded": expanded}


def compare_windows(by_processor, by_count) -> str:
    """How the count view's window compares with the per-processor one (two Allocations).

    ``"none"`` (neither found one), ``"count only"``, ``"processor only"`` (a fault: the
    count view holds every window the per-processor list does), else ``"earlier"`` (an
    earlier start), ``"cheaper"`` (the same start, a lower cost or an earlier finish) or
    ``"same"``. Source: vosim's instrument (AEP §2.1 windows; the pools are vosim's).
    """
    a, b = by_processor.window, by_count.window
    if a is None or b is None:
        return {(True, True): "none", (True, False): "count only"}.get(
            (a is None, b is None), "processor only"
        )
    if b.start < a.start:
        return "earlier"
    if b.start == a.start and (b.cost < a.cost or b.start + b.runtime < a.start + a.runtime):
        return "cheaper"
    return "same"


def windows(model: VOModel, every: int) -> tuple[dict, list[float]]:
    """Run ``model`` and compare every ``every``-th scheme search with its count view.

    Returns the outcomes' counts (:func:`compare_windows`) and, for each ``"earlier"``, how
    much earlier the count view's window starts (model time units).
    """
    plain = scheme.allocate_window
    outcome: dict[str, int] = {}
    gain: list[float] = []
    calls = [0]

    def both(slots, request, criterion="amp", **kw):
        found = plain(slots, request, criterion, **kw)
        calls[0] += 1
        if calls[0] % every == 0:
            other = plain(count_view(slots, model.free_time.pool), request, criterion, **kw)
            kind = compare_windows(found, other)
            outcome[kind] = outcome.get(kind, 0) + 1
            if kind == "earlier":
                gain.append(found.window.start - other.window.start)
        return found

    scheme.allocate_window = both
    try:
        model.run()
    finally:
        scheme.allocate_window = plain
    return outcome, gain


def _positive(text: str) -> int:
    """``--every``'s value: an integer >= 1 (argparse reports anything else)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> None:
    """Run the model with the options given and print the pass means."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default="UniLu-Gaia-2014-2")
    parser.add_argument("--jobs", type=int, default=5000)
    parser.add_argument("--owners", default=None, help="'trace' for a multi-site trace's sites")
    parser.add_argument(
        "--every", type=_positive, default=20, help="sample one pass in this many (>= 1)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--windows",
        action="store_true",
        help="compare the scheme's window searches with their count view (see above)",
    )
    args = parser.parse_args(argv)
    extra = {} if args.owners is None else {"owners": args.owners}
    model = VOModel(trace=args.trace, jobs=args.jobs, rng=args.seed, **extra)
    title = (
        f"{args.trace}, {args.jobs} jobs{', owners ' + args.owners if args.owners else ''}: "
        f"{model.node_count} resources in {model.free_time.pools} pools"
    )
    if args.windows:
        outcome, gain = windows(model, args.every)
        total = sum(outcome.values())
        print(f"{title}; {total:,} searches compared")
        for kind in ("none", "same", "cheaper", "earlier", "count only", "processor only"):
            got = outcome.get(kind, 0)
            print(f"  {kind:>14}: {got:7,} ({got / max(total, 1):.2%})")
        if gain:
            print(
                f"  earlier by count: mean {np.mean(gain):,.0f} s, median {np.median(gain):,.0f} s"
            )
        return
    offers = model.metascheduler.offers
    plain = offers.slot_list
    seen: list[dict] = []
    calls = [0]

    def sampled(now, until, nodes=None):
        slots = plain(now, until, nodes)
        calls[0] += 1
        if nodes is None and calls[0] % args.every == 0:
            seen.append(pass_rows(slots, model.free_time, now, until))
        return slots

    offers.slot_list = sampled
    model.run()
    if not seen:
        raise SystemExit("no pass sampled: lower --every")
    mean = {k: float(np.mean([s[k] for s in seen])) for k in seen[0]}
    print(f"{title}; {len(seen)} passes sampled")
    joined = 1 - mean["expanded"] / mean["rows"]
    print(
        f"rows {mean['rows']:,.0f}, alike {mean['alike']:,.0f} "
        f"({mean['rows'] / mean['alike']:.1f}x fewer), levels {mean['levels']:,.0f} "
        f"({mean['rows'] / mean['levels']:.1f}x fewer); joined {joined:.2%}"
    )


if __name__ == "__main__":
    main()
