#!/usr/bin/env bash
# The main job: on the bundled sample (offline, no API key), start Neo4j + GDS and show what the
# product does. Run through `make demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
KG="${KG:-.venv/bin/kg}"
OUT="${OUT:-out/demo}"
mkdir -p "$OUT"

echo "== 1. Neo4j 5.26 + GDS"
"$KG" db up
"$KG" db status
