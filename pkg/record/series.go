package record

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Field names a field of a record that a series can be grouped by.
type Field uint8

// The fields of a SeriesKey.
const (
	ByProbe Field = 1 << iota
	ByVariant
	ByStage
	ByPath
	ByTarget
	ByTimer
)

// SeriesKey names a measured curve: the fields that stay the same along it.
// Fields not grouped by are empty.
type SeriesKey struct {
	Probe, Variant, Stage, Path, Target, Timer string
}

// Quantity is what a measured series gives per message size.
type Quantity string

// The quantities a series can hold.
const (
	// Latency series give the one-way time per message (Median, Min, P99).
	Latency Quantity = "latency"
	// Bandwidth series give streaming throughput (Rate).
	Bandwidth Quantity = "bandwidth"
	// Cost series give a time per message that is a cost, not a latency
	// (a memcpy, a system call): Median, Min, P99.
	Cost Quantity = "cost"
)

// QuantityOf says what a probe's variant measures: the variants that
// stream (their name holds "stream" or "bw") give bandwidths, the memcpy
// and syscall probes costs of single operations, the rest (ping-pong,
// copies, RDMA latency) latencies.
func QuantityOf(probe, variant string) Quantity {
	switch {
	case strings.Contains(variant, "stream") || strings.Contains(variant, "bw"):
		return Bandwidth
	case probe == "memcpy" || probe == "syscall":
		return Cost
	}
	return Latency
}

// Series is a measured curve in base units: the one type for it, whatever
// measured it (a probe of gpupath measure, another tool's output read by
// gpupath import) and whoever reads it (fitting in pkg/calib, the report's
// figures and verdicts, the notebooks). Its points are in ascending size
// (points of the same size in the order they were read).
type Series struct {
	SeriesKey
	// Label is the legend text: "tcp pingpong (loopback)".
	Label string
	Quantity
	Points []Point
}

// Point is one measured size of a series. Times are per message (for a
// stream: per write), Rate is payload bytes per second, CPU is CPU seconds
// per message (user + system, 0 when not measured).
type Point struct {
	Bytes            units.Bytes
	Median, Min, P99 units.Seconds
	Rate             units.Rate
	CPU              units.Seconds
	Iterations       int
	Stable           bool
	// Samples are the recorded repetitions' times in seconds, as measured
	// (the record's own slice, shared, not copied: what pkg/fit bootstraps
	// over takes plain numbers).
	Samples []float64

	// The rest is set for points read from other tools' outputs (gpupath
	// import) where the output says it: BusRate is nccl-tests' busbw,
	// Target what the result ran against where it changes along the series
	// ("CPU0 -> GPU0"), Line the line of the file it was read from, and
	// BytesNote why the size is missing when Bytes is 0.
	BusRate   units.Rate
	Target    string
	Line      int
	BytesNote string
}

// PointOf is a record as a point of its series: its median, min and p99
// times, its throughput, its CPU time per message (user + system, not
// below 0), its iterations, stability and samples.
func PointOf(r Result) Point {
	return Point{Bytes: units.Bytes(r.Bytes), Median: units.Seconds(r.MedianS), Min: units.Seconds(r.MinS), P99: units.Seconds(r.P99S),
		Rate: units.Rate(r.ThroughputBps), CPU: units.Seconds(max(r.CPUUserS+r.CPUSysS, 0)), Iterations: r.Iterations, Stable: r.Stable,
		Samples: r.Samples}
}

// Label is the legend text of a record's series: the probe, the variant
// and the target in brackets ("tcp pingpong (loopback)").
func Label(r Result) string { return label(r, false) }

// label is Label, with the timer in the brackets when withTimer is set
// ("cuda d2h-pinned (gpu0, cuda-event)").
func label(r Result, withTimer bool) string {
	l := r.Probe
	if r.Variant != "" {
		l += " " + r.Variant
	}
	var in []string
	if r.Target != "" {
		in = append(in, r.Target)
	}
	if withTimer && r.Timer != "" {
		in = append(in, r.Timer)
	}
	if len(in) > 0 {
		l += " (" + strings.Join(in, ", ") + ")"
	}
	return l
}

// keyOf is r's key on the fields in by.
func keyOf(r Result, by Field) SeriesKey {
	var k SeriesKey
	if by&ByProbe != 0 {
		k.Probe = r.Probe
	}
	if by&ByVariant != 0 {
		k.Variant = r.Variant
	}
	if by&ByStage != 0 {
		k.Stage = r.Stage
	}
	if by&ByPath != 0 {
		k.Path = r.Path
	}
	if by&ByTarget != 0 {
		k.Target = r.Target
	}
	if by&ByTimer != 0 {
		k.Timer = r.Timer
	}
	return k
}

// grouped are the records of one key.
type grouped struct {
	key SeriesKey
	// results point into the records grouped: a run of a million records
	// is not copied again to be grouped.
	results []*Result
}

