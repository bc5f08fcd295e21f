package report

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// importedRunOf imports the fixtures that match a pattern into one run and
// reads it back.
func importedRunOf(tb testing.TB, pattern string) *record.RunData {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "importers", "testdata", "fixtures", pattern))
	if err != nil || len(paths) == 0 {
		tb.Fatalf("%s: %v", pattern, err)
	}
	files, err := importers.ReadFiles(paths, "")
	if err != nil {
		tb.Fatal(err)
	}
	dir := filepath.Join(tb.TempDir(), "imported")
	if _, err := importers.WriteRun(dir, files, importers.Meta{Version: "test", Time: fixedTime()}); err != nil {
		tb.Fatal(err)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return rd
}

// The MOC cluster's outputs (perftest, nccl-tests with NCCL's log, iperf3;
// H100 and RoCE): calibrated on every other size, the sizes left out are
// within 10 % per tool (median), where the preset misses them by 25 % and
// more; each key names the files and lines it was fitted on.
func TestCalibrateImportedMOC(t *testing.T) {
	rd := importedRunOf(t, "*/moc-*")
	c, dirs, err := CalibrateImported([]*record.RunData{rd}, model.Default(), fit.Options{Seed: 1})
	if err != nil || c == nil || len(dirs) != 1 {
		t.Fatalf("%v %v %v", c, dirs, err)
	}
	tools := map[string]bool{}
	for _, k := range c.Checks {
		tools[k.Tool] = true
		if k.Calibrated > 0.10 || k.Preset < 2*k.Calibrated || k.Points < 20 {
			t.Errorf("%s: %d points left out, median error %.3f preset, %.3f calibrated", k.Tool, k.Points, k.Preset, k.Calibrated)
		}
	}
	if !tools["perftest"] || !tools["nccl-tests"] {
		t.Errorf("checked %v, want perftest and nccl-tests", tools)
	}
	keys := map[string]bool{}
	for _, f := range c.Fits {
		keys[f.Key] = true
		if len(f.Sources) == 0 || !strings.Contains(f.Sources[0], "moc-") || !strings.Contains(f.Sources[0], " lines ") {
			t.Errorf("%s: sources %v", f.Key, f.Sources)
		}
	}
	for _, k := range []string{"nic.rate", "nic.post_cost", "nccl.net_efficiency"} {
		if !keys[k] {
			t.Errorf("%s not fitted (%v)", k, keys)
		}
	}
	// The report shows it beside the preset.
	in := Input{Scenario: model.Default(), Source: "preset default", Version: "test", Host: "h", Time: fixedTime(), RunID: "r", ImportedCalibration: c}
	d, err := FromRuns([]*record.RunData{rd}, model.Default())
	if err != nil {
		t.Fatal(err)
	}
	in.Imported = d.Imported
	text := sectionText(sectionOf(t, buildDoc(t, in), "imported"))
	for _, w := range []string{"Calibrated from these outputs", "nccl.net_efficiency", "The sizes left out"} {
		if !strings.Contains(text+captions(buildDoc(t, in)), w) {
			t.Errorf("the imported section lacks %q", w)
		}
	}
	// And draws it: one figure of the sizes left out per tool, every
	// left-out point in its data.
	var drawn []string
	rows := 0
	for _, f := range buildDoc(t, in).Figures {
		if strings.HasPrefix(f.ID, "imported-calibration-") {
			drawn = append(drawn, strings.SplitN(f.Title, ":", 2)[0])
			rows += f.Data.Len()
		}
	}
	if strings.Join(drawn, ",") != "nccl-tests,perftest" || rows != len(c.LeftOut) {
		t.Errorf("figures of the check for %v with %d points, want nccl-tests and perftest with %d", drawn, rows, len(c.LeftOut))
	}
}

func captions(d *doc) string {
	var b strings.Builder
	for _, s := range d.Sections {
		for _, bl := range s.Blocks {
			if bl.Table != nil {
				b.WriteString(bl.Table.Caption + "\n" + strings.Join(bl.Table.Head, " ") + "\n")
			}
		}
	}
	return b.String()
}

// BenchmarkImportAndFitFixtures imports every shared fixture into one run
// and calibrates from it (gpupath import, then gpupath fit --data): the
// whole collection, under 2 s.
func BenchmarkImportAndFitFixtures(b *testing.B) {
	paths, _ := filepath.Glob(filepath.Join("..", "importers", "testdata", "fixtures", "*", "*"))
	for b.Loop() {
		files, err := importers.ReadFiles(paths, "")
		var lines *importers.Error
		if err != nil && !errors.As(err, &lines) { // the damaged fixtures' lines are listed, their other records kept
			b.Fatal(err)
		}
		dir := filepath.Join(b.TempDir(), "run")
		if _, err := importers.WriteRun(dir, files, importers.Meta{Version: "test", Time: fixedTime()}); err != nil {
			b.Fatal(err)
		}
		rd, err := record.ReadRun(dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := CalibrateImported([]*record.RunData{rd}, model.Default(), fit.Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// The same output imported into two runs is fitted once, and the fit says
// so: its points are not counted twice.
func TestCalibrateSameOutputOnce(t *testing.T) {
	pattern := "perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt"
	a, b := importedRunOf(t, pattern), importedRunOf(t, pattern)
	one, _, err := CalibrateImported([]*record.RunData{a}, model.Default(), fit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	two, _, err := CalibrateImported([]*record.RunData{a, b}, model.Default(), fit.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Fits) == 0 || len(two.Fits) != len(one.Fits) || two.Fits[0].Points != one.Fits[0].Points {
		t.Fatalf("one run %+v, the same output twice %+v", one.Fits, two.Fits)
	}
	if u := strings.Join(two.Unused, "\n"); !strings.Contains(u, "the same output as") {
		t.Errorf("no word of the output counted once:\n%s", u)
	}
}
