#!/usr/bin/env bash
# The implementations report: run the conformance suite on every harness in harnesses/, run
# the reproductions of its findings, commit-ready raw results, then docs/implementations.md.
#
#   bash scripts/implementations.sh              every harness, each folder in its own virtualenv
#   bash scripts/implementations.sh ID ...       only these harness ids (the report keeps the
#                                                other harnesses' committed results)
#   bash scripts/implementations.sh --ci         only the harnesses marked ci = true, in the
#                                                project's virtualenv ($MCS_VENV or .venv), each
#                                                on PARITY, EXTRACT, DONE and DISPLAY only (a smoke
#                                                run), no reproductions
#                                                (tests/project/test_reproductions.py runs those CI can),
#                                                then `check` (no rewrite, no results written)
#
# A JavaScript harness (language = "javascript") runs in the project's virtualenv as a bridge
# peer: node is scripts/node22.sh's (>= 22), `npm ci` installs harnesses/<folder>/package-lock.json
# once per run into harnesses/<folder>/node_modules (the npm registry only, no install
# scripts; log in .harness-venvs/<folder>.npm.log), and the strategy is the manifest's
# `exec:node harnesses/...` with absolute paths (`implementations_report.py command`), since
# the peer starts in the run folder. A JavaScript harness whose files are not in the checkout
# yet is skipped with a note.
#
# Per harness: `mcs-conformance check MODULE:ATTR` with CI=true (hypothesis profile ci), -n 2,
# GOLDEN deselected (a library has no reviewed snapshots of its own), from its run folder
# .harness-runs/<id>/ (git-ignored: report.json, versions.json, run.json, run.log), so the
# suite's rootdir, snapshots and counterexamples stay there; then every reproduction of the
# harness's findings in the same virtualenv (`implementations_report.py repro`: exit 1 and the
# finding's `shows` printed, repros.json); the glue check before them (harnesses/glue_check.py:
# the library's own output beside the adapter's message, glue.json); then `implementations_report.py collect` writes
# harnesses/results/<id>.json (committed). At the end `implementations_report.py write`
# generates docs/implementations.md and the README headline from harnesses/results/ alone.
# Virtualenvs live in .harness-venvs/<folder>; the CI mode's runs in .harness-runs/ci/<id>/.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
export CI=true
MODE=all
IDS=()
SELECT="not GOLDEN"
for arg in "$@"; do
  case "$arg" in
    --ci) MODE=ci ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) IDS+=("$arg") ;;
  esac
done

BASE_PY="${MCS_VENV:-.venv}/bin/python"
if [ ! -x "$BASE_PY" ]; then
  python3 -m venv "${MCS_VENV:-.venv}" || exit 1
  "$BASE_PY" -m pip install --quiet -e ".[test]" || exit 1
fi

# the CI mode's shorter runs go to a folder of their own, so they never replace a full run's results
RUNS=.harness-runs
[ "$MODE" = ci ] && RUNS=.harness-runs/ci
export MCS_HARNESS_RUNS="$ROOT/$RUNS"

# folder<TAB>id<TAB>language<TAB>strategy, for the harnesses this mode runs
LIST="$("$BASE_PY" scripts/implementations_report.py list --mode "$MODE" "${IDS[@]}")" || exit 1
ROWS=()
[ -n "$LIST" ] && mapfile -t ROWS <<<"$LIST"
[ "${#ROWS[@]}" -gt 0 ] || { echo "error: no harness selected" >&2; exit 1; }

