package calib

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
)

// "no records" only when there are none: otherwise the error says what the
// runs hold and why it cannot be used.
func TestNothingSaysWhy(t *testing.T) {
	zero := []record.Result{{Probe: "tcp", Variant: "pingpong", Bytes: 8, Iterations: 10}, {Probe: "tcp", Variant: "pingpong", Bytes: 64, Iterations: 10}}
	other := []record.Result{{Probe: "syscall", Bytes: 8, Iterations: 10, MedianS: 1e-7}}
	for _, tc := range []struct {
		name string
		recs []record.Result
		want string
	}{
		{"empty", nil, "the runs hold no records"},
		{"all zero times", zero, "2 record(s), none usable"},
		{"unused probe", other, "1 record(s) of syscall ×1, none of which the fit uses"},
	} {
		_, err := Calibrate([]*record.RunData{{Dir: "r", Results: tc.recs}}, nil, fit.Options{Seed: 1})
		if !errors.Is(err, ErrNothing) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// A results file in which no line is a record is corrupt, as the report
// says, not a run without records.
func TestCalibrateCorruptRun(t *testing.T) {
	rd := &record.RunData{Dir: "runs/bad", Skipped: []record.SkippedLine{{Line: 1, Reason: "not a JSON object"}}}
	_, err := Calibrate([]*record.RunData{rd}, nil, fit.Options{Seed: 1})
	if err == nil || errors.Is(err, ErrNothing) || err.Error() != "runs/bad: results.jsonl is corrupt: no line is a record (line 1: not a JSON object)" {
		t.Errorf("%v", err)
	}
}
