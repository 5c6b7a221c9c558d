#!/usr/bin/env bash
# Evaluation part of the main demo (area `eval`): an offline evaluation of the bundled sample
# with the baseline responders and the embedding judge (no model, no key), then its report,
# a paired comparison, a re-judge of stored answers and the judges' agreement.
# Needs a running server and the sample imported (demo/bench_demo.sh does that first).
set -euo pipefail
cd "$(dirname "$0")/.."
KG="${KG:-.venv/bin/kg}"
OUT="${OUT:-out/demo}"
DOMAIN="${DOMAIN:-ostra_station}"
mkdir -p "$OUT"

echo "== eval: cover-all baseline (states every valid path), Oracle setting, embedding judge"
"$KG" eval run --responder cover-all --setting oracle --domain "$DOMAIN" --run-id demo-cover-all
echo "== eval: target-only baseline (a perfectly aligned answer)"
"$KG" eval run --responder target-only --setting oracle --domain "$DOMAIN" --run-id demo-target-only
echo "== eval: empty baseline (|A| = 0 everywhere: precision 0, flagged)"
"$KG" eval run --responder empty --setting base --domain "$DOMAIN" --run-id demo-empty
echo "== eval: rerunning a finished run resumes it and does nothing"
"$KG" eval run --responder cover-all --setting oracle --domain "$DOMAIN" --run-id demo-cover-all
echo "== eval: judge the stored target-only answers again with a looser embedding judge"
"$KG" eval judge --run demo-target-only --judge embedding --path-threshold 0.6 \
  --run-id demo-target-only-loose
echo "== eval: report (per hop, overall, per domain, per theme; CSV/JSON/MD + PNG plots + HTML)"
"$KG" eval report demo-cover-all demo-target-only demo-empty --out "$OUT/eval" \
  --html "$OUT/eval/report.html"
echo "== eval: paired comparison cover-all vs target-only"
"$KG" eval compare demo-cover-all demo-target-only
echo "== eval: agreement of the two judges on the same answers"
"$KG" eval agreement demo-target-only demo-target-only-loose
echo "== eval: runs"
"$KG" eval runs
echo "== eval: an unknown run id is a clear error"
if "$KG" eval report no-such-run; then echo "unexpected: unknown run accepted" >&2; exit 1; fi
