"""Every problem of a refused input file goes to a report file; the screen shows the first ten."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kg.safe_paths import safe_file

SHOWN = 10


def write_error_report(
    source: Path | str, problems: Sequence[str], folder: Path | str | None = None
) -> Path:
    """Write one problem per line to `<folder>/<input file name>.errors.txt` (default: the
    current directory, since the input's own folder may be read-only) and return its path."""
    folder = Path(folder) if folder is not None else Path.cwd()
    folder.mkdir(parents=True, exist_ok=True)
    path = safe_file(folder, Path(str(source)).name or "input", ".errors.txt")
    path.write_text(
        "".join(f"{p}\n" for p in problems), encoding="utf-8", errors="backslashreplace"
    )
    return path


def screen_lines(problems: Sequence[str], report: Path | None, shown: int = SHOWN) -> list[str]:
    """The first `shown` problems, then where the rest are."""
    out = [str(p) for p in problems[:shown]]
    if report is not None:
        more = f"... and {len(problems) - shown} more; " if len(problems) > shown else ""
        out.append(f"{more}all {len(problems)} problem(s) written to {report}")
    return out
