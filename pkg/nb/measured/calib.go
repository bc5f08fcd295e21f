package measured

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Seed is the bootstrap seed of the notebooks' fits (as `gpupath fit`'s
// default), so that an executed notebook shows the same intervals each time.
const Seed = 1

// Calibrate fits the committed example run under root on top of base (nil:
// the default preset), as `gpupath fit --data` does. Runs made here are left
// out: their loopback and copies were measured on another machine, and a
// fit merges the series of all the runs it is given.
func Calibrate(root string, base *model.Scenario) (*calib.Calibration, error) {
	rd, err := record.ReadRun(filepath.Join(root, filepath.FromSlash(ExampleRun)))
	if err != nil {
		return nil, err
	}
	return calib.Calibrate([]*record.RunData{rd}, base, fit.Options{Seed: Seed})
}

// CalibrationNote says in Markdown what was calibrated from what: the runs,
// the base scenario, the number of fits and keys set, and the chunk size
// of the measured pipelined transfer.
func CalibrationNote(c *calib.Calibration) string {
	var runs []string
	for _, r := range c.Runs {
		runs = append(runs, fmt.Sprintf("`%s` (measured on `%s` at %s)", dirName(r.Dir), r.Host, stamp(r.Start)))
	}
	s := fmt.Sprintf("Calibrated from %s on top of the `%s` preset: %d measured curves fitted, %d scenario keys set.",
		strings.Join(runs, ", "), c.Base.Name, len(c.Fits), len(c.Keys))
	if c.Chunk > 0 {
		s += fmt.Sprintf(" The pipelined transfer was measured in %s chunks.", units.Bytes(c.Chunk).Human())
	}
	for _, w := range c.Warnings {
		s += "\n\n*Warning*: " + w
	}
	return s
}

// dirName is a run directory with its parent: "h200-1gpu/run".
func dirName(dir string) string { return filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir) }

func level(c *calib.Calibration) string {
	for _, f := range c.Fits {
		if f.Fit.Level > 0 {
			return fmt.Sprintf("%.0f%%", 100*f.Fit.Level)
		}
	}
	return fmt.Sprintf("%.0f%%", 100*fit.DefaultLevel)
}

// interval formats a fitted value with its interval: "6.92 µs [6.89 µs,
// 6.96 µs]", "< 31 ns" (not distinguishable from 0), "> 50 GB/s" (only
// bounded below).
func interval(v fit.Interval, unit func(float64) string) string {
	switch {
	case v.UpperBound():
		return "< " + unit(v.Hi)
	case v.LowerBound():
		return "> " + unit(v.Lo)
	}
	val, lo, hi := unit(v.Value), unit(v.Lo), unit(v.Hi)
	if u := suffix(val); u != "" && suffix(lo) == u && suffix(hi) == u {
		lo, hi = strings.TrimSuffix(lo, " "+u), strings.TrimSuffix(hi, " "+u)
	}
	return val + " [" + lo + ", " + hi + "]"
}

