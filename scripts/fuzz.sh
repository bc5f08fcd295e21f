#!/usr/bin/env bash
# Runs every fuzz target of the module for a bounded time each (FUZZTIME,
# default 2s), one target at a time: each must neither panic nor hang.
# Called by scripts/test.sh; runs alone too: FUZZTIME=1m bash scripts/fuzz.sh
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-2s}
n=0
while IFS= read -r line; do
  file=${line%%:*}
  name=$(sed -E 's/^.*func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  printf '%-48s %s\n' "$pkg" "$name"
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "$pkg" >/tmp/gpupath-fuzz.log 2>&1 || {
    cat /tmp/gpupath-fuzz.log; echo "fuzz target $name in $pkg failed"; exit 1; }
  n=$((n + 1))
done < <(git grep -n -E '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' -- '*_test.go')
echo "$n fuzz targets ran for $fuzztime each"
