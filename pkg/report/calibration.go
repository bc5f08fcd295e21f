package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// The section "Model against measurement": what the calibration (pkg/calib)
// fitted, the scenario it built, and the model before and after it against
// every measured end-to-end curve, with the staged transfer stage by stage.
// Every number comes from the Calibration; nothing here is fitted again.

// calibration fills the section.
func (b *builder) calibration(sec *section) {
	in := b.in
	cal := in.Calibration
	if cal == nil {
		why := "no measurement run was given"
		switch {
		case in.CalibrationNote != "":
			why = in.CalibrationNote
		case len(in.Measured) > 0:
			why = "the runs were not calibrated"
		}
		sec.note("No calibration: " + why + ". The model is fitted to runs that measured GPU copies (cuda), TCP ping-pong on loopback (tcp) or GPU peer copies; gpupath report --data DIR calibrates the runs it is given, as gpupath fit --data DIR does.")
		return
	}
	where := calibWhere(cal)
	sec.p("The model's stage parameters fitted to %s (latency α and bandwidth β of each measured stage, t(n) = α + n/β, with %s bootstrap intervals over the repetitions), and the model against what those runs measured end to end — with scenario %s as it stands (the preset) and with the calibrated scenario %s (the preset with the fitted and measured keys below). A disagreement larger than %.0f%% (median over sizes) is explained by the stage the model gets wrong, found by refitting each stage's terms.",
		where, pctLevel(cal), cal.Base.Name, cal.Scenario.Name, calib.Large)

	// Fitted parameters.
	sec.h3("Fitted parameters, next to the preset's")
	sec.table(fitTable(cal))
	if notes := fitNotes(cal); len(notes) > 0 {
		sec.p("Two-regime fits and warnings:")
		sec.list(notes)
	}

	// The calibrated scenario.
	sec.h3("Scenario " + cal.Scenario.Name + ": the keys that changed")
	sec.p("These keys of scenario %s were changed to build %s: fitted (fit: …), measured directly (measured: …, sysfs, NVML), or derived from measurements. Every other key keeps its preset value.", cal.Base.Name, cal.Scenario.Name)
	sec.table(keysTable(cal))

	// Error per path.
	if len(cal.Comparison) > 0 {
		sec.h3("Error per path")
		sec.p("The model against every measured curve: median and worst absolute percentage error over the measured sizes, 100·|model − measured|/measured, with preset %s and calibrated. %s", cal.Base.Name, withinSentence(cal))
		sec.table(errorTable(cal))
	}

	// One figure per comparison.
	origin := fmt.Sprintf("measured on %s; modeled from scenario %s (preset) and %s (calibrated)", calibRuns(cal), cal.Base.Name, cal.Scenario.Name)
	for i, cmp := range cal.Comparison {
		sec.h3("Model against measurement: " + cmp.Label)
		sec.text(comparisonText(cal, cmp))
		if cmp.PresetVerdict != "" {
			sec.note(fmt.Sprintf("With preset %s: %s.", cal.Base.Name, strings.TrimSuffix(cmp.PresetVerdict, ".")))
		}
		if cmp.CalibratedVerdict != "" {
			sec.note(fmt.Sprintf("Calibrated: %s.", strings.TrimSuffix(cmp.CalibratedVerdict, ".")))
		}
		pc := comparisonOf(cmp, cal)
		pc.Title, pc.What = "Model against measurement: "+cmp.Label, comparisonCaption(cal, cmp)
		pc.Provenance = fmt.Sprintf("modeled: scenario %s (preset) and %s (calibrated) · measured: %s", cal.Base.Name, cal.Scenario.Name, calibRuns(cal))
		// Input.validate checked the comparisons: an error is not expected.
		b.plot(sec, fmt.Sprintf("calib-%d-%s", i+1, slugID(cmp.Path+"-"+cmp.Variant)), "modeled and measured", origin)(plots.ModelComparison(pc))
	}

	// The staged transfer, stage by stage.
	if len(cal.Stages) > 0 {
		sec.h3("The staged transfer, stage by stage")
		sec.p("The transfer from GPU to GPU through host memory and a TCP socket on one host (%s), as the calibrated model splits it. The badge says where each stage's parameters come from: measured (fitted to the probe named) or preset (scenario %s, not measured). For each size the table gives the calibrated model's time for the stage, the stage measured alone (its own probe) and inside the staged store-and-forward transfer (the probe times each step of the transfer): the difference between the two measured times is what running together costs, and the model knows only the first.",
			stagedTarget(cal), cal.Base.Name)
		sec.table(calibStageTable(cal))
		for _, s := range missSentences(cal) {
			sec.text(s)
		}
		if s := unmeasuredStages(cal); s != "" {
			sec.text(s)
		}
	}

	// Pipelined against store-and-forward.
	if t, s := speedup(cal); t != nil {
		sec.h3("Pipelined against store-and-forward")
		sec.text(s)
		sec.table(t)
	}

	if len(cal.Warnings) > 0 {
		sec.p("Calibration warnings:")
		sec.list(cal.Warnings)
	}
}

