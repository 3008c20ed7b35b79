"""The order in which xdist hands out the suite's modules: the longest first.

`make test` runs `pytest -n 2 --dist loadscope --no-loadscope-reorder`: each module (a class, for
tests in classes) goes whole to one worker, in collection order. xdist's own reordering sorts the
modules by their number of tests, which puts the modules of one or two long tests (servers,
browsers, fuzzing, kill -9 cycles) last, where one worker runs them alone while the other has
finished. Handing out the longest first (the classic longest-processing-time rule) leaves the
short in-process modules for the end, where they even out the two workers. The cost of a module
is estimated from its tests' markers; the tests within a module keep their order.
"""

from __future__ import annotations

import pytest

# Rough seconds per test, by marker: what decides the order is only heavy before light.
COST_BY_MARKER = {"crash": 12.0, "fuzz": 8.0, "e2e": 4.0}
COST_IN_PROCESS = 0.3


def scope_of(item: pytest.Item) -> str:
    """The unit `--dist loadscope` keeps on one worker (its own rule: the node id up to the last
    `::`)."""
    return item.nodeid.rsplit("::", 1)[0]


def cost_of(item: pytest.Item) -> float:
    costs = [cost for name, cost in COST_BY_MARKER.items() if item.get_closest_marker(name)]
    return max(costs, default=COST_IN_PROCESS)


def heaviest_first(items: list[pytest.Item]) -> None:
    """Reorder `items` in place, modules by falling cost. Called after pytest's own grouping by
    parametrised fixtures, so that only the modules' order changes; every worker collects the
    same items and sorts them the same way."""
    units: dict[str, list[pytest.Item]] = {}
    for item in items:
        units.setdefault(scope_of(item), []).append(item)
    cost = {scope: sum(cost_of(item) for item in unit) for scope, unit in units.items()}
    ordered = sorted(units, key=lambda scope: -cost[scope])  # stable: ties keep their order
    items[:] = [item for scope in ordered for item in units[scope]]
