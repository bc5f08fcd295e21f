package plots

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
)

// The tickers of every figure: one per kind of axis. A ticker's options
// choose among the label densities the figures use; no other package
// marks an axis.
//
//	sizeTicks     message sizes, log₂ axis (1 KiB, 1 MiB, 1 GiB); node counts
//	decadeTicks   any log₁₀ axis: seconds, cores, plain numbers
//	linearTicks   a linear axis (GB/s, counts)
//	timeAxisTicks a linear axis of seconds, labelled in one unit
//	percentTicks  a symmetric axis of errors in percent

// sizeTicks marks a log axis of message sizes at powers of two.
//
// By default the labels go at a step (in powers of two) that divides or
// is a multiple of 10, so that 1 KiB, 1 MiB and 1 GiB are always among
// them, with at most maxLabels labels (0: 8), for narrow panels; every,
// when set, fixes the step instead (5: 1 B, 32 B, 1 KiB, …). With clip,
// only the powers of two inside the axis range are marked, none below 1 B.
// label, when set, writes the labels instead of sizeLabel (a log₂ axis of
// node counts: 1, 4, 16, …); blank marks the ticks without labels (a panel
// stacked over one that labels the same axis).
type sizeTicks struct {
	maxLabels int
	every     int
	clip      bool
	label     func(float64) string
	blank     bool
}

func (t sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finitePos(lo) || !finitePos(hi) {
		return nil
	}
	a, b := int(math.Floor(math.Log2(lo)+1e-9)), int(math.Ceil(math.Log2(hi)-1e-9))
	step := t.every
	if step <= 0 {
		step = labelStep(b-a, t.maxLabels)
	}
	if t.clip {
		a = max(a, 0)
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		v := math.Ldexp(1, e)
		if t.clip && !inRange(v, lo, hi) {
			continue
		}
		tk := plot.Tick{Value: v}
		switch {
		case t.blank || e%step != 0:
		case t.label != nil:
			tk.Label = t.label(v)
		default:
			tk.Label = sizeLabel(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// labelStep is the step, in powers of two, that keeps the labels of a
// span of powers of two at most most (0: 8).
func labelStep(span, most int) int {
	if most <= 0 {
		most = 8
	}
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 30} {
		step = s
		if span/s+1 <= most {
			break
		}
	}
	return step
}

// inRange reports whether v lies in [lo, hi], give or take the rounding
// of the axis bounds (1e-4 relative).
func inRange(v, lo, hi float64) bool { return v >= lo*0.9999 && v <= hi*1.0001 }

// finitePos reports whether v can go on a logarithmic axis.
func finitePos(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func sizeLabel(v float64) string {
	return units.Bytes(v).Human()
}

// decadeTicks marks a log axis at decades, with minor ticks at 2–9 times
// each decade, and labels them with label (nil: the number as fmt.Sprint
// writes it).
//
// By default every decade is labelled, or every other one when the axis
// spans more than seven; every, when set, labels every every-th decade.
// With clip, only the ticks inside the axis range are marked, and an axis
// with fewer than two decades inside gets labels at 2 and 5 times a decade
// too.
type decadeTicks struct {
	label func(float64) string
	every int
	clip  bool
}

// maxDecades is the most decades an axis gets minor ticks over; past it,
// decadeTicks marks about eight labelled decades, so that the number of
// ticks is bounded for any finite range (at most 9 × maxDecades + 9).
const maxDecades = 40

// maxLinearTicks bounds the ticks of a linear axis (roundTicks).
const maxLinearTicks = 100

func (t decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finitePos(lo) || !finitePos(hi) || hi < lo {
		return nil
	}
	a, b := int(math.Floor(math.Log10(lo)+1e-9)), int(math.Ceil(math.Log10(hi)-1e-9))
	every := t.every
	if every <= 0 {
		every = 1
		if b-a > 7 {
			every = 2
		}
	}
	decades := 0 // inside the range
	for e := a; e <= b; e++ {
		if inRange(math.Pow(10, float64(e)), lo, hi) {
			decades++
		}
	}
	if b-a > maxDecades {
		// An axis over more decades than any figure here spans (a value of
		// 1e-300 drawn beside 1): a few labelled decades, no minor ticks.
		every = (b - a + 7) / 8
		var ticks []plot.Tick
		for e := a; e <= b; e += every {
			v := math.Pow(10, float64(e))
			ticks = append(ticks, plot.Tick{Value: v, Label: t.text(v)})
		}
		return ticks
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		d := math.Pow(10, float64(e))
		for m := 1; m <= 9 && (m == 1 || e < b); m++ {
			v := float64(m) * d
			if t.clip && !inRange(v, lo, hi) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 && (e-a)%every == 0 || t.clip && decades < 2 && (m == 2 || m == 5) {
				tk.Label = t.text(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

func (t decadeTicks) text(v float64) string {
	if t.label == nil {
		return fmt.Sprint(v)
	}
	return t.label(v)
}

func secondsLabel(v float64) string { return units.Seconds(v).Human() }

func plainLabel(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// linearTicks mark a linear axis.
//
// By default they are gonum's ticks (labelled majors, unlabelled minors
// between) with labels written plainly and suffix after them. With round,
// every tick is labelled, at a step of 1, 2 or 5 times a power of ten that
// gives five to ten labels, with as many decimals as the step needs.
type linearTicks struct {
	suffix string
	round  bool
}

func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if t.round {
		return roundTicks(lo, hi, t.suffix)
	}
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			v := ticks[i].Value
			if math.Abs(v) < 1e-12*math.Max(math.Abs(lo), math.Abs(hi)) {
				v = 0
			}
			ticks[i].Label = strconv.FormatFloat(cleanFloat(v), 'f', -1, 64) + t.suffix
		}
	}
	return ticks
}

func roundTicks(lo, hi float64, suffix string) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: fmt.Sprint(lo) + suffix}}
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(m*step) <= 10 {
			step *= m
			break
		}
	}
	first := math.Ceil(lo/step - 1e-9)
	if !(step > 0) || math.IsInf(step, 0) || math.IsInf(hi-lo, 0) || (hi-first*step)/step > maxLinearTicks || math.Abs(first) > 1<<52 {
		// A range too narrow or too wide for the floats to step through
		// (subnormal spans, 1e300 beside 1e-300): its two ends.
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64) + suffix}, {Value: hi, Label: strconv.FormatFloat(hi, 'g', 4, 64) + suffix}}
	}
	dec := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	var ticks []plot.Tick
	for i := first; i*step <= hi+step*1e-9 && len(ticks) <= maxLinearTicks; i++ {
		v := i*step + 0 // + 0: no "-0"
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', dec, 64) + suffix})
	}
	return ticks
}

