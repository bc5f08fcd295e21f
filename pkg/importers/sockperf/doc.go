// Package sockperf reads the client output of sockperf: the latency
// statistics of `sockperf ping-pong` and `under-load` (3.5 to 3.10 formats,
// with or without the ANSI colours 3.7 prints, LF or CRLF) and the summary
// of `sockperf throughput`. sockperf reports one-way latency, half the
// round trip; times are converted from microseconds to seconds, "MBps" is
// 10⁶ bytes per second (it prints Mbps beside it, eight times larger).
// The package runs nothing and prints nothing.
package sockperf
