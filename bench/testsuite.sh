#!/usr/bin/env bash
# testsuite.sh — times `go test -count=1 ./...` on a base revision and on the
# working tree, alternately, ROUNDS times, with the default package
# parallelism and with -p 1 (the README's test command). Prints one line per
# run and, per package, the test time of the last round of each.
#   bash bench/testsuite.sh ace4741 2 > bench/results/testsuite-DATE-HOST.txt
# (ace4741 is main before the consolidation of issue 10.) Absolute times on
# a shared machine drift between runs; compare the rows of one round.
set -uo pipefail
cd "$(dirname "$0")/.."
base=${1:?base revision}
rounds=${2:-2}
wt=$(mktemp -d)/base
git worktree add -q --detach "$wt" "$base" || exit 1
trap 'git worktree remove --force "$wt"' EXIT
echo "# go test -count=1 ./... : base $(git -C "$wt" log -1 --format='%h %cs' HEAD) vs working tree $(git log -1 --format='%h %cs' HEAD)"
echo "# host $(hostname), $(nproc) CPUs, $(go version | cut -d' ' -f3), $(date -u +%Y-%m-%dT%H:%MZ)"
(cd "$wt" && go vet ./... >/dev/null 2>&1); go vet ./... >/dev/null 2>&1 # warm the build cache of both
run() { # dir label flags...
  local dir=$1 label=$2; shift 2
  local out; out=$(mktemp)
  local t0 t1; t0=$(date +%s.%N)
  (cd "$dir" && go test -count=1 "$@" ./... >"$out" 2>&1); local rc=$?
  t1=$(date +%s.%N)
  local sum pk; sum=$(awk '$1=="ok"{gsub("s","",$3); s+=$3} END{printf "%.1f", s}' "$out")
  pk=$(grep -c '^ok' "$out")
  printf '%-6s %-8s wall %6.1f s  tests %6.1f s  %2d packages  exit %d%s\n' "$label" "${*:-default}" "$(echo "$t1 - $t0" | bc)" "$sum" "$pk" "$rc" \
    "$( [ $rc -ne 0 ] && grep -m1 -E '^--- FAIL' "$out" | sed 's/^/  /')"
  cp "$out" "/tmp/testsuite-$label-${*:-default}.txt" 2>/dev/null
}
for r in $(seq "$rounds"); do
  echo "## round $r"
  for flags in "" "-p 1"; do
    run "$wt" before $flags
    run . after $flags
  done
done
echo "## per package, last round, -p 1 (seconds; - : no such package)"
join -a1 -a2 -e- -o 0,1.2,2.2 \
  <(awk '$1=="ok"{sub("github.com/gpupath/gpupath/","",$2); print $2, $3}' "/tmp/testsuite-before--p 1.txt" | sort) \
  <(awk '$1=="ok"{sub("github.com/gpupath/gpupath/","",$2); print $2, $3}' "/tmp/testsuite-after--p 1.txt" | sort) |
  awk '{printf "  %-28s %8s %8s\n", $1, $2, $3}'
