"""Regenerate this corpus (issue 30): `python tests/data/malformed_inputs/make_corpus.py`.

Every file is a small variation of a good input of its reader (PerspectiveBench, chunks, gold
labels, answers); each must be refused with `file:line:field: problem` and change nothing.
The expected problem of each file is in `cases.json`."""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
GOOD_BENCH = (ROOT / "tests/data/malformed/good.jsonl").read_text(encoding="utf-8").splitlines()[0]
GOOD_GOLD = {
    "answer_id": "a-1",
    "question_id": 1,
    "domain": "ostra",
    "style": "aligned",
    "answer": "The controller sets the pump speed.",
    "present": {"path_0": True},
}
GOOD_ANSWER = {"question_id": 1, "domain": "ostra", "answer": "The controller sets the speed."}
GOOD_CHUNK = {"id": 0, "subject": "s", "source": "a.txt", "text": "Rain falls on the hills."}
DEEP = "[" * 5000 + "]" * 5000
SURROGATE = '"lone \\ud800 surrogate"'  # valid JSON, not Unicode text


def line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False)


def with_raw(obj: dict, field: str, raw: str) -> str:
    """`obj` as a JSON line with `field`'s value replaced by the raw JSON text `raw`."""
    marker = "__RAW__"
    return line({**obj, field: marker}).replace(f'"{marker}"', raw)


def cases() -> dict[str, tuple[bytes, str]]:
    """file name -> (bytes, expected problem text)."""
    bench = json.loads(GOOD_BENCH)
    out: dict[str, tuple[bytes, str]] = {}
    for reader, good, text_field, id_field in (
        ("bench", bench, "perspective_target_question", "id"),
        ("gold", GOOD_GOLD, "answer", "question_id"),
        ("answers", GOOD_ANSWER, "answer", "question_id"),
    ):
        ext = "jsonl"
        out[f"{reader}_non_utf8.{ext}"] = (
            line(good).encode().replace(b"controller", b"contr\xffller", 1) + b"\n",
            "not valid UTF-8",
        )
        out[f"{reader}_lone_surrogate.{ext}"] = (
            (with_raw(good, text_field, SURROGATE) + "\n").encode(),
            "lone UTF-16 surrogate",
        )
        out[f"{reader}_deep_nesting.{ext}"] = (
            (with_raw(good, text_field, DEEP) + "\n").encode(),
            "nested",
        )
        out[f"{reader}_blank_text.{ext}"] = (
            (line({**good, text_field: "   "}) + "\n").encode(),
            "blank" if reader == "bench" else "empty",
        )
        out[f"{reader}_id_7_0_3.{ext}"] = (
            (line({**good, id_field: "7_0_3"}) + "\n").encode(),
            "7_0_3" if reader != "bench" else "valid integer",
        )
        out[f"{reader}_id_2_9.{ext}"] = (
            (line({**good, id_field: "2_9"}) + "\n").encode(),
            "2_9" if reader != "bench" else "valid integer",
        )
    chunk_list = [GOOD_CHUNK, {**GOOD_CHUNK, "id": 1, "text": "The river carries it."}]
    out["chunks_non_utf8.json"] = (
        json.dumps(chunk_list, indent=2).encode().replace(b"river", b"riv\xe9r"),
        "not valid UTF-8",
    )
    out["chunks_lone_surrogate.json"] = (
        json.dumps(chunk_list, indent=2).replace("The river", "The \\udc00 river").encode(),
        "lone UTF-16 surrogate",
    )
    out["chunks_deep_nesting.json"] = (
        ("[\n" + line(GOOD_CHUNK) + ",\n" + DEEP + "\n]\n").encode(),
        "nested",
    )
    out["chunks_empty_list.json"] = (b"[]\n", "no chunks")
    out["chunks_blank_text.json"] = (
        json.dumps([GOOD_CHUNK, {**GOOD_CHUNK, "id": 1, "text": " \n "}], indent=2).encode(),
        "empty",
    )
    return out


def main() -> None:
    expected = {}
    for name, (data, problem) in sorted(cases().items()):
        (HERE / name).write_bytes(data)
        expected[name] = problem
    (HERE / "cases.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
