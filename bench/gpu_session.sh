#!/usr/bin/env bash
# One session on the GPU machine: every GPU probe, the PyTorch and NVML
# comparisons (bench/gpu_all.sh), and the staged end-to-end transfer; then
# everything packed into OUTDIR/session.tgz (the device tool brings back at
# most 8 files) with the console log beside it.
#
#   bench/gpu_session.sh /path/to/gpupath OUTDIR [staged budget, default 120s]
set -uo pipefail
bin=${1:?usage: gpu_session.sh /path/to/gpupath OUTDIR}
out=${2:?usage: gpu_session.sh /path/to/gpupath OUTDIR}
budget=${3:-120s}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
export PYTHONUNBUFFERED=1
t0=$SECONDS
"$here/gpu_all.sh" "$bin" "$work/all"
echo "=== staged: gpucheck -probes staged -budget $budget"
"$bin" gpucheck -out "$work/staged" -probes staged -budget "$budget" >"$work/staged.txt" 2>&1
echo "=== staged: status $? ($((SECONDS - t0)) s since start)"
tail -n 30 "$work/staged.txt"
cat "$work/staged/summary.txt" 2>/dev/null
tar czf "$out/session.tgz" -C "$work" .
ls -la "$out"
