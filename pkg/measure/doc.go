// Package measure probes the real machine: TCP sockets with their CPU cost,
// host memory copies, system-call cost, CUDA copies, NVML, PCIe topology and
// RDMA devices. Each probe is absent-safe: a missing GPU, driver, library or
// device is reported as "not measured: reason" (ErrUnavailable), never a crash
// and never an invented number.
//
// Results are streamed as JSON Lines (results.jsonl) next to a manifest of
// the host (manifest.json), so an interrupted run keeps what it measured and
// everything downstream (fitting, plots, reports) can be re-run without
// hardware. The package prints nothing and never exits.
package measure
