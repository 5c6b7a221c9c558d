"""Validate PerspectiveBench JSONL files line by line, before anything touches the database.

Every problem names file, line and field. Errors make a line invalid; warnings (labels `None`,
one concept with two summaries, repeated identical lines) are reported and the line is kept.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from construction.perspectivebench.models import BenchQuestion, PathEntry, RawLine
from construction.perspectivebench.report import Problem
from kg.collector import collector_paused
from kg.input_rules import blank, split_lines, strip_bom
from kg.jsonl import JsonLine, Wording, json_lines
from kg.paths import (
    IDENT,
    MISSING_LABEL,
    PathSyntaxError,
    base_key,
    parse_path,
)

DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024  # the largest published line is ~40 kB
_PATH_NAME = "path_"


@dataclass
class LineRef:
    file: str
    line: int
    text: str = ""


def two_summaries(
    ref: LineRef, domain: str, pool_key: str, first: str, here: str, note: str = ""
) -> Problem:
    """The warning for a concept whose Summary differs from one seen before (`first`: where
    and what) -- within an import, or against the graph."""
    return Problem(
        file=ref.file,
        line=ref.line,
        field=f"full_content_pool.{pool_key}.Summary",
        message=f"concept {base_key(pool_key)} in {domain} has two summaries: "
        f"{first} / here: {here!r}{note}",
    )


@dataclass
class ValidationResult:
    questions: list[tuple[LineRef, BenchQuestion]] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    rejected: list[tuple[LineRef, list[Problem]]] = field(default_factory=list)
    lines_read: int = 0
    blank_lines: int = 0
    duplicates: int = 0


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "-"


class _LineChecker:
    """Checks one decoded line; collects errors and warnings with this line's location."""

    def __init__(self, file: str, line: int) -> None:
        self.file, self.line = file, line
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []

    def error(self, fld: str, message: str) -> None:
        self.errors.append(Problem(file=self.file, line=self.line, field=fld, message=message))

    def warn(self, fld: str, message: str) -> None:
        self.warnings.append(Problem(file=self.file, line=self.line, field=fld, message=message))

    def check(self, line: JsonLine) -> BenchQuestion | None:
        """The question on a line `json_lines` read (its problems become this line's errors)."""
        for p in line.problems:
            self.error(p.field, p.message)
        if not line.ok:
            return None
        obj = line.value
        try:
            raw = RawLine.model_validate(obj)
        except ValidationError as exc:
            for err in exc.errors():
                self.error(_loc(err["loc"]), _pydantic_message(err))
            return None
        for fld in ("domain", "perspective_target_question"):
            if blank(getattr(raw, fld)):  # the importer-wide rule: no blank texts
                self.error(fld, "blank: whitespace only")
                return None
        return self._semantics(raw, obj["full_content_pool"])

    def _entry(self, entry: dict[str, Any], fld: str) -> PathEntry | None:
        names = [k for k in entry if k.startswith(_PATH_NAME) and k[5:].isdigit()]
        if len(names) != 1:
            self.error(fld, f"expected exactly one 'path_N' key, found {sorted(entry)}")
            return None
        name = names[0]
        value = entry[name]
        if not isinstance(value, str):
            self.error(f"{fld}.{name}", f"path must be a string, got {_short(value)}")
            return None
        try:
            parsed = parse_path(value)
        except PathSyntaxError as exc:
            self.error(f"{fld}.{name}", str(exc))
            return None
        expected = parsed.reason_keys()
        given = [k for k in entry if k != name]
        if sorted(given) != sorted(expected):
            self.error(fld, f"reason keys {given} do not match {value!r}; expected {expected}")
            return None
        reasons = [entry[k] for k in expected]
        for k, r in zip(expected, reasons, strict=True):
            if not isinstance(r, str):
                self.error(f"{fld}.{k}", f"reason must be a string, got {_short(r)}")
                return None
        if MISSING_LABEL in parsed.labels and fld.startswith("valid_paths"):
            self.warn(f"{fld}.{name}", f"relation label 'None' (missing relation) in {value!r}")
        return PathEntry(name=name, path=parsed, reasons=reasons)

    def _semantics(self, raw: RawLine, raw_pool: dict[str, Any]) -> BenchQuestion | None:
        n_err = len(self.errors)
        for key in raw.full_content_pool:
            if not IDENT.match(key):
                self.error(
                    f"full_content_pool.{key}",
                    "invalid concept key: letters, digits and "
                    "underscores only, starting with a letter",
                )
        pool_keys = {base_key(k) for k in raw.full_content_pool}
        for key, entry in raw.full_content_pool.items():
            if not entry.key_evidence:
                self.warn(f"full_content_pool.{key}.Key Evidence", "empty list")
        valid: list[PathEntry | None] = []
        for i, path_entry in enumerate(raw.valid_paths):
            fld = f"valid_paths[{i}]"
            parsed = self._entry(path_entry, fld)
            valid.append(parsed)
            if parsed is None:
                continue
            for key in parsed.path.keys:
                if key not in pool_keys:
                    self.error(
                        f"{fld}.{parsed.name}", f"concept {key!r} is not in full_content_pool"
                    )
        ok = [p for p in valid if p is not None]
        _dupes(self, ok, "name", lambda p: p.name)
        _dupes(self, ok, "path", lambda p: p.path.signature)
        by_name = {p.name: i for i, p in enumerate(valid) if p is not None}
        target_pos: list[int] = []
        for i, path_entry in enumerate(raw.perspective_valid_paths):
            fld = f"perspective_valid_paths[{i}]"
            parsed = self._entry(path_entry, fld)
            if parsed is None:
                continue
            pos = by_name.get(parsed.name)
            if pos is None or valid[pos] != parsed:
                self.error(
                    fld,
                    f"target {parsed.name} ({parsed.path.signature!r}) is not among "
                    "valid_paths (same name, path and reasons)",
                )
            elif pos in target_pos:
                self.error(fld, f"target {parsed.name} listed twice")
            else:
                target_pos.append(pos)
        if len(self.errors) > n_err:
            return None
        if len(target_pos) == len(ok):
            self.error("valid_paths", "no distractor: every valid path is a target path")
            return None
        return BenchQuestion(
            id=raw.id,
            domain=raw.domain,
            theme=raw.perspective_theme,
            text=raw.perspective_target_question,
            valid_paths=ok,
            target_pos=target_pos,
            focused_evidence=raw.focused_evidence,
            pool=raw.full_content_pool,
            raw_pool=raw_pool,
        )


