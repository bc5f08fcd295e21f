package perftest

import (
	"math"
	"testing"
)

// FuzzParse checks that Parse never panics and that every row it returns
// has a positive size and finite, non-negative values. The seed corpus in
// testdata/fuzz/FuzzParse holds the real outputs in testdata.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseBytes(b)
		if err != nil {
			return
		}
		ok := func(v float64) bool { return v >= 0 && !math.IsNaN(v) && !math.IsInf(v, 0) }
		for _, row := range r.Bandwidth {
			if row.Bytes <= 0 || !ok(row.PeakBps) || !ok(row.AvgBps) || !ok(row.MsgRate) || len(row.Fields) == 0 {
				t.Fatalf("bad row %+v", row)
			}
		}
		for _, row := range r.Latency {
			for _, v := range []float64{row.Min, row.Max, row.Typical, row.Avg, row.Stdev, row.P99, row.P999} {
				if !ok(v) {
					t.Fatalf("bad row %+v", row)
				}
			}
			if row.Bytes <= 0 {
				t.Fatalf("bad row %+v", row)
			}
		}
		if r.QPs < 0 || r.MTU < 0 {
			t.Fatalf("banner %+v", r)
		}
		_ = r.Err()
	})
}
