#!/usr/bin/env bash
# Mutation testing of the reference core and the OpenAI Chat strategy against the
# conformance suite (see docs/mutation.md). Runs in temporary copies of the repository with
# their own virtualenv, so the work tree is never touched.
#
#   bash scripts/mutation.sh            # the documented scope
#   MCS_MUT_DIR=/tmp/mut bash scripts/mutation.sh   # keep the copies there (default: mktemp)
#   MCS_MUT_CHILDREN=2                  # parallel workers (default 2)
#   MCS_MUT_SCOPE=subset                # subset (default): the core files whole and
#                                       # openai_chat/ without its per-chunk recognition and
#                                       # validation functions; full: every mutant of those
#                                       # files; core: the core files only; smoke: chain.py
#                                       # only (checks the setup in minutes); rest: only the
#                                       # openai_chat/ functions subset leaves out;
#                                       # responses, anthropic, text: one other reference
#                                       # strategy's own modules, against its own suite
#   MCS_MUT_OTHERS="AnthropicMessagesStrategy OpenAIResponsesStrategy TextStrategy"
#                                       # the strategies whose suites get a second look at the
#                                       # core mutants openai-chat's suite leaves standing
#                                       # (empty: skip that pass)
#   MCS_MUT_RECHECK=1 (or unfinished)   # with MCS_MUT_DIR holding a finished run: run every
#                                       # mutant left standing again, against the current work
#                                       # tree (new cases or checks), in <strategy>-recheck/
#   MCS_MUT_ONLY=<regex>                # with MCS_MUT_RECHECK: only the mutants whose names match
#   MCS_MUT_REDO="<mutant name glob> ..."
#                                       # with MCS_MUT_DIR holding a finished run: run these
#                                       # mutants (of functions edited since) on the current tree,
#                                       # in <strategy>-redo/, whose outcomes replace the old ones
#
# Pass 1 runs every mutant against the suite on OpenAIChatStrategy (on the strategy itself
# for the scopes responses, anthropic and text, which mutate no core file). The core (buffer, chain,
# extraction axis, accumulator) serves every strategy, and some of its paths only another
# format drives (the leak fall-through, Accumulator.seal, root strings): pass 2 runs the core
# mutants left standing against the suite on each other reference strategy, in a copy of
# its own. A mutant counts as killed when the suite on any reference strategy kills it.
#
# The package itself is NOT installed in the virtualenv: mutmut puts its mutated copy
# (mutants/) first on sys.path, and the plugin is loaded with -p mcs_conformance.suite.plugin
# (an installed entry point would load the unmutated package, or clash with -p).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCS_MUT_DIR:-$(mktemp -d /tmp/mcs-mutation.XXXXXX)}"
children="${MCS_MUT_CHILDREN:-2}"
scope="${MCS_MUT_SCOPE:-subset}"
others="${MCS_MUT_OTHERS-AnthropicMessagesStrategy OpenAIResponsesStrategy TextStrategy}"
main=OpenAIChatStrategy
mutate=(reference/buffer.py reference/chain.py reference/extraction.py reference/accumulator.py
        reference/strategies/openai_chat/strategy.py reference/strategies/openai_chat/chunks.py reference/strategies/openai_chat/message.py)
case "$scope" in
  responses) main=OpenAIResponsesStrategy; mutate=(reference/strategies/openai_responses/strategy.py reference/strategies/openai_responses/chunks.py reference/strategies/openai_responses/message.py); others= ;;
  anthropic) main=AnthropicMessagesStrategy; mutate=(reference/strategies/anthropic_messages/strategy.py reference/strategies/anthropic_messages/chunks.py reference/strategies/anthropic_messages/message.py); others= ;;
  text) main=TextStrategy; mutate=(reference/strategies/text.py reference/strategies/json_codec.py); others= ;;
esac
mkdir -p "$work"
echo "$main" > "$work/main-strategy"
echo "work: $work"
venv="$work/.mutvenv"

# 1. a virtualenv with the package's dependencies and test extras, then without the package
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "$repo[test]" "mutmut==3.8.1"
"$venv/bin/python" -m pip uninstall --quiet -y mcs-conformance

# 2. one copy of the work tree per strategy, with mutmut's configuration in its pyproject.toml
prepare() {  # prepare <dir> <strategy>
  local dir="$1" strategy="$2"
  mkdir -p "$dir"
  (cd "$repo" && tar --exclude=./.venv --exclude=./.ci-venv --exclude=./build --exclude=./dist \
      --exclude='*.egg-info' --exclude='__pycache__' --exclude=./.hypothesis --exclude=./.git \
      --exclude=./mutants --exclude=./.mcs-conformance -cf - .) | (cd "$dir" && tar xf -)
  cat >> "$dir/pyproject.toml" <<EOF

[tool.mutmut]
source_paths = ["mcs_conformance"]
only_mutate = [$(printf '"mcs_conformance/%s", ' "${mutate[@]}")]
# The plugin builds the strategy when pytest starts: a mutant in TextStrategy.__init__ would
# turn mutmut's forced-failure setup check into a usage error (exit 4), which mutmut reads as
# a broken test command. Its one line is left unmutated (see docs/mutation.md).
do_not_mutate_patterns = ["codec if codec is not None else JsonCodec"]
pytest_add_cli_args = [
    "-p", "mcs_conformance.suite.plugin",
    "--mcs-strategy=mcs_conformance.strategies:${strategy}",
    "--mcs-only",
    "--mcs-profile=ci",
    "-p", "no:cacheprovider",
]
pytest_add_cli_args_test_selection = []
use_git_change_detection = false
EOF
}