def _dupes(chk: _LineChecker, entries: list[PathEntry], what: str, key: Any) -> None:
    seen: set[str] = set()
    for p in entries:
        k = key(p)
        if k in seen:
            chk.error("valid_paths", f"{what} {k!r} appears twice")
        seen.add(k)


def _pydantic_message(err: Any) -> str:
    kind = err["type"]
    if kind == "missing":
        return "missing required field"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "too_short":
        return "empty: at least one item required"
    if kind == "value_error":
        return str(err.get("ctx", {}).get("error", err["msg"]))
    return f"{err['msg']} (got {_short(err.get('input'))})"


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# the PerspectiveBench wording of the shared line problems (kg.jsonl), pinned by its tests
_WORDING = Wording(
    not_json="broken JSON: {msg} (column {col})",
    not_object="expected a JSON object, got {type}",
    not_utf8="not valid UTF-8: byte 0x{byte:02x} at column {col}",
)


def _read_lines(path: Path, result: ValidationResult) -> list[bytes] | None:
    if not path.is_file():
        result.errors.append(Problem(file=str(path), line=0, message="no such file"))
        return None
    data = path.read_bytes()
    if not strip_bom(data).strip():  # the importer-wide BOM rule (kg.input_rules)
        result.errors.append(Problem(file=str(path), line=0, message="file is empty: no questions"))
        return None
    return split_lines(data)


class _CrossLine:
    """Checks across lines: repeated ids, one concept with two summaries."""

    def __init__(self, result: ValidationResult) -> None:
        self.result = result
        self.ids: dict[tuple[str, int], tuple[LineRef, str]] = {}
        self.summaries: dict[tuple[str, str], tuple[LineRef, str]] = {}

    def accept(self, ref: LineRef, q: BenchQuestion) -> bool:
        """False when the line repeats an earlier one (skipped) or conflicts with it (error)."""
        canon = json.dumps(q.to_json(), sort_keys=True)
        ident = (q.domain, q.id)  # Question uid = hash(domain, id)
        if ident in self.ids:
            first, first_canon = self.ids[ident]
            where = f"{first.file}:{first.line}"
            if first_canon == canon:
                self.result.duplicates += 1
                self.result.warnings.append(
                    Problem(
                        file=ref.file,
                        line=ref.line,
                        field="id",
                        message=f"id {q.id} ({q.domain}) repeats {where} with identical content; "
                        "skipped",
                    )
                )
            else:
                problem = Problem(
                    file=ref.file,
                    line=ref.line,
                    field="id",
                    message=f"id {q.id} ({q.domain}) already at {where} with different content",
                )
                self.result.errors.append(problem)
                self.result.rejected.append((ref, [problem]))
            return False
        self.ids[ident] = (ref, canon)
        for pool_key, entry in q.pool.items():
            key = (q.domain, base_key(pool_key))
            seen = self.summaries.get(key)
            if seen is None:
                self.summaries[key] = (ref, entry.summary)
            elif seen[1] != entry.summary:
                earlier = f"{seen[0].file}:{seen[0].line}: {seen[1]!r}"
                self.result.warnings.append(
                    two_summaries(ref, q.domain, pool_key, earlier, entry.summary)
                )
        return True


def validate_files(
    files: list[Path], *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> ValidationResult:
    """Validate every line of every file; collect questions, errors, warnings and rejects."""
    result = ValidationResult()
    cross = _CrossLine(result)
    with collector_paused():  # every question stays alive to the end: see kg/collector.py
        for path in files:
            _validate_file(Path(path), result, cross, max_line_bytes)
    return result


def _validate_file(
    path: Path, result: ValidationResult, cross: _CrossLine, max_line_bytes: int
) -> None:
    lines = _read_lines(path, result)
    if lines is not None:
        for line, raw in zip(json_lines(lines, _WORDING, max_line_bytes), lines, strict=True):
            result.lines_read += 1
            if line.blank:
                result.blank_lines += 1
                continue
            chk = _LineChecker(str(path), line.n)
            q = chk.check(line)
            text = line.text
            if text is None:
                text = raw[:max_line_bytes].decode("utf-8", errors="replace")
            ref = LineRef(str(path), line.n, text)
            result.warnings.extend(chk.warnings)
            if chk.errors:
                result.errors.extend(chk.errors)
                result.rejected.append((ref, chk.errors))
            elif q is not None and cross.accept(ref, q):
                result.questions.append((ref, q))
