package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// measurements fills the measurements section: for each run, the measured
// series over the model's curves, a table of the points against the model,
// and what could not be measured.
func (b *builder) measurements(sec *section, a *analysis) {
	in := b.in
	if len(in.Measured) == 0 {
		why := "this report was rendered from the model alone"
		if in.ProbeNote != "" {
			why += " (" + in.ProbeNote + ")"
		}
		sec.note("No measurements: " + why + ". Every figure above is modeled from scenario " + in.Scenario.Name + "; none is a measurement. Give measurement runs with gpupath report --data DIR (DIR from gpupath measure).")
		return
	}
	sec.text("Measured points are drawn over the model's curves for the path they measure, in the model's colour; the model comes from scenario " + in.Scenario.Name + ", the points from the run named. Where the run measured a different machine or link (loopback, another NIC) than the scenario describes, the gap is the difference between them, not an error of either.")
	if in.Calibration != nil {
		sec.text("Section “Model against measurement” compares the same measurements with the model of what was measured — the same host, the loopback device for a transfer on one host — before and after the model was fitted to them.")
	}
	for i, m := range in.Measured {
		sec.h3(fmt.Sprintf("Run %d: %s", i+1, m.Source))
		status := ""
		if m.Status != "" {
			status = ", run " + m.Status
		}
		sec.p("Measured on %s, started %s, by gpupath %s%s.", orNone(m.Host), stamp(m.Start), orNone(m.Tool), status)
		origin := fmt.Sprintf("measured on %s at %s (%s); model from scenario %s", orNone(m.Host), stamp(m.Start), m.Source, in.Scenario.Name)
		b.measuredFigures(sec, a, i, m, origin)
		if len(m.NotMeasured) > 0 {
			var items []string
			for _, n := range m.NotMeasured {
				items = append(items, n.Probe+": not measured: "+n.Reason)
			}
			sec.p("Not measured in this run:")
			sec.list(items)
		}
		if s := unsizedText(m, in.Calibration != nil); s != "" {
			sec.text(s)
		}
		if len(m.Skipped) > 0 {
			sec.p("Input not used (%d line(s)):", len(m.Skipped))
			items := m.Skipped
			if len(items) > 20 {
				items = append(append([]string(nil), items[:20]...), fmt.Sprintf("… and %d more", len(m.Skipped)-20))
			}
			sec.list(items)
		}
	}
}

// unsizedText says what the run's records without a message size are and
// who reads them: they are not drawn against size, but they are used (by
// the calibration of this report when calibrated is set, else by a
// calibration of the run).
func unsizedText(m Measured, calibrated bool) string {
	var timed, facts []string
	n := 0
	for _, u := range m.Unsized {
		what := strings.TrimSpace(u.Probe + " " + u.Variant)
		if u.Records > 1 {
			what += fmt.Sprintf(" (%d records)", u.Records)
		}
		if u.Timed {
			timed = append(timed, what)
		} else {
			facts = append(facts, what)
		}
		n += u.Records
	}
	if n == 0 {
		return ""
	}
	who := "the calibration of this report (section “Model against measurement”)"
	if !calibrated {
		who = "a calibration of the run (gpupath fit --data " + m.Source + ")"
	}
	var parts []string
	switch {
	case m.Imported && len(timed) > 0:
		parts = append(parts, "results whose output gives no message size ("+strings.Join(timed, ", ")+"): the section “Imported measurements” judges them against the model at 1 GiB and says the size is not given")
	case len(timed) > 0:
		parts = append(parts, "costs per call ("+strings.Join(timed, ", ")+"), which "+who+" takes as the model's parameters where it has one (syscall getppid: stack.syscall, the cost of a bare system call)")
	}
	if len(facts) > 0 {
		parts = append(parts, "facts of the host ("+strings.Join(facts, ", ")+"), from which "+who+" reads the GPU, its PCIe link and the topology")
	}
	return fmt.Sprintf("Not drawn against message size: %s without a size — %s.", plural(n, "record", "records"), strings.Join(parts, "; "))
}

