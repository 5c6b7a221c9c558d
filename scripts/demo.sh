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
BUILD_DOMAIN="$DOMAIN" bash demo/build_demo.sh

echo "== 3. Re-import the exported file: the published format round-trips (nothing new created)"
"$KG" import perspectivebench "$OUT/$DOMAIN.jsonl"
"$KG" concepts --domain "$DOMAIN"

echo "== 4. Report of the built domain's offline evaluation"
"$KG" eval report demo-build-cover-all --out "$OUT/eval-built"

echo "== 5. The published PerspectiveBench format: import, paths, perspectives, questions"
bash demo/bench_demo.sh

echo "== 6. Evaluation tools on that sample: runs, re-judging, reports, comparison, agreement"
bash demo/eval_demo.sh

echo "== 7. PERSPECTRA: import, tasks, offline baselines, report, pipeline for new data"
OUT="$OUT/perspectra" bash demo/perspectra_demo.sh

echo "== 8. A real local language model (SmolLM2-135M, offline), bounded: build, eval, PERSPECTRA"
OUT="$OUT/local" bash demo/local_llm_demo.sh

echo "== 9. What is in the graph now"
"$KG" db status
echo "Demo finished; outputs in $OUT/"
