#!/usr/bin/env bash
# Construction part of the main demo (area `build`): build the bundled sample domain from its
# text, fully offline (no model, no key), show that a rerun resumes without redoing anything,
# rerun one stage, export the built benchmark and evaluate it offline.
# Needs a running server (`kg db up`); uses only demo/build (no shared data).
set -euo pipefail
cd "$(dirname "$0")/.."
KG="${KG:-.venv/bin/kg}"
OUT="${OUT:-out/demo}"
DOMAIN="${BUILD_DOMAIN:-varrow_water}"
mkdir -p "$OUT"
export HF_HUB_OFFLINE=1

echo "== build: text -> facts -> concepts -> edges -> paths -> perspectives -> questions (offline)"
"$KG" build "$DOMAIN" --chunks demo/build/chunks.json --palette demo/build/palette.json
echo "== build again: every stage resumes, nothing is rewritten"
"$KG" build "$DOMAIN" --chunks demo/build/chunks.json
echo "== rerun the questions stage and everything after it"
"$KG" build "$DOMAIN" --from-stage questions
echo "== export the built domain in the published PerspectiveBench format"
"$KG" export perspectivebench "$OUT/${DOMAIN}.jsonl" --domain "$DOMAIN"
echo "== statistics of the built domain"
"$KG" stats --domain "$DOMAIN"
echo "== offline evaluation of the built questions (cover-all baseline, default edge-evidence judge)"
"$KG" eval run --responder cover-all --setting oracle --domain "$DOMAIN" \
  --run-id "demo-build-cover-all"
