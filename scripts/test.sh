#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need on a fresh
# Debian machine, then runs every check, each as a named step that prints its
# duration when it ends, and a table of all steps with the total at the end.
# Fails loudly: any failing step stops it with a non-zero status, and the
# table says which.
#
# For a fast inner loop while editing, `go test -short ./...` skips the
# headless-browser, PDF-page, real-probe and namespace tests (under a minute
# on two cores); this command runs everything.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$(date +%s.%N)
steps=()   # "name|seconds|status"
current=""
step_start=0

now() { date +%s.%N; }

# begin NAME: starts a step (ending the one before, if any).
begin() {
  end_step ok
  current=$*
  step_start=$(now)
  printf '\n== %s\n' "$current"
}

# end_step STATUS: ends the running step and records its time.
end_step() {
  [ -n "$current" ] || return 0
  local secs
  secs=$(awk -v a="$step_start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  printf -- '-- %s: %s s\n' "$current" "$secs"
  steps+=("$current|$secs|$1")
  current=""
}

summary() {
  local rc=$?
  [ "$rc" -eq 0 ] || end_step FAILED
  printf '\n== steps\n'
  local s name secs status
  for s in "${steps[@]}"; do
    IFS='|' read -r name secs status <<<"$s"
    printf '%8s s  %-6s %s\n' "$secs" "$status" "$name"
  done
  printf '%8s s  total (%s)\n' "$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')" "$([ "$rc" -eq 0 ] && echo 'all checks passed' || echo "FAILED, exit $rc")"
}
trap summary EXIT

# --- system packages ----------------------------------------------------------
need_pkgs=()
command -v ip >/dev/null       || need_pkgs+=(iproute2)
command -v tc >/dev/null       || need_pkgs+=(iproute2)
# the report tests: a headless browser opens index.html, poppler reads report.pdf
command -v chromium >/dev/null  || need_pkgs+=(chromium)
command -v pdftotext >/dev/null || need_pkgs+=(poppler-utils)
[ -e /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf ] || need_pkgs+=(fonts-liberation2)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  begin "apt-get install ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# --- Go checks -----------------------------------------------------------------
begin "go version"
go version

begin "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

begin "go vet"
go vet ./...

begin "go mod tidy leaves go.mod and go.sum as they are"
go mod tidy -diff
(cd tools && go mod tidy -diff)

begin "staticcheck (pinned in tools/go.mod)"
if [ ! -x bin/staticcheck ] || [ tools/go.mod -nt bin/staticcheck ]; then
  mkdir -p bin
  (cd tools && go build -o ../bin/ honnef.co/go/tools/cmd/staticcheck)
  touch bin/staticcheck
fi
bin/staticcheck ./...

begin "go test ./... (default parallelism)"
go test -count=1 ./...

begin "the nvml build tag: vet everything, test the NVML probe, its PCIe monitor and doctor's NVML source (nvmlsrc)"
# go-nvml is cgo and built in only with -tags nvml (README, GPU machines); its
# C compiler warnings are left out of this log unless the step fails.
if ! nvml_out=$(go vet -tags nvml ./... 2>&1 && go test -count=1 -tags nvml -run 'NVML|Nvml|Monitor' ./pkg/measure/gpu 2>&1 && go test -count=1 -tags nvml ./pkg/doctor/nvmlsrc 2>&1); then
  echo "$nvml_out"; exit 1
fi
echo "$nvml_out" | grep -E '^(ok|---|FAIL)' || true

begin "race detector on the packages with goroutines"
go test -count=1 -race $(go list ./pkg/measure/... ./pkg/cluster ./internal/... | grep -v nbcheck)

begin "fuzz targets, ${FUZZTIME:-300x} each"
bash scripts/fuzz.sh

begin "notebooks"
bash scripts/notebooks.sh

begin "benchmark: full model sweep"
go test -run '^$' -bench '^BenchmarkSweep$' -benchtime 2s ./pkg/model | grep -E 'Benchmark|ok'

begin "benchmark: a model-only report (HTML + PDF + data; target: under 2 s)"
go test -run '^$' -bench '^BenchmarkRender$' -benchtime 5x ./pkg/report | grep -E 'Benchmark|ok'

end_step ok