# 3. the runs (mutmut records which suite items reach each function, then runs only those
#    items per mutant, by node id: mcs-conformance::ID[label]). A resumed run lists the
#    tests with --collect-only, where syrupy would call every golden snapshot unused and
#    fail the listing: --snapshot-warn-unused (through PYTEST_ADDOPTS, so it stays out of
#    mutmut's cached-config fingerprint) turns that into a warning; outcomes are unchanged.
export PYTEST_ADDOPTS="--snapshot-warn-unused"
names=()
if [ "$scope" = smoke ]; then
  names=("mcs_conformance.reference.chain.*")
elif [ "$scope" = core ]; then
  names=("mcs_conformance.reference.buffer.*" "mcs_conformance.reference.chain.*" "mcs_conformance.reference.extraction.*" "mcs_conformance.reference.accumulator.*")
elif [ "$scope" = subset ]; then
  oc="mcs_conformance.reference.strategies.openai_chat"
  names=("mcs_conformance.reference.buffer.*" "mcs_conformance.reference.chain.*" "mcs_conformance.reference.extraction.*" "mcs_conformance.reference.accumulator.*")
  for m in accumulate extract content_text forming_name result_messages; do
    names+=("$oc.strategy.xǁOpenAIChatStrategyǁ${m}__mutmut_*")
  done
  for f in grow merge extend is_number fold_tool_calls settle route new_call fold_fragment fold_name; do
    names+=("$oc.chunks.x__${f}__mutmut_*")
  done
  for f in is_message message to_call parse_arguments drop_none error_text; do
    names+=("$oc.message.x__${f}__mutmut_*")
  done
elif [ "$scope" = rest ]; then
  oc="mcs_conformance.reference.strategies.openai_chat"
  names=("$oc.strategy.xǁOpenAIChatStrategyǁrecognizes__mutmut_*" "$oc.strategy.xǁOpenAIChatStrategyǁis_done__mutmut_*")
  for f in is_chunk as_index wrong choice0 fragments at; do
    names+=("$oc.chunks.x__${f}__mutmut_*")
  done
else
  for f in "${mutate[@]}"; do
    f="${f%.py}"
    names+=("mcs_conformance.${f//\//.}.*")
  done
fi
run() {  # run <dir> <names...>
  local dir="$1"; shift
  local start end
  start=$(date +%s)
  (cd "$dir" && "$venv/bin/mutmut" run --max-children "$children" "$@" > mutmut-run.log 2>&1) || true
  end=$(date +%s)
  echo "$(basename "$dir"): $((end - start)) s"
}

summary() {
  "$venv/bin/python" "$repo/scripts/mutation_summary.py" "$work" "$@"
}
if [ -n "${MCS_MUT_RECHECK:-}" ]; then
  # MCS_MUT_RECHECK=unfinished: also the mutants an interrupted first run never reached;
  # MCS_MUT_RECHECK=unreached: only those
  # MCS_MUT_ONLY=<regex>: only the standing mutants whose names match it
  mapfile -t standing < <(summary "--${MCS_MUT_RECHECK/#1/standing}" | grep -E -- "${MCS_MUT_ONLY:-.}")
  echo "recheck: ${#standing[@]} mutants left standing"
  again="$work/$main-recheck"
  [ ! -e "$again" ] || again="$work/$main-recheck$(date +%H%M%S)"  # an earlier recheck stays as it is
  prepare "$again" "$main"
  run "$again" "${standing[@]}"
  summary | tee "$work/mutation-summary.txt"
  exit 0
fi

if [ -n "${MCS_MUT_REDO:-}" ]; then
  read -r -a redo <<< "$MCS_MUT_REDO"
  again="$work/$main-$(date +%H%M%S)-redo"
  prepare "$again" "$main"
  run "$again" "${redo[@]}"
  summary | tee "$work/mutation-summary.txt"
  exit 0
fi

prepare "$work/$main" "$main"
run "$work/$main" "${names[@]}"
for strategy in $others; do
  mapfile -t standing < <(summary --standing-core)
  [ "${#standing[@]}" -gt 0 ] || break
  echo "pass 2, $strategy: ${#standing[@]} core mutants left standing"
  prepare "$work/$strategy" "$strategy"
  run "$work/$strategy" "${standing[@]}"
done

# 4. the outcome per mutant, and the totals
summary | tee "$work/mutation-summary.txt"
echo "details: cd $work/$main && $venv/bin/mutmut show <mutant name>"
