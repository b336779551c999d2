"""The shipped suite: where it lives, how fixture files load and lint.

Loading checks the format (pydantic model), unique ids, the `spec`
citation against the known section headings, that the operation exists in
the contract, that each input is valid for it, and that `expect` names only
output fields of the contract. Every error names the file, the group and
case position, and what is wrong.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

PACKAGE_DIR = Path(__file__).resolve().parent
FIXTURES_DIR = PACKAGE_DIR / "fixtures"
CONFORMANCE_DIR = PACKAGE_DIR / "conformance"


class FixtureError(Exception):
    """A fixture file is malformed; the message says where and what."""


@dataclass(frozen=True)
class Case:
    id: str
    operation: str
    level: str
    spec: str
    description: str
    input: dict[str, Any]
    expect: dict[str, Any]
    file: str
    group_index: int
    case_index: int
    #: The group's description: the rule its cases pin (`description` is the
    #: case's own, or the same text when the case has none).
    rule: str = ""

    @property
    def where(self) -> str:
        return f"{self.file}: group {self.group_index + 1}, case {self.case_index + 1} ({self.id})"


#: Where parsed fixture files are kept (a directory), or `off`; default
#: `pytest-planmode/fixtures` under `$XDG_CACHE_HOME` (default `~/.cache`).
PARSE_CACHE_ENV = "PLANMODE_FIXTURE_CACHE"
#: Changes when what the parse cache holds changes.
_PARSE_CACHE_FORMAT = "1"


def parse_cache_dir() -> Path | None:
    """The directory of the parse cache; None when it is turned off."""
    explicit = os.environ.get(PARSE_CACHE_ENV, "")
    if explicit.strip().lower() == "off":
        return None
    if explicit:
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-planmode" / "fixtures"


def parse_toml(text: str, path: Path) -> dict[str, Any]:
    """`tomllib.loads(text)`: parsing the shipped suite's TOML costs more than
    the rest of loading it, so the parse of a shipped fixture file (`path`,
    under :data:`FIXTURES_DIR`) is kept as JSON in the parse cache, one entry
    per file, with the hash of the text it is the parse of; the entry is used
    only for that same text (and Python version). Other files are parsed.
    A text that is not TOML raises `tomllib.TOMLDecodeError` (a ValueError).
    (`tomllib` is imported here: a run that finds every parse kept needs
    none of it.)"""
    import tomllib

    cache = parse_cache_dir()
    resolved = path.resolve()
    if cache is None or not resolved.is_relative_to(FIXTURES_DIR):
        return tomllib.loads(text)
    version = f"{_PARSE_CACHE_FORMAT}:{sys.version_info[0]}.{sys.version_info[1]}"
    digest = hashlib.sha256(f"{version}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()
    entry = cache / f"{hashlib.sha256(str(resolved).encode('utf-8', 'surrogatepass')).hexdigest()}.json"
    try:
        kept = json.loads(entry.read_text(encoding="utf-8"))
        if isinstance(kept, dict) and kept.get("sha256") == digest:
            data: Any = kept.get("data")
            if isinstance(data, dict):
                return data
    except (OSError, ValueError):
        pass
    parsed = tomllib.loads(text)
    _keep_parse(entry, digest, parsed)
    return parsed


def _keep_parse(entry: Path, digest: str, data: dict[str, Any]) -> None:
    """Write one parse cache entry; a parse JSON cannot hold exactly (TOML
    dates and times, say) or a cache that cannot be written is left out."""
    try:
        text = json.dumps({"sha256": digest, "data": data}, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return
    if json.loads(text)["data"] != data:
        return
    partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, entry)
    except OSError:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


NULL_SENTINEL = "$null"


def decode_nulls(value: Any) -> Any:
    """TOML has no null: a fixture writes JSON null as the table
    `{ "$null" = true }`; this turns every such table into None."""
    if isinstance(value, dict):
        if len(value) == 1 and value.get(NULL_SENTINEL) is True:
            return None
        return {k: decode_nulls(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_nulls(v) for v in value]
    return value


def fixture_files(root: Path = FIXTURES_DIR) -> list[Path]:
    """Every fixture file under `root`, in sorted order (xdist workers must agree)."""
    return sorted(root.rglob("*.toml"))


def display_name(path: Path, root: Path | None = None) -> str:
    for base in (root, FIXTURES_DIR):
        if base is None:
            continue
        try:
            return path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


@cache
def spec_sections() -> dict[str, frozenset[str]]:
    data = json.loads((PACKAGE_DIR / "spec_sections.json").read_text(encoding="utf-8"))
    return {doc: frozenset(heads) for doc, heads in data.items() if not doc.startswith("_")}


_HEADING = re.compile(r"^(#{2,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def spec_headings(markdown: str) -> list[str]:
    """The section headings of a specification document as fixtures cite
    them: every ATX heading below the title (`##` and deeper) outside code
    fences, in order, with a leading symbol (an emoji such as the one before
    `Settings`) and its spaces left out."""
    headings: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match is None:
            continue
        text = match.group(2).strip()
        while text and not (text[0].isalnum() or text[0] in "`\"'(["):
            text = text[1:].lstrip()
        if text and text not in headings:
            headings.append(text)
    return headings


def sections_drift(folder: Path) -> list[str]:
    """How the shipped section table differs from the real headings of the
    specification documents in `folder` (each document the table names, read
    with `spec_headings`): a heading a fixture cannot cite, or a cited
    section the document no longer has. Empty when they agree."""
    problems: list[str] = []
    for doc, known in sorted(spec_sections().items()):
        path = folder / doc
        if not path.is_file():
            problems.append(f"{doc}: not found in {folder}")
            continue
        real = spec_headings(path.read_text(encoding="utf-8"))
        problems.extend(
            f"{doc}: the document has the section {h!r}, which the section table lacks"
            for h in real
            if h not in known
        )
        problems.extend(
            f"{doc}: the section table has {h!r}, which the document lacks" for h in sorted(known - set(real))
        )
    return problems


def check_spec(spec: str) -> str | None:
    """None if `spec` cites a known document and section, else what is wrong."""
    doc, sep, heading = spec.partition(" § ")
    sections = spec_sections()
    if not sep or doc not in sections:
        return f"spec {spec!r} must cite one of {sorted(sections)} as '<document> § <section>'"
    if heading not in sections[doc]:
        return f"spec {spec!r}: {doc} has no section {heading!r}; known: {sorted(sections[doc])}"
    return None


def _locate(file: str, data: Any, loc: tuple[int | str, ...]) -> str:
    where = file
    if len(loc) >= 2 and loc[0] == "group" and isinstance(loc[1], int):
        group = data["group"][loc[1]]
        where += f": group {loc[1] + 1}"
        if isinstance(group, dict) and isinstance(group.get("description"), str):
            where += f" ({group['description'][:60]!r})"
        if len(loc) >= 4 and loc[2] == "case" and isinstance(loc[3], int):
            case = group["case"][loc[3]]
            where += f", case {loc[3] + 1}"
            if isinstance(case, dict) and isinstance(case.get("id"), str):
                where += f" ({case['id']})"
            rest = loc[4:]
        else:
            rest = loc[2:]
    else:
        rest = loc
    field = ".".join(str(p) for p in rest)
    return f"{where}: {field}" if field else where


def _output_fields(model: Any) -> set[str]:
    names: set[str] = set()
    for name, field in model.model_fields.items():
        names.add(field.alias or name)
    return names


def _well_formed_parts(data: Any) -> list[tuple[int, Any, list[tuple[int, Any]]]]:
    """The groups of a file that fails the format whose own fields fit it,
    each with its cases that fit it, by their positions in the file."""
    from pytest_planmode.contract.fixtures import FixtureCase, FixtureGroup

    raw_groups = data.get("group") if isinstance(data, dict) else None
    if not isinstance(raw_groups, list):
        return []
    parts: list[tuple[int, Any, list[tuple[int, Any]]]] = []
    for gi, raw in enumerate(raw_groups):
        raw_cases = raw.get("case") if isinstance(raw, dict) else None
        if not isinstance(raw_cases, list):
            continue
        indexed: list[tuple[int, Any]] = []
        for ci, raw_case in enumerate(raw_cases):
            try:
                indexed.append((ci, FixtureCase.model_validate(raw_case)))
            except ValidationError:
                continue
        if not indexed:
            continue
        try:
            group = FixtureGroup.model_validate({**raw, "case": [raw_cases[ci] for ci, _ in indexed]})
        except ValidationError:
            continue
        parts.append((gi, group, indexed))
    return parts


def load_file(path: Path, *, contract: bool = True, root: Path | None = None) -> list[Case]:
    """Load and check one fixture file; raise FixtureError listing every problem."""
    from pytest_planmode.contract.fixtures import FixtureFile

    file = display_name(path, root)
    try:
        data = parse_toml(path.read_text(encoding="utf-8"), path)
    except (OSError, UnicodeDecodeError) as exc:
        raise FixtureError(f"{file}: cannot read: {exc}") from exc
    except ValueError as exc:  # tomllib.TOMLDecodeError
        raise FixtureError(f"{file}: not valid TOML: {exc}") from exc
    problems: list[str] = []
    try:
        model = FixtureFile.model_validate(data)
        groups = [(gi, group, list(enumerate(group.case))) for gi, group in enumerate(model.group)]
    except ValidationError as exc:
        problems.extend(
            f"{_locate(file, data, tuple(err['loc']))}: {err['msg']}" for err in exc.errors(include_url=False)
        )
        # The parts that do fit the format are checked too: every problem at once.
        groups = _well_formed_parts(data)

    ops: dict[str, Any] = {}
    if contract:
        from pytest_planmode.contract import operations

        ops = operations()
    cases: list[Case] = []
    for gi, group, indexed in groups:
        gwhere = f"{file}: group {gi + 1} ({group.description[:60]!r})"
        for spec in {group.spec} | {c.spec for _, c in indexed if c.spec}:
            if (problem := check_spec(spec)) is not None:
                problems.append(f"{gwhere}: {problem}")
        op = ops.get(group.operation)
        if contract and op is None:
            problems.append(f"{gwhere}: unknown operation {group.operation!r}; known: {sorted(ops)}")
        for ci, case in indexed:
            merged = decode_nulls({**group.defaults, **case.input})
            loaded = Case(
                id=case.id,
                operation=group.operation,
                level=case.level or group.level,
                spec=case.spec or group.spec,
                description=case.description or group.description,
                input=merged,
                expect=decode_nulls(case.expect),
                file=file,
                group_index=gi,
                case_index=ci,
                rule=group.description,
            )
            cases.append(loaded)
            if op is None:
                continue
            try:
                op.input.model_validate(merged)
            except ValidationError as exc:
                for err in exc.errors(include_url=False):
                    field = ".".join(str(p) for p in err["loc"]) or "(input)"
                    problems.append(f"{loaded.where}: input.{field}: {err['msg']}")
            unknown = set(loaded.expect) - _output_fields(op.output)
            if unknown:
                problems.append(
                    f"{loaded.where}: expect names {sorted(unknown)}, which are not output fields "
                    f"of {group.operation} ({sorted(_output_fields(op.output))})"
                )
    if problems:
        raise FixtureError("\n".join(problems))
    return cases


def duplicate_ids(cases: Iterable[Case]) -> list[str]:
    seen: dict[str, Case] = {}
    problems = []
    for case in cases:
        if case.id in seen:
            problems.append(f"duplicate case id {case.id!r}: {seen[case.id].where} and {case.where}")
        else:
            seen[case.id] = case
    return problems


def load_suite(root: Path = FIXTURES_DIR) -> list[Case]:
    """Every case of the suite; FixtureError with every problem found."""
    cases: list[Case] = []
    problems: list[str] = []
    for path in fixture_files(root):
        try:
            cases.extend(load_file(path, root=root))
        except FixtureError as exc:
            problems.append(str(exc))
    problems.extend(duplicate_ids(cases))
    if problems:
        raise FixtureError("\n".join(problems))
    return cases