// measuredFigures draws one run: latency, bandwidth and CPU time over the
// model (pkg/plots), the model's error against the run (Residuals), and the
// costs of single operations, each followed by its table.
func (b *builder) measuredFigures(sec *section, a *analysis, i int, m Measured, origin string) {
	s := a.s
	of := func(q record.Quantity) []record.Series {
		var out []record.Series
		for _, sr := range m.Series {
			if sr.Quantity == q && len(sr.Points) > 0 {
				out = append(out, sr)
			}
		}
		return out
	}
	run := fmt.Sprintf("run%d", i+1)
	lat, bw, cost := of(record.Latency), of(record.Bandwidth), of(record.Cost)
	pl := plotsMeasured(m, lat, func(_ record.Series, p record.Point) plots.Point { return plots.Point{Seconds: float64(p.Median)} })
	pb := plotsMeasured(m, bw, func(_ record.Series, p record.Point) plots.Point { return plots.Point{Rate: float64(p.Rate)} })
	pc := plotsMeasured(m, append(append([]record.Series(nil), lat...), bw...), func(_ record.Series, p record.Point) plots.Point {
		return plots.Point{CPU: max(float64(p.CPU), 0)}
	})
	if len(pl) > 0 {
		b.plot(sec, run+"-latency", "modeled and measured", origin)(roomForLegend(len(pl) + 2*len(measuredPaths(pl)))(plots.Latency(plots.Input{Scenario: s, Paths: measuredPaths(pl), Measured: pl, Pipelined: true})))
		sec.table(measuredTable(a, record.Latency, lat))
	}
	if len(pb) > 0 {
		b.plot(sec, run+"-bandwidth", "modeled and measured", origin)(roomForLegend(len(pb) + len(measuredPaths(pb)))(plots.Bandwidth(plots.Input{Scenario: s, Paths: measuredPaths(pb), Measured: pb})))
		sec.table(measuredTable(a, record.Bandwidth, bw))
	}
	if len(pc) > 0 {
		b.plot(sec, run+"-cpu", "modeled and measured", origin)(roomForLegend(len(pc) + len(measuredPaths(pc)))(plots.CPUTime(plots.Input{Scenario: s, Paths: measuredPaths(pc), Measured: pc})))
	}
	// Residuals compare only series whose path the scenario can run.
	var pr []plots.Measured
	for _, x := range append(append([]plots.Measured(nil), pl...), pb...) {
		if r, ok := a.routes[x.Path]; ok && r.Feasible {
			pr = append(pr, x)
		}
	}
	if len(pr) > 0 {
		b.plot(sec, run+"-residuals", "modeled and measured", origin)(roomForLegend(len(pr))(plots.Residuals(plots.Input{Scenario: s, Measured: pr, Pipelined: true})))
	}
	if len(cost) > 0 {
		title := fmt.Sprintf("Measured costs of single operations, run %d", i+1)
		prov := fmt.Sprintf("measured: %s at %s (%s)", shortHost(orNone(m.Host)), stamp(m.Start), m.Source)
		b.plot(sec, run+"-cost", "measured", origin)(roomForLegend(len(cost))(plots.OperationCosts(title, prov, costSeries(cost)), nil))
		sec.table(measuredTable(a, record.Cost, cost))
	}
}

// roomForLegend makes a pkg/plots figure tall enough for a legend of n
// entries (Figure.GrowForLegend): a run with many series would push the
// legend off the bottom.
func roomForLegend(n int) func(*plots.Figure, error) (*plots.Figure, error) {
	return func(pf *plots.Figure, err error) (*plots.Figure, error) {
		if err == nil {
			pf.GrowForLegend(n)
		}
		return pf, err
	}
}

// valueOf is the value of p that a series of quantity q draws.
func valueOf(q record.Quantity, p record.Point) float64 {
	if q == record.Bandwidth {
		return float64(p.Rate)
	}
	return float64(p.Median)
}

func (a *analysis) modelValue(q record.Quantity, path string, n units.Bytes) (float64, bool) {
	r, ok := a.routes[path]
	if !ok || !r.Feasible || q == record.Cost {
		return 0, false
	}
	res := r.Evaluate(n)
	if q == record.Bandwidth {
		return float64(res.Bandwidth), true
	}
	return float64(res.Pipelined), true
}

// costSeries maps cost series onto pkg/plots' form.
func costSeries(ss []record.Series) []plots.CostSeries {
	out := make([]plots.CostSeries, len(ss))
	for i, s := range ss {
		cs := plots.CostSeries{Label: s.Label, Probe: s.Probe, Variant: s.Variant, Stage: s.Stage, Target: s.Target}
		for _, p := range s.Points {
			cs.Points = append(cs.Points, plots.CostPoint{Bytes: p.Bytes, Median: p.Median, Min: p.Min, P99: p.P99, CPU: p.CPU,
				Iterations: p.Iterations, Stable: p.Stable})
		}
		out[i] = cs
	}
	return out
}