// group gathers records by key, in the order of each key's first record,
// each key's records sorted by size, stably.
func group(rs []Result, by Field, stop func() error) ([]grouped, error) {
	idx := map[SeriesKey]int{}
	var out []grouped
	for j := range rs {
		if j%CheckEvery == 0 && stop != nil {
			if err := stop(); err != nil {
				return nil, err
			}
		}
		r := &rs[j]
		k := keyOf(*r, by)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, grouped{key: k})
		}
		out[i].results = append(out[i].results, r)
	}
	for _, g := range out {
		slices.SortStableFunc(g.results, func(a, b *Result) int { return cmp.Compare(a.Bytes, b.Bytes) })
	}
	return out, nil
}

// CheckEvery is how many records pass between two checks of a stop
// function (GroupStop, CurvesStop) or a context: a few milliseconds of work.
const CheckEvery = 4096

// seriesOf starts the series of a group: its key, and the label and
// quantity of its first record; the label names a timer other than the
// wall clock when ambiguous says the series shares its label with another.
func seriesOf(g grouped, ambiguous bool) Series {
	r := *g.results[0]
	return Series{SeriesKey: g.key, Label: label(r, ambiguous && r.Timer != "wall"), Quantity: QuantityOf(r.Probe, r.Variant)}
}

// ambiguous tells, per group, whether another group differs from it only
// in the timer (the same copies timed by the wall clock and by CUDA
// events): their labels must name the timer.
func ambiguous(gs []grouped) []bool {
	n := map[SeriesKey]int{}
	for _, g := range gs {
		k := g.key
		k.Timer = ""
		n[k]++
	}
	out := make([]bool, len(gs))
	for i, g := range gs {
		k := g.key
		k.Timer = ""
		out[i] = n[k] > 1
	}
	return out
}

// Group gathers records into series by the fields in by, in the order in
// which each series' first record appears; within a series the points
// (PointOf) are sorted by size, stably. The label and quantity are those
// of the series' first record (Label, QuantityOf; where two series differ
// only in the timer, the label names one other than the wall clock):
// grouped without ByProbe and ByVariant, a series may hold records of
// several. It is the one mapping from records to the curves that fitting
// (pkg/calib), the reports (Curves) and the notebooks draw; each filters
// the records it wants first.
func Group(rs []Result, by Field) []Series {
	out, _ := GroupStop(rs, by, nil)
	return out
}

// GroupStop is Group that asks stop (when not nil) every CheckEvery
// records and returns its error.
func GroupStop(rs []Result, by Field, stop func() error) ([]Series, error) {
	gs, err := group(rs, by, stop)
	if err != nil {
		return nil, err
	}
	amb := ambiguous(gs)
	out := make([]Series, 0, len(gs))
	for i, g := range gs {
		s := seriesOf(g, amb[i])
		s.Points = make([]Point, len(g.results))
		for i, r := range g.results {
			s.Points[i] = PointOf(*r)
		}
		out = append(out, s)
	}
	return out, nil
}

// CurveFields are the fields that tell apart the curves a report draws of
// a run (Curves): a copy timed by the wall clock and by CUDA events is two
// curves.
const CurveFields = ByProbe | ByVariant | ByPath | ByStage | ByTarget | ByTimer

// Curves groups a run's records into the series a report and a notebook
// draw: one per probe × variant × path × stage × target × timer
// (CurveFields), each saying what it measures (QuantityOf). A record without the value
// its series draws (no size; a time, or for a bandwidth a rate, not above
// 0) or with a value that is not finite is left out and counted in
// unusable; a series left without points is dropped.
func Curves(rs []Result) (curves []Series, unusable int) {
	curves, unusable, _ = CurvesStop(rs, nil)
	return curves, unusable
}

// CurvesStop is Curves that asks stop (when not nil) every CheckEvery
// records and returns its error.
func CurvesStop(rs []Result, stop func() error) (curves []Series, unusable int, err error) {
	gs, err := group(rs, CurveFields, stop)
	if err != nil {
		return nil, 0, err
	}
	amb := ambiguous(gs)
	for i, g := range gs {
		s := seriesOf(g, amb[i])
		for _, r := range g.results {
			if r.Bytes < 1 || !finite(r.MedianS, r.MinS, r.P99S, r.ThroughputBps, r.CPUUserS, r.CPUSysS) {
				unusable++
				continue
			}
			p := PointOf(*r)
			if s.Quantity == Bandwidth && p.Rate <= 0 || s.Quantity != Bandwidth && p.Median <= 0 {
				unusable++ // nothing to draw
				continue
			}
			s.Points = append(s.Points, p)
		}
		if len(s.Points) > 0 {
			curves = append(curves, s)
		}
	}
	return curves, unusable, nil
}

// finite reports whether no value is NaN or beyond ±1e300.
func finite(vs ...float64) bool {
	for _, v := range vs {
		if v != v || v > 1e300 || v < -1e300 {
			return false
		}
	}
	return true
}
