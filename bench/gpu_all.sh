#!/usr/bin/env bash
# Everything gpupath measures on a GPU machine, in one go (about 5 minutes
# on one or two H200):
#   1. gpupath gpucheck with every probe (nvml, topo, rdma, cuda, perftest),
#      the full 4 B..1 GiB sweep, peer copies when there are two GPUs, and
#      the sustained NVML check;
#   2. bench/cuda_vs_torch.sh;
#   3. bench/nvml_vs_copy.sh.
#
#   bench/gpu_all.sh /path/to/gpupath OUTDIR
#
# Each step writes into its own directory under OUTDIR and its console
# output to OUTDIR/<step>.txt; a failing step does not stop the others.
# The exit status is the number of failed steps.
set -uo pipefail
bin=${1:?usage: gpu_all.sh /path/to/gpupath OUTDIR}
out=${2:?usage: gpu_all.sh /path/to/gpupath OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
failed=0
{
	echo "date: $(date -u +%FT%TZ)"; uname -a
	nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv 2>&1 || true
	nvidia-smi topo -m 2>&1 || true
	nvidia-smi topo -p2p r 2>&1 || true
	ls /sys/class/infiniband 2>&1 || true
	python3 -c 'import torch; print("torch", torch.__version__, torch.version.cuda)' 2>&1 || true
} >"$out/host.txt"
step() {
	local name=$1; shift
	echo "=== $name: $*"
	local t0=$SECONDS
	if "$@" >"$out/$name.txt" 2>&1; then
		echo "=== $name: ok ($((SECONDS - t0)) s)"
	else
		echo "=== $name: FAILED with status $? ($((SECONDS - t0)) s); last lines:"
		failed=$((failed + 1))
	fi
	tail -n 40 "$out/$name.txt"
}
step gpucheck "$bin" gpucheck -out "$out/gpucheck" -budget 90s
step cuda_vs_torch "$here/cuda_vs_torch.sh" "$bin" "$out/cuda_vs_torch"
step nvml_vs_copy "$here/nvml_vs_copy.sh" "$bin" "$out/nvml_vs_copy"
echo "=== done: $failed failed step(s); results in $out"
exit "$failed"
