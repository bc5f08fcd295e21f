package report

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/doctor"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// importedRun imports one fixture of pkg/importers into a run directory
// and reads it back, as gpupath report --data reads it.
func importedRun(t *testing.T, fixture string) *record.RunData {
	t.Helper()
	files, err := importers.ReadFiles([]string{filepath.Join("..", "importers", "testdata", "fixtures", filepath.FromSlash(fixture))}, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "imported")
	if _, err := importers.WriteRun(dir, files, importers.Meta{Version: "test", Time: fixedTime()}); err != nil {
		t.Fatal(err)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// FromRuns: a run of gpupath measure gives its curves (record.Curves); an
// imported run goes to Imported with every file judged against the model,
// and its Measured entry keeps no series; two runs are compared.
func TestFromRuns(t *testing.T) {
	native, err := h200Run()
	if err != nil {
		t.Fatal(err)
	}
	imp := importedRun(t, "nccl-tests/moc-sendrecv_perf-2node-1gpu-h100-roce-with-NCCL_DEBUG-INFO.txt")
	d, err := FromRuns([]*record.RunData{imp, native}, model.Default())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Measured) != 2 || d.Measured[0].Series != nil || !strings.Contains(d.Measured[0].Tool, "nccl-tests (gpupath import test;") {
		t.Fatalf("measured: %+v", d.Measured)
	}
	curves, _ := record.Curves(native.Results)
	if !reflect.DeepEqual(d.Measured[1].Series, curves) {
		t.Error("the native run's series are not its record.Curves")
	}
	if len(d.Imported) != 1 || len(d.Imported[0].Files) != 1 {
		t.Fatalf("imported: %+v", d.Imported)
	}
	f := d.Imported[0].Files[0]
	if f.Model == nil || len(f.Model.Groups) == 0 || f.Model.Groups[0].Verdicts[0].Verdict == "" || f.NCCL == nil {
		t.Fatalf("the imported file is not judged: %+v", f)
	}
	c := d.Compare
	if c == nil || c.A != imp.Dir || c.B != native.Dir || len(c.Series) != 0 || len(c.OnlyA) == 0 || len(c.OnlyB) == 0 {
		t.Errorf("comparison: %+v", c)
	}
	in := goldenInput()
	in.Measured, in.Imported, in.Compare = d.Measured, d.Imported, d.Compare
	if _, err := Render(in); err != nil {
		t.Fatal(err)
	}

	// One run is not compared; a corrupt one is an error that names it.
	if d, err := FromRuns([]*record.RunData{native}, model.Default()); err != nil || d.Compare != nil {
		t.Errorf("one run: %v, %+v", err, d.Compare)
	}
	bad := &record.RunData{Dir: "runs/bad", Skipped: []record.SkippedLine{{Line: 1, Reason: "not a JSON record"}}}
	if _, err := FromRuns([]*record.RunData{native, bad}, model.Default()); err == nil || !strings.HasPrefix(err.Error(), "runs/bad: results.jsonl is corrupt") {
		t.Errorf("corrupt run: %v", err)
	}
}

// FromRun reads the run's doctor record, when it holds one.
func TestFromRunReadsDiagnosis(t *testing.T) {
	dir := t.TempDir()
	rd := &record.RunData{Dir: dir, Manifest: record.Manifest{Host: record.Host{Hostname: "h"}, Start: time.Unix(0, 0)}}
	m, err := FromRun(rd)
	if err != nil || m.Diagnosis != nil || m.Host != "h" {
		t.Fatalf("%+v %v", m, err)
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "reports", "examples", "doctor", "cpu-vm.json"))
	if err != nil {
		t.Skipf("no doctor example: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, doctor.RecordFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if m, _ := FromRun(rd); m.Diagnosis == nil {
		t.Error("the doctor record was not read")
	}
}

// The report renders the verdicts it is given: it judges nothing itself,
// and an imported file without them is refused.
func TestImportedVerdictsAreGiven(t *testing.T) {
	in := importedInput(t)
	v := &in.Imported[0].Files[1].Model.Groups[0].Verdicts[0]
	v.Verdict = "a verdict made elsewhere"
	text := sectionText(sectionOf(t, buildDoc(t, in), "imported"))
	if !strings.Contains(text, "ib_write_bw: a verdict made elsewhere") {
		t.Errorf("the given verdict is not rendered:\n%s", text)
	}
	in.Imported[0].Files[1].Model = nil
	if _, err := Render(in); err == nil || !strings.Contains(err.Error(), "not judged") {
		t.Errorf("an imported file without verdicts: %v", err)
	}
}
