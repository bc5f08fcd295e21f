// Package plots draws gpupath's figures with gonum/plot: latency,
// bandwidth and CPU cost against message size, a per-stage latency
// breakdown, the copies / DDR traffic / PCIe crossings of each path, the
// model-versus-measurement residuals, and the two-node data-path diagram
// with each path's route lettered A–G as the seed tells it.
//
// Each figure function takes plain data (an Input: a model.Scenario, path
// names, message sizes and Measured series) and returns a *Figure: the
// gonum panels, a title, a provenance line that says what is modeled (from
// which scenario) and what is measured (where and when), a legend, notes
// (for example the infeasible paths, which are listed, never drawn), a
// caption for the report and the data behind the figure as a Table.
// Input is checked once, up front: NaN, infinities, empty lists, sizes
// below one byte and unknown path names are errors wrapping ErrInput, so
// drawing cannot fail afterwards.
//
// Saving is separate: WriteSVG, SVG, WritePNG and PNG write a figure;
// Figure.Draw (or DrawTo) draws it onto any vg.Canvas, such as the
// report's PDF page. Figures use only strokes, fills and text in
// Liberation Sans (regular and bold), and every figure uses the same
// colour, dash and glyph for a path (PathStyles, from the colour-blind-safe
// Okabe–Ito palette).
//
// Figure.Data holds the numbers behind a figure in base units (bytes,
// seconds, bytes per second). The size sweeps (Latency, Bandwidth,
// CPUTime, Cores, CPUCost) use the long form kind, series, path, bytes,
// quantity, value; Breakdown has path, bytes, stage, letter, side,
// latency_s; Costs has path, copies, ddr_bytes_per_byte, pcie_crossings;
// Residuals has series, path, bytes, quantity, measured, model,
// error_percent; Diagram has path, letter, stage, side, route.
//
// The package does no I/O of its own beyond the io.Writer it is given,
// reads no files, keeps no state between calls, and never prints. It does
// not read measurement files: the report maps its records onto Measured.
package plots
