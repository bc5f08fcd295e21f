// Package peers reads the output of the established tools that gpupath
// compares its probes with: iperf3 (-J JSON) and sockperf (ping-pong text).
// The parsers are pure functions of the bytes; values are converted to base
// units (seconds, bytes, bytes per second) and the tool's own figures are
// kept. The package runs nothing and prints nothing.
package peers
