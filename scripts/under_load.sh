#!/usr/bin/env bash
# CI under load: the whole .ci/run of a fresh clone of this checkout's HEAD, RUNS times in a row
# (default 3), while stress-ng keeps twice the machine's cores busy (MCS_LOAD workers to change
# it). CI runs on shared machines, so every project test must hold there: a test that depends on
# timing gets a margin it keeps under this load, or measures a ratio within one run.
#
#   bash scripts/under_load.sh        # three loaded runs; one line each: exit code, time, load, log
#   bash scripts/under_load.sh 1      # one
#
# Needs stress-ng (Debian: apt-get install stress-ng). Exit 0 only when every run passed.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${1:-3}"
LOAD="${MCS_LOAD:-$((2 * $(nproc)))}"
if ! command -v stress-ng >/dev/null 2>&1; then
  echo "under_load.sh: needs stress-ng (Debian: apt-get install stress-ng)" >&2
  exit 2
fi
stress-ng --cpu "$LOAD" --quiet &
stress=$!
trap 'kill "$stress" 2>/dev/null; wait "$stress" 2>/dev/null' EXIT
echo "stress-ng --cpu $LOAD on $(nproc) cores; $RUNS run(s) of .ci/run on $(git -C "$ROOT" rev-parse --short HEAD)"
failed=0
for i in $(seq 1 "$RUNS"); do
  work="$(mktemp -d -t mcs-under-load-XXXXXX)"
  git clone -q "$ROOT" "$work/clone"
  start=$SECONDS
  (cd "$work/clone" && CI=true bash .ci/run >"$work/log" 2>&1)
  rc=$?
  [ "$rc" -eq 0 ] || failed=1
  tests="$(grep -E '^[0-9]+ (passed|failed)|, [0-9]+ passed' "$work/log" | head -1)"
  echo "run $i: exit $rc in $((SECONDS - start)) s; load average $(cut -d' ' -f1-3 /proc/loadavg); tests/: ${tests:-?}; log $work/log"
  grep -E '^(FAILED|ERROR) ' "$work/log" | head -20
done
exit "$failed"
