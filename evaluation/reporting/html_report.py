"""One self-contained HTML file per report: the tables and plots of `kg eval report` (the same
computed tables: one source of numbers), the judge's validity, and a per-question explorer.

No network and no server: the app (vanilla JS) and its styles are inlined from the package's
`html_template/` files, plots are SVG data URIs, and the data is one JSON block
(`<script type="application/json">`) that the app renders with `textContent` only, so text
from files or models is never parsed as HTML. A Content-Security-Policy allows nothing but the
report's own script and style (by hash) and data-URI images.

    from evaluation.reporting.html_report import eval_payload, render_html
    html = render_html(eval_payload(store, ["run-a", "run-b"]), title="...")
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import tempfile
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from evaluation.reporting.bootstrap import CI
from evaluation.reporting.tables import Table
from evaluation.responders.tokens import split_sentences

OUTCOMES = ("aligned", "blended", "drifted", "|A|=0", "failed")
_QUESTION_REF = re.compile(r"\(uid ([^)\s]+)\)")
_PLACEHOLDER = re.compile(r"\{\{(TITLE|CSS|JS|DATA|CSP)\}\}")


# ---------------------------------------------------------------- pure parts (unit-tested)


def outcome(targets: Iterable[str], present: Mapping[str, bool]) -> str:
    """aligned: A ⊆ T, A ≠ ∅; blended: A holds a target and a distractor; drifted: A ∩ T = ∅,
    A ≠ ∅; |A|=0: no path judged present."""
    a = {p for p, ok in present.items() if ok}
    if not a:
        return "|A|=0"
    hit = a & set(targets)
    if hit == a:
        return "aligned"
    return "blended" if hit else "drifted"


def judge_validity(
    run: Mapping[str, Any], stored: Any = None, warnings: list[str] | None = None
) -> dict[str, Any]:
    """The judge's validity as the page shows it. `stored`: the judge's `JudgeTrust` (from its
    `kg judge validate` results), or one stored validation node; else what the run record
    carries (read defensively: a `judge_validity` mapping, JSON text or bare kappa, of unknown
    answer kind). Figures are rounded here to the precision they carry."""
    from evaluation.judges.trust import JudgeTrust, KindFigure, judge_trust

    roles_raw = run.get("roles")
    roles: Mapping[str, Any] = roles_raw if isinstance(roles_raw, Mapping) else {}
    name = roles.get("judge") or run.get("judge")
    trust = stored if isinstance(stored, JudgeTrust) else None
    if trust is None and isinstance(stored, Mapping):
        trust = judge_trust(name, [stored])
    if trust is None or trust.headline is None:
        raw: Any = run.get("judge_validity")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError:
                raw = {}
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            raw = {"kappa": raw}
        info = dict(raw) if isinstance(raw, Mapping) else {}
        k = next((info[k] for k in ("kappa", "cohen_kappa", "cohens_kappa") if k in info), None)
        k = float(k) if isinstance(k, int | float) and not isinstance(k, bool) else None
        trust = JudgeTrust(judge=name)
        if k is not None:
            trust.other = KindFigure(kind="unknown", kappa=k, gold=str(info.get("gold", "?")))
    head = trust.headline
    return {
        "judge": name,
        "kappa": _round(head.kappa if head else None, 2),
        "validated": trust.level == "validated",
        "level": trust.level,
        "badge": trust.badge(),
        "summary": trust.summary(),
        "figures": [
            {
                "kind": f.kind,
                "text": f.text(),
                "kappa": None if f.kappa is None else round(f.kappa, 2),
            }
            for f in (trust.natural, trust.constructed, trust.other)
            if f is not None
        ],
        "warnings": list(warnings or []),
    }


def _round(v: float | None, digits: int) -> float | None:
    return None if v is None else round(v, digits)


def table_payload(name: str, table: Table, group: str, kind: str) -> dict[str, Any]:
    """A table as display strings (the Markdown report's formatting) plus raw means."""
    return {
        "name": name,
        "group": group,
        "kind": kind,
        "title": table.title,
        "columns": table.columns,
        "notes": table.notes,
        "rows": [[table.cell(r, c) for c in table.columns] for r in table.rows],
        "values": [
            [
                (
                    v.mean
                    if isinstance(v := r.get(c), CI)
                    else v
                    if isinstance(v, int | float | str) or v is None
                    else str(v)
                )
                for c in table.columns
            ]
            for r in table.rows
        ],
    }


def failed_questions(run: Mapping[str, Any]) -> dict[str, str]:
    """Question uid -> error, from the run's stored errors (`... (uid X): error`)."""
    out: dict[str, str] = {}
    for err in run.get("errors") or []:
        if isinstance(err, str) and (m := _QUESTION_REF.search(err)):
            out.setdefault(m.group(1), err)
    return out


def answer_payload(row: Mapping[str, Any]) -> dict[str, Any]:
    """One judged answer: its sentences (as the judges split them), verdicts and claims."""
    verdicts = []
    seen: set[str] = set()
    for v in row.get("verdicts") or []:
        if not v.get("path") or v["path"] in seen:
            continue  # scoring keeps the first verdict on a path; so does the view
        seen.add(v["path"])
        verdicts.append(
            {
                "path": v["path"],
                "present": bool(v.get("present")),
                "partial": v.get("partial"),
                "edges": v.get("edges_present") or [],
                "spans": v.get("edge_sentences") or [],
                "reason": v.get("reason") or "",
            }
        )
    claims = sorted(row.get("claims") or [], key=lambda c: c.get("pos") or 0)
    return {
        "sentences": split_sentences(row.get("text") or ""),
        "verdicts": verdicts,
        "claims": [
            {
                "text": c.get("text") or "",
                "supported": bool(c.get("supported")),
                "supporting": c.get("supporting"),
            }
            for c in claims
        ],
    }


def embed_json(payload: Any) -> str:
    """JSON safe inside a <script> element: no `<`, `>` or `&` outside escapes."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


_SHARED = "evaluation.reporting"  # holds the parts every page shares: page_head.html, dom.js


def _template(package: str, name: str) -> str:
    return (resources.files(package) / "html_template" / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render_page(package: str, stem: str, data: Any, title: str) -> str:
    """A self-contained page: the shared head (page_head.html) and `package`'s
    html_template/{stem}.html, with {stem}.css and the shared dom.js + {stem}.js inlined and
    `data` as the JSON block, under a CSP that allows only those two (by hash)."""
    css = _template(package, f"{stem}.css")
    js = _template(_SHARED, "dom.js") + _template(package, f"{stem}.js")
    csp = (
        f"default-src 'none'; script-src 'sha256-{_sha256(js)}'; "
        f"style-src 'sha256-{_sha256(css)}'; img-src data:; base-uri 'none'; "
        "form-action 'none'"
    )
    values = {
        "TITLE": html.escape(title),
        "CSS": css,
        "JS": js,
        "DATA": embed_json(data),
        "CSP": html.escape(csp, quote=False),
    }  # no " in it
    # one pass: text inside the data is never taken for a placeholder
    page = _template(_SHARED, "page_head.html") + _template(package, f"{stem}.html")
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], page)


def render_html(payload: dict[str, Any], title: str) -> str:
    """The report page: template + inlined CSS/JS + the data block, under a strict CSP."""
    return render_page("evaluation.reporting", "report", payload, title)


def svg_data_uri(svg: bytes) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode("ascii")


def _meta(kind: str) -> dict[str, Any]:
    from kg import __version__

    return {
        "kind": kind,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "version": __version__,
        "outcomes": list(OUTCOMES),
    }


# ---------------------------------------------------------------- from the graph


def _eval_plots(report: Any) -> list[dict[str, str]]:
    """The Markdown report's two plots, drawn as SVG (same series, same functions)."""
    from evaluation.reporting.plots import bar_by_group, scatter_points

    hop = {rid: report.tables[f"{rid}_by_hop"] for rid in report.runs}
    series = {rid: {r["hop"]: r["PAS"] for r in t.rows} for rid, t in hop.items()}
    overall = report.tables["overall"].rows
    points = {
        r["run"]: [(r["PRec"].mean, r["PPrec"].mean)]
        for r in overall
        if r["PRec"].mean is not None and r["PPrec"].mean is not None
    }
    with tempfile.TemporaryDirectory() as tmp:
        bar = bar_by_group(
            series, Path(tmp) / "pas_by_hop.svg", title="PAS by hop", ylabel="PAS (%)", scale=1.0
        )
        sc = scatter_points(
            points,
            Path(tmp) / "precision_recall.svg",
            title="Perspective precision against recall",
            xlabel="PRec (%)",
            ylabel="PPrec (%)",
            scale=1.0,
        )
        return [
            {"title": "PAS by hop", "src": svg_data_uri(bar.read_bytes())},
            {"title": "Perspective precision against recall", "src": svg_data_uri(sc.read_bytes())},
        ]


def _read_plain(store: Any, name: str, **params: Any) -> list[dict[str, Any]]:
    """Records as plain dicts of keys and values: maps and lists come back as dicts and lists
    already, and the driver's recursive `.data()` costs more than the query (as in scoring)."""
    from kg import cypher_files

    text = cypher_files.load(name)
    with store.session() as s:

        def work(tx: Any) -> list[dict[str, Any]]:
            result = tx.run(text, params)
            keys = result.keys()
            return [dict(zip(keys, rec.values(), strict=True)) for rec in result]

        return s.execute_read(work)


def _question_payload(q: Any) -> dict[str, Any]:
    return {
        "uid": q.uid,
        "id": q.id,
        "domain": q.domain,
        "theme": q.theme,
        "hop": q.hop,
        "text": q.text,
        "paths": [
            {
                "uid": p.uid,
                "target": p.target,
                "name": p.name,
                "keys": p.keys,
                "labels": p.labels,
                "reasons": p.edge_evidence(),
            }
            for p in q.paths
        ],
    }


def eval_payload(
    store: Any, run_ids: list[str], *, plots: bool = True, seed: int = 0
) -> dict[str, Any]:
    """Everything the evaluation page shows, read from the graph."""
    from evaluation.reporting.report import build_report, compare_scores, run_label
    from evaluation.runs.questions import load_questions

    report = build_report(store, run_ids, out_dir=None, plots=False)
    tables = [table_payload("overall", report.tables["overall"], "overall", "overall")]
    for rid in report.runs:
        for kind in ("hop", "domain", "theme"):
            name = f"{rid}_by_{kind}"
            tables.append(table_payload(name, report.tables[name], rid, kind))
        if f"{rid}_endpoints" in report.tables:  # a fleet served the run
            name = f"{rid}_endpoints"
            tables.append(table_payload(name, report.tables[name], rid, "endpoints"))
    rids = list(report.runs)
    for a, b in zip(rids, rids[1:], strict=False):
        cmp = (
            compare_scores(a, report.scores[a], b, report.scores[b], seed=seed)
            if {s.question for s in report.scores[a]} & {s.question for s in report.scores[b]}
            else None
        )
        if cmp is not None:
            tables.append(table_payload(f"compare_{a}_{b}", cmp, "compare", "compare"))

    runs, results, wanted = [], {}, set()
    for rid, record in report.runs.items():
        run = record.props()  # read as the PERSPECTRA pages read theirs (a mapping)
        answers = {r["question"]: r for r in _read_plain(store, "eval/report_answers", uid=rid)}
        judged = {s.question for s in report.scores[rid]}
        # errors of an earlier attempt at a question judged since (resumed run) do not count
        failed = {q: e for q, e in failed_questions(run).items() if q not in judged}
        wanted |= set(answers) | set(failed)
        per_q: dict[str, dict[str, Any]] = {}
        for s in report.scores[rid]:
            row = answers.get(s.question) or {}
            per_q[s.question] = {
                "outcome": None,
                "pas": s.pas,
                "precision": s.precision,
                "recall": s.recall,
                "partial_pas": s.partial_pas,
                "faithfulness": s.faithfulness,
                "n_claims": s.n_claims,
                "tokens": s.tokens,
                "relevancy": s.relevancy,
                "present": s.present,
                **answer_payload(row),
            }
        for quid, err in failed.items():
            per_q[quid] = {"outcome": "failed", "error": err}
        results[rid] = per_q
        roles_raw = run.get("roles")
        roles: Mapping[str, Any] = roles_raw if isinstance(roles_raw, Mapping) else {}
        runs.append(
            {
                "uid": rid,
                "label": run_label(record),
                "kind": run.get("kind"),
                "status": run.get("status"),
                "setting": run.get("setting"),
                "strategy": run.get("strategy"),
                "source_run": run.get("source_run"),
                "responder": roles.get("responder"),
                "validity": judge_validity(
                    run,
                    report.trusts.get(rid),
                    report.warnings.get(rid),
                ),
                "n": len(report.scores[rid]),
                "failed": len(failed),
                # whether this run's judge reported the sentence it matched per edge
                "spans": any(v["spans"] for r in per_q.values() for v in r.get("verdicts", [])),
            }
        )
    questions, _ = load_questions(store, uids=sorted(wanted), skip_invalid=True)
    concepts: dict[str, dict[str, str | None]] = {}
    concept_names: dict[str, dict[str, str]] = {}  # what the explorer shows instead of topic_N
    qs = {}
    for q in questions:
        concepts.setdefault(q.domain, {}).update(q.concepts)
        concept_names.setdefault(q.domain, {}).update(q.concept_names)
        qs[q.uid] = _question_payload(q)
    for per_q in results.values():
        for quid, res in per_q.items():
            if res["outcome"] is None:
                targets = (
                    {p["uid"] for p in qs[quid]["paths"] if p["target"]} if quid in qs else set()
                )
                res["outcome"] = outcome(targets, res.pop("present"))
            res.pop("present", None)
    return {
        "meta": _meta("eval"),
        "runs": runs,
        "tables": tables,
        "plots": _eval_plots(report) if plots else [],
        "questions": qs,
        "concepts": concepts,
        "concept_names": concept_names,
        "results": results,
    }


def perspectra_payload(
    store: Any, runs: list[dict[str, Any]], *, plots: bool = True, seed: int = 0
) -> dict[str, Any]:
    """PERSPECTRA runs: the report's tables and, per item, input, gold, reply and parse."""
    from evaluation.perspectra.report import TITLES, run_label, run_rows, tables
    from evaluation.perspectra.run_store import answered
    from evaluation.perspectra.scoring import is_correct, parse_for
    from kg.queries.task_items import load_items
    from kg.task_items import LETTERS

    rows = run_rows(store, runs, seed=seed)
    table_list = [
        table_payload(f"perspectra_{t}", tab, t, "task") for t, tab in tables(rows).items()
    ]
    items: dict[str, dict[str, Any]] = {}
    replies: dict[str, dict[str, Any]] = {}
    run_info = []
    builds: dict[str, list] = {}
    for run in runs:
        build = str(run.get("build") or "")
        if build not in builds:
            builds[build] = load_items(store, build)
        got = answered(store, run["uid"])
        per = {}
        for item in builds[build]:
            items.setdefault(
                item.uid,
                {
                    "uid": item.uid,
                    "task": item.task,
                    "index": item.index,
                    "topic": item.topic,
                    "text": item.text,
                    "gold": item.gold,
                    "gold_stance": item.gold_stance,
                    "options": [
                        {
                            "letter": LETTERS[i],
                            "text": t,
                            "stance": item.option_stances[i]
                            if i < len(item.option_stances)
                            else None,
                        }
                        for i, t in enumerate(item.options)
                    ],
                },
            )
            if item.uid not in got:
                per[item.uid] = {
                    "reply": None,
                    "parsed": None,
                    "valid": False,
                    "error": "not answered",
                    "correct": False,
                    "answered": False,
                }
                continue
            parsed = parse_for(item, got[item.uid])
            per[item.uid] = {
                "reply": got[item.uid],
                "parsed": parsed.value,
                "valid": parsed.valid,
                "error": parsed.error,
                "correct": is_correct(item, parsed),
                "answered": True,
            }
        replies[run["uid"]] = per
        task = str(run.get("setting") or "")
        run_info.append(
            {
                "uid": run["uid"],
                "label": run_label(run),
                "task": task,
                "task_title": TITLES.get(task, task),
                "build": build,
                "strategy": run.get("strategy"),
                "status": run.get("status"),
                "n": sum(bool(r["answered"]) for r in per.values()),
                "items": len(per),
            }
        )
    plot_list = []
    if plots and rows:
        from evaluation.reporting.plots import bar_by_group

        series: dict[str, dict[str, CI]] = {}
        for task, rs in rows.items():
            for r in rs:
                series.setdefault(r["run"], {})[task.upper()] = r["accuracy"]
        with tempfile.TemporaryDirectory() as tmp:
            p = bar_by_group(
                series,
                Path(tmp) / "perspectra_accuracy.svg",
                title="PERSPECTRA accuracy by task",
                ylabel="accuracy (%)",
            )
            plot_list.append(
                {"title": "PERSPECTRA accuracy by task", "src": svg_data_uri(p.read_bytes())}
            )
    return {
        "meta": _meta("perspectra"),
        "runs": run_info,
        "tables": table_list,
        "plots": plot_list,
        "items": items,
        "replies": replies,
    }


def write_html(path: Path, payload: dict[str, Any], title: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(payload, title), encoding="utf-8")
    return path
