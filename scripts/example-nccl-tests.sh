#!/usr/bin/env bash
# example-nccl-tests.sh — the example report of every nccl-tests output in
# pkg/importers/testdata/fixtures/nccl-tests (see SOURCES.md there): each
# table imported and compared with NCCL's cost model of the collective as it
# ran (operation, nodes, GPUs per node, NICs and path where the output or its
# NCCL log says them), on the default scenario with the hardware each output
# names and nothing else: what a user who imports the same files gets. No
# probe of this host runs.
#
# The median error per output, and the same with the facts each output's
# source states about its cluster, is
#   go test ./pkg/report -run TestNCCLTestsAgainstCollectiveModel -v
# (bench/results/nccl-tests-vs-model-*.txt).
#
# Usage:  scripts/example-nccl-tests.sh [OUT]    (default: reports/examples/nccl-tests)
# Writes OUT/run (the run directory) and OUT/report (index.html, report.pdf).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-reports/examples/nccl-tests}
mkdir -p .build "$out"
go build -o .build/gpupath ./cmd/gpupath
rm -rf "$out/run" "$out/report"
# One output stalled before its first size: the import says so and goes on
# (exit 0: the other outputs are whole).
.build/gpupath import pkg/importers/testdata/fixtures/nccl-tests/*.txt --out "$out/run"
.build/gpupath report --model-only --data "$out/run" --out "$out/report"
