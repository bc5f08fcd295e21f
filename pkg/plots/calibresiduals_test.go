package plots

import (
	"math"
	"strings"
	"testing"
)

// The check of a calibration draws every series' error at the sizes left
// out, preset and calibrated, with the data behind it in percent; bad
// input is an error, not a figure.
func TestCalibrationResiduals(t *testing.T) {
	in := CalibrationInput{Title: "t", Provenance: "p", What: "w", Series: []CalibrationSeries{
		{Label: "ib_write_bw", Name: "a.txt: ib_write_bw", Path: "gdr", Bytes: []float64{8, 1 << 20}, Preset: []float64{-0.5, 0.2}, Calibrated: []float64{0.01, -0.02}},
		{Label: "all_reduce", Bytes: []float64{1 << 30}, Preset: []float64{-0.4}, Calibrated: []float64{0.03}},
	}}
	f, err := CalibrationResiduals(in)
	if err != nil {
		t.Fatal(err)
	}
	if f.Data.Len() != 3 || len(f.legend) != 4 || !strings.Contains(f.Caption, "w") {
		t.Fatalf("%d rows, %d legend entries", f.Data.Len(), len(f.legend))
	}
	var b strings.Builder
	if err := f.Data.WriteCSV(&b); err != nil || !strings.Contains(b.String(), "a.txt: ib_write_bw") || !strings.Contains(b.String(), "-50") {
		t.Errorf("%v\n%s", err, b.String())
	}
	for _, bad := range []CalibrationInput{{}, {Series: []CalibrationSeries{{Label: "x", Bytes: []float64{8}, Preset: []float64{math.NaN()}, Calibrated: []float64{0}}}},
		{Series: []CalibrationSeries{{Label: "x", Bytes: []float64{8}, Preset: []float64{0}}}}} {
		if _, err := CalibrationResiduals(bad); err == nil {
			t.Errorf("%+v drawn", bad)
		}
	}
}
