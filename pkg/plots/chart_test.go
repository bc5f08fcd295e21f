package plots

import (
	"errors"
	"math"
	"testing"
)

func TestSizeChartInput(t *testing.T) {
	nan := math.NaN()
	for name, p := range map[string]SizePanel{
		"nothing drawable on a log axis": {LogY: true, Curves: []Curve{{Label: "c", X: []float64{1, 2}, Y: []float64{0, -1}}}},
		"only NaN":                       {Curves: []Curve{{Label: "c", X: []float64{1}, Y: []float64{nan}}}},
		"sizes ≤ 0":                      {Curves: []Curve{{Label: "c", X: []float64{0, -4}, Y: []float64{1, 2}}}},
		"lengths differ":                 {Curves: []Curve{{Label: "c", X: []float64{1, 2}, Y: []float64{1}}}},
	} {
		if _, err := SizeChart("t", "", 100, p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := SizeChart("t", "", 100); err == nil {
		t.Error("no panel: no error")
	}
	// Values that cannot be drawn are left out; the rest is drawn.
	c, err := SizeChart("t", "", 100, SizePanel{LogY: true, Curves: []Curve{{Label: "c", X: []float64{1, 2, 4}, Y: []float64{0, nan, 3}}}})
	if err != nil || c == nil {
		t.Fatalf("%v", err)
	}
	ticks := linearTicks{round: true}.Ticks(0, 63)
	if len(ticks) < 5 || len(ticks) > 11 || ticks[0].Label != "0" || ticks[1].Label != "10" {
		t.Errorf("linear ticks %v", ticks)
	}
	if got := (linearTicks{round: true}).Ticks(-0.3, 0.3); got[0].Label != "-0.3" || got[3].Label != "0.0" {
		t.Errorf("signed ticks %v", got)
	}
}

func TestSensitivityInput(t *testing.T) {
	ok := SensitivityBars{Metrics: []string{"m"}, Paths: []string{"tcp", "gdr"}, Params: []string{"a"}, Percent: [][][]float64{{{1}, {2}}}}
	if c, err := Sensitivity(ok); err != nil || len(c.panels) != 1 || len(c.keys) != 2 {
		t.Fatalf("%v", err)
	}
	for name, b := range map[string]SensitivityBars{
		"nothing":          {},
		"metrics ≠ values": {Metrics: []string{"m", "n"}, Paths: ok.Paths, Params: ok.Params, Percent: ok.Percent},
		"paths ≠ values":   {Metrics: ok.Metrics, Paths: []string{"tcp"}, Params: ok.Params, Percent: ok.Percent},
		"params ≠ values":  {Metrics: ok.Metrics, Paths: ok.Paths, Params: []string{"a", "b"}, Percent: ok.Percent},
	} {
		if _, err := Sensitivity(b); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
