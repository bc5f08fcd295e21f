#!/usr/bin/env bash
# Compare gpupath's CUDA copy probe with PyTorch on GPU 0, same sizes, one
# run: pinned H2D and D2H, streaming bandwidth (events around back-to-back
# async copies) and synchronous small-copy latency (wall clock).
#
#   bench/cuda_vs_torch.sh /path/to/gpupath OUTDIR
#
# Writes OUTDIR/gpupath/ (results.jsonl, inventory.json, ...), torch.json,
# comparison.txt and comparison.json. Exit status 1 when a target is missed
# (bandwidth ratio >= 0.98 at >= 16 MiB both ways; 1 GiB >= 85% of gen5 x16).
# About 1.5 minutes on one H200.
set -euo pipefail
bin=${1:?usage: cuda_vs_torch.sh /path/to/gpupath OUTDIR}
out=${2:?usage: cuda_vs_torch.sh /path/to/gpupath OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
sizes=${SIZES:-4,4KiB,64KiB,1MiB,16MiB,64MiB,256MiB,1GiB}
mkdir -p "$out"
echo "== gpupath cuda probe ($sizes)"
"$bin" gpucheck -out "$out/gpupath" -probes cuda -sizes "$sizes" -budget 50s \
	-opt gpus=0 -opt pageable=off -opt variants=h2d-pinned,d2h-pinned,h2d-pinned-stream,d2h-pinned-stream -opt nvml_check=0 \
	2>"$out/gpupath.log" >"$out/gpupath-summary.txt" || { cat "$out/gpupath.log"; exit 1; }
echo "== PyTorch"
python3 "$here/torch_copy.py" --sizes "$sizes" --budget 0.5 --out "$out/torch.json" 2>"$out/torch.log" || { cat "$out/torch.log"; exit 1; }
echo "== comparison"
rc=0
python3 "$here/compare_copy.py" "$out/gpupath/results.jsonl" "$out/torch.json" "$out/comparison.json" | tee "$out/comparison.txt" || rc=$?
exit $rc
