"""PerspectiveBench commands: import/export the benchmark, statistics, paths, perspectives,
questions and concepts. Heavy work is imported inside the commands so `kg --help` stays fast.
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.table import Table

from kg.cli.console import console, err_console, fail, open_store
from kg.cli.scopes import DOMAINS, ORIGIN, selected
from kg.domains import Origin

if TYPE_CHECKING:
    from kg.queries.concepts import ConceptHit
    from kg.store import Store

import_app = typer.Typer(help="Import benchmark files into the graph.", no_args_is_help=True)
export_app = typer.Typer(help="Export benchmark files from the graph.", no_args_is_help=True)
question_app = typer.Typer(help="Inspect benchmark questions.", no_args_is_help=True)


class Fmt(StrEnum):
    table = "table"
    json = "json"


class StatsFmt(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


# Options several commands share (one OptionInfo each: typer copies nothing from it per use).
DOMAIN_OPTION: Any = typer.Option(None, "--domain", "-d", help="Only this domain.")
PALETTE_OPTION: Any = typer.Option(
    None,
    "--palette",
    help="Relation palette JSON (published format): FILE for every domain or "
    "DOMAIN=FILE; repeatable.",
)


def _echo_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _load_palettes(specs: list[str] | None) -> dict[str | None, dict[str, str]]:
    """`--palette FILE` (every domain) and `--palette DOMAIN=FILE` -> {domain|None: label->cat}.

    A bad palette is an error (`PaletteError`), as it is for `kg build --palette`."""
    from kg.palette import load_palette

    out: dict[str | None, dict[str, str]] = {}
    for spec in specs or []:
        domain, _, file = (
            spec.partition("=") if "=" in spec and not Path(spec).exists() else (None, "", spec)
        )
        out.setdefault(domain or None, {}).update(load_palette(Path(file)).category_map())
    return out


def _palette_for(palettes: dict[str | None, dict[str, str]], domain: str) -> dict[str, str] | None:
    merged = {**palettes.get(None, {}), **palettes.get(domain, {})}
    return merged or None


# ---------------------------------------------------------------- import / export
@import_app.command("perspectivebench")
def import_perspectivebench_cmd(
    files: list[Path] = typer.Argument(..., help="PerspectiveBench JSONL files."),
    skip_invalid: bool = typer.Option(
        False, help="Import the good lines; write the bad ones with their reasons to --rejects."
    ),
    rejects: Path | None = typer.Option(
        None,
        help="Where --skip-invalid writes rejected "
        "lines (JSONL); default "
        "perspectivebench.rejects.jsonl.",
    ),
    palette: list[str] | None = PALETTE_OPTION,
    max_line_bytes: int = typer.Option(4 * 1024 * 1024, help="Longest accepted line."),
    check: bool = typer.Option(
        False, "--check", help="Only validate the files (no database needed); exit 1 on errors."
    ),
    fmt: Fmt = typer.Option(Fmt.table, "--format"),
) -> None:
    """Import PerspectiveBench questions (validated first; bad input writes nothing)."""
    from construction.perspectivebench.importer import import_perspectivebench
    from construction.perspectivebench.report import ImportValidationError, format_problems

    if check:
        _check_only(files, max_line_bytes)
        return

    if skip_invalid and rejects is None:
        rejects = Path("perspectivebench.rejects.jsonl")
    palettes = _load_palettes(palette)
    with open_store() as store:
        try:
            report = import_perspectivebench(
                store,
                files,
                skip_invalid=skip_invalid,
                rejects_path=rejects,
                palette=palettes.get(None),
                max_line_bytes=max_line_bytes,
                domain_palettes={d: m for d, m in palettes.items() if d is not None},
            )
        except ImportValidationError as e:
            _fail_problems(f"{len(e.problems)} problem(s); nothing was written:", e.problems)
    if fmt is Fmt.json:
        _echo_json(report.model_dump() | {"nodes_created": report.nodes_created})
        return
    t = Table(title="PerspectiveBench import", show_header=False)
    for k in [
        "lines_read",
        "questions_valid",
        "questions_written",
        "duplicates_skipped",
        "invalid_skipped",
        "blank_lines",
        "domains",
        "concepts",
        "facts",
        "edges",
        "paths",
    ]:
        t.add_row(k, f"{getattr(report, k):,}")
    t.add_row(
        "nodes created",
        ", ".join(f"{k} {v:+,}" for k, v in report.nodes_created.items())
        or "none (already imported)",
    )
    if report.evidence_outside_pool:
        t.add_row(
            "focused evidence in no pool entry",
            f"{report.evidence_outside_pool:,} sentence(s) in "
            f"{report.questions_with_outside_evidence:,} question(s); stored as Facts "
            "linked only by (:Question)-[:EVIDENCE]->(:Fact), in no Concept",
        )
    t.add_row("seconds", f"{report.seconds:.2f}")
    if report.rejects_path:
        t.add_row("rejects written to", report.rejects_path)
    console.print(t)
    if report.warnings:
        err_console.print(f"[yellow]{len(report.warnings)} warning(s):[/]", highlight=False)
        err_console.print(
            format_problems(report.warnings), highlight=False, markup=False, soft_wrap=True
        )
    if report.errors:
        err_console.print(f"[red]{len(report.errors)} rejected problem(s):[/]", highlight=False)
        err_console.print(
            format_problems(report.errors), highlight=False, markup=False, soft_wrap=True
        )


def _fail_problems(header: str, problems: list) -> NoReturn:
    """Like `fail`, but one unwrapped line per problem so file:line:field stays greppable; the
    first 10 on screen, all of them in a report file whose path is printed."""
    from kg.error_report import screen_lines, write_error_report

    source = problems[0].file if problems else "import"
    report = write_error_report(source, [str(p) for p in problems])
    err_console.print(f"[bold red]error:[/] {header}", highlight=False)
    err_console.print(
        "\n".join(screen_lines([str(p) for p in problems], report)),
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    raise typer.Exit(1)


def _check_only(files: list[Path], max_line_bytes: int) -> None:
    from construction.perspectivebench.report import format_problems
    from construction.perspectivebench.validation import validate_files

    result = validate_files(files, max_line_bytes=max_line_bytes)
    console.print(
        f"{result.lines_read:,} line(s): {len(result.questions):,} valid question(s), "
        f"{len(result.rejected):,} invalid line(s), {result.duplicates:,} duplicate(s), "
        f"{len(result.warnings):,} warning(s)",
        highlight=False,
    )
    if result.warnings:
        err_console.print(
            format_problems(result.warnings), highlight=False, markup=False, soft_wrap=True
        )
    if result.errors:
        _fail_problems(f"{len(result.errors)} problem(s):", result.errors)


@export_app.command("perspectivebench")
def export_perspectivebench_cmd(
    out: Path = typer.Argument(..., help="Output JSONL file."),
    domain: str | None = DOMAIN_OPTION,
) -> None:
    """Write the graph's questions back in the PerspectiveBench JSONL format."""
    from construction.perspectivebench.exporter import export_perspectivebench

    with open_store() as store:
        n = export_perspectivebench(store, out, domain=domain)
    console.print(f"wrote {n:,} question(s) to {out}", highlight=False)


