#!/usr/bin/env bash
# The main job, offline on the bundled samples (written for this project; no API key, no shared
# data): Neo4j + GDS, build a benchmark from text, export and re-import it, query paths,
# perspectives and statistics, evaluate with the offline baselines, then PERSPECTRA.
# Run through `make demo`; outputs land in out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
export KG="${KG:-$PWD/.venv/bin/kg}"
export OUT="${OUT:-out/demo}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export COLUMNS="${COLUMNS:-160}"  # rich wraps tables at 80 columns when not on a terminal
mkdir -p "$OUT"
DOMAIN=varrow_water

echo "== 1. Neo4j 5.26 + GDS"
"$KG" db up
"$KG" db reset --yes

echo "== 2. Build a benchmark from the bundled text (offline route of every stage)"
"$KG" build "$DOMAIN" --chunks samples/demo/chunks.json --palette samples/demo/palette.json
echo "== a second build resumes: every finished item is skipped"
"$KG" build "$DOMAIN" --chunks samples/demo/chunks.json

echo "== 3. Export the built domain in the published format; re-import it (idempotent)"
"$KG" export perspectivebench --domain "$DOMAIN" "$OUT/$DOMAIN.jsonl"
"$KG" import perspectivebench "$OUT/$DOMAIN.jsonl"
"$KG" stats --domain "$DOMAIN"
"$KG" concepts --domain "$DOMAIN"

echo "== 4. Offline evaluation of the built domain (baseline responders, embedding judge)"
"$KG" eval run --responder cover-all --setting oracle --domain "$DOMAIN" --run-id built-cover-all
"$KG" eval run --responder target-only --setting oracle --domain "$DOMAIN" \
  --run-id built-target-only
"$KG" eval report built-cover-all built-target-only --out "$OUT/eval-built"

echo "== 5. The published PerspectiveBench format: import, paths, perspectives, questions"
bash demo/bench_demo.sh

echo "== 6. Evaluation tools on that sample: runs, re-judging, reports, comparison, agreement"
bash demo/eval_demo.sh

echo "== 7. PERSPECTRA: import, tasks, offline baselines, report, pipeline for new data"
OUT="$OUT/perspectra" bash demo/perspectra_demo.sh

echo "== 8. What is in the graph now"
"$KG" db status
echo "Demo finished; outputs in $OUT/"
