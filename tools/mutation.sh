#!/usr/bin/env bash
# Mutation testing with mutmut (not part of CI: it takes 20-60 min on 2 cores).
#
#   tools/mutation.sh claims   # sim/experiments/claims.py + sim/studies/* against tests/test_claims*.py
#   tools/mutation.sh oracle   # engines/compile.py, oracle.py, oracle_ast.py against the
#                              # AST-oracle comparison and the hand-worked oracle/compiler tests
#   tools/mutation.sh claims sim/studies/lazy_nfa/scenario.py   # only these files (one module at a
#   tools/mutation.sh oracle engines/oracle.py           # time keeps a run to minutes)
# The oracle target leaves out the property tests and test_too_many_branches_compiles_for_ztree_only
# (156 s under load per mutant that reaches it; the seeded AST-vs-compiled comparison remains).
#
# Works on a scratch copy of the committed tree (git archive HEAD), so mutmut's mutants/ never
# touches the checkout; prints mutant counts per status and the kill rate per module
# (killed / (killed + survived); "no tests" = code the selected tests never reach, e.g. the
# scenario functions beside the claim functions). Needs `pip install -e ".[dev,mutation]"`.
set -euo pipefail
target=${1:?usage: tools/mutation.sh claims|oracle [FILE ...]}
shift
toml_list() { local out="" f; for f in "$@"; do out+="${out:+, }\"$f\""; done; echo "[$out]"; }
repo=$(cd "$(dirname "$0")/.." && pwd)
work=${MUTATION_WORKDIR:-$(mktemp -d /tmp/cepsim-mutation.XXXXXX)}
mkdir -p "$work"
git -C "$repo" archive HEAD | tar -x -C "$work"
cd "$work"
case "$target" in
  claims) if [ $# -gt 0 ]; then files=$(toml_list "$@")
    else files=$(toml_list sim/experiments/claims.py "sim/studies/*"); fi
    tests=$(toml_list tests/test_claims*.py)
    # mutmut skips decorated functions, and the claim functions of lazy_nfa/apam are wrapped by a
    # module-private decorator (@_successful, @_per_reading): in the scratch copy, apply such a
    # decorator by assignment after the function instead (same module attribute, same
    # behaviour), so the claim bodies are mutated too.
    python - sim/studies/*/*.py <<'PY'
import ast, sys
for path in sys.argv[1:]:
    src = open(path).read().splitlines(keepends=True)
    edits = []
    for node in ast.parse("".join(src)).body:
        decos = [d for d in getattr(node, "decorator_list", []) if isinstance(d, ast.Name)
                 and d.id.startswith("_")]
        if isinstance(node, ast.FunctionDef) and decos and len(decos) == len(node.decorator_list):
            wrapped = node.name
            for d in reversed(decos):
                wrapped = f"{d.id}({wrapped})"
            edits.append((node.decorator_list[0].lineno, node.lineno, node.end_lineno,
                          f"{node.name} = {wrapped}\n"))
    for first, def_line, end, line in reversed(edits):
        src.insert(end, line)
        del src[first - 1:def_line - 1]
    open(path, "w").write("".join(src))
    if edits:
        print(f"{path}: {len(edits)} decorated functions made mutable")
PY
    cat >> pyproject.toml <<TOML

[tool.mutmut]
source_paths = ["sim"]
only_mutate = $files
also_copy = ["engines", "workloads", "paper_figs", "experiments", "tests", "pyproject.toml"]
pytest_add_cli_args_test_selection = $tests
pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-x"]
TOML
  ;;
  oracle) if [ $# -gt 0 ]; then files=$(toml_list "$@")
    else files=$(toml_list engines/compile.py engines/oracle.py engines/oracle_ast.py); fi
    cat >> pyproject.toml <<TOML

[tool.mutmut]
source_paths = ["engines"]
only_mutate = $files
also_copy = ["sim", "workloads", "paper_figs", "experiments", "tests", "pyproject.toml"]
pytest_add_cli_args_test_selection = ["tests/test_oracle_ast.py", "tests/test_oracle.py", "tests/test_pattern.py"]
pytest_add_cli_args = ["-p", "no:cacheprovider", "-q", "-x", "-k", "not naive and not property and not monotone and not subset and not respect and not round_trip and not builder_equals and not too_many_branches"]
TOML
  ;;
  *) echo "unknown target $target (claims or oracle)" >&2; exit 2 ;;
esac
export NUMBA_CACHE_DIR=${NUMBA_CACHE_DIR:-$repo/.numba_cache}
nice -n 10 python -m mutmut run --max-children "${MUTATION_JOBS:-2}" || true
python -m mutmut results --all true > results.txt 2>/dev/null || true
python - results.txt <<'PY'
import collections, re, sys
per = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    if ": " not in line:
        continue
    name, status = line.strip().rsplit(": ", 1)
    mod = name.split(".x_")[0].split(".xǁ")[0]
    fn = re.sub(r"__mutmut_\d+$", "", name)
    per[mod][status] += 1
    per["ALL"][status] += 1
    if ".studies." in name and ".x_claim_" in name:
        per["study claim functions"][status] += 1
for mod, c in sorted(per.items()):
    k, s = c["killed"], c["survived"]
    rate = f"{k / (k + s):.1%}" if k + s else "n/a"
    print(f"{mod:40s} killed {k:5d} survived {s:5d} no-tests {c['no tests']:5d} "
          f"other {sum(c.values()) - k - s - c['no tests']:4d}  kill rate {rate}")
PY
echo "work dir: $work (mutants/, results.txt; 'python -m mutmut show NAME' there)"
