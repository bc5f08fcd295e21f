// Package fit fits latency models to timings and says how far a model is
// from measurements.
//
// It takes plain data — an Observation is a message size in bytes and the
// seconds its repetitions took — and never sees a file format or a probe
// record: reading results.jsonl and choosing what to fit is the caller's job.
//
// What it does:
//
//   - AlphaBeta fits t(n) = α + n/β (latency α in seconds, bandwidth β in
//     bytes per second). Pipelined fits a chunked transfer whose stages
//     overlap, t(n) = α + min(n, c)/β + (⌈n/c⌉ − 1)·p, with chunk c and
//     per-chunk period p. Both weigh relative error, so that 4-byte and
//     256-MiB messages count alike, and hold every parameter non-negative
//     (an α that would be negative is 0 and reported as "< X"; a bandwidth
//     lost in the noise is +Inf and reported as "> X").
//   - Intervals come from a bootstrap over the repetitions of each size,
//     at a chosen level (95% by default), 500 resamples by default, and are
//     deterministic for a seed.
//   - Results carry residuals per size, the median and worst absolute
//     percentage error, and typed Warnings (a Code and a sentence) when a
//     fit is poorly determined: too few sizes, a term not identifiable from
//     the sizes measured, large residuals, time falling as size grows,
//     dropped values.
//   - TwoRegimes fits two α–β lines either side of a protocol change (eager
//     below a size, rendezvous above), choosing the break among the gaps
//     between measured sizes.
//   - Compare summarises a model against measured seconds per size; Blame
//     names the stage term (fixed latency or transfer time) whose shape over
//     sizes best explains the disagreement, and whether the model has it
//     too fast or too slow.
//
// What it does not do: it reads and writes no files, prints nothing, keeps
// no state, and knows nothing of paths, stages or hardware beyond the
// strings it is given. It does not choose sizes or decide what counts as a
// large disagreement for a report. Intervals reflect the scatter of the
// repetitions, not a wrong form: a form that does not fit shows in the
// residuals and warnings, not in the width of the intervals.
//
// Invalid values never panic: NaN, infinite or negative sizes and NaN,
// infinite, zero or negative times are dropped with a CodeDropped warning
// while anything usable remains, and otherwise the error is one line
// wrapping ErrNoData, ErrTooFewSizes or ErrInput. A size of 0 bytes is valid
// (it measures α alone).
package fit
