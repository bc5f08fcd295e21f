// Package calib brings the model and the measurements together.
//
// What it does:
//
//   - This host's scenario values (ThisHost, thishost.go and gpuhost.go):
//     the records and inventories of a run turned into the model's keys
//     (cpu.memcpy_rate, stack.*, gpu.pcie, gpu.copy_latency, topology.gpu_nic,
//     nic.*, cpu.cores ...), each with the derivation in words (Override);
//     WriteScenarioYAML writes them as a scenario fragment, which `gpupath
//     measure` puts next to a run as host-scenario.yaml.
//   - Calibration (Calibrate): it fits the model's stage parameters to
//     measured runs with pkg/fit (α and β of the copies, the loopback TCP
//     transfer, the GPU peer copy, the staged transfer's hand-off) on top of
//     the this-host values, and compares the model — before and after — with
//     what was measured end to end, naming the stage the model gets wrong
//     where they disagree; Speedup pairs the staged transfer's two variants.
//     YAML, WriteText and WriteJSON write the result with its provenance.
//   - The other verdicts of the model against measurements: JudgeImported
//     sets every series of another tool's output (gpupath import) beside
//     the model of the path it took and says in words how much of that
//     ceiling it reaches and why (imported.go); CompareRuns judges one run
//     against another, size by size, with bootstrap intervals
//     (compare_runs.go). The report renders these verdicts; it makes none.
//
// It reads runs through pkg/record (records are grouped into curves,
// record.Series, by record.Group) and scenarios through pkg/model; medians come from
// internal/stats. It does not measure (pkg/measure does), links no cgo or
// GPU library, writes nothing to disk and prints nothing: the command and
// the report do.
package calib