# ---------------------------------------------------------------- stats
def stats(
    domain: Annotated[list[str] | None, DOMAINS] = None,
    origin: Annotated[Origin | None, ORIGIN] = None,
    fmt: StatsFmt = typer.Option(StatsFmt.table, "--format"),
) -> None:
    """Questions and mean valid/target/distractor paths per domain and hop, plus the cover-all
    baseline (an answer that states every valid path); one total per origin (imported, built)."""
    from kg import domains as kg_domains
    from kg.queries.stats import benchmark_stats

    with open_store() as store:
        scope = selected(store, domain, origin)
        origins = {d.name: d.origin for d in kg_domains.all_domains(store)}
        rows = benchmark_stats(store, scope, origins)
    data = [r.model_dump() for r in rows]
    if fmt is StatsFmt.json:
        _echo_json(data)
        return
    if fmt is StatsFmt.csv:
        import csv

        writer = csv.DictWriter(sys.stdout, fieldnames=list(data[0]) if data else ["domain"])
        writer.writeheader()
        writer.writerows(data)
        return
    if not rows:
        console.print("no questions in the graph")
        return
    from rich import box

    t = Table(
        title="PerspectiveBench statistics",
        caption="valid/target/distr.: mean paths per question; cover P/R/PAS: the cover-all "
        "baseline (an answer that states every valid path)",
        box=box.SIMPLE_HEAD,
    )
    for col in [
        "domain",
        "hop",
        "questions",
        "valid",
        "target",
        "distr.",
        "cover P",
        "cover R",
        "cover PAS",
    ]:
        t.add_column(col, justify="left" if col == "domain" else "right", no_wrap=True)
    for r in rows:
        style = "bold" if r.hop == "ALL" else None
        t.add_row(
            r.domain,
            str(r.hop),
            f"{r.questions:,}",
            f"{r.mean_valid:.2f}",
            f"{r.mean_targets:.2f}",
            f"{r.mean_distractors:.2f}",
            f"{100 * r.cover_all_precision:.1f}",
            f"{100 * r.cover_all_recall:.1f}",
            f"{100 * r.cover_all_pas:.1f}",
            style=style,
        )
    console.print(t)


