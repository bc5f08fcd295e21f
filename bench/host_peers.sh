#!/bin/sh
# host_peers.sh — gpupath's TCP probe beside iperf3 and sockperf, on loopback,
# in one run: streaming goodput (128 KiB writes) vs iperf3 (want >= 0.9),
# ping-pong median latency at 64 B vs sockperf ping-pong --tcp (want <= 1.15),
# and CPU cost per byte vs what iperf3 reports for itself (explained in the
# output). Writes bench/results/host_peers-<date>-<host>.{txt,json}.
#
# Needs: Go, iperf3, sockperf (apt-get install iperf3 sockperf).
# Usage:  bench/host_peers.sh [-rounds 3] [-duration 5s] [-out bench/results]
set -eu
cd "$(dirname "$0")/.."
for tool in iperf3 sockperf go; do
	command -v "$tool" >/dev/null 2>&1 || { echo "host_peers.sh: $tool is not installed" >&2; exit 1; }
done
exec go run ./bench/hostpeers "$@"
