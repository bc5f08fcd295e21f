package plots_test

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// TestExtremeMeasuredValues: a series whose times are 5e-324 s, +Inf, NaN,
// 0 and 1e300 s (and rates and CPU times as extreme) is drawn by every
// figure that takes measured data, without a panic: the values a log axis
// cannot draw are left out by the one cleaning step, and the figure says
// how many. (A run of 5e-324 s times made `report --data` panic in the
// legend's log scale and in the residuals' error curve.)
func TestExtremeMeasuredValues(t *testing.T) {
	bad := []float64{5e-324, math.Inf(1), math.NaN(), 0, 1e300, -1}
	var pts []plots.Point
	for i, v := range bad {
		pts = append(pts, plots.Point{Bytes: float64(int64(8) << (2 * i)), Seconds: v, Rate: 1 / v, CPU: v})
	}
	// Two good points, so that every figure has something to draw, and
	// points whose size cannot be drawn.
	pts = append(pts, plots.Point{Bytes: 64, Seconds: 1e-5, Rate: 1e9, CPU: 1e-5}, plots.Point{Bytes: 1 << 20, Seconds: 1e-4, Rate: 1e10, CPU: 1e-4},
		plots.Point{Bytes: math.NaN(), Seconds: 1e-5}, plots.Point{Bytes: 0, Seconds: 1e-5}, plots.Point{Bytes: math.Inf(1), Rate: 1e9})
	m := plots.Measured{Label: "extreme", Path: "host-tcp", Source: "host, 2026-12-02", Points: pts}
	only := plots.Measured{Label: "nothing drawable", Path: "host-tcp", Source: "host, 2026-12-02",
		Points: []plots.Point{{Bytes: 8, Seconds: 5e-324}, {Bytes: 16, Seconds: math.Inf(1), Rate: math.NaN()}}}
	in := plots.Input{Scenario: model.Default(), Measured: []plots.Measured{m, only}, Sizes: []units.Bytes{8, 4096, 1 << 20}}
	for name, fn := range map[string]func(plots.Input) (*plots.Figure, error){
		"Latency": plots.Latency, "Bandwidth": plots.Bandwidth, "CPUTime": plots.CPUTime,
		"CPUCost": plots.CPUCost, "Residuals": plots.Residuals,
	} {
		t.Run(name, func(t *testing.T) {
			f, err := fn(in)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if err := plots.WriteSVG(io.Discard, f, f.Width, f.Height); err != nil {
				t.Fatalf("SVG: %v", err)
			}
			note := ""
			for _, n := range f.Notes {
				if strings.HasPrefix(n, "Not drawn: ") && strings.Contains(n, "measured value(s)") {
					note = n
				}
			}
			if note == "" {
				t.Fatalf("no note of the values left out: %q", f.Notes)
			}
			// The first series: 15 of its values (1/Inf = 0 is "not
			// measured", not a bad value), its 6 extreme points emptied and 3
			// sizes; the second: 3 values, 2 points and the series.
			for _, want := range []string{"Not drawn: 18 measured value(s)", "; 8 point(s) left without a value", "; 3 point(s) whose size is not a positive number", "; 1 series left without a point."} {
				if !strings.Contains(note, want) {
					t.Errorf("note %q does not say %q", note, want)
				}
			}
		})
	}
}

// TestExtremeOperationCosts: OperationCosts with only undrawable medians
// draws an empty frame and says how many points it left out.
func TestExtremeOperationCosts(t *testing.T) {
	var pts []plots.CostPoint
	for i, v := range []float64{5e-324, math.Inf(1), math.NaN(), 0, 1e300} {
		pts = append(pts, plots.CostPoint{Bytes: units.Bytes(8 << i), Median: units.Seconds(v), Min: units.Seconds(v), P99: units.Seconds(v)})
	}
	d := plots.OperationCosts("costs", "measured: vm, 2026-11-29", []plots.CostSeries{{Label: "syscall", Probe: "syscall", Variant: "getppid", Points: pts}})
	if err := plots.WriteSVG(io.Discard, d, 400, 300); err != nil {
		t.Fatal(err)
	}
	if n := len(d.Data.Column("median_s").Num); n != 5 {
		t.Errorf("the data holds %d rows, want all 5", n)
	}
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "Not drawn: 5 point(s)") {
		t.Errorf("notes %q: want one that says 5 points are not drawn", d.Notes)
	}
}
