// Package calib brings the model and the measurements together.
//
// What it does:
//
//   - Facts and Overrides (facts.go): the hardware facts any source knows
//     (the GPU's and NIC's names, links, kind, rate per port, class, MTU,
//     hops, cable, the CPU, measured copy rates and latencies), each with
//     where it was found, and the one function that turns them into typed
//     scenario overrides (model.Override, applied with Scenario.Apply or
//     model.Resolve): catalog names for the hardware they name, measured
//     values as measured, never formatted into text and parsed back. The
//     command, the report (a run's host, an import's hardware), doctor and
//     validate (a published row) resolve their scenarios through it.
//   - This host's facts (RunFacts, ThisHost, runfacts.go): the records and
//     inventories of a run turned into Facts (cpu.memcpy_rate, stack.*,
//     gpu.model, gpu.pcie, gpu.copy_latency, topology.gpu_nic, nic.*,
//     cpu.cores ...), each with the derivation in words; WriteScenarioYAML
//     writes their overrides as a scenario fragment, which `gpupath measure`
//     puts next to a run as host-scenario.yaml.
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
