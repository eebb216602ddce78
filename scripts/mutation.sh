#!/usr/bin/env bash
# Mutation testing of the reference core and the OpenAI Chat strategy against the
# conformance suite (see docs/mutation.md). Runs in a temporary copy of the repository with
# its own virtualenv, so the work tree is never touched.
#
#   bash scripts/mutation.sh            # the documented scope (about 65 min on a busy 2-core machine)
#   MCS_MUT_DIR=/tmp/mut bash scripts/mutation.sh   # keep the copy there (default: mktemp)
#   MCS_MUT_CHILDREN=2                  # parallel workers (default 2)
#   MCS_MUT_STRATEGY=OpenAIChatStrategy # the strategy the suite runs against
#   MCS_MUT_SCOPE=subset                # subset (default): the scope of docs/mutation.md, i.e.
#                                       # the core files whole and openai_chat.py without its
#                                       # recognition/validation functions; full: every mutant;
#                                       # smoke: chain.py only (checks the setup in minutes)
#
# The package itself is NOT installed in the virtualenv: mutmut puts its mutated copy
# (mutants/) first on sys.path, and the plugin is loaded with -p mcs_conformance.plugin
# (an installed entry point would load the unmutated package, or clash with -p).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCS_MUT_DIR:-$(mktemp -d /tmp/mcs-mutation.XXXXXX)}"
children="${MCS_MUT_CHILDREN:-2}"
strategy="${MCS_MUT_STRATEGY:-OpenAIChatStrategy}"
mkdir -p "$work"
echo "copy: $work"

# 1. a copy of the work tree, without virtualenvs, build output and caches
(cd "$repo" && tar --exclude=./.venv --exclude=./.ci-venv --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude='__pycache__' --exclude=./.hypothesis --exclude=./.git \
    --exclude=./mutants --exclude=./.mcs-conformance -cf - .) | (cd "$work" && tar xf -)
cd "$work"

# 2. a virtualenv with the package's dependencies and test extras, then without the package
if [ ! -x .mutvenv/bin/python ]; then
  python3 -m venv .mutvenv
fi
.mutvenv/bin/python -m pip install --quiet --upgrade pip
.mutvenv/bin/python -m pip install --quiet ".[test]" "mutmut==3.8.1"
.mutvenv/bin/python -m pip uninstall --quiet -y mcs-conformance

# 3. mutmut's configuration, in the copy's pyproject.toml only
cat >> pyproject.toml <<EOF

[tool.mutmut]
source_paths = ["mcs_conformance"]
only_mutate = [
    "mcs_conformance/buffer.py",
    "mcs_conformance/chain.py",
    "mcs_conformance/extraction.py",
    "mcs_conformance/accumulator.py",
    "mcs_conformance/strategies/openai_chat.py",
]
pytest_add_cli_args = [
    "-p", "mcs_conformance.plugin",
    "--mcs-strategy=mcs_conformance.strategies:${strategy}",
    "--mcs-only",
    "--mcs-profile=ci",
    "-p", "no:cacheprovider",
]
pytest_add_cli_args_test_selection = []
use_git_change_detection = false
EOF

# 4. the run (mutmut records which suite items reach each function, then runs only those
#    items per mutant, by node id: mcs-conformance::ID[label]). A resumed run lists the
#    tests with --collect-only, where syrupy would call every golden snapshot unused and
#    fail the listing: --snapshot-warn-unused (through PYTEST_ADDOPTS, so it stays out of
#    mutmut's cached-config fingerprint) turns that into a warning; outcomes are unchanged.
export PYTEST_ADDOPTS="--snapshot-warn-unused"
names=()
if [ "${MCS_MUT_SCOPE:-subset}" = smoke ]; then
  names=("mcs_conformance.chain.*")
elif [ "${MCS_MUT_SCOPE:-subset}" = subset ]; then
  oc="mcs_conformance.strategies.openai_chat"
  names=("mcs_conformance.buffer.*" "mcs_conformance.chain.*" "mcs_conformance.extraction.*" "mcs_conformance.accumulator.*")
  for m in accumulate extract content_text forming_name result_messages; do
    names+=("$oc.xǁOpenAIChatStrategyǁ${m}__mutmut_*")
  done
  for f in is_message grow merge extend is_number fold_tool_calls settle route new_call fold_fragment \
           fold_name message to_call reject_constant parse_arguments drop_none error_text; do
    names+=("$oc.x__${f}__mutmut_*")
  done
fi
start=$(date +%s)
.mutvenv/bin/mutmut run --max-children "$children" "${names[@]}" > mutmut-run.log 2>&1 || true
end=$(date +%s)
echo "wall time: $((end - start)) s"

# 5. the outcome per mutant, and the totals
.mutvenv/bin/mutmut results --all true > mutmut-results.txt 2>&1 || .mutvenv/bin/mutmut results > mutmut-results.txt 2>&1 || true
.mutvenv/bin/python - <<'EOF'
import collections, json, pathlib
names = {1: "killed", 3: "killed", 0: "survived", 33: "no tests", 5: "no tests", 36: "timeout",
         24: "timeout", -24: "timeout", 152: "timeout", 255: "timeout", None: "not checked"}
total = collections.Counter()
for meta in sorted(pathlib.Path("mutants").rglob("*.py.meta")):
    codes = json.loads(meta.read_text())["exit_code_by_key"]
    count = collections.Counter(names.get(c, f"other({c})") for c in codes.values())
    total.update(count)
    print(f"{meta.relative_to('mutants').with_suffix('')}: {len(codes)} mutants, {dict(count)}")
    for key, code in sorted(codes.items()):
        if names.get(code) not in ("killed", "not checked"):
            print(f"    {names.get(code, code)}: {key}")
print(f"total: {sum(total.values())} mutants, {dict(total)}")
EOF
echo "details: cd $work && .mutvenv/bin/mutmut show <mutant name>"
