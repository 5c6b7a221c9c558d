#!/usr/bin/env bash
# The README's two commands as a new user runs them: clone this repository into a temporary
# folder, give it a fresh HOME (pip's, Maven's and the Neo4j server's caches all cold), then
# `make demo` and `make test`, printing the wall time of each. Logs are kept; the clone and
# its caches are removed at the end (pass --keep to keep them).
# Usage: scripts/fresh-machine-check.sh [--keep] [REV]     (REV defaults to HEAD)
set -euo pipefail
keep=0
if [ "${1:-}" = "--keep" ]; then keep=1; shift; fi
src="$(cd "$(dirname "$0")/.." && pwd)"
rev="$(git -C "$src" rev-parse "${1:-HEAD}")"
work="$(mktemp -d -t kg-fresh-XXXXXX)"
logs="${FRESH_LOG_DIR:-/tmp}/kg-fresh-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$logs" "$work/home"
repo="$work/perspectivekg"
git clone -q --no-hardlinks "$src" "$repo"
git -C "$repo" checkout -q "$rev"
# Tests read ../shared/data beside the checkout, the way CI lays it out.
if [ -d "$src/../shared" ]; then ln -s "$(cd "$src/../shared" && pwd)" "$work/shared"; fi

# A new user's environment: fresh HOME, none of this machine's cache or project settings.
export HOME="$work/home"
unset XDG_CACHE_HOME XDG_CONFIG_HOME XDG_DATA_HOME PIP_CACHE_DIR MAVEN_OPTS VIRTUAL_ENV
while IFS='=' read -r name _; do unset "$name"; done < <(env | grep -E '^(KG_|NEO4J_)' || true)
# A server of this machine may hold the default ports; a new machine has none running.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# FRESH_FREE_PORTS=1 takes free ports in any case (another check may start a server later).
if [ "${FRESH_FREE_PORTS:-0}" = 1 ] || port_busy 7687 || port_busy 7474; then
  KG_BOLT_PORT="$(free_port)"; KG_HTTP_PORT="$(free_port)"; KG_LLM_PORT="$(free_port)"
  KG_NOGDS_BOLT_PORT="$(free_port)"; KG_NOGDS_HTTP_PORT="$(free_port)"  # the server without GDS
  export KG_BOLT_PORT KG_HTTP_PORT KG_LLM_PORT KG_NOGDS_BOLT_PORT KG_NOGDS_HTTP_PORT
  echo "free ports: Neo4j $KG_BOLT_PORT / $KG_HTTP_PORT, without GDS $KG_NOGDS_BOLT_PORT / $KG_NOGDS_HTTP_PORT, local model $KG_LLM_PORT (defaults taken, or FRESH_FREE_PORTS=1)"
fi

echo "fresh clone of $rev in $repo, HOME=$HOME, logs in $logs"
status=0
timed() {
  local name="$1"; shift
  local t0=$EPOCHREALTIME rc=0
  (cd "$repo" && "$@") >"$logs/$name.log" 2>&1 || rc=$?
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$name" -v rc="$rc" \
    'BEGIN { printf "%-10s %7.1f s  exit %d\n", n, b - a, rc }' | tee -a "$logs/times.txt"
  grep -E '^== phase' "$logs/$name.log" | sed 's/^/    /' | tee -a "$logs/times.txt" || true
  return "$rc"
}
timed "make-demo" make demo || status=$?
if [ "$status" -eq 0 ]; then timed "make-test" make test || status=$?; fi
tail -n 3 "$logs/make-test.log" 2>/dev/null || tail -n 30 "$logs/make-demo.log"
(cd "$repo" && .venv/bin/kg db down >/dev/null 2>&1) || true
if [ "$keep" -eq 0 ]; then rm -rf "$work"; else echo "kept $work"; fi
echo "fresh-machine check: exit $status (times in $logs/times.txt)"
exit "$status"
