#!/usr/bin/env bash
# The project's own tests, from scratch: a virtualenv with the package and its test extras,
# then the unit, oracle, corpus, zoo and example tests; then the release check, which builds the
# sdist and wheel, checks them against the tree, installs the wheel into an empty virtualenv and
# runs the example and the conformance suite on the default chain's four reference strategies
# from it (MCS_RELEASE_ALL=1: on every reference strategy); then the official SDK harnesses. pytest's exit code 5 (no tests ran) counts as a failure. Each step's
# time is printed at the end, to keep the CI budget (12 minutes for all of .ci/run) in view.
set -uo pipefail
cd "$(dirname "$0")/.."
# Compiled caches are written in the clone (git ignores them): the run starts hundreds of Python
# processes (the suite in subprocesses, bridge peers, the release's virtualenv), and on a machine
# that sets PYTHONDONTWRITEBYTECODE each of them would compile, and pytest assertion-rewrite, the
# whole package again.
unset PYTHONDONTWRITEBYTECODE
VENV="${MCS_VENV:-.venv}"
started=$SECONDS
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV" || exit 1
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip || exit 1
"$VENV/bin/python" -m pip install --quiet -e ".[test]" || exit 1
export CI="${CI:-true}"
PY="$VENV/bin/python"
status=0
times=("$((SECONDS - started)) s  the virtualenv and the package's install")
run() {
  echo "+ $*"
  local t0=$SECONDS
  "$@"
  rc=$?
  if [ "$rc" -eq 5 ]; then echo "error: '$*' ran no tests" >&2; rc=1; fi
  [ "$rc" -eq 0 ] || status=1
  times+=("$((SECONDS - t0)) s  $* (exit $rc)")
}
run bash scripts/node22.sh   # a node >= 22 for the JavaScript bridge tests (installed once from the npm registry)
run "$PY" -m pytest -n 2 -q -p no:cacheprovider --durations=20 tests   # the slowest twenty, to keep the CI budget in view
# the release: sdist and wheel, twine check, file lists against the tree, and from the wheel in an
# empty virtualenv the Hermes example, the suite on the default chain's four reference strategies
# (with the committed golden snapshots), and a new author's first two runs; `python
# scripts/release.py` before an upload runs the suite on every reference strategy (docs/releasing.md).
# Four, not sixteen, keeps the CI run within its twelve minutes (MCS_RELEASE_ALL=1: all sixteen).
refs=(--reference openai-chat --reference openai-responses --reference anthropic-messages --reference text-json)
[ -n "${MCS_RELEASE_ALL:-}" ] && refs=()
run "$PY" scripts/release.py --outdir "${MCS_DIST:-dist}" "${refs[@]}"
# the official SDK accumulators as strategies (harnesses/sdk), and the committed
# docs/implementations.md names every harness of harnesses/
run bash scripts/implementations.sh --ci
echo "step times (scripts/test.sh, $((SECONDS - started)) s in all):"
printf '  %s\n' "${times[@]}"
# CI's budget for the whole .ci/run on a quiet 2-core machine; a later change that adds formats
# or cases sees here how much room it leaves (printed, never failed: the machine's speed varies)
budget=720
echo "CI budget: $((SECONDS - started)) s of ${budget} s ($(( 100 * (SECONDS - started) / budget )) %)"
exit $status
