// Package validate models published measurements of GPU↔GPU data paths and
// says how far the model is from each.
//
// The table (data/published.csv, with its sources and conventions in
// data/README.md, copied from the project's shared validation set) holds
// one row per published figure: the path, the quantity (one-way latency,
// streaming bandwidth, a copy's time, a registration's cost, ...), the
// message size, the value and the hardware it was measured on. For each
// row the package reads what its text states as hardware facts (Read: the
// catalog's names for the GPU, NIC and CPU it names, the keys its columns
// give, calib.Facts) and derives a scenario from them through
// calib.Overrides, in two modes (Derive): full, on the preset of the row's
// generation with the hardware of its era where it names none, and
// partial, on the default preset with only what the row states. Every key
// of the row's path it leaves open is listed with the value taken and the
// rule that gave it. It evaluates the model's figure for the row's quantity
// and reports published, modeled and their ratio, with the median and worst
// error per source and per path (Summarize), for each mode.
//
// Local copies (pinned and pageable cudaMemcpy, gdrcopy's BAR1 loads and
// stores) are modeled with the model's local copies, collectives of many
// ranks (bus and algorithm bandwidth, the time of an all_gather or
// all_reduce) with NCCL's own cost model (tuning.cc) over the row's inter-node path.
// Rows that measure something the model does not describe (gdr_map's
// page-table cost, a bug the source itself reports, a figure whose only
// hardware rate is its own) are kept in the results, excluded from the
// figures, with the reason.
//
// The package is pure: it reads the embedded table or an io.Reader, does
// no other I/O and links no GPU library.
package validate
