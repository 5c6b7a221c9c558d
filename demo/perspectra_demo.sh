#!/usr/bin/env bash
# PERSPECTRA demo (offline: no LLM, no shared data). For `make demo`; needs a running Neo4j
# (`kg db up`) and HF_HUB_OFFLINE=1 for the packaged MiniLM model. Writes $OUT (default out/perspectra/).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1
KG="${KG:-.venv/bin/kg}"
OUT="${OUT:-out/perspectra}"

# The published release format (a small sample written for this project) and the task builds.
"$KG" perspectra import demo/perspectra/sample_release.json
"$KG" perspectra build-tasks --n 50 --seed 13
"$KG" perspectra export-tasks --out "$OUT"/tasks

# Offline baselines (MiniLM embeddings) stored as Runs, then the report with bootstrap CIs.
"$KG" perspectra baselines
"$KG" perspectra report --out "$OUT"/report --html "$OUT"/report/perspectra.html

# Pipeline for new data: Kialo-style topics, a Reddit dump (budgets + counted filters), matching.
"$KG" perspectra import-kialo demo/perspectra/sample_kialo.json
"$KG" perspectra import-reddit demo/perspectra/sample_reddit.jsonl
"$KG" perspectra match --force   # replaces the sample's matches with Reddit ones
# With a model: kg perspectra expand --model ollama/llama3.1 --limit 20
#               kg perspectra eval --model ollama/llama3.1 --task t1
"$KG" perspectra status