// calibWhere names the runs: "vm at 2026-11-29T15:07:16Z (runs/vm-…)".
func calibWhere(cal *calib.Calibration) string {
	var parts []string
	for _, r := range cal.Runs {
		parts = append(parts, fmt.Sprintf("%s at %s (%s)", orNone(r.Host), stamp(r.Start), r.Dir))
	}
	if len(parts) == 0 {
		return "the measurement runs"
	}
	return "the run" + map[bool]string{true: "s", false: ""}[len(parts) > 1] + " measured on " + strings.Join(parts, "; ")
}

// calibRuns names the runs for a figure's origin: "vm at … (dir)".
func calibRuns(cal *calib.Calibration) string {
	var parts []string
	for _, r := range cal.Runs {
		parts = append(parts, fmt.Sprintf("%s at %s (%s)", orNone(r.Host), stamp(r.Start), r.Dir))
	}
	return strings.Join(parts, "; ")
}

func calibHosts(cal *calib.Calibration) string {
	var hs []string
	for _, r := range cal.Runs {
		hs = append(hs, orNone(r.Host))
	}
	return list(uniq(hs))
}

func pctLevel(cal *calib.Calibration) string {
	for _, f := range cal.Fits {
		if f.Fit.Level > 0 {
			return trim(strconv.FormatFloat(100*f.Fit.Level, 'f', 1, 64)) + "%"
		}
	}
	return "95%"
}

func pct(v float64) string  { return fmt.Sprintf("%.1f%%", v) }
func spct(v float64) string { return strings.Replace(fmt.Sprintf("%+.1f%%", v), "-", "−", 1) }

// secs formats a time; an interval's bounds go in brackets.
func secs(v float64) string { return units.Seconds(v).Human() }

func alphaText(v fit.Interval) (string, string) {
	switch {
	case v.UpperBound():
		return "< " + secs(v.Hi), "not distinguishable from 0"
	case v.LowerBound():
		return secs(v.Value), secs(v.Lo) + " to ∞"
	}
	return secs(v.Value), bounds(secs(v.Lo), secs(v.Hi))
}

func betaText(v fit.Interval) (string, string) {
	switch {
	case math.IsInf(v.Value, 1):
		return "> " + units.Rate(v.Lo).Human(), "the n/β term is lost in the noise"
	case v.LowerBound():
		return units.Rate(v.Value).Human(), units.Rate(v.Lo).Human() + " to ∞"
	}
	return units.Rate(v.Value).Human(), bounds(units.Rate(v.Lo).Human(), units.Rate(v.Hi).Human())
}

// bounds writes an interval's bounds short: "6.89–6.96 µs" when both have
// the same unit, "980 ns–1.02 µs" when not.
func bounds(lo, hi string) string {
	ln, lu, ok1 := strings.Cut(lo, " ")
	hn, hu, ok2 := strings.Cut(hi, " ")
	if ok1 && ok2 && lu == hu {
		return ln + "\u00a0–\u00a0" + hn + " " + hu
	}
	return lo + "\u00a0–\u00a0" + hi
}

