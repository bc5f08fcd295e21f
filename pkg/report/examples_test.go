package report

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// The committed examples (reports/examples, rendered by scripts/examples.sh)
// and fresh renders of the same inputs, for the tests that check every
// report the project shows: the PDF's glyphs, the figures' layout, the CSV
// cells, the words.

// examplesDir is reports/examples, from this package.
var examplesDir = filepath.Join("..", "..", "reports", "examples")

// committedReports are the directories of the committed example reports
// (each holds index.html, report.pdf and the figures' CSV and JSON).
func committedReports(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(examplesDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == PDFFile {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 {
		t.Fatalf("%d example reports under %s, want the 5 of scripts/examples.sh", len(dirs), examplesDir)
	}
	sort.Strings(dirs)
	return dirs
}

// exampleRun is a committed run, with the --set flags scripts/examples.sh
// renders it with.
type exampleRun struct {
	name, dir string
	sets      []string
}

var exampleRuns = []exampleRun{
	{name: "h200-1gpu", dir: "h200-1gpu/run"},
	{name: "imported", dir: "imported/run", sets: []string{"nic.rate=400Gbit/s"}},
	{name: "moc-calibrated", dir: "moc-calibrated/run"},
	{name: "nccl-tests", dir: "nccl-tests/run"},
	{name: "two-hosts-veth", dir: "two-hosts-veth/run", sets: []string{"nic.rate=1Gbit/s", "nic.mtu=1500"}},
}

var (
	freshOnce    sync.Once
	freshReports map[string]*Report
	freshDocs    map[string]*doc
	freshErr     error
)

// exampleInputs are fresh inputs of the examples: the model alone, and the
// committed H200, imported and two-host runs as gpupath report --data
// makes them (the runs read, judged and calibrated here).
func exampleInputs() (map[string]Input, error) {
	ins := map[string]Input{"model-only": goldenInput()}
	for _, er := range exampleRuns {
		s := model.Default()
		for _, kv := range er.sets {
			ovs, err := model.ParseSets([]string{kv}, "set")
			if err != nil {
				return nil, err
			}
			if err := s.Apply(ovs...); err != nil {
				return nil, err
			}
		}
		rd, err := record.ReadRun(filepath.Join(examplesDir, filepath.FromSlash(er.dir)))
		if err != nil {
			return nil, err
		}
		runs := []*record.RunData{rd}
		d, err := FromRuns(runs, s)
		if err != nil {
			return nil, err
		}
		in := goldenInput()
		in.Scenario, in.RunID, in.ProbeNote, in.Overrides = s, er.name, "", er.sets
		in.Measured, in.Imported, in.Compare = d.Measured, d.Imported, d.Compare
		// gpupath report --data calibrates the runs it is given.
		in.Calibration, in.ImportedCalibration, in.CalibrationNote, err = CalibrateRuns(context.Background(), runs, s)
		if err != nil {
			return nil, err
		}
		ins[er.name] = in
	}
	return ins, nil
}

// freshExamples renders exampleInputs once for all the tests that look at
// them: the reports and their laid-out docs, by name.
func freshExamples(t *testing.T) (map[string]*Report, map[string]*doc) {
	t.Helper()
	freshOnce.Do(func() {
		ins, err := exampleInputs()
		if err != nil {
			freshErr = err
			return
		}
		freshReports, freshDocs = map[string]*Report{}, map[string]*doc{}
		for name, in := range ins {
			r, err := Render(in)
			if err != nil {
				freshErr = err
				return
			}
			freshReports[name] = r
			if err := in.resolveVariants(); err != nil {
				freshErr = err
				return
			}
			freshDocs[name] = build(&in)
		}
	})
	if freshErr != nil {
		t.Fatal(freshErr)
	}
	return freshReports, freshDocs
}