// suffix is the unit of a formatted value: "µs" of "7.5 µs".
func suffix(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// FitTable is an HTML table of the fits: each measured stage's fixed
// latency α and bandwidth β with their bootstrap intervals next to the
// preset's values, the sizes fitted, how far the fitted line is from the
// medians, a second regime past a knee, and the fit's warnings.
func FitTable(c *calib.Calibration) string {
	t := &nb.Table{Caption: fmt.Sprintf("Fitted α + n/β (%s intervals, bootstrap over the repetitions) next to %s", level(c), c.Base.Name),
		Head: []string{"stage", "what was measured", "fitted α", c.Base.Name + " α", "fitted β", c.Base.Name + " β", "sizes",
			"line vs medians: median / worst", "notes"},
		Right: []bool{false, false, true, true, true, true, true, true, false}}
	for _, f := range c.Fits {
		var notes []string
		if g := f.Regimes; g != nil {
			notes = append(notes, fmt.Sprintf("two regimes: the line holds up to %s; beyond, β %s (the split removes %s of one line's error)",
				units.Bytes(g.Break).Human(), interval(g.Above.Beta, rateOf), share(g.Improvement)))
		}
		for _, w := range f.Fit.Warnings {
			notes = append(notes, w.Message)
		}
		t.Add(f.Stage, f.Name, interval(f.Fit.Alpha, seconds), units.Seconds(f.PresetAlpha).Human(),
			interval(f.Fit.Beta, rateOf), rateOf(f.PresetBeta), strconv.Itoa(f.Fit.Sizes),
			trim(f.Fit.MedianAPE)+"% / "+trim(f.Fit.WorstAPE)+"% ("+units.Bytes(f.Fit.WorstBytes).Human()+")",
			strings.Join(notes, "; "))
	}
	return t.HTML()
}

// KeysTable is an HTML table of the scenario keys the calibration set:
// before, after, and where the value comes from.
func KeysTable(c *calib.Calibration) string {
	t := &nb.Table{Caption: "Scenario keys set by the calibration", Head: []string{"key", c.Base.Name, "calibrated", "where it comes from"},
		Right: []bool{false, true, true, false}}
	for _, k := range c.Keys {
		t.Add(k.Key, calib.Display(k.Before), calib.Display(k.After), k.Source)
	}
	return t.HTML()
}

// staged returns the comparisons of the staged transfer (the tcp path on
// loopback), store-and-forward first.
func staged(c *calib.Calibration) []calib.Comparison {
	var out []calib.Comparison
	for _, v := range []string{"store-and-forward", "pipelined"} {
		for _, cmp := range c.Comparison {
			if cmp.Path == "tcp" && cmp.Variant == v && len(cmp.Bytes) > 0 {
				out = append(out, cmp)
			}
		}
	}
	return out
}

// ResidualsInput is what the residuals figure compares: the calibrated
// loopback scenario (or the base one, preset true) against the measured
// staged store-and-forward transfer (tcp) and TCP over loopback (host-tcp:
// ping-pong latency and streaming bandwidth).
func ResidualsInput(c *calib.Calibration, root string, preset bool) (plots.Input, error) {
	s := c.Loopback
	if preset {
		var err error
		if s, err = nb.With(c.Base, "nic.kind=loopback", "nic.rdma=false"); err != nil {
			return plots.Input{}, err
		}
		s.Name = c.Base.Name + " on loopback"
	}
	rd, err := record.ReadRun(filepath.Join(root, filepath.FromSlash(ExampleRun)))
	if err != nil {
		return plots.Input{}, err
	}
	in := plots.Input{Scenario: s}
	for _, cmp := range staged(c) {
		if cmp.Variant != "store-and-forward" {
			continue
		}
		m := plots.Measured{Label: "staged transfer, store-and-forward", Path: "tcp", Source: source(rd) + ", loopback"}
		for i, n := range cmp.Bytes {
			m.Points = append(m.Points, plots.Point{Bytes: n, Seconds: cmp.Measured[i]})
		}
		in.Measured = append(in.Measured, m)
	}
	pp, st := loopbackSeries(rd, "host-tcp")
	for _, m := range []plots.Measured{pp, st} {
		if len(m.Points) > 0 {
			in.Measured = append(in.Measured, m)
		}
	}
	return in, nil
}

// Residuals is plots.Residuals of ResidualsInput.
func Residuals(c *calib.Calibration, root string, preset bool) (*plots.Figure, error) {
	in, err := ResidualsInput(c, root, preset)
	if err != nil {
		return nil, err
	}
	return plots.Residuals(in)
}

// StagedChart draws the staged transfer (GPU → host → TCP over loopback →
// host → GPU) as measured, store-and-forward and pipelined, over the
// predictions of the preset model (dashed) and the calibrated one (solid),
// with a second panel of each prediction's error in percent.
func StagedChart(c *calib.Calibration) (*nb.Chart, error) {
	cs := staged(c)
	if len(cs) == 0 {
		return nil, fmt.Errorf("nb: the runs hold no staged transfer (staged probe)")
	}
	lat := nb.SizePanel{Title: "one transfer, GPU to GPU", YLabel: "time per transfer", LogY: true, YFormat: seconds}
	errs := nb.SizePanel{Title: "model error: (model − measured) / measured", YLabel: "error (%)", Signed: true, Zero: true}
	for _, cmp := range cs {
		clr, mark := plots.Vermillion, plots.Mark{Shape: plots.Circle, Filled: true}
		if cmp.Variant == "pipelined" {
			clr, mark = plots.Blue, plots.Mark{Shape: plots.Triangle, Filled: true}
		}
		for _, m := range []struct {
			name   string
			pred   []float64
			dashes []vg.Length
		}{{c.Base.Name + " model", cmp.Preset, plots.Dashed}, {"calibrated model", cmp.Calibrated, nil}} {
			cv := nb.Curve{Label: m.name + ", " + cmp.Variant, Color: clr, Dashes: m.dashes, X: cmp.Bytes, Y: m.pred}
			ev := nb.Curve{Label: cv.Label, Color: clr, Dashes: m.dashes, X: cmp.Bytes}
			for i := range cmp.Bytes {
				ev.Y = append(ev.Y, 100*(m.pred[i]-cmp.Measured[i])/cmp.Measured[i])
			}
			lat.Curves, errs.Curves = append(lat.Curves, cv), append(errs.Curves, ev)
		}
		mk := mark
		lat.Curves = append(lat.Curves, nb.Curve{Label: "measured, " + cmp.Variant, Color: clr, Mark: &mk, X: cmp.Bytes, Y: cmp.Measured})
	}
	errs.NoLegend = true
	var runs []string
	for _, r := range c.Runs {
		runs = append(runs, fmt.Sprintf("%s, %s, %s", dirName(r.Dir), r.Host, stamp(r.Start)))
	}
	sub := fmt.Sprintf("measured: staged probe (%s) · modeled: %s and %s", strings.Join(runs, "; "), c.Base.Name, c.Loopback.Name)
	if c.Chunk > 0 {
		sub += fmt.Sprintf(" · pipelined in %s chunks", units.Bytes(c.Chunk).Human())
	}
	return nb.SizeChart("The staged transfer over loopback: measured against the preset and the calibrated model", sub,
		plots.DefaultHeight*1.8, lat, errs)
}

// ComparisonTable is an HTML table of every end-to-end comparison of the
// calibration: for each measured curve, the preset's and the calibrated
// model's median and worst error over its sizes (and, for the staged
// transfer, the prediction from the component probes alone and the error
// over the sizes of two chunks or more).
func ComparisonTable(c *calib.Calibration) string {
	t := &nb.Table{Caption: "Model against measurement (error = model − measured, in % of measured; median of |error| and the worst)",
		Head:  []string{"measured curve", "sizes", c.Base.Name + ": median", "worst (at size)", "calibrated: median", "worst (at size)", "also"},
		Right: []bool{false, true, true, true, true, true, false}}
	worst := func(e fit.Comparison) string {
		return signed(e.WorstPercent) + " (" + units.Bytes(e.WorstBytes).Human() + ")"
	}
	for _, cmp := range c.Comparison {
		var also []string
		if e := cmp.ComponentsOnlyErr; e != nil {
			also = append(also, fmt.Sprintf("from the component probes alone: median %s%%, worst %s", trim(e.MedianAPE), worst(*e)))
		}
		if e := cmp.MultiChunk; e != nil {
			also = append(also, fmt.Sprintf("calibrated, over the %d sizes of two chunks or more: median %s%%, worst %s", len(e.Points), trim(e.MedianAPE), worst(*e)))
		}
		t.Add(cmp.Label, strconv.Itoa(len(cmp.Bytes)), trim(cmp.PresetErr.MedianAPE)+"%", worst(cmp.PresetErr),
			trim(cmp.CalibratedErr.MedianAPE)+"%", worst(cmp.CalibratedErr), strings.Join(also, "; "))
	}
	return t.HTML()
}

// Verdicts says in Markdown, for the staged transfer in each variant (all
// comparisons when all is true), which stage each model gets wrong where
// its median error is above calib.Large, and that it has none to blame
// where it is not.
func Verdicts(c *calib.Calibration, all bool) string {
	cs := staged(c)
	if all {
		cs = c.Comparison
	}
	var b strings.Builder
	say := func(model, verdict string, e fit.Comparison) {
		switch {
		case verdict != "":
			fmt.Fprintf(&b, "  - %s (median error %s%%): %s\n", model, trim(e.MedianAPE), verdict)
		case e.MedianAPE <= calib.Large:
			fmt.Fprintf(&b, "  - %s: median error %s%%, within the %s%% the calibration tolerates: no stage to blame.\n", model, trim(e.MedianAPE), trim(calib.Large))
		default:
			fmt.Fprintf(&b, "  - %s: median error %s%%, above %s%%; no stage named, as the calibration blames a single stage only where stage times add up (store-and-forward).\n",
				model, trim(e.MedianAPE), trim(calib.Large))
		}
	}
	for _, cmp := range cs {
		fmt.Fprintf(&b, "- **%s**\n", cmp.Label)
		say("the model with preset `"+c.Base.Name+"`", cmp.PresetVerdict, cmp.PresetErr)
		say("the calibrated model", cmp.CalibratedVerdict, cmp.CalibratedErr)
	}
	return b.String()
}

// StageRows is an HTML table of the staged transfer stage by stage: where
// each stage's parameters come from (measured on this host, or the
// preset), its α and β, and at each of calib.StageSizes the calibrated
// model's time next to the measured one.
func StageRows(c *calib.Calibration) string {
	head := []string{"stage", "parameters", "α", "β"}
	right := []bool{false, false, true, true}
	for _, n := range calib.StageSizes {
		h := units.Bytes(n).Human()
		head = append(head, h+": model | measured")
		right = append(right, true)
	}
	t := &nb.Table{Caption: "The staged transfer stage by stage: the calibrated model, and what the stage's own probe measured (— where none did)", Head: head, Right: right}
	for _, r := range c.Stages {
		src, _, _ := strings.Cut(r.Source, ", fit ")
		row := []string{strings.TrimSpace(r.Letter + " " + r.Name), src, interval(r.Alpha, seconds), interval(r.Beta, rateOf)}
		if !r.Measured {
			row[2], row[3] = units.Seconds(r.Alpha.Value).Human(), rateOf(r.Beta.Value)
		}
		for i := range calib.StageSizes {
			m := "—"
			if i < len(r.MeasuredAt) && !math.IsNaN(r.MeasuredAt[i]) {
				m = units.Seconds(r.MeasuredAt[i]).Human()
			}
			row = append(row, units.Seconds(r.Modeled[i]).Human()+" | "+m)
		}
		t.Add(row...)
	}
	return t.HTML()
}

// Speedup says in Markdown how much faster the pipelined staged transfer
// is than store-and-forward at the largest size measured in both
// variants: measured, and as the calibrated and the preset model predict.
func Speedup(c *calib.Calibration) (string, error) {
	rows, err := calib.Speedup(c)
	if err != nil {
		return "", fmt.Errorf("nb: %w", err)
	}
	r := rows[len(rows)-1]
	sf, pl, x := r.StoreAndForward, r.Pipelined, r.Speedup()
	times := func(v float64) string { return ratio(v) + "×" }
	chunk := ""
	if c.Chunk > 0 {
		chunk = " in " + units.Bytes(c.Chunk).Human() + " chunks"
	}
	return fmt.Sprintf("At %s, pipelining%s makes the staged transfer **%s as fast** as store-and-forward: %s against %s, measured. "+
		"The calibrated model predicts %s (%s against %s); the model with preset `%s` %s (%s against %s).",
		units.Bytes(r.Bytes).Human(), chunk, times(x.Measured), units.Seconds(pl.Measured).Human(), units.Seconds(sf.Measured).Human(),
		times(x.Calibrated), units.Seconds(pl.Calibrated).Human(), units.Seconds(sf.Calibrated).Human(),
		c.Base.Name, times(x.Preset), units.Seconds(pl.Preset).Human(), units.Seconds(sf.Preset).Human()), nil
}
