package plots_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
)

// A run of a thousand variants: every figure keeps its size, lists at most
// MaxLegendEntries in its legend (the last counting the rest, and standing
// for what they draw) and names as many series in its provenance; a figure
// once grew to 230 inches and was refused.
func TestLegendAndProvenanceAreBounded(t *testing.T) {
	var ms []plots.Measured
	for i := range 1000 {
		ms = append(ms, plots.Measured{Label: fmt.Sprintf("cuda v%d", i), Path: "host-tcp", Source: "gpu0, host, 2026-12-03",
			Points: []plots.Point{{Bytes: 8, Seconds: 10e-6, Rate: 1e6, CPU: 1e-6}, {Bytes: 4096, Seconds: 20e-6, Rate: 2e8, CPU: 2e-6}}})
	}
	in := plots.Input{Scenario: model.Default(), Measured: ms, Sizes: []units.Bytes{8, 4096, 1 << 20}}
	for name, fn := range map[string]func(plots.Input) (*plots.Figure, error){
		"Latency": plots.Latency, "Bandwidth": plots.Bandwidth, "CPUTime": plots.CPUTime, "Residuals": plots.Residuals,
	} {
		f, err := fn(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f.GrowForLegend(2000)
		if _, h := f.Size(); h > 20*72 {
			t.Errorf("%s: %v pt tall", name, h)
		}
		lay := f.Layout()
		if len(lay.Legend) > plots.MaxLegendEntries {
			t.Errorf("%s: %d legend entries", name, len(lay.Legend))
		}
		last := lay.Legend[len(lay.Legend)-1]
		if !strings.Contains(last.Label, "more (every one in the figure's data)") || last.Drawn == 0 {
			t.Errorf("%s: the last entry %+v", name, last)
		}
		if n := strings.Count(f.Provenance, "cuda v"); n > plots.MaxLegendEntries || !strings.Contains(f.Provenance, "more series") {
			t.Errorf("%s: provenance names %d series: %.200s", name, n, f.Provenance)
		}
		w, h := f.Size()
		if _, err := plots.SVG(f, w, h); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
