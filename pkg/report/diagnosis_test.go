package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/doctor"
)

// A run with a doctor record gets the section "Diagnosis" before
// "Provenance", with the findings that are not OK in a table and the OK
// ones listed; a report without records has no such section.
func TestDiagnosisSection(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "doctor", "testdata", "trees", "bridge-bad", "want.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := doctor.ReadJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	in := measuredInput()
	in.Measured[0].Diagnosis = rec
	d := build(&in)
	var ids []string
	for _, s := range d.Sections {
		ids = append(ids, s.ID)
	}
	got := strings.Join(ids, " ")
	if !strings.Contains(got, "diagnosis provenance") {
		t.Fatalf("sections %s", got)
	}
	rep, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	html := string(rep.File("index.html"))
	for _, want := range []string{">Diagnosis<", "pcie.link", "GPUDirect RDMA unavailable", "As it should be"} {
		if !strings.Contains(html, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	plainIn := measuredInput()
	plain := build(&plainIn)
	for _, s := range plain.Sections {
		if s.ID == "diagnosis" {
			t.Error("a report without doctor records has a Diagnosis section")
		}
	}
}

// A run whose doctor.json is damaged keeps its Diagnosis section, which
// says that the record could not be read, instead of dropping it silently.
func TestDiagnosisDamagedRecord(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, doctor.RecordFile), []byte(`{"findings": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, note := readDiagnosis(dir)
	if rec != nil || !strings.Contains(note, "holds a doctor.json that could not be read") {
		t.Fatalf("record %v, note %q", rec, note)
	}
	if rec, note := readDiagnosis(t.TempDir()); rec != nil || note != "" {
		t.Errorf("no doctor.json: record %v, note %q", rec, note)
	}
	in := measuredInput()
	in.Measured[0].DiagnosisNote = note
	rep, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	html := string(rep.File("index.html"))
	for _, want := range []string{">Diagnosis<", "Not shown: " + dir + " holds a doctor.json that could not be read"} {
		if !strings.Contains(html, want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
}
