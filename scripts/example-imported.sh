#!/usr/bin/env bash
# example-imported.sh — the example report of imported outputs:
# real nccl-tests outputs with NCCL's INFO log (GPUDirect RDMA off, and on
# with PXN), perftest on host and on GPU memory, iperf3 with 32 streams, and
# nvbandwidth, from the fixtures in pkg/importers/testdata (see SOURCES.md
# there), imported into one run directory and rendered on the model alone
# (no probe of this host runs).
#
# The MOC outputs do not print their NICs' port rate; iperf3 in the same
# cluster moved 227 Gbit/s over one port, more than the default scenario's
# 200 Gbit/s, so the report is rendered with --set nic.rate=400Gbit/s.
#
# Usage:  scripts/example-imported.sh [OUT]    (default: reports/examples/imported)
# Writes OUT/run (the run directory) and OUT/report (index.html, report.pdf).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-reports/examples/imported}
fx=pkg/importers/testdata/fixtures
mkdir -p .build "$out"
go build -o .build/gpupath ./cmd/gpupath
rm -rf "$out/run" "$out/report"
.build/gpupath import \
	"$fx/nccl-tests/moc-all_reduce_perf-2node-1gpu-h100-roce-step-bytes-with-NCCL_DEBUG-INFO.txt" \
	"$fx/nccl-tests/moc-sendrecv_perf-2node-4gpu-each-h100-roce-with-NCCL_DEBUG-INFO.txt" \
	"$fx/nccl-tests/dranet-all_gather_perf-2node-16xB200-nccl2.26.6.txt" \
	"$fx/perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt" \
	"$fx/perftest/moc-ib_write_bw-a-gbits-use_cuda-cuMemAlloc-dmabuf-16qp-h100-client-raw.txt" \
	"$fx/perftest/moc-ib_read_lat-a-client-roce-rdma_cm-tos41-raw.txt" \
	"$fx/iperf3/moc-text-tcp-client-timestamps-interval0-P32-zerocopy.txt" \
	"$fx/nvbandwidth/issue42-v0.8-a100-1gpu-host_to_device_memcpy_sm-b512.txt" \
	"$fx/nvbandwidth/readme-host_to_device_memcpy_ce-8gpu-row-excerpt.txt" \
	--out "$out/run"
.build/gpupath report --model-only --set nic.rate=400Gbit/s --data "$out/run" --out "$out/report"
