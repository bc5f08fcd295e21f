package calib

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
)

// TestHostTimesOutOfRange: syscall medians of 5e-324 s (or 0, NaN, +Inf,
// 1e300 s) are no measurement: the this-host values they would give are
// left out with a note that names the range, as the fits leave out such
// times. (A run of 5e-324 s times gave stack.syscall 0s, without a word.)
func TestHostTimesOutOfRange(t *testing.T) {
	for _, v := range []float64{5e-324, 0, math.NaN(), math.Inf(1), 1e300} {
		rs := hostRecords()
		for i := range rs {
			if rs[i].Probe == "syscall" {
				rs[i].MedianS = v
			}
		}
		f, notes := hostFacts(rs)
		got, _ := overrideTexts(t, Overrides(f))
		for _, k := range []string{"stack.syscall", "stack.tx_per_message", "stack.rx_per_message"} {
			if g, ok := got[k]; ok && !strings.Contains(k, "_per_message") {
				t.Errorf("median %v: %s = %s", v, k, g)
			}
		}
		joined := strings.Join(notes, "\n")
		if !strings.Contains(joined, "stack.syscall: 1 of 1 syscall/getppid record(s) left out") || !strings.Contains(joined, outOfRange) {
			t.Errorf("median %v: notes %q", v, joined)
		}
	}
	// Calibrate repeats the note as a warning.
	rd := synthetic(t, 1)
	for _, r := range hostRecords() {
		if r.Probe == "syscall" {
			r.MedianS = 5e-324
			rd.Results = append(rd.Results, r)
		}
	}
	c, err := Calibrate([]*record.RunData{rd}, model.Default(), fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(c.Warnings, "\n"), "stack.syscall: 1 of 1 syscall/getppid record(s) left out") {
		t.Errorf("warnings %q", c.Warnings)
	}
	for _, k := range c.Keys {
		if k.Key == "stack.syscall" {
			t.Errorf("stack.syscall set: %+v", k)
		}
	}
}

// TestCalibrateSaysRunCutShort: a run whose writer died (the manifest
// still says running; the reader finds it interrupted) is calibrated with
// a warning that says so.
func TestCalibrateSaysRunCutShort(t *testing.T) {
	rd, err := record.ReadRun(filepath.Join("..", "record", "testdata", "runs", "killed"))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Derived == "" {
		t.Fatalf("the killed run reads as %s, with nothing derived", rd.Manifest.Status)
	}
	c, err := Calibrate([]*record.RunData{rd}, model.Default(), fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "interrupted (found running") || !strings.Contains(w, "the writer died): the fit uses the") {
		t.Errorf("warnings %q", w)
	}
}
