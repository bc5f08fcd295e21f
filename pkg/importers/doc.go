// Package importers turns the outputs of other tools — nccl-tests (text and
// -J JSON), NCCL_DEBUG=INFO logs, perftest, the OSU micro-benchmarks,
// nvbandwidth (text and JSON), iperf3 (JSON and text), sockperf, qperf,
// netperf, the CUDA samples' bandwidthTest, and the hardware listings of
// ibstat, ibv_devinfo and nvidia-smi topo -m — into gpupath's run
// directory, so that every command reads them like its own runs.
//
// Each format has its parser in a package of its own (pkg/importers/<tool>),
// a pure function from bytes to observations (package obs). This package
// detects the format of a file from its content (Detect; a tool name given
// by the user overrides it), runs the parser, and collects the lines no
// parser could read, with their file and line (Error). An NCCL log
// interleaved with another tool's output (nccl-tests) is read as well, so
// that the records know which path NCCL took. WriteRun writes the run
// directory: the manifest names every file with its tool, version, command
// line and hardware, and every record says the file and line it came from.
//
// Nothing is made up: a value the output does not print is left out (a
// size the output does not give is 0, with a note), a line that cannot be
// read is an error of the import, and what the tool itself reported as a
// failure is kept in the manifest as that file's status.
package importers
