#!/usr/bin/env bash
# examples.sh — re-renders every committed example under reports/examples
# from what is committed (no probe of this host runs, nothing is measured):
#   default/            gpupath report --model-only on the default scenario
#   h200-1gpu/          gpupath fit over the committed H200 run (fit.txt,
#                       calibrated.yaml) and its report (report/)
#   imported/           outputs of other tools imported and reported
#                       (scripts/example-imported.sh)
#   moc-calibrated/     one site's outputs (the MOC cluster: perftest,
#                       nccl-tests with NCCL's log, iperf3; H100, RoCE)
#                       imported (run/), calibrated on every other size
#                       and checked on the others (fit.txt, calibrated.yaml),
#                       and reported (report/)
#   nccl-tests/         every nccl-tests output of the fixtures against
#                       NCCL's cost model (scripts/example-nccl-tests.sh)
#   two-hosts-veth/     the report of the committed two-host run
#   sweep-6-hosts/      the report of the committed sweep of six test hosts
#                       (one shaped to a third of the others' rate)
# The doctor outputs (reports/examples/doctor) are runs of gpupath doctor on
# real machines and are not re-rendered here.
set -euo pipefail
cd "$(dirname "$0")/.."
# One fixed time for every render and import, so that the same code renders
# the same bytes (gpupath reads SOURCE_DATE_EPOCH as its clock): a changed
# example is a change in what the code produces. 2026-12-01 00:00 UTC.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1796083200}
ex=reports/examples
mkdir -p .build
go build -o .build/gpupath ./cmd/gpupath
g=.build/gpupath
rm -rf "$ex/default"
$g report --model-only --out "$ex/default" >/dev/null
# The README shows the default latency figure as a PNG.
test -s "$ex/default/latency.png"
h=$ex/h200-1gpu
rm -f "$h/calibrated.yaml"
$g fit --data "$h/run" --out "$h/calibrated.yaml" >"$h/fit.txt"
rm -rf "$h/report"
$g report --model-only --data "$h/run" --out "$h/report" >/dev/null
bash scripts/example-imported.sh "$ex/imported" >/dev/null
m=$ex/moc-calibrated
rm -rf "$m/run" "$m/report" "$m/calibrated.yaml"
mkdir -p "$m"
$g import pkg/importers/testdata/fixtures/*/moc-* --out "$m/run" >/dev/null
$g fit --data "$m/run" --out "$m/calibrated.yaml" >"$m/fit.txt"
$g report --model-only --data "$m/run" --out "$m/report" >/dev/null
bash scripts/example-nccl-tests.sh "$ex/nccl-tests" >/dev/null
# The two-host run was measured by bench/twohosts (root, network namespaces);
# its report is rendered from the committed run.
rm -rf "$ex/two-hosts-veth/report"
$g report --model-only --data "$ex/two-hosts-veth/run" --set nic.rate=1Gbit/s --set nic.mtu=1500 --out "$ex/two-hosts-veth/report" >/dev/null
# The sweep was measured by the six-host test (root, network namespaces:
# GPUPATH_SWEEP_EXAMPLE=DIR go test -run TestSweepSixHosts ./cmd/gpupath);
# its report is rendered from the committed run.
rm -rf "$ex/sweep-6-hosts/report"
$g report --model-only --data "$ex/sweep-6-hosts/run" --out "$ex/sweep-6-hosts/report" >/dev/null
echo "examples rendered under $ex"