# ---------------------------------------------------------------- concepts
def _hits_table(title: str, hits: list[ConceptHit], score: bool = False) -> Table:
    t = Table(title=title)
    for col in [
        "domain",
        "key",
        "out",
        "in",
        "questions",
        *(["score"] if score else []),
        "summary",
    ]:
        t.add_column(col, overflow="fold")
    for h in hits:
        summary = (h.summary or "")[:100] + ("..." if len(h.summary or "") > 100 else "")
        t.add_row(
            h.domain,
            h.key,
            str(h.out_edges),
            str(h.in_edges),
            str(h.questions),
            *([f"{h.score:.2f}"] if score else []),
            summary,
        )
    return t


def _resolve(store: Store, text: str, domain: str | None, role: str) -> ConceptHit:
    from kg.queries.concepts import find_concept

    m = find_concept(store, text, domain=domain)
    if m.chosen is not None:
        if m.how == "fulltext":
            err_console.print(
                f"{role} {text!r} matched {m.chosen.domain}/{m.chosen.key}: "
                f"{(m.chosen.summary or '')[:90]}",
                highlight=False,
                markup=False,
            )
        return m.chosen
    if not m.candidates:
        fail(f"{role} {text!r}: no concept has this key or matches this text")
    err_console.print(
        _hits_table(f"{role} {text!r} matches several concepts", m.candidates, score=True)
    )
    if sys.stdin.isatty():
        choice = typer.prompt(f"pick {role} (1-{len(m.candidates)})", type=int)
        if 1 <= choice <= len(m.candidates):
            return m.candidates[choice - 1]
    fail(f"{role} {text!r} is ambiguous: pass a concept key (and --domain)", code=2)


def concepts(
    domain: str | None = DOMAIN_OPTION,
    search: str | None = typer.Option(None, "--search", "-s", help="Full-text search."),
    limit: int = typer.Option(200, help="Most rows shown."),
    fmt: Fmt = typer.Option(Fmt.table, "--format"),
) -> None:
    """List concepts, or search them by text (key, summary, topic words)."""
    from kg.queries.concepts import list_concepts, search_concepts

    with open_store() as store:
        hits = (
            search_concepts(store, search, domain=domain, limit=limit)
            if search
            else list_concepts(store, domain=domain, limit=limit)
        )
    if fmt is Fmt.json:
        _echo_json([h.model_dump() for h in hits])
        return
    console.print(
        _hits_table(
            f"concepts matching {search!r}" if search else "concepts", hits, score=bool(search)
        )
    )


