#!/usr/bin/env bash
# Evaluation part of the main demo (area `eval`): the offline judges validated against the
# demo's gold labels, an offline evaluation of the bundled sample with the baseline responders
# and the default edge-evidence judge (no model, no key), answers from another harness
# imported and judged, reports that carry each judge's kappa, a paired comparison, a re-judge
# with the embedding baseline and the judges' agreement.
# Needs a running server and the sample imported (demo/bench_demo.sh does that first).
set -euo pipefail
cd "$(dirname "$0")/.."
KG="${KG:-.venv/bin/kg}"
OUT="${OUT:-out/demo}"
DOMAIN="${DOMAIN:-ostra_station}"
mkdir -p "$OUT"

echo "== judges: how far each offline judge can be trusted, on the demo's own gold labels"
"$KG" judge validate --gold demo/judge/gold.jsonl --judge edge-evidence
"$KG" judge validate --gold demo/judge/gold.jsonl --judge embedding
echo "== judges: a bad gold file is refused with file:line:field"
if "$KG" judge validate --gold tests/data/judge/judge_gold_unknown_path.jsonl; then
  echo "unexpected: bad gold file accepted" >&2; exit 1
fi
echo "== eval: cover-all baseline (states every valid path), Oracle setting, default judge"
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
echo "== eval: answers from another harness, imported as a run and judged"
"$KG" eval import-answers demo/judge/answers.jsonl --run-id demo-imported
"$KG" eval judge --run demo-imported --judge edge-evidence --run-id demo-imported-judged
"$KG" eval report demo-imported-judged --out "$OUT/eval-imported"
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