func measuredTable(a *analysis, q record.Quantity, ss []record.Series) *docTable {
	t := &docTable{Caption: "Measured against the model of the path each series names (latency: pipelined, as in the summary).",
		Head:   []string{"series", "size", "median", "min", "p99", "model", "measured / model"},
		Widths: []float64{2.4, 0.8, 0.9, 0.9, 0.9, 0.9, 0.9},
		Right:  []bool{false, true, true, true, true, true, true}}
	switch q {
	case record.Bandwidth:
		t.Caption = "Measured against the model's streaming bandwidth of the path each series names."
		t.Head = []string{"series", "size", "throughput", "time per message", "CPU per message", "model", "measured / model"}
	case record.Cost:
		t.Caption = "Measured costs of single operations; the model takes them as parameters and has no curve for them."
	}
	// A size measured more than once (a run repeating its sweep) is one row:
	// how many records, the median of their medians (rates), the smallest
	// min and the largest p99; the figures and their data files keep every
	// record.
	var rows [][]cell
	repeated := false
	for _, s := range ss {
		pts := append([]record.Point(nil), s.Points...)
		sort.SliceStable(pts, func(i, j int) bool { return pts[i].Bytes < pts[j].Bytes })
		for len(pts) > 0 {
			n := 1
			for n < len(pts) && pts[n].Bytes == pts[0].Bytes {
				n++
			}
			pt := summarize(pts[:n])
			pts = pts[n:]
			repeated = repeated || n > 1
			row := []cell{c(s.Label), c(pt.Bytes.Human()), c(strconv.Itoa(n))}
			if q == record.Bandwidth {
				cpu := "—"
				if pt.CPU > 0 {
					cpu = pt.CPU.Human()
				}
				row = append(row, c(pt.Rate.Human()), c(pt.Median.Human()), c(cpu))
			} else {
				row = append(row, c(pt.Median.Human()), c(pt.Min.Human()), c(pt.P99.Human()))
			}
			mv, ok := a.modelValue(q, s.Path, pt.Bytes)
			switch {
			case !ok:
				row = append(row, c("—"), c("—"))
			case q == record.Bandwidth:
				row = append(row, c(units.Rate(mv).Human()), c(ratio(valueOf(q, pt), mv)))
			default:
				row = append(row, c(units.Seconds(mv).Human()), c(ratio(valueOf(q, pt), mv)))
			}
			rows = append(rows, row)
		}
	}
	if !repeated {
		// Every size measured once: no column of ones.
		for i, r := range rows {
			rows[i] = append(r[:2:2], r[3:]...)
		}
		t.Rows = rows
		return t
	}
	t.Caption += " A size measured more than once is one row: its records, the median of their medians, the smallest min and the largest p99."
	t.Head = append(t.Head[:2:2], append([]string{"records"}, t.Head[2:]...)...)
	t.Widths = append(t.Widths[:2:2], append([]float64{0.6}, t.Widths[2:]...)...)
	t.Right = append(t.Right[:2:2], append([]bool{true}, t.Right[2:]...)...)
	t.Rows = rows
	return t
}

// summarize is the points of one size as one: the median of their medians,
// rates and CPU times, the smallest min, the largest p99, all iterations,
// stable when every one is.
func summarize(pts []record.Point) record.Point {
	if len(pts) == 1 {
		return pts[0]
	}
	p := pts[0]
	med := make([]float64, len(pts))
	rate := make([]float64, len(pts))
	cpu := make([]float64, len(pts))
	p.Iterations = 0
	for i, x := range pts {
		med[i], rate[i], cpu[i] = float64(x.Median), float64(x.Rate), float64(x.CPU)
		p.Min = min(p.Min, x.Min)
		p.P99 = max(p.P99, x.P99)
		p.Iterations += x.Iterations
		p.Stable = p.Stable && x.Stable
	}
	p.Median, p.Rate, p.CPU = units.Seconds(medianOf(med)), units.Rate(medianOf(rate)), units.Seconds(medianOf(cpu))
	p.Samples = nil
	return p
}

// medianOf is the median of v (sorted in place).
func medianOf(v []float64) float64 {
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func ratio(m, v float64) string {
	if v <= 0 {
		return "—"
	}
	return strings.TrimSuffix(strconv.FormatFloat(m/v, 'f', 2, 64), ".00") + "×"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
