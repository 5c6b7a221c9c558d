#!/usr/bin/env bash
# Run one phase of a make target and print its wall time, so that a slow first run shows
# where the time went (CI's log keeps these lines). Usage: phase.sh NAME CMD [ARG...]
name="$1"
shift
t0=$EPOCHREALTIME
status=0
"$@" || status=$?
awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$name" -v s="$status" \
  'BEGIN { printf "== phase %-8s %7.1f s%s\n", n, b - a, (s == 0 ? "" : "  (failed, exit " s ")") }'
exit "$status"
