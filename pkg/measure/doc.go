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
//
// The pieces:
//
//   - Run writes a run directory: the manifest at the start (running), after
//     each probe, and at the end (complete or interrupted); each record is
//     appended with one write as it is measured. QuickConfig and RunQuick
//     are the short run of `gpupath report`. Progress (Bar, Lines, or a
//     notebook's own) is told about each probe and record.
//   - The run directory format and its reader are pkg/record's.
//   - Probes: "tcp" (tcp.go: ping-pong and streaming over loopback, a veth
//     pair between two network namespaces, optionally shaped with tbf, or a
//     `gpupath serve` peer; Server and Client are the two ends), "memcpy"
//     (memcpy.go), "syscall" (syscall.go). Network sockets are raw blocking
//     file descriptors on locked OS threads, each call under a deadline;
//     servers listen on loopback unless asked otherwise.
//   - HostOverrides turns records into the model's "this host" scenario
//     values (cpu.memcpy_rate, stack.*) with their derivation, and
//     WriteScenarioYAML writes them as a scenario fragment.
//
// It does not model anything (pkg/model does) and does not draw (pkg/plots).
// The network probes need Linux.
package measure