// timeAxisTicks are linear ticks for a latency axis, labelled in one unit
// chosen from the axis maximum: "0", "2 µs", "4 µs".
type timeAxisTicks struct{}

func (timeAxisTicks) Ticks(lo, hi float64) []plot.Tick {
	unit, name := timeUnit(hi)
	ticks := plot.DefaultTicks{}.Ticks(lo/unit, hi/unit)
	for i := range ticks {
		v := ticks[i].Value
		ticks[i].Value = v * unit
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(cleanFloat(v), 'f', -1, 64) + " " + name
			if v == 0 {
				ticks[i].Label = "0"
			}
		}
	}
	return ticks
}

func timeUnit(max float64) (float64, string) {
	switch {
	case max < 1e-6:
		return 1e-9, "ns"
	case max < 1e-3:
		return 1e-6, "µs"
	case max < 1:
		return 1e-3, "ms"
	}
	return 1, "s"
}

// percentTicks mark a symmetric axis of percentages, −hi to hi, at
// quarters, labelled at halves: −hi, −hi/2, 0, hi/2, hi. With minusSign,
// negative labels take the minus sign (−) instead of the hyphen.
type percentTicks struct{ minusSign bool }

func (t percentTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for i := -4; i <= 4; i++ {
		v := hi * float64(i) / 4
		tk := plot.Tick{Value: v}
		if i%2 == 0 {
			tk.Label = strconv.FormatFloat(cleanFloat(v), 'f', -1, 64) + "%"
			if t.minusSign {
				tk.Label = strings.Replace(tk.Label, "-", "−", 1)
			}
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// logRange returns the decade (or power of two) bounds around [lo, hi].
func logRange(lo, hi float64, base float64) (float64, float64) {
	l := math.Pow(base, math.Floor(math.Log(lo)/math.Log(base)+1e-9))
	h := math.Pow(base, math.Ceil(math.Log(hi)/math.Log(base)-1e-9))
	if h <= l {
		h = l * base
	}
	return l, h
}

// cleanFloat rounds v to 12 significant digits, dropping the binary noise
// of tick arithmetic (0.30000000000000004 → 0.3).
func cleanFloat(v float64) float64 {
	x, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	return x
}