func fitTable(cal *calib.Calibration) *docTable {
	t := &docTable{Caption: fmt.Sprintf("Each measured stage fitted as t(n) = α + n/β; the value and, under it, its %s interval. The preset's α and β are scenario %s's for the same stage.", pctLevel(cal), cal.Base.Name),
		Head:   []string{"stage", "fitted to", "α", "β", "preset α", "preset β", "fit"},
		Widths: []float64{0.5, 2.6, 1, 1.15, 0.75, 0.85, 1},
		Right:  []bool{false, false, true, true, true, true, false}}
	for _, f := range cal.Fits {
		a, as := alphaText(f.Fit.Alpha)
		bt, bs := betaText(f.Fit.Beta)
		se := f.Series
		src := fmt.Sprintf("%s %s (%s timer, %s), %d sizes from %s to %s, %d repetitions", se.Probe, se.Variant, se.Timer, se.Target, f.Fit.Sizes,
			firstSize(se.Points).Human(), lastSize(se.Points).Human(), f.Fit.Repetitions)
		var notes []string
		if f.Regimes != nil {
			notes = append(notes, "two regimes")
		}
		if n := len(f.Fit.Warnings); n > 0 {
			notes = append(notes, fmt.Sprintf("%d warning%s", n, map[bool]string{true: "s", false: ""}[n > 1]))
		}
		pb := "—"
		if finitePos(f.PresetBeta) {
			pb = units.Rate(f.PresetBeta).Human()
		}
		t.Rows = append(t.Rows, []cell{c(f.Stage), {Text: f.Name, Sub: src}, {Text: a, Sub: as, NoWrap: true}, {Text: bt, Sub: bs, NoWrap: true},
			c(secs(f.PresetAlpha)), c(pb), {Text: "median error " + pct(f.Fit.MedianAPE), Sub: strings.Join(notes, "; ")}})
	}
	return t
}

// firstSize and lastSize are the smallest and the largest size of a
// series' points (in ascending size), 0 without points.
func firstSize(ps []record.Point) units.Bytes {
	if len(ps) == 0 {
		return 0
	}
	return ps[0].Bytes
}

func lastSize(ps []record.Point) units.Bytes {
	if len(ps) == 0 {
		return 0
	}
	return ps[len(ps)-1].Bytes
}

