"""Stage 1: chunks. A JSON list of `{id, subject, source, text}` (the published raw format) or
plain text files split into overlapping chunks. Chunk nodes keep their source and order."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pydantic import BaseModel, ValidationError

from construction.pipeline.context import BuildContext, StageReport
from construction.pipeline.stage import Stage
from kg import json_checks
from kg.errors import InputError
from kg.ids import chunk_uid
from kg.input_rules import blank, decode_text


class ChunkInputError(InputError):
    pass


class RawChunk(BaseModel):
    """One element of a published `*_chunks.json` file."""

    id: int | str
    subject: str = ""
    source: str
    text: str


class Chunk(BaseModel):
    uid: str
    domain: str
    source: str
    ordinal: int
    subject: str
    text: str
    external_id: str


def _line_of(text: str, index: int) -> int:
    """1-based line where the `index`-th element of a top-level JSON list starts."""
    depth, count = 0, -1
    in_str = esc = False
    for pos, ch in enumerate(text):
        if in_str:
            esc = (ch == "\\") and not esc
            if ch == '"' and not esc:
                in_str = False
            continue
        if ch == '"':
            in_str = True
        elif ch in "[{":
            if depth == 1:
                count += 1
                if count == index:
                    return text.count("\n", 0, pos) + 1
            depth += 1
        elif ch in "]}":
            depth -= 1
    return 1


def read_chunk_json(path: Path, domain: str) -> list[Chunk]:
    """Validate the whole file first so a bad element leaves nothing written. Problems read
    `file:line:field: problem` (the importer-wide rules of `kg.input_rules`)."""
    text, problems = decode_text(path, path.read_bytes())
    if text is None:
        raise ChunkInputError("\n".join(problems))
    try:
        data = json_checks.loads(text)
    except json.JSONDecodeError as exc:
        raise ChunkInputError(f"{path}:{exc.lineno}:-: invalid JSON: {exc.msg}") from None
    except json_checks.JSONProblem as exc:
        raise ChunkInputError(f"{path}:1:{exc.field}: {exc.problem}") from None
    if not isinstance(data, list):
        raise ChunkInputError(f"{path}:1:-: expected a JSON list of chunks")
    if not data:
        raise ChunkInputError(f"{path}:1:-: no chunks: the list is empty (a build needs text)")
    for i, item in enumerate(data):
        if found := json_checks.scan(item, f"[{i}]"):
            p = found[0]
            raise ChunkInputError(f"{path}:{_line_of(text, i)}:{p.field}: {p.problem}")
    out: list[Chunk] = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        try:
            raw = RawChunk.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "(element)"
            raise ChunkInputError(
                f"{path}:{_line_of(text, i)}:[{i}].{field}: {err['msg']}"
            ) from None
        if blank(raw.text):
            raise ChunkInputError(f"{path}:{_line_of(text, i)}:[{i}].text: empty")
        ext = str(raw.id)
        if ext in seen:
            raise ChunkInputError(f"{path}:{_line_of(text, i)}:[{i}].id: duplicate id {ext!r}")
        seen.add(ext)
        out.append(
            Chunk(
                uid=chunk_uid(domain, raw.source, raw.text),
                domain=domain,
                source=raw.source,
                ordinal=i,
                subject=raw.subject or domain,
                text=raw.text.strip(),
                external_id=ext,
            )
        )
    return out


def split_text(text: str, size: int, overlap: int) -> list[str]:
    """Overlapping windows of about `size` characters, cut at sentence or word boundaries."""
    if overlap >= size:
        raise ChunkInputError(f"chunk overlap {overlap} must be smaller than chunk size {size}")
    text = re.sub(r"\s+", " ", text).strip()
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind(". ", start, end), text.rfind("? ", start, end))
            if cut > start + size // 2:
                end = cut + 1
            else:
                space = text.rfind(" ", start, end)
                end = space if space > start else end
        pieces.append(text[start:end].strip())
        if end >= len(text):
            break
        nxt = max(end - overlap, start + 1)
        # Start the overlap on a word boundary.
        space = text.find(" ", nxt)
        start = space + 1 if 0 <= space < end else nxt
    return [p for p in pieces if p]


def read_text_files(paths: list[Path], domain: str, size: int, overlap: int) -> list[Chunk]:
    out: list[Chunk] = []
    for path in paths:
        body, problems = decode_text(path, path.read_bytes())
        if body is None:
            raise ChunkInputError("\n".join(problems))
        if blank(body):
            raise ChunkInputError(f"{path}:1:-: empty: no text to build from")
        for piece in split_text(body, size, overlap):
            ordinal = len(out)
            out.append(
                Chunk(
                    uid=chunk_uid(domain, path.name, piece),
                    domain=domain,
                    source=path.name,
                    ordinal=ordinal,
                    subject=domain,
                    text=piece,
                    external_id=f"{path.name}#{ordinal}",
                )
            )
    return out


def read_chunks(
    paths: list[Path], domain: str, size: int = 1000, overlap: int = 150
) -> list[Chunk]:
    """`.json` files in the published format, anything else as plain text."""
    out: list[Chunk] = []
    for path in paths:
        if not path.is_file():
            raise ChunkInputError(f"{path}: no such file")
        part = (
            read_chunk_json(path, domain)
            if path.suffix.lower() == ".json"
            else read_text_files([path], domain, size, overlap)
        )
        # Keep one order across several files.
        base = len(out)
        out.extend(c.model_copy(update={"ordinal": base + c.ordinal}) for c in part)
    return out


class Chunks(Stage):
    """Stage 1: the validated chunks of `--chunks`, all in one transaction. The runner reads
    and checks them before the build's first write (`read_chunks`) and puts them on the
    context."""

    name = "chunks"
    resume_key = "chunk"

    def wanted(self, ctx: BuildContext) -> bool:
        return bool(ctx.chunks)

    def offline(self, ctx: BuildContext) -> StageReport:
        with ctx.stage(self.name) as rep:
            items = ctx.chunks
            done = ctx.done_items(self.name)
            rep.items, rep.resumed = len(items), sum(1 for c in items if c.uid in done)
            prov = ctx.provenance(self.name, source=ctx.chunk_source)
            # A chunk is new in the generation that first wrote it (`--extend`).
            rows = [
                {**c.model_dump(), "provenance": prov, "generation": ctx.generation} for c in items
            ]
            ctx.write_items(
                self.name, [("pipeline/write_chunks", {"rows": rows})], [c.uid for c in items]
            )
            rep.written = len(rows) - rep.resumed
            return rep
