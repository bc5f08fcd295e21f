#!/usr/bin/env bash
# NVML's PCIe throughput counters vs the measured copy rate, GPU 0:
#   1. gpupath: 256 MiB pinned copies streamed for 3 s per direction while
#      its NVML monitor samples the PCIe counters (20 ms windows);
#   2. independently, PyTorch copy loops of 4 s while `nvidia-smi dmon -s t`
#      samples once a second (skipped without nvidia-smi or torch).
#
#   bench/nvml_vs_copy.sh /path/to/gpupath OUTDIR
#
# Writes OUTDIR/gpupath/, dmon_*.txt, torch_loop_*.json, nvml_check.txt and
# nvml_check.json. Exit status 1 when NVML and the copy rate differ by more
# than 15%. About 40 seconds.
set -euo pipefail
bin=${1:?usage: nvml_vs_copy.sh /path/to/gpupath OUTDIR}
out=${2:?usage: nvml_vs_copy.sh /path/to/gpupath OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
echo "== gpupath: sustained pinned copies with NVML sampling"
"$bin" gpucheck -out "$out/gpupath" -probes cuda -sizes 256MiB -budget 4s \
	-opt gpus=0 -opt pageable=off -opt variants=h2d-pinned-stream,d2h-pinned-stream -opt nvml_check=3s \
	2>"$out/gpupath.log" >"$out/gpupath-summary.txt" || { cat "$out/gpupath.log"; exit 1; }
extra=()
if command -v nvidia-smi >/dev/null && python3 -c 'import torch' 2>/dev/null; then
	for dir in h2d d2h; do
		echo "== PyTorch $dir loop with nvidia-smi dmon"
		nvidia-smi dmon -i 0 -s t -d 1 -o T >"$out/dmon_$dir.txt" 2>&1 &
		dmon=$!
		sleep 1.5
		python3 "$here/torch_copy.py" --loop "$dir" --seconds 4 --size 256MiB --out "$out/torch_loop_$dir.json" 2>>"$out/torch.log" || true
		sleep 1.5
		kill "$dmon" 2>/dev/null || true
		wait "$dmon" 2>/dev/null || true
		[ -s "$out/torch_loop_$dir.json" ] && extra+=("$out/torch_loop_$dir.json" "$out/dmon_$dir.txt")
	done
else
	echo "(no nvidia-smi or no torch: independent dmon check skipped)"
fi
echo "== comparison"
rc=0
python3 "$here/nvml_check.py" "$out/gpupath/results.jsonl" "${extra[@]}" --out "$out/nvml_check.json" | tee "$out/nvml_check.txt" || rc=$?
exit $rc
