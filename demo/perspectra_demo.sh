#!/usr/bin/env bash
# PERSPECTRA demo (offline: no LLM, no shared data). For `make demo`; needs a running Neo4j
# (`kg db up`) and HF_HUB_OFFLINE=1 for the packaged MiniLM model. Writes out/perspectra/.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1

# The published release format (a small sample written for this project) and the task builds.
kg perspectra import demo/perspectra/sample_release.json
kg perspectra build-tasks --n 50 --seed 13
kg perspectra export-tasks --out out/perspectra/tasks

# Offline baselines (MiniLM embeddings) stored as Runs, then the report with bootstrap CIs.
kg perspectra baselines
kg perspectra report --out out/perspectra/report

# Pipeline for new data: Kialo-style topics, a Reddit dump (budgets + counted filters), matching.
kg perspectra import-kialo demo/perspectra/sample_kialo.json
kg perspectra import-reddit demo/perspectra/sample_reddit.jsonl
kg perspectra match --force   # replaces the sample's matches with Reddit ones
# With a model: kg perspectra expand --model ollama/llama3.1 --limit 20
#               kg perspectra eval --model ollama/llama3.1 --task t1
kg perspectra status
