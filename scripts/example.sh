#!/usr/bin/env bash
# Quickstart: set up a virtualenv with mcs-conformance, then run the conformance suite on
# the bundled Hermes example strategy, the way a strategy author runs it on their own.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${MCS_VENV:-.venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet -e .
cd examples/hermes
PYTHONPATH=. "../../$VENV/bin/mcs-conformance" check hermes_strategy:HermesStrategy --mcs-corpus=corpus "$@"
