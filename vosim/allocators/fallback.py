"""Fallback chains: an exact allocator under a budget, then a greedy one.

A *chain* names allocators of one registry joined by ``>``, tried left to right:

``"knapsack_group>greedy_plus"``
    availability methods (:func:`~vosim.allocators.availability_problem.allocate_resources`);
``"min_cost>amp"``
    window criteria (:func:`~vosim.allocators.base.allocate_window`);
``"milp>greedy"``
    the multiple-choice knapsack (:func:`~vosim.allocators.mckp.solve_mckp`).

Every link but the last runs under a :class:`FallbackBudget` (``--fallback-after``): seconds
of wall time or search-tree nodes. A link that proves its answer within the budget answers; a
link that runs out hands over to the next one, and the last link runs without a budget (with
its own defaults). The budget applies to each budgeted link separately, so a chain of ``k``
links spends at most ``k - 1`` budgets before its last link. What a node is depends on the
link:

``knapsack_group`` (``"methods"``)
    nodes: branch-and-bound candidates expanded (relaxations solved, ``stats["expanded"]``);
    seconds: wall time, checked before each expansion after the root's.
``min_cost`` (``"criteria"``)
    nodes: candidate window starts examined, in scan order; seconds: wall time, checked
    between blocks of candidate starts (the first block, at most 64 starts, always runs).
``milp`` (``"mckp"``)
    nodes: HiGHS's branch-and-bound nodes (``node_limit``); seconds: HiGHS's
    ``time_limit``.

Which answer is returned. A link that ran out may still hold an *incumbent* (the best answer
it found: a valid selection, window or choice). The chain returns the best answer of all the
links it ran, by the first link's objective (availability, then lower cost; window cost, then
earlier start; MCKP value), ties going to the later link: so when the budget does not suffice
the greedy link answers unless the exact link's incumbent is strictly better, and the answer
is never worse than the greedy one. The result's ``stats`` record ``chain`` (the chain's name),
``answered_by`` (the link whose answer is returned), ``fell_back`` (``True`` when the first link
ran out and later links ran) and ``fallback_after`` (the budget, as text). A
:class:`FallbackLog` owned by the caller counts calls and fallbacks per method over a run.

Validation code (CLI, sweep files, the model) calls :func:`resolve` or :func:`is_method` where
it used to test ``name in methods()``: single names and chains are accepted alike.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vosim.allocators import mckp as _mckp
from vosim.allocators.aep import min_cost
from vosim.allocators.availability_problem import allocate_resources
from vosim.allocators.base import allocate_window, register_chain
from vosim.allocators.group_bnb import knapsack_group
from vosim.core.registry import names as registered_names
from vosim.errors import ParameterError, UnknownAllocatorError

if TYPE_CHECKING:
    from vosim.allocators.availability_problem import AvailabilityProblem, AvailabilityResult
    from vosim.allocators.base import Allocation, ResourceRequest
    from vosim.allocators.mckp import MCKPResult
    from vosim.core.slots import SlotList

__all__ = [
    "REGISTRIES",
    "Chain",
    "FallbackBudget",
    "FallbackLog",
    "availability_chain",
    "budgeted_methods",
    "is_method",
    "mckp_chain",
    "resolve",
    "window_chain",
]

#: The registries a chain's links are looked up in: window criteria
#: (:func:`~vosim.allocators.base.criteria`), availability methods
#: (:func:`~vosim.allocators.availability_problem.methods`) and the MCKP methods
#: (:data:`~vosim.allocators.mckp.METHODS`).
REGISTRIES = ("criteria", "methods", "mckp")

_NOUN = {"criteria": "criterion", "methods": "method", "mckp": "MCKP method"}
#: Each chain registry's kind in the one registry (:mod:`vosim.core.registry`).
KINDS = {"criteria": "criterion", "methods": "availability method", "mckp": "mckp method"}
_EXAMPLE = {
    "criteria": "min_cost>amp",
    "methods": "knapsack_group>greedy_plus",
    "mckp": "milp>greedy",
}


def _names(registry: str) -> list[str]:
    if registry == "mckp":
        return list(_mckp.METHODS)  # the registered solvers and "auto"
    if registry in KINDS:
        return registered_names(KINDS[registry])
    raise ValueError(
        f"registry must be one of {', '.join(map(repr, REGISTRIES))}; got {registry!r}"
    )


# --------------------------------------------------------------------------------------------
# the budget


_TERM = re.compile(r"^([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([a-z]*)$")
_SECONDS = {"s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0, "ms": 1e-3}
_NODES = ("node", "nodes")


@dataclass(frozen=True)
class FallbackBudget:
    """How long the exact links of a chain may search: seconds, nodes, or both.

    Parameters
    ----------
    seconds : float, optional
        Wall-clock seconds (finite, > 0) each budgeted link may run.
    nodes : int, optional
        Search-tree nodes (>= 1) each budgeted link may expand; the unit of each link is in
        the module's table (branch-and-bound candidates, candidate window starts, HiGHS
        nodes).

    With both, a link stops at whichever comes first; with neither the budget is
    *unlimited*: each link keeps its own default limits (KnapsackGroup's
    :data:`~vosim.allocators.group_bnb.MAX_EXPANSIONS`; none for minCost and HiGHS).

    Raises
    ------
    ParameterError
        ``seconds`` not a finite number > 0, or ``nodes`` not an integer >= 1.

    References
    ----------
    ICCS 2023 §3.3 (KnapsackGroup's tree of "almost 5000" candidates at tight budgets);
    HiGHS's ``time_limit`` and ``node_limit`` options (:func:`scipy.optimize.milp`).

    Examples
    --------
    >>> FallbackBudget.parse("2s")
    FallbackBudget(seconds=2.0, nodes=None)
    >>> FallbackBudget.parse("5000"), FallbackBudget.parse("5000 nodes").nodes
    (FallbackBudget(seconds=None, nodes=5000), 5000)
    >>> str(FallbackBudget.parse("250ms, 100 nodes"))
    '0.25s, 100 nodes'
    """

    seconds: float | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        s = self.seconds
        if s is not None:
            if (
                isinstance(s, bool)
                or not isinstance(s, numbers.Real)
                or not math.isfinite(s)
                or s <= 0
            ):
                raise ParameterError(f"fallback seconds must be a finite number > 0, got {s!r}")
            object.__setattr__(self, "seconds", float(s))
        k = self.nodes
        if k is not None:
            if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
                raise ParameterError(f"fallback nodes must be an integer >= 1, got {k!r}")
            object.__setattr__(self, "nodes", int(k))

    @property
    def unlimited(self) -> bool:
        """``True`` when neither seconds nor nodes are set."""
        return self.seconds is None and self.nodes is None

    def __str__(self) -> str:
        terms = []
        if self.seconds is not None:
            terms.append(f"{self.seconds:.15g}s")
        if self.nodes is not None:
            terms.append(f"{self.nodes} node{'s' if self.nodes > 1 else ''}")
        return ", ".join(terms) or "none"

    @classmethod
    def parse(cls, text: str) -> FallbackBudget:
        """Read a budget such as ``"2s"``, ``"500ms"``, ``"5000"``, ``"5000 nodes"``.

        Parameters
        ----------
        text : str
            One or two terms separated by a comma, each a number and a unit: ``s`` (also
            ``sec``, ``seconds``) or ``ms`` for wall time, ``nodes`` (or ``node``) or no unit
            for search-tree nodes (then an integer). ``"none"`` is the unlimited budget.
            Case and spaces do not matter.

        Returns
        -------
        FallbackBudget

        Raises
        ------
        ParameterError
            An empty text, an unknown unit, a non-integer node count, a term given twice,
            or a value out of range; the message names the bad term.
        """
        if not isinstance(text, str):
            raise ParameterError(f"a fallback budget must be text, got {text!r}")
        raw = text.strip().lower()
        if raw == "none":
            return cls()
        seconds: float | None = None
        nodes: int | None = None
        for term in raw.split(","):
            term = term.strip()
            m = _TERM.match(term)
            if not m:
                raise ParameterError(
                    f"fallback budget {text!r}: cannot read {term!r}; give seconds ('2s', "
                    "'500ms') or search-tree nodes ('5000', '5000 nodes')"
                )
            number, unit = m.groups()
            if unit in _SECONDS:
                if seconds is not None:
                    raise ParameterError(f"fallback budget {text!r} gives seconds twice")
                seconds = float(number) * _SECONDS[unit]
                if not seconds > 0:
                    raise ParameterError(f"fallback budget {text!r}: seconds must be > 0")
            elif unit in _NODES or unit == "":
                if nodes is not None:
                    raise ParameterError(f"fallback budget {text!r} gives nodes twice")
                if not number.isdigit():
                    raise ParameterError(
                        f"fallback budget {text!r}: {term!r} is not a whole number of nodes "
                        "(write seconds with a unit, e.g. '2.5s')"
                    )
                nodes = int(number)
            else:
                raise ParameterError(
                    f"fallback budget {text!r}: unknown unit {unit!r}; use s, ms or nodes"
                )
        return cls(seconds=seconds, nodes=nodes)

    @classmethod
    def coerce(cls, value: FallbackBudget | str | int | float | None) -> FallbackBudget:
        """A budget from what callers pass as ``fallback_after``.

        ``None``: unlimited; a :class:`FallbackBudget` as it is; text by :meth:`parse`; an
        ``int``: nodes; a ``float``: seconds.

        Raises
        ------
        ParameterError
            Anything else, or a value out of range.

        Examples
        --------
        >>> FallbackBudget.coerce(0.5), FallbackBudget.coerce(200).nodes
        (FallbackBudget(seconds=0.5, nodes=None), 200)
        """
        if value is None:
            return cls()
        if isinstance(value, FallbackBudget):
            return value
        if isinstance(value, str):
            return cls.parse(value)
        if isinstance(value, bool):
            raise ParameterError(f"a fallback budget cannot be a bool, got {value!r}")
        if isinstance(value, numbers.Integral):
            return cls(nodes=int(value))
        if isinstance(value, numbers.Real):
            return cls(seconds=float(value))
        raise ParameterError(
            f"a fallback budget must be a FallbackBudget, text, int (nodes) or float "
            f"(seconds); got {value!r}"
        )


# --------------------------------------------------------------------------------------------
# chains


@dataclass(frozen=True)
class _Budgeted:
    """How a link takes a budget: its keyword for nodes and for seconds."""

    nodes: str
    seconds: str


#: Links that can precede ``>``: they stop early under a budget and say so.
_BUDGETED: dict[str, dict[str, _Budgeted]] = {
    "criteria": {"min_cost": _Budgeted("max_candidates", "time_limit")},
    "methods": {"knapsack_group": _Budgeted("max_expansions", "time_limit")},
    "mckp": {"milp": _Budgeted("node_limit", "time_limit")},
}


def budgeted_methods(registry: str) -> list[str]:
    """Names of ``registry`` that can stand before ``>`` in a chain (they take a budget).

    Examples
    --------
    >>> budgeted_methods("methods"), budgeted_methods("criteria"), budgeted_methods("mckp")
    (['knapsack_group'], ['min_cost'], ['milp'])
    """
    _names(registry)  # validates the registry
    return sorted(_BUDGETED[registry])


@dataclass(frozen=True)
class Chain:
    """A validated method name: one link, or several tried left to right.

    Parameters
    ----------
    links : tuple of str
        Registered names, at least one, no repeats; all but the last take a budget.
    registry : {"criteria", "methods", "mckp"}
        Where the names are registered.

    ``str(chain)`` is the canonical name (links joined by ``>``, no spaces).
    """

    links: tuple[str, ...]
    registry: str

    def __str__(self) -> str:
        return ">".join(self.links)

    @property
    def is_chain(self) -> bool:
        """``True`` for two links or more (a single name is a chain of one)."""
        return len(self.links) > 1


def resolve(name: str | Chain, registry: str) -> Chain:
    """Validate a method name or chain ``"a>b>c"`` against a registry.

    Parameters
    ----------
    name : str or Chain
        A registered name (``"greedy_plus"``) or links joined by ``>``
        (``"knapsack_group>greedy_plus"``; spaces around ``>`` are ignored).
    registry : {"criteria", "methods", "mckp"}
        Window criteria, availability methods, or the MCKP methods.

    Returns
    -------
    Chain

    Raises
    ------
    UnknownAllocatorError
        (a ``ValueError`` and ``KeyError``) an unknown link (the message names it and lists
        the registered names), an empty link, a link given twice, or a link before the last
        that takes no budget (the message lists those that do).
    ValueError
        ``registry`` is not one of :data:`REGISTRIES`.

    Examples
    --------
    >>> resolve("knapsack_group > greedy_plus", "methods")
    Chain(links=('knapsack_group', 'greedy_plus'), registry='methods')
    >>> str(resolve("min_cost>amp", "criteria"))
    'min_cost>amp'
    >>> resolve("greedy_plus>knapsack_group", "methods")
    Traceback (most recent call last):
    ...
    vosim.errors.UnknownAllocatorError: link 'greedy_plus' of chain 'greedy_plus>knapsack_group' \
takes no budget, so the links after it would never run; a link before the last must be one of: \
knapsack_group
    """
    names = _names(registry)
    if isinstance(name, Chain):
        if name.registry != registry:
            raise UnknownAllocatorError(
                f"chain {str(name)!r} is of the {name.registry!r} registry, not {registry!r}"
            )
        return name
    noun = _NOUN[registry]
    if not isinstance(name, str):
        raise UnknownAllocatorError(f"a {noun} name must be text, got {name!r}")
    if ">" not in name:
        if name not in names:
            raise UnknownAllocatorError(f"unknown {noun} {name!r}; registered: {', '.join(names)}")
        return Chain((name,), registry)
    links = tuple(link.strip() for link in name.split(">"))
    for k, link in enumerate(links):
        if not link:
            raise UnknownAllocatorError(
                f"chain {name!r} has an empty link (link {k + 1}); join {noun} names with '>', "
                f"e.g. {_EXAMPLE[registry]!r}"
            )
        if link not in names:
            raise UnknownAllocatorError(
                f"unknown {noun} {link!r} in chain {name!r}; registered: {', '.join(names)}"
            )
        if link in links[:k]:
            raise UnknownAllocatorError(f"chain {name!r} names {link!r} twice")
    for link in links[:-1]:
        if link not in _BUDGETED[registry]:
            raise UnknownAllocatorError(
                f"link {link!r} of chain {name!r} takes no budget, so the links after it "
                f"would never run; a link before the last must be one of: "
                f"{', '.join(budgeted_methods(registry))}"
            )
    return Chain(links, registry)


def is_method(name: Any, registry: str) -> bool:
    """``True`` when :func:`resolve` accepts ``name``: a registered name or a valid chain.

    Examples
    --------
    >>> is_method("knapsack_group>greedy_plus", "methods"), is_method("nope", "methods")
    (True, False)
    """
    try:
        resolve(name, registry)
    except UnknownAllocatorError:
        return False
    return True


def _run(
    chain: Chain,
    budget: FallbackBudget,
    call: Callable[[str, dict[str, Any] | None], Any],
    exhausted: Callable[[Any], bool],
    score: Callable[[Any], tuple],
) -> Any:
    """Run the links in turn; the best answer (ties: the later link) with its stats set.

    ``call(link, kwargs)`` runs one link; ``kwargs`` is ``None`` for the last link (its own
    defaults), otherwise the budget's keywords (empty for an unlimited budget).
    """
    answers = []
    for k, link in enumerate(chain.links):
        last = k == len(chain.links) - 1
        kwargs = None
        if not last:
            spec = _BUDGETED[chain.registry][link]
            kwargs = {}
            if budget.nodes is not None:
                kwargs[spec.nodes] = budget.nodes
            if budget.seconds is not None:
                kwargs[spec.seconds] = budget.seconds
        result = call(link, kwargs)
        answers.append((score(result), k, result))
        if last or not exhausted(result):
            break
    _, k, result = max(answers, key=lambda a: (a[0], a[1]))
    result.stats.update(
        chain=str(chain),
        answered_by=chain.links[k],
        fell_back=len(answers) > 1,
        fallback_after=str(budget),
    )
    return result


def _truncated(result: Any) -> bool:
    return bool(result.stats.get("truncated", False))


def window_chain(
    slots: SlotList,
    request: ResourceRequest,
    chain: str | Chain,
    fallback_after: FallbackBudget | str | int | float | None = None,
) -> Allocation:
    """Run a chain of window criteria such as ``"min_cost>amp"``.

    :func:`~vosim.allocators.base.allocate_window` calls this for a chain; call that.

    Parameters
    ----------
    slots : SlotList
        ``m`` free slots on ``N`` nodes.
    request : ResourceRequest
        ``n`` nodes, volume ``V`` (or time ``T``), budget ``C``.
    chain : str or Chain
        Window criteria joined by ``>``.
    fallback_after : FallbackBudget, str, int or float, optional
        The budget of the links before the last (see :meth:`FallbackBudget.coerce`); for
        minCost, nodes are candidate window starts examined.

    Returns
    -------
    Allocation
        The lowest-cost window of the links that ran
        (ties: the later link; a window beats none), ``stats`` with ``chain``,
        ``answered_by``, ``fell_back`` and ``fallback_after``.

    Raises
    ------
    UnknownAllocatorError
        ``chain`` is not valid (:func:`resolve`).
    ParameterError
        A malformed budget.

    References
    ----------
    AEP §2.2 (minCost, the exact minimum-cost window; AMP, the earliest window within the
    budget, a fast answer whose cost is never below minCost's).

    Examples
    --------
    >>> from vosim.allocators.base import ResourceRequest
    >>> from vosim.core import Slot, SlotList
    >>> sl = SlotList([Slot(0, 0.0, 100.0, 3.0, 2.0), Slot(1, 0.0, 100.0, 1.0, 2.0),
    ...                Slot(2, 10.0, 100.0, 1.0, 2.0)])
    >>> a = window_chain(sl, ResourceRequest(n=2, time=20.0), "min_cost>amp", "1 node")
    >>> a.window.cost, a.stats["answered_by"], a.stats["fell_back"]
    (80.0, 'amp', True)
    >>> a = window_chain(sl, ResourceRequest(n=2, time=20.0), "min_cost>amp", "5 nodes")
    >>> a.window.cost, a.stats["answered_by"], a.stats["fell_back"]
    (40.0, 'min_cost', False)
    """
    chain = resolve(chain, "criteria")
    budget = FallbackBudget.coerce(fallback_after)
    first = chain.links[0]

    def call(link: str, kwargs: dict[str, Any] | None) -> Allocation:
        if kwargs is None:
            return allocate_window(slots, request, link)
        if link == "min_cost":
            return min_cost(slots, request, **kwargs)
        raise AssertionError(f"no budgeted call for criterion {link!r}")  # pragma: no cover

    def score(a: Allocation) -> tuple:
        if a.window is None:
            return (0, 0.0, 0.0)
        if first == "min_cost":
            return (1, -a.window.cost, -a.window.start)
        raise AssertionError(f"no objective for criterion {first!r}")  # pragma: no cover

    return _run(chain, budget, call, _truncated, score)


def availability_chain(
    problem: AvailabilityProblem,
    chain: str | Chain,
    fallback_after: FallbackBudget | str | int | float | None = None,
) -> AvailabilityResult:
    """Run a chain of availability methods such as ``"knapsack_group>greedy_plus"``.

    :func:`~vosim.allocators.availability_problem.allocate_resources` calls this for a chain; call
    that.

    Parameters
    ----------
    problem : AvailabilityProblem
        Costs ``(N,)``, groups ``(N,)``, group availabilities ``(G,)``, ``n``, budget ``C``.
    chain : str or Chain
        Availability methods joined by ``>``.
    fallback_after : FallbackBudget, str, int or float, optional
        The budget of the links before the last; for KnapsackGroup, nodes are candidates
        expanded (relaxations solved).

    Returns
    -------
    AvailabilityResult
        The most available selection of the links that ran (then the cheaper; ties: the later
        link; a selection beats none), ``stats`` with ``chain``, ``answered_by``,
        ``fell_back`` and ``fallback_after``.

    Raises
    ------
    UnknownAllocatorError
        ``chain`` is not valid (:func:`resolve`).
    ParameterError
        A malformed budget.

    References
    ----------
    ICCS 2023 §2.4 and §3.1 (KnapsackGroup, exact; Greedy+, its fast heuristic).

    Examples
    --------
    >>> from vosim.allocators.availability_problem import AvailabilityProblem
    >>> prob = AvailabilityProblem(cost=[1, 1, 3, 2], group=[0, 1, 2, 2],
    ...                            group_p=[0.5, 0.9, 0.99], n=2, budget=5)
    >>> r = availability_chain(prob, "knapsack_group>greedy_plus", "1 node")
    >>> r.selected.tolist(), r.stats["answered_by"], r.stats["fell_back"]
    ([2, 3], 'greedy_plus', True)
    >>> r = availability_chain(prob, "knapsack_group>greedy_plus", "2s")
    >>> r.selected.tolist(), r.stats["answered_by"], r.stats["fell_back"]
    ([2, 3], 'knapsack_group', False)
    """
    chain = resolve(chain, "methods")
    budget = FallbackBudget.coerce(fallback_after)

    def call(link: str, kwargs: dict[str, Any] | None) -> AvailabilityResult:
        if kwargs is None:
            return allocate_resources(problem, link)
        if link == "knapsack_group":
            return knapsack_group(problem, **kwargs)
        raise AssertionError(f"no budgeted call for method {link!r}")  # pragma: no cover

    def score(r: AvailabilityResult) -> tuple:
        if r.status == "infeasible" or r.selected.size == 0:
            return (0, 0.0, 0.0)
        return (1, r.probability, -r.cost)

    return _run(chain, budget, call, _truncated, score)


def mckp_chain(
    values,
    demands,
    capacity,
    chain: str | Chain,
    fallback_after: FallbackBudget | str | int | float | None = None,
) -> MCKPResult:
    """Run a chain of MCKP methods such as ``"milp>greedy"``.

    :func:`~vosim.allocators.mckp.solve_mckp` calls this for a chain; call that.

    Parameters
    ----------
    values, demands, capacity
        As for :func:`~vosim.allocators.mckp.solve_mckp`: per task ``(n_options_i,)`` values
        and ``(n_options_i, n_clusters)`` integer demands; ``(n_clusters,)`` free processors.
    chain : str or Chain
        MCKP methods joined by ``>``.
    fallback_after : FallbackBudget, str, int or float, optional
        The budget of the links before the last; for the MILP, nodes are HiGHS's
        branch-and-bound nodes and seconds its time limit.

    Returns
    -------
    MCKPResult
        The most valuable choice of the links that ran (ties: the later link); ``seconds`` is
        the whole chain's wall time; ``stats`` with ``chain``, ``answered_by``,
        ``fell_back`` and ``fallback_after``.

    Raises
    ------
    UnknownAllocatorError
        ``chain`` is not valid (:func:`resolve`).
    ParameterError
        A malformed budget.
    ProblemError
        Malformed values, demands or capacity (as :func:`~vosim.allocators.mckp.solve_mckp`).

    References
    ----------
    Knapsack Grid, 'Constructing the Problem' (the MCKP); the greedy's references are in
    :func:`~vosim.allocators.mckp.solve_mckp`.

    Examples
    --------
    >>> values = [[10, 2, 9], [11, 2]]
    >>> demands = [[[8, 0], [2, 0], [4, 4]], [[10, 0], [0, 1]]]
    >>> r = mckp_chain(values, demands, [16, 8], "milp>greedy", "2s")
    >>> r.choice.tolist(), r.value, r.stats["answered_by"], r.stats["fell_back"]
    ([2, 0], 20.0, 'milp', False)
    """
    t0 = time.perf_counter()
    chain = resolve(chain, "mckp")
    budget = FallbackBudget.coerce(fallback_after)

    def call(link: str, kwargs: dict[str, Any] | None) -> MCKPResult:
        return _mckp.solve_mckp(values, demands, capacity, link, **(kwargs or {}))

    result = _run(chain, budget, call, lambda r: not r.optimal, lambda r: (r.value,))
    return dataclasses.replace(result, seconds=time.perf_counter() - t0)


# --------------------------------------------------------------------------------------------
# counting fallbacks over a run


class FallbackLog:
    """Counts, per method name, the calls, the fallbacks and which link answered.

    The caller owns the log (one per run, merged across processes with :meth:`merge`);
    vosim keeps no global count. :meth:`to_dict` is the ``summary.json`` entry.

    Examples
    --------
    >>> from vosim.allocators.availability_problem import AvailabilityProblem, allocate_resources
    >>> prob = AvailabilityProblem(cost=[1, 1, 3, 2], group=[0, 1, 2, 2],
    ...                            group_p=[0.5, 0.9, 0.99], n=2, budget=5)
    >>> log = FallbackLog()
    >>> for budget in ("1 node", "2s"):
    ...     log.record(allocate_resources(prob, "knapsack_group>greedy_plus",
    ...                                   fallback_after=budget))
    >>> log.record(allocate_resources(prob, "greedy_plus"))
    >>> log.to_dict()["knapsack_group>greedy_plus"]
    {'calls': 2, 'fell_back': 1, 'answered_by': {'greedy_plus': 1, 'knapsack_group': 1}}
    >>> log.to_dict()["greedy_plus"]
    {'calls': 1, 'fell_back': 0, 'answered_by': {'greedy_plus': 1}}
    """

    def __init__(self) -> None:
        self._calls: Counter[str] = Counter()
        self._fell_back: Counter[str] = Counter()
        self._answered: dict[str, Counter[str]] = {}

    def record(self, result: Any, method: str | None = None) -> None:
        """Count one allocator result.

        Parameters
        ----------
        result : Allocation, AvailabilityResult or MCKPResult
            Anything with a ``stats`` dict. A chain's result counts under its chain name
            (``stats["chain"]``); any other under ``method`` or the result's own name
            (``method`` or ``criterion`` attribute), never falling back.
        method : str, optional
            The name to count a single method's result under.
        """
        stats = getattr(result, "stats", None) or {}
        name = stats.get("chain") or method
        if name is None:
            name = getattr(result, "method", None) or getattr(result, "criterion", None) or ""
        self._calls[name] += 1
        self._fell_back[name] += int(bool(stats.get("fell_back", False)))
        answered = stats.get("answered_by") or method or name
        self._answered.setdefault(name, Counter())[answered] += 1

    def merge(self, other: FallbackLog | Mapping[str, Mapping[str, Any]]) -> None:
        """Add the counts of another log (or of its :meth:`to_dict`) to this one."""
        data = other.to_dict() if isinstance(other, FallbackLog) else other
        for name, entry in data.items():
            self._calls[name] += int(entry["calls"])
            self._fell_back[name] += int(entry["fell_back"])
            answered = self._answered.setdefault(name, Counter())
            for link, count in entry["answered_by"].items():
                answered[link] += int(count)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """``{method: {"calls": int, "fell_back": int, "answered_by": {link: int}}}``, sorted."""
        return {
            name: {
                "calls": self._calls[name],
                "fell_back": self._fell_back[name],
                "answered_by": dict(sorted(self._answered[name].items())),
            }
            for name in sorted(self._calls)
        }

    def __repr__(self) -> str:
        return f"FallbackLog({self.to_dict()!r})"


def _window_chain(
    criterion: str, fallback_after
) -> Callable[[SlotList, ResourceRequest], Allocation]:
    """``allocate_window``'s search for the chain ``criterion`` (names checked now)."""
    links = resolve(criterion, "criteria")
    return lambda slots, request: window_chain(slots, request, links, fallback_after)


def _availability_chain(method: str, fallback_after) -> Callable[[AvailabilityProblem], Any]:
    """``allocate_resources``' method for the chain ``method`` (names checked now)."""
    links = resolve(method, "methods")
    return lambda problem: availability_chain(problem, links, fallback_after)


def _mckp_chain(values, demands, capacity, method, fallback_after, time_limit, node_limit):
    """``solve_mckp`` for the chain ``method``: budgets from its limits unless given."""
    if fallback_after is None:
        fallback_after = FallbackBudget(seconds=time_limit, nodes=node_limit)
    return mckp_chain(values, demands, capacity, method, fallback_after)


register_chain("criterion", _window_chain)
register_chain("availability method", _availability_chain)
register_chain("mckp method", _mckp_chain)
