#!/usr/bin/env bash
# Deterministic profiles (callgrind instruction counts; valgrind is on every machine kind):
# every builtin policy, the ada floor and the lean-path prototypes on N corpus URLs (an
# even spread), malloc calls per URL (Rust and C++ together), the functions that cost,
# and the rule ladders. Repeatable on a loaded machine (docs/benchmarks.md, Method,
# "Instruction counts").
# usage: bench/profile.sh [N] [--bin DIR]     (default N = 20000; output in target/bench-profile)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
n=20000 bin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin="$2"; shift 2 ;;
    *) n="$1"; shift ;;
  esac
done
if [ -z "$bin" ]; then
  (cd "$root" && cargo build --release -p urlkey-bench >&2)
  bin="$root/target/release"
fi
out="$root/target/bench-profile"; mkdir -p "$out"
# key_into:<policy> is the lean key path (Policy::key_into); <policy> alone builds the
# full Outcome (Policy::key).
subjects=(ada key_into:citation@1 key_into:mapper@1 key_into:webkey@1 key_into:document@1 key_into:whatwg@1
  citation@1 mapper@1 webkey@1 document@1 whatwg@1 proto-citation proto-document)
for s in "${subjects[@]}"; do
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.$s.out" --toggle-collect='*Subject*pass*' \
    "$bin/urlkey-bench" run --subject "$s" --limit "$n" >/dev/null 2>&1
done
echo "## Instructions and malloc calls per URL ($n corpus URLs, callgrind)"
echo
echo "| subject | instructions/URL | ratio to ada | malloc calls/URL (Rust + C++) |"
echo "|---|---:|---:|---:|"
ada=""
for s in "${subjects[@]}"; do
  total=$(callgrind_annotate "$out/cg.$s.out" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
  [ -z "$ada" ] && ada=$total
  m=$(python3 "$root/bench/cg_calls.py" "$out/cg.$s.out" malloc | cut -f2)
  printf '| %s | %.0f | %.2fx | %.2f |\n' "$s" "$(echo "$total/$n" | bc -l)" "$(echo "$total/$ada" | bc -l)" "$(echo "$m/$n" | bc -l)"
done
echo
echo "## Inclusive instructions per URL of the functions that cost"
echo
args=()
for s in "${subjects[@]}"; do args+=("$out/cg.$s.out=$s"); done
python3 "$root/bench/cg_table.py" "$n" "${args[@]}" -- \
  urlkey::policy::Policy::key_with_base urlkey::policy::Policy::key_into ada_parse ada_free \
  urlkey::policy::front::whatwg_input urlkey::policy::front::mapper_precheck \
  urlkey::policy::front::document_parts urlkey::policy::front::check_scheme \
  urlkey::policy::front::parts_from_url urlkey::web::WebUrl::pieces \
  urlkey::policy::record_parse_changes urlkey::policy::Policy::finish urlkey::policy::Policy::lean \
  urlkey::policy::rules::Rule::apply urlkey::psl::PublicSuffixList::registrable_domain \
  alloc::fmt::format::format_inner malloc free
for p in citation@1 mapper@1 webkey@1 document@1; do
  echo
  echo "## Rule ladder of $p (callgrind, $n URLs)"
  echo
  "$root/bench/cg_ladder.sh" "$p" "$n" "$bin/urlkey-bench"
done
