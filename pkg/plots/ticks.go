package plots

import (
	"math"
	"strconv"

	"github.com/gpupath/gpupath/pkg/model"
	"gonum.org/v1/plot"
)

// sizeTicks marks a log axis of message sizes at powers of two, labelled
// at a step (in powers of two) that divides or is a multiple of 10, so
// that 1 KiB, 1 MiB and 1 GiB are always among the labels.
// maxLabels (0: 8) bounds the number of labels, for narrow panels.
type sizeTicks struct{ maxLabels int }

func (t sizeTicks) Ticks(lo, hi float64) []plot.Tick {
	a, b := int(math.Floor(math.Log2(lo)+1e-9)), int(math.Ceil(math.Log2(hi)-1e-9))
	most := t.maxLabels
	if most <= 0 {
		most = 8
	}
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 30} {
		step = s
		if (b-a)/s+1 <= most {
			break
		}
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		v := math.Ldexp(1, e)
		t := plot.Tick{Value: v}
		if e%step == 0 {
			t.Label = sizeLabel(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

func sizeLabel(v float64) string {
	return model.Bytes(v).Human()
}

// decadeTicks marks a log axis at decades (labelled, every other one when
// there are many) with minor ticks at 2–9 times each decade.
type decadeTicks struct {
	label func(float64) string
}

func (t decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	a, b := int(math.Floor(math.Log10(lo)+1e-9)), int(math.Ceil(math.Log10(hi)-1e-9))
	every := 1
	if b-a > 7 {
		every = 2
	}
	var ticks []plot.Tick
	for e := a; e <= b; e++ {
		d := math.Pow(10, float64(e))
		tk := plot.Tick{Value: d}
		if (e-a)%every == 0 {
			tk.Label = t.label(d)
		}
		ticks = append(ticks, tk)
		if e == b {
			break
		}
		for m := 2; m <= 9; m++ {
			ticks = append(ticks, plot.Tick{Value: float64(m) * d})
		}
	}
	return ticks
}

func secondsLabel(v float64) string { return model.Seconds(v).Human() }

func plainLabel(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
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

// linearTicks are gonum's default ticks with labels written plainly.
type linearTicks struct{ suffix string }

func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
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