# ---------------------------------------------------------------- paths / perspectives
def paths(
    a: str = typer.Argument(..., help="Start concept: key or free text."),
    b: str = typer.Argument(..., help="End concept: key or free text."),
    max_hops: int = typer.Option(3, min=1, max=3),
    domain: str | None = DOMAIN_OPTION,
    fmt: Fmt = typer.Option(Fmt.table, "--format"),
) -> None:
    """Every simple directed path of 1..max-hops edges from A to B, grouped by label signature."""
    from kg.queries.concepts import list_concepts, short_name
    from kg.queries.paths import paths_between

    with open_store() as store:
        start = _resolve(store, a, domain, "A")
        end = _resolve(store, b, domain or start.domain, "B")
        if start.uid == end.uid:
            fail("A and B are the same concept")
        groups = paths_between(store, start.uid, end.uid, max_hops=max_hops)
        names = {
            h.key: short_name(h.key, h.name, h.summary)
            for h in list_concepts(store, domain=start.domain, limit=100000)
        }
    if fmt is Fmt.json:
        _echo_json(
            {
                "start": start.model_dump(),
                "end": end.model_dump(),
                "groups": [
                    {
                        "labels": g.labels,
                        "paths": [p.model_dump() | {"signature": p.signature} for p in g.paths],
                    }
                    for g in groups
                ],
            }
        )
        return
    n = sum(len(g.paths) for g in groups)
    t = Table(
        title=f"{n} path(s) in {start.domain} from {names.get(start.key, start.key)} "
        f"({start.key}) to {names.get(end.key, end.key)} ({end.key}), "
        f"{len(groups)} label signature(s)",
        show_lines=True,
    )
    for col in ["label signature", "path (concepts by name)", "reasons"]:
        t.add_column(col, overflow="fold", ratio=1)
    for g in groups:
        for i, p in enumerate(g.paths):
            chain = names.get(p.keys[0], p.keys[0]) + "".join(
                f"\n -{lab}-> {names.get(k, k)}"
                for lab, k in zip(p.labels, p.keys[1:], strict=False)
            )
            reasons = "\n".join(
                f"{lab}: {r or ''}" for lab, r in zip(p.labels, p.reasons, strict=False)
            )
            t.add_row(g.label_signature if i == 0 else "", chain, reasons)
    console.print(t)


class By(StrEnum):
    label = "label"
    category = "category"


def perspectives(
    a: str | None = typer.Argument(None, help="Start concept: key or free text."),
    b: str | None = typer.Argument(None, help="End concept: key or free text."),
    domain: str | None = DOMAIN_OPTION,
    palette: list[str] | None = PALETTE_OPTION,
    by: By = typer.Option(
        By.label, "--by", help="Share a relation label at a hop, or (coarser) a palette category."
    ),
    max_hops: int = typer.Option(3, min=1, max=3),
    check: bool = typer.Option(
        False,
        "--check",
        help="Instead of A and B: how often each question's target set is a candidate and a "
        "selected perspective, by domain and hop (the fidelity report).",
    ),
    fmt: Fmt = typer.Option(Fmt.table, "--format"),
) -> None:
    """Perspectives between A and B: paths sharing a relation at one hop (or --check).

    A perspective is the set of valid paths over one concept sequence that share a relation at
    one hop. Shown per perspective: the relation and hop, its paths, whether the selection rule
    asks it, and the imported questions that target it (docs/perspectives.md)."""
    if check:
        if a or b:
            fail("--check takes no concepts (narrow it with --domain)")
        _perspective_check(domain, palette, by, fmt)
        return
    if a is None or b is None:
        fail("give two concepts A and B (or --check)")
    from kg.queries.perspectives import group_perspectives

    with open_store() as store:
        start = _resolve(store, a, domain, "A")
        end = _resolve(store, b, domain or start.domain, "B")
        groups = group_perspectives(
            store,
            start.domain,
            start.key,
            end.key,
            _palette_for(_load_palettes(palette), start.domain),
            by=by.value,
            max_hops=max_hops,
        )
    if fmt is Fmt.json:
        _echo_json(
            [
                g.model_dump(exclude={"paths"})
                | {"name": g.name, "paths": [p.model_dump() for p in g.paths]}
                for g in groups
            ]
        )
        return
    n_sel = sum(g.selected for g in groups)
    t = Table(
        title=f"{len(groups)} perspective(s), {n_sel} selected, "
        f"{start.domain}/{start.key} -> {end.key}",
        show_lines=True,
    )
    for col in ["relation @ hop", "asked", "paths", "questions targeting it"]:
        t.add_column(col, overflow="fold")
    for g in groups:
        where = g.name + "".join(f"\n(same paths @ hop {h})" for h in g.also_at)
        where += f"\nof {g.foci_at_hop} at this hop" if g.hop else "\n(whole sequence)"
        qs = "\n".join(f"#{q.id} [{q.theme}]" for q in g.questions) or "-"
        t.add_row(where, "yes" if g.selected else "no", "\n".join(g.signatures), qs)
    console.print(t)


