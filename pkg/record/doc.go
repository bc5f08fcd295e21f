// Package record is the run directory on disk: the one format that
// `gpupath measure` (and its diagnostic mode) writes and that `gpupath fit`,
// `gpupath report`, pkg/calib and the notebooks read.
//
// A run directory holds manifest.json (Manifest: the host, the plan, and
// per probe ok / unavailable with the reason / failed with the error, with
// the inventories the probes found) and results.jsonl (one Result per
// line, appended and flushed as each is measured).
//
// What it does:
//
//   - the types of the format: Manifest, ProbeStatus, Status, Plan, Result,
//     Host, GPU, NIC, and the inventories the probes put in the manifest
//     (GPUInventory from NVML, CUDAInventory, TopoInventory from sysfs);
//   - reading: ReadRun reads a directory into RunData; ReadResults keeps
//     going past lines that are not records (a run killed mid-write) and
//     lists them as SkippedLine with their line numbers; ParseManifest fails
//     with line and column on a bad manifest; RunData.Inventories decodes
//     the probes' inventories;
//   - writing: Create opens a new run directory, Writer.Append writes one
//     record with a single write(2), WriteManifest replaces manifest.json
//     atomically; AppendResult is the same record write on any io.Writer;
//   - series: Series and Point are the one type of a measured curve, in
//     base units (pkg/units), for every reader (fitting, reports, verdicts,
//     notebooks); Group gathers records into them, Curves into the curves
//     a report draws (with QuantityOf: latency, bandwidth or cost);
//     Host.Line describes the measuring host in one line.
//
// What it does not do: it measures nothing, links no cgo or GPU library,
// fits nothing and prints nothing. It imports the standard library,
// pkg/units and pkg/topo (whose PCI types the topology inventory holds).
package record
