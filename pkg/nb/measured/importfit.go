package measured

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

// MOCRun is the committed run of one site's outputs (the MOC cluster's
// perftest, nccl-tests with NCCL's log and iperf3) imported by
// scripts/examples.sh, relative to the repository root.
const MOCRun = "reports/examples/moc-calibrated/run"

// ImportedCalibration reads an imported run (dir, relative to root) and
// calibrates base from it as gpupath fit --data does (seed 1): a table of
// the keys fitted, with their intervals and the series they came from, and
// a table of the median error on the sizes left out, per tool and per
// series, preset against calibrated.
func ImportedCalibration(root, dir string, base *model.Scenario) (string, error) {
	rd, err := record.ReadRun(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return "", err
	}
	c, _, err := report.CalibrateImported([]*record.RunData{rd}, base, fit.Options{Seed: 1})
	if err != nil {
		return "", err
	}
	if c == nil {
		return "", fmt.Errorf("%s: not a run of gpupath import", dir)
	}
	keys := &nb.Table{Caption: fmt.Sprintf("Keys fitted to %s (every other size of each series), on %s", dir, base.Name),
		Head: []string{"key", "preset", "fitted", "interval", "points", "median error on them", "from"}, Right: []bool{false, true, true, true, true, true, false}}
	for _, f := range c.Fits {
		interval := f.Lo + " – " + f.Hi
		if f.AtBound {
			interval += " (at the end of the search)"
		}
		keys.Add(f.Key, f.Before, f.Value, interval, fmt.Sprint(f.Points), units.Percent(f.ErrorBefore)+" → "+units.Percent(f.ErrorAfter), strings.Join(f.Sources, "; "))
	}
	check := &nb.Table{Caption: "The sizes left out: median |measured/modeled − 1|", Head: []string{"tool or series", "points", "preset", "calibrated"}, Right: []bool{false, true, true, true}}
	for _, k := range append(append([]calib.ToolCheck(nil), c.Checks...), c.Series...) {
		check.Add(k.Tool, fmt.Sprint(k.Points), units.Percent(k.Preset), units.Percent(k.Calibrated))
	}
	if len(c.Fits) == 0 {
		return "", fmt.Errorf("%s: no key fitted (%s)", dir, strings.Join(c.Unused, "; "))
	}
	return keys.HTML() + check.HTML(), nil
}
