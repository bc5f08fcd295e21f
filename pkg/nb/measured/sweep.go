package measured

import (
	"fmt"
	"path/filepath"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
)

// ExampleSweep is the committed cluster sweep: six network-namespace hosts
// on one bridge, every link shaped to 1 Gbit/s but one host's to a third,
// on both ends (reports/examples/sweep-6-hosts).
const ExampleSweep = "reports/examples/sweep-6-hosts/run"

// Sweep reads the sweep run in dir (relative to root) and judges it as the
// report does (report.AnalyzeSweep on scenario s).
func Sweep(root, dir string, s *model.Scenario) (*report.Sweep, error) {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		return nil, err
	}
	sw := report.AnalyzeSweep(rd, s)
	if sw == nil {
		return nil, fmt.Errorf("nb: %s is not a sweep (no sweep section in its manifest)", dir)
	}
	return sw, nil
}

// SweepVerdict is a sweep's verdict as rank 0 prints it, one line a row.
func SweepVerdict(sw *report.Sweep) string {
	t := nb.Table{Caption: fmt.Sprintf("A sweep of %d ranks (%s, %d rounds), run %s", sw.World, sw.Pairs, sw.Rounds, sw.Status), Head: []string{"verdict"}}
	for _, l := range sw.Lines() {
		t.Add(l)
	}
	return t.HTML()
}

// SweepHeatmap is the heatmap of one quantity of a sweep
// (plots.PairBandwidth or plots.PairLatency), its outliers outlined.
func SweepHeatmap(sw *report.Sweep, quantity string) (*plots.Figure, error) {
	pm, err := sw.PairMap(quantity)
	if err != nil {
		return nil, err
	}
	return plots.PairHeatmap(pm)
}

// SweepDistribution is the distribution of one quantity of a sweep.
func SweepDistribution(sw *report.Sweep, quantity string) (*plots.Figure, error) {
	pm, err := sw.PairMap(quantity)
	if err != nil {
		return nil, err
	}
	return plots.PairDistribution(pm)
}
