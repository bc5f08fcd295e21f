#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded number of new inputs
# each (FUZZTIME, default 300x: go test's -fuzztime in iterations), one
# target at a time, each under a 3-minute timeout: each must neither panic
# nor hang. A count, not a duration: with a duration shorter than the run of
# a target's seed corpus, go test fails with "context deadline exceeded".
# Called by scripts/test.sh; runs alone too: FUZZTIME=1m bash scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-300x}
n=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  printf '%-48s %s\n' "$pkg" "$name"
  timeout 180 go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/gpupath-fuzz.log 2>&1 || {
    cat /tmp/gpupath-fuzz.log; echo "fuzz target $name in $pkg failed"; exit 1; }
  n=$((n + 1))
done < <(git grep -n -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' -- '*_test.go')
echo "$n fuzz targets ran ($fuzztime each)"
