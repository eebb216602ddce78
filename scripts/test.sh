#!/usr/bin/env bash
# The project's own tests, from scratch: a virtualenv with the package and its test extras,
# then the unit, oracle, corpus, zoo and example tests, then the conformance suite against
# every reference strategy. pytest's exit code 5 (no tests ran) counts as a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
VENV="${MCS_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" || exit 1
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip || exit 1
"$VENV/bin/python" -m pip install --quiet -e ".[test]" || exit 1
export CI="${CI:-true}"
PY="$VENV/bin/python"
status=0
run() {
  echo "+ $*"
  "$@"
  rc=$?
  if [ "$rc" -eq 5 ]; then echo "error: '$*' ran no tests" >&2; rc=1; fi
  [ "$rc" -eq 0 ] || status=1
}
run bash scripts/node22.sh   # a node >= 22 for the JavaScript bridge tests (installed once from the npm registry)
run "$PY" -m pytest -n 2 -q -p no:cacheprovider --durations=20 tests   # the slowest twenty, to keep the CI budget in view
for strategy in OpenAIChatStrategy OpenAIResponsesStrategy AnthropicMessagesStrategy TextStrategy; do
  run "$PY" -m pytest -n 2 -q -p no:cacheprovider --mcs-only --mcs-strategy="mcs_conformance.strategies:$strategy"
done
# the official SDK accumulators as strategies (harnesses/sdk), and the committed
# docs/implementations.md names every harness of harnesses/
run bash scripts/implementations.sh --ci
exit $status
