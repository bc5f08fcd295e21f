#!/usr/bin/env bash
# The test command (README, .ci/run): installs what the tests need on a fresh
# Debian machine, then runs every check. Fails loudly: any failing step
# stops it with a non-zero status.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\n== %s\n' "$*"; }

# --- system packages ----------------------------------------------------------
need_pkgs=()
command -v ip >/dev/null       || need_pkgs+=(iproute2)
command -v tc >/dev/null       || need_pkgs+=(iproute2)
# the report tests: a headless browser opens index.html, poppler reads report.pdf
command -v chromium >/dev/null  || need_pkgs+=(chromium)
command -v pdftotext >/dev/null || need_pkgs+=(poppler-utils)
[ -e /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf ] || need_pkgs+=(fonts-liberation2)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  say "apt-get install ${need_pkgs[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# --- Go checks -----------------------------------------------------------------
say "go version"
go version

say "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

say "go vet"
go vet ./...

say "go mod tidy leaves go.mod and go.sum as they are"
go mod tidy -diff
(cd tools && go mod tidy -diff)

say "staticcheck (pinned in tools/go.mod)"
if [ ! -x bin/staticcheck ] || [ tools/go.mod -nt bin/staticcheck ]; then
  mkdir -p bin
  (cd tools && go build -o ../bin/ honnef.co/go/tools/cmd/staticcheck)
  touch bin/staticcheck
fi
bin/staticcheck ./...

say "go test"
# One package at a time: the veth/tbf rate test and the headless-browser test
# are timing-sensitive, and the CI machine has two cores.
go test -count=1 -p 1 ./...

say "the nvml build tag: vet everything, test the NVML probe, its PCIe monitor and doctor's NVML source (nvmlsrc)"
# go-nvml is cgo and built in only with -tags nvml (README, GPU machines); its
# C compiler warnings are left out of this log unless the step fails.
if ! nvml_out=$(go vet -tags nvml ./... 2>&1 && go test -count=1 -tags nvml -run 'NVML|Nvml|Monitor' ./pkg/measure/gpu 2>&1 && go test -count=1 -tags nvml ./pkg/doctor/nvmlsrc 2>&1); then
  echo "$nvml_out"; exit 1
fi
echo "$nvml_out" | grep -E '^(ok|---|FAIL)' || true

say "race detector on the packages with goroutines"
go test -count=1 -p 1 -race $(go list ./pkg/measure/... ./pkg/cluster ./internal/... | grep -v nbcheck)

say "fuzz targets, ${FUZZTIME:-300x} each"
bash scripts/fuzz.sh

say "notebooks"
bash scripts/notebooks.sh

say "benchmark: full model sweep"
go test -run '^$' -bench '^BenchmarkSweep$' -benchtime 2s ./pkg/model | grep -E 'Benchmark|ok'

say "benchmark: a model-only report (HTML + PDF + data; target: under 2 s)"
go test -run '^$' -bench '^BenchmarkRender$' -benchtime 5x ./pkg/report | grep -E 'Benchmark|ok'

say "all checks passed"
