#!/usr/bin/env bash
# PerspectiveBench part of the main demo (area `bench`): import the bundled fictional sample,
# show statistics, paths, perspectives and a question, export it back, and show that bad input
# is rejected without touching the graph. Needs a running server (`kg db up`); no shared data.
set -euo pipefail
cd "$(dirname "$0")/.."
KG="${KG:-.venv/bin/kg}"
OUT="${OUT:-out/demo}"
mkdir -p "$OUT"

echo "== PerspectiveBench: import the bundled sample (validated, one transaction)"
"$KG" import perspectivebench demo/bench/sample.jsonl --palette demo/bench/palette.json
echo "== importing again changes nothing"
"$KG" import perspectivebench demo/bench/sample.jsonl
echo "== statistics and the cover-all baseline"
"$KG" stats --domain ostra_station
echo "== concepts"
"$KG" concepts --domain ostra_station
echo "== every simple path from the dashboard to the reservoir (free text, full-text index)"
"$KG" paths "operator dashboard" "reservoir stores treated water" --domain ostra_station
echo "== perspectives between them (palette categories, GDS merge) and the questions targeting each"
"$KG" perspectives topic_5 topic_3 --domain ostra_station --palette demo/bench/palette.json
echo "== one question"
"$KG" question show 6 --domain ostra_station --palette demo/bench/palette.json
echo "== export back to JSONL"
"$KG" export perspectivebench --domain ostra_station "$OUT/bench_export.jsonl"
echo "== bad input: a label with Cypher metacharacters is rejected, nothing written"
if "$KG" import perspectivebench tests/data/malformed/cypher_label.jsonl; then
  echo "unexpected: bad file accepted" >&2; exit 1
fi
