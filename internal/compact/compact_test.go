package compact

import (
	"math"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
)

// TestSpelling: the values come out as pkg/measure's own formatters wrote
// them before the model's took over (the same table), and read back
// through the model's parsers.
func TestSpelling(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Seconds(9.1e-6), "9.1us"},
		{Seconds(9.14e-6), "9.14us"},
		{Seconds(9.146e-6), "9.15us"},
		{Seconds(1.2e-6), "1.2us"},
		{Seconds(999.7e-9), "1000ns"},
		{Seconds(0.0123), "12.3ms"},
		{Seconds(2), "2s"},
		{Seconds(450e-9), "450ns"},
		{Seconds(0), "0s"},
		{Rate(55.4e9), "55.4GB/s"},
		{Rate(55.43e9), "55.4GB/s"},
		{Rate(389.6e9), "390GB/s"},
		{Rate(1.5e12), "1.5TB/s"},
		{Rate(6.6e8), "660MB/s"},
		{Rate(0), "0B/s"},
		{BitRate(400e9 / 8), "400Gbit/s"},
		{BitRate(2.5e9 / 8), "2.5Gbit/s"},
		{BitRate(1e8 / 8), "100Mbit/s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if d, err := model.ParseDuration(Seconds(9.14e-6)); err != nil || math.Abs(float64(d)-9.14e-6) > 1e-18 {
		t.Errorf("9.14us reads back as %v, %v", d, err)
	}
	if r, err := model.ParseRate(BitRate(400e9 / 8)); err != nil || float64(r) != 400e9/8 {
		t.Errorf("400Gbit/s reads back as %v, %v", r, err)
	}
}