func first(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

func last(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return v[len(v)-1]
}

// fitNotes lists the two-regime fits and the fits' warnings.
func fitNotes(cal *calib.Calibration) []string {
	var out []string
	for _, f := range cal.Fits {
		if g := f.Regimes; g != nil {
			bt, bs := betaText(g.Above.Beta)
			out = append(out, fmt.Sprintf("%s, %s: two regimes describe it better than one line (the split removes %.0f%% of one line's error): up to %s as in the table; beyond, β %s (%s).",
				f.Stage, f.Name, 100*g.Improvement, units.Bytes(g.Break).Human(), bt, bs))
		}
		for _, w := range f.Fit.Warnings {
			out = append(out, fmt.Sprintf("%s, %s: warning: %s", f.Stage, f.Name, w.Message))
		}
	}
	return out
}

func keysTable(cal *calib.Calibration) *docTable {
	t := &docTable{Head: []string{"key", cal.Base.Name, cal.Scenario.Name, "source"}, Widths: []float64{1.35, 0.85, 0.85, 4}}
	for _, k := range cal.Keys {
		t.Rows = append(t.Rows, []cell{c(k.Key), c(calib.Display(k.Before)), c(calib.Display(k.After)), c(k.Source)})
	}
	return t
}

// within counts the comparisons whose median error is within calib.Large,
// with the preset and calibrated.
func within(cal *calib.Calibration) (preset, calibrated int) {
	for _, cmp := range cal.Comparison {
		if cmp.PresetErr.MedianAPE <= calib.Large {
			preset++
		}
		if cmp.CalibratedErr.MedianAPE <= calib.Large {
			calibrated++
		}
	}
	return preset, calibrated
}

// withinSentence counts the comparisons within calib.Large.
func withinSentence(cal *calib.Calibration) string {
	pre, ok := within(cal)
	return fmt.Sprintf("Calibrated, %d of the %d comparisons have a median error of %.0f%% or less; with preset %s, %d.", ok, len(cal.Comparison), calib.Large, cal.Base.Name, pre)
}

func errCell(e fit.Comparison) cell {
	return cell{Text: pct(e.MedianAPE), Sub: fmt.Sprintf("worst %s at %s", spct(e.WorstPercent), units.Bytes(e.WorstBytes).Human())}
}

func errorTable(cal *calib.Calibration) *docTable {
	comp, multi := false, false
	for _, cmp := range cal.Comparison {
		comp = comp || cmp.ComponentsOnlyErr != nil
		multi = multi || cmp.MultiChunk != nil
	}
	t := &docTable{Caption: "Median absolute percentage error over the measured sizes; under it the worst error, signed (negative: the model is too fast). Components only: the calibrated model before any parameter was taken from the transfer itself; ≥ 2 chunks: the calibrated model over the sizes of two chunks or more.",
		Head: []string{"comparison", "sizes", "preset " + cal.Base.Name, "calibrated"}, Widths: []float64{2.1, 0.8, 1.15, 1.15}, Right: []bool{false, false, true, true}}
	if comp {
		t.Head = append(t.Head, "components only")
		t.Widths, t.Right = append(t.Widths, 1.15), append(t.Right, true)
	}
	if multi {
		t.Head = append(t.Head, "≥ 2 chunks")
		t.Widths, t.Right = append(t.Widths, 1.15), append(t.Right, true)
	}
	for _, cmp := range cal.Comparison {
		row := []cell{{Text: cmp.Label, Sub: "path " + cmp.Path + ", " + cmp.Variant},
			c(fmt.Sprintf("%d, %s–%s", len(cmp.Bytes), units.Bytes(first(cmp.Bytes)).Human(), units.Bytes(last(cmp.Bytes)).Human())),
			errCell(cmp.PresetErr), errCell(cmp.CalibratedErr)}
		if comp {
			if e := cmp.ComponentsOnlyErr; e != nil {
				row = append(row, errCell(*e))
			} else {
				row = append(row, c("—"))
			}
		}
		if multi {
			if e := cmp.MultiChunk; e != nil {
				x := errCell(*e)
				x.Sub = fmt.Sprintf("%d sizes; ", len(e.Points)) + x.Sub
				row = append(row, x)
			} else {
				row = append(row, c("—"))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// comparisonText says how far each model is, in numbers.
func comparisonText(cal *calib.Calibration, cmp calib.Comparison) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured at %d sizes from %s to %s (the median of each). With preset %s the model of path %s is off by a median of %s (worst %s at %s); calibrated, by %s (worst %s at %s).",
		len(cmp.Bytes), units.Bytes(first(cmp.Bytes)).Human(), units.Bytes(last(cmp.Bytes)).Human(), cal.Base.Name, cmp.Path,
		pct(cmp.PresetErr.MedianAPE), spct(cmp.PresetErr.WorstPercent), units.Bytes(cmp.PresetErr.WorstBytes).Human(),
		pct(cmp.CalibratedErr.MedianAPE), spct(cmp.CalibratedErr.WorstPercent), units.Bytes(cmp.CalibratedErr.WorstBytes).Human())
	if e := cmp.ComponentsOnlyErr; e != nil {
		fmt.Fprintf(&b, " From the component probes alone (no parameter taken from this transfer) it is off by %s (worst %s at %s).",
			pct(e.MedianAPE), spct(e.WorstPercent), units.Bytes(e.WorstBytes).Human())
	}
	if e := cmp.MultiChunk; e != nil {
		fmt.Fprintf(&b, " Over the %d sizes of two chunks (%s) or more, where the chunks overlap, the calibrated model is off by %s (worst %s at %s).",
			len(e.Points), units.Bytes(cal.Chunk).Human(), pct(e.MedianAPE), spct(e.WorstPercent), units.Bytes(e.WorstBytes).Human())
	}
	preOff, calOff := cmp.PresetErr.MedianAPE > calib.Large, cmp.CalibratedErr.MedianAPE > calib.Large
	switch {
	case !preOff && !calOff:
		fmt.Fprintf(&b, " Neither model is off by more than %.0f%% (median): there is no disagreement to explain.", calib.Large)
	case preOff && cmp.PresetVerdict == "" || calOff && cmp.CalibratedVerdict == "":
		fmt.Fprintf(&b, " A pipelined transfer's time is not the sum of its stages' times, so no single stage is blamed for an error above %.0f%% here.", calib.Large)
	}
	return b.String()
}

func comparisonCaption(cal *calib.Calibration, cmp calib.Comparison) string {
	s := fmt.Sprintf("Left: the measured medians of %s (points) and the model of path %s with preset %s (grey, dashed) and calibrated (blue)", cmp.Label, cmp.Path, cal.Base.Name)
	if cmp.ComponentsOnly != nil {
		s += ", and from the component probes alone (light blue, dotted)"
	}
	s += fmt.Sprintf(", log–log. Right: each model's error at each measured size, 100·(model − measured)/measured (positive: the model predicts more time than was measured); the shaded band is ±%.0f%%.", calib.Large)
	return s
}

// comparisonOf maps a comparison onto pkg/plots' form: the measured
// medians, the preset and calibrated models (and the component probes'
// one) with calib's error at each size.
func comparisonOf(cmp calib.Comparison, cal *calib.Calibration) plots.Comparison {
	errs := func(e *fit.Comparison, pred []float64) []float64 {
		out := make([]float64, len(cmp.Bytes))
		for j := range out {
			if e != nil && len(e.Points) == len(cmp.Bytes) && e.Points[j].Bytes == cmp.Bytes[j] {
				out[j] = e.Points[j].Percent
			} else {
				out[j] = 100 * (pred[j] - cmp.Measured[j]) / cmp.Measured[j]
			}
		}
		return out
	}
	// The curves through many sizes, where calib gives them for every model.
	curve := func(v []float64) []float64 {
		if len(cmp.CurveBytes) == 0 || len(v) != len(cmp.CurveBytes) {
			return nil
		}
		return v
	}
	c := plots.Comparison{Bytes: cmp.Bytes, Measured: cmp.Measured, Band: calib.Large, CurveBytes: cmp.CurveBytes, Models: []plots.ComparisonModel{
		{Label: "model, preset " + cal.Base.Name, Role: plots.PresetModel, Seconds: cmp.Preset, Percent: errs(&cmp.PresetErr, cmp.Preset), Curve: curve(cmp.PresetCurve)},
		{Label: "model, calibrated", Role: plots.CalibratedModel, Seconds: cmp.Calibrated, Percent: errs(&cmp.CalibratedErr, cmp.Calibrated), Curve: curve(cmp.CalibratedCurve)},
	}}
	if cmp.ComponentsOnly != nil {
		c.Models = append(c.Models, plots.ComparisonModel{Label: "model, component probes only", Role: plots.ComponentModel,
			Seconds: cmp.ComponentsOnly, Percent: errs(cmp.ComponentsOnlyErr, cmp.ComponentsOnly), Curve: curve(cmp.ComponentsCurve)})
	}
	return c
}

// slugID makes a figure id of a text: lower-case letters, digits, dashes.
func slugID(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// stagedTarget names what the staged transfer ran between, from its label.
func stagedTarget(cal *calib.Calibration) string {
	for _, cmp := range cal.Comparison {
		if cmp.Path == "tcp" && (cmp.Variant == "store-and-forward" || cmp.Variant == "pipelined") {
			if i := strings.LastIndex(cmp.Label, "("); i >= 0 {
				return strings.TrimSuffix(cmp.Label[i+1:], ")")
			}
		}
	}
	return "the loopback device in place of the NIC"
}

// calibStageTable is the staged transfer stage by stage: one row per stage
// and size, each stage badged and tinted measured or preset.
func calibStageTable(cal *calib.Calibration) *docTable {
	t := &docTable{Caption: "Per stage: where its parameters come from, α and β (under them the interval, for a fitted stage), and at each size the calibrated model's time, the stage measured alone (its own probe) and inside the transfer (— where not measured).",
		Head:   []string{"stage", "source", "α", "β", "size", "model", "measured alone", "in the transfer"},
		Widths: []float64{2.2, 0.85, 0.8, 0.95, 0.65, 0.75, 0.85, 0.85},
		Right:  []bool{false, false, true, true, true, true, true, true}}
	for _, r := range cal.Stages {
		kind := "preset"
		if r.Measured {
			kind = "measured"
		}
		a, as := alphaText(r.Alpha)
		bt, bs := betaText(r.Beta)
		if !r.Measured {
			as, bs = "", ""
		}
		for j, n := range calib.StageSizes {
			alone, situ := "—", "—"
			if v := r.MeasuredAt[j]; finitePos(v) {
				alone = secs(v)
			}
			if r.InSitu != nil && finitePos(r.InSitu[j]) {
				situ = secs(r.InSitu[j])
			}
			row := []cell{c(""), c(""), c(""), c(""), c(units.Bytes(n).Human()), c(secs(r.Modeled[j])), c(alone), c(situ)}
			if j == 0 {
				row[0] = cell{Text: strings.TrimSpace(r.Letter + " " + r.Name), Sub: r.Source}
				row[1] = cell{Text: kind, Badge: kind}
				row[2], row[3] = cell{Text: a, Sub: as, NoWrap: true}, cell{Text: bt, Sub: bs, NoWrap: true}
			}
			t.Rows = append(t.Rows, row)
			t.RowClass = append(t.RowClass, kind)
		}
	}
	return t
}

// interpAt reads a curve at n, log–log between its sizes (NaN outside).
func interpAt(xs, ys []float64, n float64) float64 {
	for i := range xs {
		if xs[i] == n {
			return ys[i]
		}
		if i > 0 && xs[i-1] < n && n < xs[i] && ys[i-1] > 0 && ys[i] > 0 {
			f := (math.Log(n) - math.Log(xs[i-1])) / (math.Log(xs[i]) - math.Log(xs[i-1]))
			return math.Exp(math.Log(ys[i-1]) + f*(math.Log(ys[i])-math.Log(ys[i-1])))
		}
	}
	return math.NaN()
}

func findComparison(cal *calib.Calibration, path, variant string) *calib.Comparison {
	for i := range cal.Comparison {
		if cal.Comparison[i].Path == path && cal.Comparison[i].Variant == variant {
			return &cal.Comparison[i]
		}
	}
	return nil
}

// missSentences say, at each size of the stage table, how far the model of
// the whole store-and-forward transfer is from its measurement, and which
// stage differs most from its time inside the transfer.
func missSentences(cal *calib.Calibration) []string {
	sf := findComparison(cal, "tcp", "store-and-forward")
	var out []string
	for j, n := range calib.StageSizes {
		worst, wd := -1, 0.0
		sum, all := 0.0, true
		for i, r := range cal.Stages {
			if r.InSitu == nil || !finitePos(r.InSitu[j]) {
				all = false
				continue
			}
			sum += r.InSitu[j]
			if d := r.Modeled[j] - r.InSitu[j]; worst < 0 || math.Abs(d) > math.Abs(wd) {
				worst, wd = i, d
			}
		}
		if worst < 0 {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "At %s", units.Bytes(n).Human())
		if sf != nil {
			m, p := interpAt(sf.Bytes, sf.Measured, n), interpAt(sf.Bytes, sf.Calibrated, n)
			if finitePos(m) && finitePos(p) {
				fmt.Fprintf(&b, " the calibrated model gives the whole store-and-forward transfer %s against %s measured (%s)", secs(p), secs(m), spct(100*(p-m)/m))
				if all {
					fmt.Fprintf(&b, ", and the stage times inside the transfer add up to %s", secs(sum))
				}
				b.WriteString(";")
			}
		}
		r := cal.Stages[worst]
		alone := ""
		if v := r.MeasuredAt[j]; finitePos(v) {
			alone = fmt.Sprintf(" (%s measured alone)", secs(v))
		}
		fmt.Fprintf(&b, " the stage the model misses most is %s: %s modeled, %s inside the transfer%s, %s.",
			strings.TrimSpace(r.Letter+" "+r.Name), secs(r.Modeled[j]), secs(r.InSitu[j]), alone, spct(100*wd/r.InSitu[j]))
		out = append(out, upper(b.String()))
	}
	return out
}

// unmeasuredStages says which stages of the tcp path between two nodes the
// staged transfer on one host does not cross: they stay the preset's.
func unmeasuredStages(cal *calib.Calibration) string {
	p, err := model.LookupPath("tcp")
	if err != nil {
		return ""
	}
	r := p.Route(cal.Scenario)
	if !r.Feasible {
		return ""
	}
	covered := map[string]bool{}
	for _, row := range cal.Stages {
		for _, l := range strings.Split(row.Letter, "+") {
			covered[l] = true
		}
	}
	var names []string
	for _, st := range r.Stages {
		if st.Letter != "" && !covered[st.Letter] {
			names = append(names, st.Letter+" "+st.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("Between two nodes the tcp path also has %s, which the transfer on one host does not cross: in scenario %s %s from preset %s and the network keys, not measured.",
		list(names), cal.Scenario.Name, map[bool]string{true: "it comes", false: "they come"}[len(names) == 1], cal.Base.Name)
}

// speedup compares the two variants of the staged transfer at the sizes
// of more than one chunk that both measured: the table, and a sentence
// on the largest sizes.
func speedup(cal *calib.Calibration) (*docTable, string) {
	rows, err := calib.Speedup(cal)
	if err != nil {
		return nil, ""
	}
	from := float64(cal.Chunk)
	if from <= 0 {
		from = 1 << 20
	}
	var pts []calib.SpeedupRow
	for _, r := range rows {
		if r.Bytes > from {
			pts = append(pts, r)
		}
	}
	if len(pts) == 0 {
		return nil, ""
	}
	t := &docTable{Caption: "The staged transfer's two variants at the sizes of more than one chunk: measured medians and the speed-up of pipelining (store-and-forward time / pipelined time), measured and as the calibrated model predicts it.",
		Head:   []string{"size", "store-and-forward", "pipelined", "speed-up, measured", "speed-up, calibrated model"},
		Widths: []float64{0.8, 1.1, 1.1, 1.1, 1.2},
		Right:  []bool{true, true, true, true, true}}
	times := func(r float64) string {
		if math.IsNaN(r) {
			return "—"
		}
		return fmt.Sprintf("%.2f×", r)
	}
	for _, p := range pts {
		x := p.Speedup()
		t.Rows = append(t.Rows, []cell{c(units.Bytes(p.Bytes).Human()), c(secs(p.StoreAndForward.Measured)), c(secs(p.Pipelined.Measured)), c(times(x.Measured)), c(times(x.Calibrated))})
	}
	big := pts[len(pts)-1]
	r := big.Speedup().Measured
	var b strings.Builder
	verb := "faster"
	if r < 1 {
		verb = "slower"
	}
	fmt.Fprintf(&b, "At the largest size, %s, the pipelined transfer (chunks of %s overlapping the copies and the socket transfer) takes %s against %s store-and-forward: %.2f× %s (%.0f%% %s time).",
		units.Bytes(big.Bytes).Human(), units.Bytes(from).Human(), secs(big.Pipelined.Measured), secs(big.StoreAndForward.Measured), r, verb, math.Abs(100*(1-1/r)), map[bool]string{true: "less", false: "more"}[r >= 1])
	k := min(3, len(pts))
	lo, hi := math.Inf(1), math.Inf(-1)
	mlo, mhi := math.Inf(1), math.Inf(-1)
	for _, p := range pts[len(pts)-k:] {
		x := p.Speedup()
		lo, hi = math.Min(lo, x.Measured), math.Max(hi, x.Measured)
		mlo, mhi = math.Min(mlo, x.Calibrated), math.Max(mhi, x.Calibrated)
	}
	if k > 1 {
		fmt.Fprintf(&b, " Over the %d largest sizes (%s to %s) the measured speed-up is %.2f× to %.2f×; the calibrated model predicts %.2f× to %.2f×.",
			k, units.Bytes(pts[len(pts)-k].Bytes).Human(), units.Bytes(big.Bytes).Human(), lo, hi, mlo, mhi)
	} else {
		fmt.Fprintf(&b, " The calibrated model predicts %.2f×.", big.Speedup().Calibrated)
	}
	return t, b.String()
}

// calibrationSummary is the summary's sentence on the calibration.
func calibrationSummary(cal *calib.Calibration) string {
	if cal == nil || len(cal.Comparison) == 0 {
		return ""
	}
	pre, ok := within(cal)
	var st []string
	var sp []string
	for _, v := range []string{"store-and-forward", "pipelined"} {
		if cmp := findComparison(cal, "tcp", v); cmp != nil {
			st = append(st, fmt.Sprintf("%s %s", pct(cmp.CalibratedErr.MedianAPE), v))
			sp = append(sp, pct(cmp.PresetErr.MedianAPE))
		}
	}
	lead := fmt.Sprintf("Fitted to the measurements of %s (section “Model against measurement”), the calibrated model", calibHosts(cal))
	if len(st) > 0 {
		return fmt.Sprintf("%s is off by a median of %s over the sizes of the staged GPU-to-GPU transfer on that host (preset %s: %s), and %d of its %d comparisons with measurement are within %.0f%% (preset: %d).",
			lead, list(st), cal.Base.Name, list(sp), ok, len(cal.Comparison), calib.Large, pre)
	}
	if len(cal.Comparison) <= 3 {
		// A count ("within 15% in 0 of its 1 comparisons") says less than
		// the errors themselves.
		var parts, pparts []string
		for _, cmp := range cal.Comparison {
			parts = append(parts, fmt.Sprintf("%s on %s", pct(cmp.CalibratedErr.MedianAPE), cmp.Label))
			pparts = append(pparts, pct(cmp.PresetErr.MedianAPE))
		}
		return fmt.Sprintf("%s is off by a median of %s over the measured sizes (preset %s: %s).",
			lead, list(parts), cal.Base.Name, list(pparts))
	}
	return fmt.Sprintf("%s is within %.0f%% (median error over sizes) in %d of its %d comparisons with measurement (preset %s: %d).",
		lead, calib.Large, ok, len(cal.Comparison), cal.Base.Name, pre)
}

// hostDiagram adds the diagram of the paths on the topology the runs
// measured (the calibrated scenario, which carries this host's PCIe links
// and GPU↔NIC class), when they measured one.
func (b *builder) hostDiagram(s *section, a *analysis) {
	cal := b.in.Calibration
	if cal == nil {
		return
	}
	var facts []string
	for _, k := range cal.Keys {
		switch k.Key {
		case "topology.gpu_nic", "gpu.pcie", "nic.pcie", "nic.kind", "nic.rdma", "nic.rate":
			if !strings.HasPrefix(k.Source, "fit:") {
				facts = append(facts, k.Key+" "+calib.Display(k.After))
			}
		}
	}
	if len(facts) == 0 {
		return
	}
	pf, err := plots.Diagram(cal.Scenario, plots.DiagramOptions{Paths: a.plotPaths(), ReasonsAt: pathsSection, ReasonsSaid: a.said()})
	if err != nil {
		s.note(fmt.Sprintf("No diagram of the measured topology of %s: %v.", calibHosts(cal), strings.TrimPrefix(err.Error(), "plots: ")))
		return
	}
	host := calibHosts(cal)
	s.p("The measurement runs read the PCIe topology of %s (sysfs, NVML): the next diagram lays the same paths out on it, from scenario %s — preset %s with the measured links, GPU–NIC placement and NIC, and the fitted stage parameters. Paths that this host's NIC cannot serve are listed under it, not drawn.", host, cal.Scenario.Name, cal.Base.Name)
	pf.Title = "Data paths between two nodes like " + host + " (measured topology)"
	pf.Provenance = fmt.Sprintf("modeled: scenario %s · measured topology of %s: GPU–NIC %s, GPU link %s", cal.Scenario.Name, host, cal.Scenario.Topology.GPUNIC, cal.Scenario.GPU.PCIe)
	f := fromPlots(pf, "paths-measured-topology", "modeled on the measured topology", fmt.Sprintf("topology measured on %s; paths modeled from scenario %s", calibRuns(cal), cal.Scenario.Name))
	f.Caption += " Measured topology of " + host + ": " + strings.Join(facts, ", ") + "; where each was read is in the table of the calibrated scenario (section “Model against measurement”)."
	f.captionHasOrigin = false
	b.fig(s, f)
}
