package calib

import (
	"errors"
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
)

func TestSpeedup(t *testing.T) {
	c, err := Calibrate([]*record.RunData{synthetic(t, 1)}, nil, fit.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Speedup(c)
	if err != nil {
		t.Fatal(err)
	}
	// synthetic measures both variants at 4 B to 256 MiB by ×4: 14 sizes.
	if len(rows) != 14 || rows[0].Bytes != 4 || rows[13].Bytes != 256<<20 {
		t.Fatalf("%d rows from %v to %v", len(rows), rows[0].Bytes, rows[len(rows)-1].Bytes)
	}
	big := rows[13]
	x := big.Speedup()
	if want := big.StoreAndForward.Measured / big.Pipelined.Measured; x.Measured != want || !(x.Measured > 1) {
		t.Errorf("measured speed-up %v, want %v > 1", x.Measured, want)
	}
	// Calibrated from these very records, the model predicts the speed-up
	// within a few percent.
	if math.Abs(x.Calibrated-x.Measured)/x.Measured > 0.05 {
		t.Errorf("calibrated speed-up %v, measured %v", x.Calibrated, x.Measured)
	}
	if r := (SpeedupRow{StoreAndForward: Times{Measured: 1}, Pipelined: Times{Measured: 0}}).Speedup(); !math.IsNaN(r.Measured) {
		t.Errorf("speed-up over a zero time: %v", r.Measured)
	}
	c.Comparison = nil
	if _, err := Speedup(c); !errors.Is(err, ErrNoSpeedup) {
		t.Errorf("no comparisons: %v", err)
	}
}