status=0
declare -A READY=()
NODE=""
start_all=$(date +%s)
for row in "${ROWS[@]}"; do
  IFS=$'\t' read -r folder id language strategy left <<<"$row"
  if [ "$language" = javascript ]; then
    py="$BASE_PY"
    if [ -z "$NODE" ]; then
      NODE="$(bash scripts/node22.sh)" || { echo "error: no node >= 22 for $id (scripts/node22.sh)" >&2; status=1; continue; }
    fi
    if [ -z "${READY[$folder]:-}" ]; then
      echo "== $folder: npm ci (node $("$NODE" --version))"
      mkdir -p .harness-venvs
      if ! PATH="$(dirname "$NODE"):$PATH" npm ci --prefix "harnesses/$folder" --no-audit --no-fund \
           --ignore-scripts --loglevel=error > ".harness-venvs/$folder.npm.log" 2>&1; then
        echo "error: cannot install harnesses/$folder/package-lock.json (see .harness-venvs/$folder.npm.log)" >&2
        status=1; continue
      fi
      READY[$folder]=1
    fi
    strategy="$("$BASE_PY" scripts/implementations_report.py command --harness "$id" --node "$NODE")" || { status=1; continue; }
  elif [ "$MODE" = ci ]; then
    py="$BASE_PY"
  else
    venv=".harness-venvs/$folder"
    py="$venv/bin/python"
    if [ -z "${READY[$folder]:-}" ]; then
      echo "== $folder: virtualenv $venv"
      [ -x "$py" ] || python3 -m venv "$venv" || exit 1
      "$py" -m pip install --quiet --upgrade pip >/dev/null 2>&1
      if ! "$py" -m pip install --quiet -e . "pytest-xdist>=3.5" -r "harnesses/$folder/requirements.txt" > "$venv.install.log" 2>&1; then
        echo "error: cannot install harnesses/$folder/requirements.txt (see $venv.install.log)" >&2
        status=1; continue
      fi
      READY[$folder]=1
    fi
  fi
  run="$RUNS/$id"
  rm -rf "$run" && mkdir -p "$run"
  printf '[pytest]\n' > "$run/pytest.ini"   # the run folder is the suite's rootdir
  "$py" scripts/implementations_report.py versions --harness "$id" ${NODE:+--node "$NODE"} > "$run/versions.json" || status=1
  select="$SELECT"
  # CI's time budget: every harness gets a smoke run there, the families that judge the
  # library's message, display and end of stream (an adapter the suite's changes broke crashes
  # there); the full run is the one command's. -k matches the whole item name, case ids included
  # and without regard to case, so the families are named with their number ("DONE" alone would
  # select NOISE-001[.../syn-item-done-...])
  [ "$MODE" = ci ] && select="$SELECT and (PARITY-0 or EXTRACT-0 or DONE-0 or DISPLAY-0)"
  # a check the library cannot be judged by (harnesses.toml `left_out`, named in the report)
  [ "${left:--}" != "-" ] && select="$select and $left"
  printf '{"date": "%s", "select": "%s"}\n' "$(date -u +%F)" "$select" > "$run/run.json"
  echo "== $id: $strategy"
  t0=$(date +%s)
  (cd "$run" && PYTHONPATH="$ROOT" "$ROOT/$py" -m mcs_conformance.cli check "$strategy" \
      --report report.json -n 2 -q -p no:cacheprovider -k "$select" --mcs-timeout=60 \
      > run.log 2>&1)
  rc=$?
  echo "   pytest exit $rc in $(( $(date +%s) - t0 )) s ($(grep -E '[0-9]+ (passed|failed|error)' "$run/run.log" | tail -n 1))"
  # 0: everything passed, 1: some checks failed (that is the finding); anything else is a crash
  if [ "$rc" -gt 1 ] || [ ! -s "$run/report.json" ]; then
    echo "error: the suite did not run on $id (exit $rc); see $run/run.log" >&2
    status=1
    continue
  fi
  [ "$MODE" = ci ] && continue
  # the glue check: the library's own output beside the adapter's message on every case of its
  # format, in the same virtualenv (harnesses/glue_check.py); collect stores it, check fails on
  # a difference the adapter does not list
  t0=$(date +%s)
  PYTHONPATH="$ROOT" "$ROOT/$py" -m harnesses.glue_check "$id" --out "$run/glue.json" ${NODE:+--node "$NODE"} \
      > "$run/glue.log" 2>&1
  grc=$?
  echo "   glue check exit $grc in $(( $(date +%s) - t0 )) s ($(tail -n 1 "$run/glue.log"))"
  [ "$grc" -eq 3 ] && rm -f "$run/glue.json"   # no JavaScript runner in the checkout yet: noted, no record
  t0=$(date +%s)
  "$BASE_PY" scripts/implementations_report.py repro --harness "$id" --python "$ROOT/$py" ${NODE:+--node "$NODE"} || status=1
  echo "   reproductions in $(( $(date +%s) - t0 )) s (output: $run/repros/)"
  "$BASE_PY" scripts/implementations_report.py collect --harness "$id" || status=1
done
echo "== all runs: $(( $(date +%s) - start_all )) s"

if [ "$MODE" = ci ]; then
  "$BASE_PY" scripts/implementations_report.py check || status=1
else
  # the official SDKs' stored answers (harnesses/results/sdk-answers.json): rerun when of another corpus or pins
  "$BASE_PY" scripts/sdk_answers.py check >/dev/null 2>&1 || "$BASE_PY" scripts/sdk_answers.py write || status=1
  "$BASE_PY" scripts/implementations_report.py write || status=1
fi
exit $status
