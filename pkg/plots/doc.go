// Package plots makes every gonum/plot figure of gpupath: the report's and
// the notebooks' alike. No other package builds a plot, a ticker or a
// panel; they pass plain data in and get a drawing back.
//
// Three kinds of drawing:
//
//   - Figure: a finished figure with its title, a provenance line that says
//     what is modeled (from which scenario) and what is measured (where and
//     when), a legend outside the data (a column at the right or rows
//     underneath; an entry only for what is drawn), notes (for example the
//     infeasible paths, which are listed, never drawn), a caption for the
//     report and the data behind it. Latency, Bandwidth, CPUTime, Cores and
//     CPUCost draw values against message size; Breakdown the per-stage
//     latency; Costs the copies and PCIe crossings (counts) and the DDR
//     traffic per payload byte of each path, in two panels; Residuals the
//     model's error against measurement; Ceiling a measured series (another
//     tool's output) against the model's ceiling of its path;
//     ModelComparison a measured curve against the preset and the
//     calibrated model, and their errors; OperationCosts measured costs of
//     single operations; Validation the model against published
//     measurements; Diagram the two-node data-path diagram with each path's
//     route lettered A–G in the order the data meets them;
//     CollectiveBusBW, CollectiveScale, CollectiveGain and CollectiveCores
//     one collective of NCCL's cost model on each inter-node path (bus
//     bandwidth by size with NCCL's choices in a band stacked under the
//     curves, bus bandwidth by node count, what GPUDirect RDMA buys, the
//     CPU cores a node keeps busy); PairHeatmap and PairDistribution a
//     cluster sweep's pairs (a host-by-host heatmap, hosts grouped into
//     blocks past 64, and the distribution of pair values). Layout says where a Figure puts its
//     legend and its data, for tests.
//   - Drawing: a drawing that the document around it frames (the report
//     prints its number, title and caption), with its data: StageMap (the
//     stages of each path by node, where Diagram cannot draw the
//     scenario).
//   - Chart: panels stacked in a column under a title, for the notebooks:
//     SizeChart (model lines, measured points and reference lines against
//     message size) and Sensitivity (how far one step of each parameter
//     moves each path).
//
// Input is checked once, up front: NaN, infinities, empty lists, sizes
// below one byte and unknown path names are errors wrapping ErrInput, so
// drawing cannot fail afterwards.
//
// The data behind a figure is a Table of typed columns (Column: a name,
// the base unit of its numbers, and its values: Text, Number, Integer or
// Bool) in base units (bytes, seconds, bytes per second), one unit per
// column. WriteCSV and JSONRows format them, the one formatter of every
// cell the report writes: bytes and counts as integers, other numbers in
// Go's shortest exact form, no value as an empty cell. The size sweeps
// (Latency, Bandwidth, CPUTime, Cores, CPUCost) use the long form kind,
// series, path, bytes, quantity, value (value_s, value_cores where a
// figure's panels differ in unit); Breakdown has path, bytes, stage,
// letter, side, latency_s; Costs has path, copies, ddr_bytes_per_byte,
// pcie_crossings; Residuals has series, path, bytes, quantity, measured_s,
// model_s, measured_Bps, model_Bps, error_percent; Ceiling has series,
// kind, path, bytes, value; Diagram has path, letter, stage, side, route;
// the others say their own.
//
// One ticker per kind of axis (ticks.go: message sizes, decades, linear,
// time, percent), one error panel (errorAxes and addErrorCurve, shared by
// Residuals and ModelComparison), one style per path (PathStyle, from the
// colour-blind-safe Okabe–Ito palette) and one glossary of the stage
// letters. Figures draw in Liberation Sans (regular and bold) with strokes,
// fills and text only; Drawings and Charts use the same font at their own
// sizes.
//
// Saving is separate: WriteSVG, SVG, WritePNG and PNG write any Drawer;
// Figure.Draw (or DrawTo) draws it onto any vg.Canvas, such as the
// report's PDF page.
//
// The package does no I/O of its own beyond the io.Writer it is given,
// reads no files, keeps no state between calls, and never prints. It does
// not read measurement files or calibrations: the report and the notebooks
// map their records onto Measured, CostSeries and Comparison.
package plots