def _perspective_check(domain: str | None, palette: list[str] | None, by: By, fmt: Fmt) -> None:
    from kg.queries.perspective_fidelity import perspective_fidelity

    loaded = _load_palettes(palette)
    with open_store() as store:
        domains = [domain] if domain else [r["name"] for r in store.query("core/domain_names")]
        palettes = {d: _palette_for(loaded, d) or {} for d in domains}
        report = perspective_fidelity(
            store, [domain] if domain else None, by=by.value, palettes=palettes
        )
    if fmt is Fmt.json:
        _echo_json(report.model_dump())
        return
    t = Table(title=f"perspective fidelity (grouped by {by.value})")
    cols = ["domain", "hop", "questions", "candidate", "label|category", "selected"]
    for col in [*cols, "sequences", "proposed/asked"]:
        t.add_column(col, justify="left" if col == "domain" else "right")
    for r in report.rows:
        t.add_row(
            r.domain,
            str(r.hop) if r.hop else "all",
            str(r.questions),
            f"{r.candidate} {r.candidate_share:.1%}",
            f"{r.either} {r.either_share:.1%}",
            f"{r.selected} {r.selected_share:.1%}",
            str(r.sequences),
            f"{r.proposed}/{r.asked}",
        )
    console.print(t)
    if report.not_candidate:
        console.print("not a candidate: " + ", ".join(report.not_candidate), highlight=False)
    if report.not_selected:
        console.print("candidate, not selected: " + ", ".join(report.not_selected), highlight=False)


# ---------------------------------------------------------------- questions
@question_app.command("show")
def question_show(
    qid: int = typer.Argument(..., metavar="ID", help="The question's id in the file."),
    domain: str | None = DOMAIN_OPTION,
    palette: list[str] | None = PALETTE_OPTION,
    fmt: Fmt = typer.Option(Fmt.table, "--format"),
) -> None:
    """A question: text, theme, target and distractor paths (with their perspective group),
    focused evidence and concept pool."""
    from kg.queries.questions import annotate_perspectives, question_details

    with open_store() as store:
        found = question_details(store, qid, domain)
        if not found:
            fail(f"no question with id {qid}" + (f" in {domain}" if domain else ""))
        if len(found) > 1:
            fail(f"id {qid} exists in {', '.join(q.domain for q in found)}: pass --domain")
        q = found[0]
        annotate_perspectives(store, q, _palette_for(_load_palettes(palette), q.domain))
    if fmt is Fmt.json:
        _echo_json(q.model_dump())
        return
    console.print(
        f"[bold]#{q.id}[/] {q.domain}, {q.hop}-hop, theme [cyan]{q.theme}[/]", highlight=False
    )
    console.print(q.text or "", highlight=False, markup=False)
    t = Table(title="valid paths", show_lines=True)
    widest = max((len(p.signature) for p in q.paths), default=0)
    for col in ["role", "name", "path", "perspectives (* its target set)"]:
        t.add_column(col, overflow="fold", min_width=min(widest, 60) if col == "path" else None)
    for p in q.paths:
        t.add_row(
            p.role,
            p.name or "",
            p.signature,
            p.perspective or "-",
            style="green" if p.role == "target" else None,
        )
    console.print(t)
    console.print("[bold]focused evidence[/]")
    for i, s in enumerate(q.evidence):
        console.print(f"  {i + 1}. {s}", highlight=False, markup=False)
    console.print("[bold]concept pool[/]: " + ", ".join(p["key"] for p in q.pool), highlight=False)


def register(app: typer.Typer) -> None:
    """Attach this area's commands to the main app."""
    app.add_typer(import_app, name="import")
    app.add_typer(export_app, name="export")
    app.add_typer(question_app, name="question")
    app.command("stats")(stats)
    app.command("paths")(paths)
    app.command("perspectives")(perspectives)
    app.command("concepts")(concepts)
