#!/usr/bin/env bash
# The project's own tests: the unit and oracle tests, then the conformance suite run
# against every reference strategy and both examples. Exit code 5 (no tests) is a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}"
status=0
run() {
  echo "+ $*"
  "$@"
  rc=$?
  if [ "$rc" -eq 5 ]; then echo "error: '$*' collected no tests" >&2; rc=1; fi
  [ "$rc" -eq 0 ] || status=1
}
run python -m pytest -n 2 -q tests
exit $status
