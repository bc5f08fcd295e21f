package measured

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/plots"
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
		interval := f.Interval()
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

// ImportCluster imports the outputs of a cluster kept one directory per
// node, as gpupath import --host-dir does: files maps each host to its
// files (relative to root), and each file whose output names no host is
// that host's. The run is written into a new directory under tmp, which
// it returns.
func ImportCluster(root, tmp string, files map[string][]string) (string, error) {
	var all []*importers.File
	for _, host := range slices.Sorted(maps.Keys(files)) {
		for _, f := range files[host] {
			read, err := importers.ReadFiles([]string{filepath.Join(root, filepath.FromSlash(f))}, "")
			if err != nil {
				return "", err
			}
			for _, r := range read {
				r.NameHost(host, "the directory it was kept in")
			}
			all = append(all, read...)
		}
	}
	dir := filepath.Join(tmp, "run")
	_, err := importers.WriteRun(dir, all, importers.Meta{Version: "notebook", Time: time.Now().UTC(), Command: "gpupath import --host-dir"})
	return dir, err
}

// ImportedHosts is the table of an imported run's hosts the report shows:
// each host with its own files, their tools and records, and the hardware
// its files name (a host's own ibstat models its files alone).
func ImportedHosts(dir string, base *model.Scenario) (string, error) {
	run, err := importers.ReadRun(dir)
	if err != nil {
		return "", err
	}
	im := report.FromImported(run, base)
	if len(im.Hosts) < 2 {
		return "", fmt.Errorf("%s: the files name %d host(s): no table of hosts", dir, len(im.Hosts))
	}
	t := &nb.Table{Caption: fmt.Sprintf("The %d hosts of %s", len(im.Hosts), filepath.Base(dir)), Head: []string{"host", "files", "records", "tools", "NIC rate its files model"}, Right: []bool{false, true, true, false, false}}
	for _, h := range im.Hosts {
		rate := "the scenario's (no listing of this host)"
		for _, f := range im.Files {
			if len(f.Hardware.Hosts) == 1 && f.Hardware.Hosts[0] == h.Name && f.Model != nil {
				for _, s := range f.Model.Sets {
					if strings.HasPrefix(s, "nic.rate=") {
						rate = s
					}
				}
			}
		}
		t.Add(h.Name, fmt.Sprint(len(h.Files)), fmt.Sprint(h.Records), strings.Join(h.Tools, ", "), rate)
	}
	return t.HTML(), nil
}

// ImportedResiduals calibrates base from an imported run (dir, relative to
// root) as ImportedCalibration does and draws the check of one tool's
// series, as the report does: each series' error on the sizes left out,
// preset and calibrated.
func ImportedResiduals(root, dir, tool string, base *model.Scenario) (*plots.Figure, error) {
	rd, err := record.ReadRun(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil, err
	}
	c, _, err := report.CalibrateImported([]*record.RunData{rd}, base, fit.Options{Seed: 1})
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%s: not a run of gpupath import", dir)
	}
	figs, notes := report.CalibrationFigures(c, base.Name)
	for _, f := range figs {
		if strings.HasPrefix(f.Title, tool+":") {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%s: no check of %s (%s)", dir, tool, strings.Join(notes, "; "))
}
