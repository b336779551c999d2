"""Garbled answers: the reference's real answers to a deterministic sample
of suite cases, each damaged once where the case's `expect` does not look.

    python tests/garble.py [--per-operation N] [--seed S]

prints how many garbled answers fail their case, by kind of damage, with
the answer shape checked (as the harness does) and, for comparison, with
`expect` alone.

Kinds of damage, each at a field or list item `expect` does not name:

- ``drop``: an effect field left out;
- ``retype``: a value replaced by one of another JSON type;
- ``null``: a value replaced by null;
- ``nest``: a value replaced by a nested object of garbage.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.path.insert(0, str(Path(__file__).resolve().parent))

import schema_check

from pytest_planmode.contract import operations
from pytest_planmode.harness import judge_output
from pytest_planmode.matching import (
    ANY_TEXT,
    ANY_TEXT_BUT,
    HAS,
    TEXT_WITH,
    TEXT_WITHOUT,
    UNORDERED,
    mismatches,
)
from pytest_planmode.observability import missing_effects
from pytest_planmode.suite import Case, load_suite
from pytest_planmode.targets.reference.adapter import REFERENCE

MATCHERS = frozenset([UNORDERED, ANY_TEXT, ANY_TEXT_BUT, TEXT_WITH, TEXT_WITHOUT, HAS])
KINDS = ("drop", "retype", "null", "nest")
Path_ = tuple[int | str, ...]


@dataclass(frozen=True)
class Garbled:
    case: Case
    kind: str
    places: tuple[Path_, ...]
    output: dict[str, Any]


def _paths(value: Any, prefix: Path_ = ()) -> Iterator[Path_]:
    """Every object field and list item of `value`, outermost first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from _paths(item, (*prefix, index))


def checked(expect: Any, path: Path_) -> bool:
    """Whether `expect` names the place at `path` (or a place holding it)."""
    node = expect
    for part in path:
        if isinstance(node, dict) and node and set(node) <= MATCHERS:
            # A matcher (`$unordered`, `$has`, `$textWith`, ...) names the whole place.
            return True
        if isinstance(node, dict):
            if part not in node:
                return False
            node = node[part]
        elif isinstance(node, list):
            if not isinstance(part, int) or part >= len(node):
                return False
            node = node[part]
        else:
            return True
    return True


def _get(value: Any, path: Path_) -> Any:
    for part in path:
        value = value[part]
    return value


def _other_type(value: Any) -> Any:
    """A value of another JSON type than `value`."""
    if isinstance(value, bool):
        return "true" if value else 0
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return len(value) + 1
    if isinstance(value, list):
        return {"items": value[:1]}
    if isinstance(value, dict):
        return [value] if value else True
    return [None]  # null becomes a list


def _damage(output: dict[str, Any], path: Path_, kind: str) -> dict[str, Any]:
    damaged = copy.deepcopy(output)
    parent, last = _get(damaged, path[:-1]), path[-1]
    if kind == "drop":
        del parent[last]
    elif kind == "retype":
        parent[last] = _other_type(parent[last])
    elif kind == "null":
        parent[last] = None
    else:
        parent[last] = {"garbage": {"deep": [1, {"x": None}], "more": "?"}}
    return damaged


def _outermost(places: list[Path_]) -> list[Path_]:
    """`places` without those inside another one."""
    kept: list[Path_] = []
    for place in places:
        if not any(place[: len(outer)] == outer for outer in kept):
            kept.append(place)
    return kept


def _damage_all(output: dict[str, Any], places: list[Path_], kind: str) -> dict[str, Any]:
    # Deepest first, later list items first, so earlier paths stay valid.
    for place in sorted(places, key=lambda p: (len(p), p), reverse=True):
        output = _damage(output, place, kind)
    return output


def garbled(cases: list[Case], *, per_operation: int, seed: int) -> Iterator[Garbled]:
    """For `per_operation` cases of each operation, drawn with `seed`, the
    reference's answer with every place `expect` does not name damaged
    (each kind of damage in turn)."""
    rng = random.Random(seed)
    by_op: dict[str, list[Case]] = defaultdict(list)
    for case in cases:
        by_op[case.operation].append(case)
    for op, op_cases in sorted(by_op.items()):
        model = operations()[op].output
        for case in rng.sample(op_cases, min(per_operation, len(op_cases))):
            answer = REFERENCE.call(op, json.loads(json.dumps(case.input)))
            if "output" not in answer:
                continue
            output = json.loads(json.dumps(answer["output"]))
            places = [p for p in _paths(output) if not checked(case.expect, p)]
            droppable = [
                p
                for p in places
                if isinstance(p[-1], str)
                and missing_effects(model, _damage(output, p, "drop")) != missing_effects(model, output)
            ]
            for kind in KINDS:
                pool = droppable if kind == "drop" else places
                if kind == "null":
                    pool = [p for p in pool if _get(output, p) is not None]
                pool = _outermost(pool)
                if pool:
                    yield Garbled(case, kind, tuple(pool), _damage_all(output, pool, kind))


@dataclass(frozen=True)
class Rate:
    """Garbled answers of one kind, and how many of them fail their case
    (with the shape check, and on `expect` alone); of those the published
    output schema rejects, how many fail their case."""

    total: int
    failing: int
    failing_on_expect: int
    schema_rejects: int
    failing_of_schema_rejected: int

    def line(self, kind: str) -> str:
        invalid = self.schema_rejects
        return (
            f"{kind:7} {self.total:5} garbled answers: {self.failing / self.total:6.1%} fail their case "
            f"(on expect alone: {self.failing_on_expect / self.total:6.1%}); the output schema rejects "
            f"{invalid}, of which {self.failing_of_schema_rejected / max(invalid, 1):6.1%} fail"
        )


def rates(items: list[Garbled]) -> dict[str, Rate]:
    """The rates by kind of damage, and for ``all`` kinds."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for item in items:
        shape, problems = judge_output(item.case.operation, item.case.expect, item.output)
        invalid = bool(
            schema_check.errors(f"operations/{item.case.operation}.output.schema.json", item.output)
        )
        for kind in (item.kind, "all"):
            seen = counts[kind]
            seen["total"] += 1
            seen["failing"] += bool(shape or problems)
            seen["failing_on_expect"] += bool(mismatches(item.case.expect, item.output))
            seen["schema_rejects"] += invalid
            seen["failing_of_schema_rejected"] += invalid and bool(shape or problems)
    return {kind: Rate(**counts[kind]) for kind in (*KINDS, "all") if counts[kind]}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--per-operation", type=int, default=12)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    items = list(garbled(load_suite(), per_operation=args.per_operation, seed=args.seed))
    for kind, rate in rates(items).items():
        print(rate.line(kind))


if __name__ == "__main__":
    main()
