"""Export questions from the graph as PerspectiveBench JSONL, every field derived from the graph
model (docs/graph-model.md), so questions built by the construction pipeline export too.

Derivation: `valid_paths` = TARGET ∪ DISTRACTOR links in `pos` order (entry name = link `name`,
else `path_<pos>`); `perspective_valid_paths` = TARGET links in `tpos` order; path strings from
the Path's concept keys and labels; reasons from the link's override, else the Path's `reasons`,
else its edges' `reason`; `focused_evidence` = EVIDENCE facts by rank; `full_content_pool` =
POOL links by pos (key as written) rendered from the Concept (summary, topic words, key evidence =
IN_CONCEPT facts by rank), or the link's override where the line differed from the concept; a
question without POOL links lists the concepts of its paths under their plain keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from construction.perspectivebench.models import dump_line
from construction.perspectivebench.plan import render_pool_entry
from kg.errors import InputError
from kg.paths import format_signature, reason_keys
from kg.store import Store


class ExportError(InputError):
    """A question in the graph lacks something the format needs (e.g. an int `id`)."""


def _path_entry(link: dict[str, Any], path: dict[str, Any], index: int) -> dict[str, str]:
    keys, labels = path["keys"], path["labels"]
    name = link.get("name") or f"path_{link['pos'] if link.get('pos') is not None else index}"
    signature = format_signature(keys, labels) if keys and labels else path["signature"]
    reasons = link.get("reasons") or path["reasons"] or []
    out = {name: signature}
    out.update(zip(reason_keys(keys), [r if r is not None else "" for r in reasons], strict=False))
    return out


def _pool(
    row: dict[str, Any],
    paths: dict[str, dict[str, Any]],
    concepts: dict[str, dict[str, Any]],
    by_key: dict[tuple[str, str], str],
) -> dict:
    pool: dict[str, Any] = {}
    if row["pool"]:
        for link in row["pool"]:
            if link["override"]:
                pool[link["key"]] = json.loads(link["override"])
            else:
                c = concepts[link["concept"]]
                pool[link["key"] or c["key"]] = render_pool_entry(
                    c["summary"], c["topic_words"], c["key_evidence"]
                )
        return pool
    # built questions: the concepts along the valid paths, in order of first appearance
    for link in row["paths"]:
        for key in paths[link["path"]]["keys"]:
            uid = by_key.get((row["domain"], key))
            if key not in pool and uid in concepts:
                c = concepts[uid]
                pool[key] = render_pool_entry(c["summary"], c["topic_words"], c["key_evidence"])
    return pool


def question_lines(store: Store, domain: str | None = None) -> list[dict[str, Any]]:
    """The questions as PerspectiveBench objects (dicts in the published field order)."""
    from kg import ids

    rows = store.read("bench/export_questions", domain=domain)
    path_uids = sorted({p["path"] for r in rows for p in r["paths"]})
    paths = {p["uid"]: p for p in store.read("bench/path_entries", uids=path_uids)}
    concept_uids = {c["concept"] for r in rows for c in r["pool"]}
    by_key: dict[tuple[str, str], str] = {}
    for r in rows:
        if not r["pool"]:
            for link in r["paths"]:
                for key in paths[link["path"]]["keys"] or []:
                    by_key[(r["domain"], key)] = ids.concept_uid(r["domain"], key)
    concept_uids |= set(by_key.values())
    concepts = {c["uid"]: c for c in store.read("bench/concept_entries", uids=sorted(concept_uids))}
    out = []
    for r in rows:
        if not isinstance(r["id"], int):
            raise ExportError(f"question {r['uid']} ({r['domain']}) has no int `id`")
        valid = [_path_entry(link, paths[link["path"]], i) for i, link in enumerate(r["paths"])]
        targets = sorted(
            (
                (link.get("tpos") if link.get("tpos") is not None else i, i)
                for i, link in enumerate(r["paths"])
                if link["target"]
            ),
        )
        out.append(
            {
                "id": r["id"],
                "domain": r["domain"],
                "perspective_theme": r["theme"] or "",
                "perspective_target_question": r["text"] or "",
                "perspective_valid_paths": [valid[i] for _, i in targets],
                "focused_evidence": list(r["evidence"]),
                "valid_paths": valid,
                "full_content_pool": _pool(r, paths, concepts, by_key),
            }
        )
    return out


def export_perspectivebench(store: Store, out: Path, *, domain: str | None = None) -> int:
    """Write the graph's questions (optionally one domain) to `out` as PerspectiveBench JSONL.

    Returns the number of lines written. Import -> export -> import reproduces every field of
    every line (compared as parsed JSON; the text may differ in escaping of non-ASCII).
    """
    lines = question_lines(store, domain)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for obj in lines:
            fh.write(dump_line(obj) + "\n")
    tmp.replace(out)
    return len(lines)
