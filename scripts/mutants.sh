#!/usr/bin/env bash
# The issue-8 acceptance check: COUNT (default 600) mutated corpus programs through the release
# binary, each under `timeout 5`; every one must end in status 0 or 1 (never 101, a panic, nor
# 124, the timeout, nor a signal).
#
# The mutants are the ones tests/fuzz_smoke.rs part (b) checks in-process (same mutator, same
# seed: PTOC_FUZZ_SEED changes it); that test writes them to a directory when PTOC_MUTANTS_DIR is
# set. Needs the conformance corpus: ../shared/conformance or PTOC_CONFORMANCE_DIR.
#
# Usage: scripts/mutants.sh [COUNT]     (PTOC_MUTANT_FLAGS overrides `--emit cpp --verify-sync`)
# Prints the count of each exit status and the five slowest mutants; exits 1 if any mutant
# ended otherwise than 0 or 1 (those are listed with their stderr's first lines).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-600}
read -r -a flags <<< "${PTOC_MUTANT_FLAGS:---emit cpp --verify-sync}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
PTOC_MUTANTS_DIR="$work/mutants" PTOC_MUTANTS_COUNT="$count" \
    cargo test --release --quiet --test fuzz_smoke b_mutated -- --nocapture 2>&1 | grep 'wrote' || true
shopt -s nullglob
mutants=("$work"/mutants/*.pto)
if [ "${#mutants[@]}" -ne "$count" ]; then
    echo "expected $count mutants, got ${#mutants[@]} (is the corpus there?)" >&2
    exit 1
fi

declare -A by_status=()
bad=0
: > "$work/times"
for f in "${mutants[@]}"; do
    start=$(date +%s%N)
    status=0
    timeout 5 target/release/ptoc "${flags[@]}" "$f" > /dev/null 2> "$work/stderr" || status=$?
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) ms $(basename "$f") status $status" >> "$work/times"
    by_status[$status]=$(( ${by_status[$status]:-0} + 1 ))
    if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
        bad=$(( bad + 1 ))
        mkdir -p mutants-failed
        cp "$f" mutants-failed/
        echo "== $(basename "$f"): status $status (copied to mutants-failed/)"
        head -5 "$work/stderr"
    fi
done

echo "ptoc ${flags[*]} on $count mutants (seed ${PTOC_FUZZ_SEED:-default}):"
for s in $(printf '%s\n' "${!by_status[@]}" | sort -n); do
    echo "  exit status $s: ${by_status[$s]}"
done
echo "slowest (wall time, including process start):"
sort -rn "$work/times" | head -5 | sed 's/^/  /'
[ "$bad" -eq 0 ]
