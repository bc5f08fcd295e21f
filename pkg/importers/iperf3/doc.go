// Package iperf3 reads what iperf3 prints: the JSON document of `iperf3 -J`
// (ParseJSON, with its intervals and end summary) and the text of a plain
// client or server run (the interval lines and the sender/receiver
// summary). Parse detects which and returns the observations of either.
//
// Rates are converted to bytes per second (iperf3 prints bits per second,
// decimal: Gbits/sec = 10⁹ bit/s) and transfers to bytes (iperf3's KBytes,
// MBytes, GBytes are binary: 2¹⁰, 2²⁰, 2³⁰ — units.c). The JSON reader
// skips what a terminal put before the document ("^C"), accepts CRLF and
// iperf3's duplicate keys, keeps the intervals of a document that was cut
// off and reports where it ends. The package runs nothing and prints
// nothing.
package iperf3
