"""Items and collection: a fixture file's cases become items (one per case
and target), every conformance item gets its markers, expectations and
selection (level, spec, sandbox), and a run that selects nothing for an
operation a target supports says so."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from pytest_planmode import failure_text
from pytest_planmode.harness.lifecycle import Targets
from pytest_planmode.harness.options import Options
from pytest_planmode.harness.property_checks import PropertyChecks
from pytest_planmode.harness.verdict import (
    EXPLANATION_SKIP,
    SHAPE_HEADING,
    CaseFailure,
    first_line,
    judge_output,
    unsupported_reason,
)
from pytest_planmode.suite import Case, FixtureError, load_file
from pytest_planmode.targets.base import KitError


@cache
def marker_name(text: str) -> str:
    """`oplmodes.plans.resolve` -> `oplmodes_plans_resolve` (usable with -m)."""
    return "".join(ch if ch.isalnum() else "_" for ch in text)


class FixtureFileCollector(pytest.File):
    def __init__(self, *, collection: Collection, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.collection = collection

    def collect(self) -> Iterator[CaseItem]:
        collection = self.collection
        try:
            cases = load_file(self.path, root=collection.options.fixtures_dir)
        except FixtureError as exc:
            raise self.CollectError(f"malformed fixture file:\n{exc}") from None
        names = list(collection.targets.judged)
        for case in cases:
            for name in names:
                # One target keeps the plain case id as the item name.
                item_name = case.id if len(names) == 1 else f"{case.id}[{name}]"
                yield CaseItem.from_parent(
                    self, name=item_name, case=case, target_name=name, targets=collection.targets
                )


class CaseItem(pytest.Item):
    def __init__(self, *, case: Case, target_name: str, targets: Targets, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.target_name = target_name
        self.targets = targets
        self.add_marker(
            pytest.mark.planmode(operation=case.operation, level=case.level, id=case.id, spec=case.spec)
        )

    def runtest(self) -> None:
        case = self.case
        if self.targets.observes_effects_only(self.target_name):
            from pytest_planmode.contract import operations
            from pytest_planmode.observability import explanation_pins

            pins = explanation_pins(operations()[case.operation].output, case.expect)
            if pins:
                pytest.skip(f"{EXPLANATION_SKIP}{pins[0]}")
        try:
            outcome = self.targets.request(self.target_name, case.operation, case.input)
        except KitError as exc:
            # The kit failed, not the target: said so, with no traceback.
            self.user_properties.append(("planmode_summary", f"kit error: {first_line(str(exc))}"[:300]))
            raise CaseFailure(
                f"{case.id}: kit error (the kit failed on this case; no answer of the target "
                f"is judged): {exc}"
            ) from None
        if outcome.kind == "unsupported":
            pytest.skip(unsupported_reason(case.operation, outcome.message))
        if outcome.kind == "output":
            assert outcome.output is not None
            shape, problems = judge_output(case.operation, case.expect, outcome.output)
            if not problems and not shape:
                return
            got = json.dumps(outcome.output, ensure_ascii=False)
            what = "\n".join(
                [
                    *([SHAPE_HEADING, *(f"  {p}" for p in shape)] if shape else []),
                    *(["mismatch:", *(f"  {p}" for p in problems)] if problems else []),
                ]
            )
            summary = "; ".join([*(f"shape: {p}" for p in shape), *problems])
        elif outcome.kind == "error":
            got = f"an error: {outcome.message}"
            what = "the target answered an error where an output was expected"
            summary = f"answered an error: {first_line(outcome.message or '')}"
        else:
            got = f"no legal answer: {outcome.message}"
            what = "the target did not answer legally (a target process is restarted for the next case)"
            summary = f"no legal answer: {first_line(outcome.message or '')}"
        # One line for people and for written expectations files; the
        # values for reports that show the failure.
        self.user_properties.append(("planmode_summary", summary[:300]))
        self.user_properties.append(("planmode_failure", failure_text.detail(case, outcome)))
        raise CaseFailure(failure_text.message(case, outcome, got, what))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.case.operation}: {self.case.id}"


def item_target(item: pytest.Item, targets: Targets) -> str:
    """The name of the target an item judges."""
    if isinstance(item, CaseItem):
        return item.target_name
    callspec = getattr(item, "callspec", None)
    name = callspec.params.get("planmode_target") if callspec is not None else None
    return str(name) if name is not None else targets.first()


def _where(item: pytest.Item) -> str:
    return item.case.where if isinstance(item, CaseItem) else item.nodeid


class Collection:
    """The collection hooks of a conformance run."""

    PLUGIN_NAME = "planmode-collection"

    def __init__(
        self, config: pytest.Config, options: Options, targets: Targets, checks: PropertyChecks
    ) -> None:
        self.config = config
        self.options = options
        self.targets = targets
        self.checks = checks
        #: Why the run proves nothing about a target (see `pytest_collection_finish`).
        self.vacuous: list[str] = []
        self.collected_ids: dict[str, set[str]] = defaultdict(set)

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
        if file_path.suffix == ".toml" and file_path.resolve().is_relative_to(self.options.fixtures_dir):
            return FixtureFileCollector.from_parent(parent, path=file_path, collection=self)
        return None

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """Several targets: every property check runs once against each."""
        if "planmode_target" in metafunc.fixturenames and len(self.targets.judged) > 1:
            names = list(self.targets.judged)
            metafunc.parametrize("planmode_target", names, indirect=True, ids=names, scope="session")

    # First, so that duplicate ids are found among all collected items and
    # case ids are keywords before -k deselects.
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        options = self.options
        selected: list[pytest.Item] = []
        deselected: list[pytest.Item] = []
        first: dict[tuple[str, str], pytest.Item] = {}
        judged_any = False
        for item in items:
            marker = item.get_closest_marker("planmode")
            if marker is None:
                selected.append(item)
                continue
            judged_any = True
            ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
            level = marker.kwargs.get("level", "must")
            case_id = marker.kwargs.get("id") or item.name
            spec = marker.kwargs.get("spec")
            name = item_target(item, self.targets)
            key = (case_id, name)
            # Two cases of one file share a node id: compare the items.
            if key in first and first[key] is not item:
                raise pytest.UsageError(
                    f"duplicate case id {case_id!r}: {_where(first[key])} and {_where(item)}"
                )
            first[key] = item
            self.collected_ids[name].add(case_id)
            item.extra_keyword_matches.add(case_id)
            if not isinstance(item, CaseItem):
                self.checks.track_examples(item)
            item.user_properties.extend(
                [
                    ("planmode_case", case_id),
                    ("planmode_operation", ops[0]),
                    ("planmode_level", level),
                    ("planmode_target", name),
                ]
            )
            if spec:
                item.user_properties.append(("planmode_spec", spec))
            for op in ops:
                item.add_marker(marker_name(op))
            item.add_marker(f"planmode_{level}")
            expectations = self.targets.judged[name].expectations
            if case_id in expectations:
                item.add_marker(pytest.mark.xfail(reason=expectations[case_id], strict=True))
            if (
                (options.level == "must" and level != "must")
                or not self._spec_selects(spec)
                or (marker.kwargs.get("sandbox", False) and not options.sandbox)
            ):
                deselected.append(item)
            else:
                selected.append(item)
        if (
            options.spec_filter is not None
            and judged_any
            and not options.is_worker  # a worker cannot end the run cleanly; the controller checked
            and not any(item.get_closest_marker("planmode") for item in selected)
        ):
            raise pytest.UsageError(
                f"--planmode-spec {options.spec_filter!r}: no case's spec section contains it "
                "(`planmode fixtures export` lists every case with its spec)"
            )
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = selected

    def _spec_selects(self, spec: str | None) -> bool:
        spec_filter = self.options.spec_filter
        if spec_filter is None:
            return True
        return spec is not None and spec_filter.casefold() in spec.casefold()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """A run that selects no fixture case, or none for an operation a
        target supports, proves nothing about it: a loud warning, an error
        under --planmode-strict."""
        judged = self.targets.judged
        if not judged:
            return
        from pytest_planmode.contract import operations

        covered: dict[str, set[str]] = {name: set() for name in judged}
        for item in session.items:
            if isinstance(item, CaseItem):
                covered[item.target_name].add(item.case.operation)
        fixtures_dir = self.options.fixtures_dir
        if not any(covered.values()):
            has_files = any(fixtures_dir.rglob("*.toml"))
            self.vacuous.append(
                f"no fixture case selected: {fixtures_dir} holds no fixture file (*.toml)"
                if not has_files
                else "no fixture case selected: the run's paths and selection leave none"
            )
        else:
            concerned = self._concerned(session.items)
            for name, one in judged.items():
                supported = set(one.handshake.operations) & set(operations())
                if concerned is not None:
                    supported &= concerned.get(name, set())
                missing = sorted(supported - covered[name])
                if missing:
                    who = f"{name}: " if len(judged) > 1 else ""
                    self.vacuous.append(
                        f"{who}no fixture case selected for operation(s) the target supports: "
                        + ", ".join(missing)
                    )
        if not self.vacuous or self.options.is_worker:
            return
        if self.options.strict:
            raise pytest.UsageError(f"{'; '.join(self.vacuous)} (--planmode-strict)")
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            for line in self.vacuous:
                reporter.write_line(f"planmode warning: {line}", yellow=True, bold=True)

    def _concerned(self, items: list[pytest.Item]) -> dict[str, set[str]] | None:
        """Under -m or -k, per target, the operations the selected items
        check (an operation the selection leaves out is no gap); None when
        nothing narrows the run by marker or keyword."""
        option = self.config.option
        if not (getattr(option, "markexpr", "") or getattr(option, "keyword", "")):
            return None
        concerned: dict[str, set[str]] = defaultdict(set)
        for item in items:
            marker = item.get_closest_marker("planmode")
            if marker is not None:
                ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
                concerned[item_target(item, self.targets)].update(str(op) for op in ops)
        return concerned

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        marker = item.get_closest_marker("planmode")
        if marker is None or not self.targets.judged:
            return
        handshake = self.targets.judged[item_target(item, self.targets)].handshake
        self.checks.calls.clear()
        ops = list(marker.kwargs.get("operations", ())) or [marker.kwargs.get("operation")]
        missing = [op for op in ops if op not in handshake.operations]
        if missing:
            pytest.skip(f"unsupported: {handshake.label} does not list operation {', '.join(missing)}")
        # A property check that reads explanation fields names them.
        explains = list(marker.kwargs.get("explains", ()))
        if explains and handshake.observes == "effects":
            pytest.skip(f"{EXPLANATION_SKIP}{explains[0]}")
        if hasattr(getattr(item, "obj", None), "hypothesis"):
            from pytest_planmode.hypothesis_profiles import fix_examples

            fix_examples(item.obj, marker.kwargs.get("id") or item.name)  # type: ignore[attr-defined]
