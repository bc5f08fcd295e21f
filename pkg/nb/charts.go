package nb

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot/vg"
)

// The charts the notebooks show are made in pkg/plots; these names stay
// here for the cells and for pkg/nb/measured.
type (
	// Chart is plots.Chart.
	Chart = plots.Chart
	// SizePanel is plots.SizePanel.
	SizePanel = plots.SizePanel
	// Curve is plots.Curve.
	Curve = plots.Curve
	// RefLine is plots.RefLine.
	RefLine = plots.RefLine
)

// SizeChart is plots.SizeChart: panels of values against message size.
func SizeChart(title, subtitle string, height vg.Length, panels ...SizePanel) (*Chart, error) {
	return plots.SizeChart(title, subtitle, height, panels...)
}

// SensitivityChart draws, for each metric, one horizontal bar per path and
// parameter: the largest absolute relative change (in percent) that one
// step of the parameter, down or up, makes (plots.Sensitivity). Paths keep
// their colours from plots.PathStyle. rows come from Sensitivities.
func SensitivityChart(rows []Sensitivity, small, large units.Bytes) (*Chart, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("nb: no sensitivities to draw")
	}
	var b plots.SensitivityBars
	for _, r := range rows {
		if !slices.Contains(b.Paths, r.Path) {
			b.Paths = append(b.Paths, r.Path)
		}
		if !slices.Contains(b.Params, r.Param.Name) {
			b.Params = append(b.Params, r.Param.Name)
		}
	}
	for m := Metric(0); m < numMetrics; m++ {
		b.Metrics = append(b.Metrics, m.Name(small, large))
		pct := make([][]float64, len(b.Paths))
		for i := range pct {
			pct[i] = make([]float64, len(b.Params))
		}
		for _, r := range rows {
			v, _ := r.Largest(m)
			pct[slices.Index(b.Paths, r.Path)][slices.Index(b.Params, r.Param.Name)] = math.Abs(v) * 100
		}
		b.Percent = append(b.Percent, pct)
	}
	return plots.Sensitivity(b)
}
