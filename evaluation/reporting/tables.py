"""A small table type and its exporters: CSV, JSON and Markdown (no extra dependencies)."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from evaluation.reporting.bootstrap import CI
from kg.errors import InputError
from kg.safe_paths import safe_file


class Table(BaseModel):
    title: str
    columns: list[str]
    rows: list[dict[str, Any]] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    digits: dict[str, int] = Field(default_factory=dict)  # decimals of a column (default 2)

    def cell(self, row: dict[str, Any], col: str) -> str:
        return _fmt(row.get(col), self.digits.get(col, 2))

    def to_markdown(self) -> str:
        head = "| " + " | ".join(self.columns) + " |"
        sep = "|" + "|".join("---" for _ in self.columns) + "|"
        body = [
            "| " + " | ".join(self.cell(r, c).replace("|", "\\|") for c in self.columns) + " |"
            for r in self.rows
        ]
        out = [f"### {self.title}", "", head, sep, *body]
        if self.notes:
            out += ["", *[f"- {n}" for n in self.notes]]
        return "\n".join(out) + "\n"

    def flat_rows(self) -> list[dict[str, Any]]:
        """CI cells split into `<col>`, `<col>_low`, `<col>_high` (for CSV / dataframes)."""
        out = []
        for r in self.rows:
            flat: dict[str, Any] = {}
            for c in self.columns:
                v = r.get(c)
                if isinstance(v, CI):
                    flat[c], flat[f"{c}_low"], flat[f"{c}_high"] = v.mean, v.low, v.high
                    flat[f"{c}_n"] = v.n
                else:
                    flat[c] = v
            out.append(flat)
        return out

    def to_json_obj(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "columns": self.columns,
            "notes": self.notes,
            "rows": [
                {c: (v.model_dump() if isinstance(v := r.get(c), CI) else v) for c in self.columns}
                for r in self.rows
            ],
        }

    def write_csv(self, path: Path) -> Path:
        rows = self.flat_rows()
        fields = list(dict.fromkeys(k for r in rows for k in r)) or self.columns
        with path.open("w", newline="", encoding="utf-8") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(rows)
        return path


def fmt_ci(ci: CI, scale: float = 1.0, digits: int = 2) -> str:
    if ci.mean is None:
        return "–"
    if ci.low is None or ci.high is None:
        return f"{ci.mean * scale:.{digits}f}"
    return (
        f"{ci.mean * scale:.{digits}f} [{ci.low * scale:.{digits}f}, {ci.high * scale:.{digits}f}]"
    )


def _fmt(v: Any, digits: int = 2) -> str:
    if v is None:
        return "–"
    if isinstance(v, CI):
        return fmt_ci(v, digits=digits)
    if isinstance(v, float):
        return "–" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def export_table(
    table: Table, out_dir: Path, name: str, formats: Sequence[str] = ("csv", "json", "md")
) -> list[Path]:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        p = safe_file(out_dir, name, f".{fmt}")  # names hold run ids: kept inside out_dir
        if fmt == "csv":
            table.write_csv(p)
        elif fmt == "json":
            p.write_text(json.dumps(table.to_json_obj(), indent=2, default=str), encoding="utf-8")
        elif fmt == "md":
            p.write_text(table.to_markdown(), encoding="utf-8")
        else:
            raise InputError(f"unknown table format {fmt!r} (csv, json, md)")
        paths.append(p)
    return paths
