// Package perftest parses the text that the linux-rdma perftest tools
// (ib_write_bw, ib_write_lat, ib_read_bw, ib_read_lat, ib_send_bw, ...)
// print: the banner (test, device, link type, queue pairs, MTU, the CUDA or
// ROCm lines of --use_cuda / --use_rocm runs) and the result table, one row
// per message size.
//
// Values are converted to base units (bytes, seconds, bytes per second,
// messages per second) and the original fields are kept. Perftest's "MB/sec"
// is 2^20 bytes/s and its "Gb/sec" is 10^9 bits/s (format_factor in
// perftest_parameters.c: 0x100000 and 125000000). The parser is lenient: it
// accepts tabs or spaces between columns, server and client output mixed in
// one file, the old four-column format, and keeps going after a line it
// cannot read, reporting it with its line number. A run that aborted (a
// completion error) keeps the rows it printed and lists the error lines.
//
// The package reads text only; running perftest is the measure package's
// job.
package perftest
