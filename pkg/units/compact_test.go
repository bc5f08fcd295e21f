package units

import (
	"math"
	"testing"
)

// TestSpelling: the compact spellings as scenario keys and labels have
// always been written, and they read back through the parsers.
func TestSpelling(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Seconds(9.1e-6).Compact(), "9.1us"},
		{Seconds(9.14e-6).Compact(), "9.14us"},
		{Seconds(9.146e-6).Compact(), "9.15us"},
		{Seconds(1.2e-6).Compact(), "1.2us"},
		{Seconds(999.7e-9).Compact(), "1000ns"},
		{Seconds(0.0123).Compact(), "12.3ms"},
		{Seconds(2).Compact(), "2s"},
		{Seconds(450e-9).Compact(), "450ns"},
		{Seconds(0).Compact(), "0s"},
		{Rate(55.4e9).Compact(), "55.4GB/s"},
		{Rate(55.43e9).Compact(), "55.4GB/s"},
		{Rate(389.6e9).Compact(), "390GB/s"},
		{Rate(1.5e12).Compact(), "1.5TB/s"},
		{Rate(6.6e8).Compact(), "660MB/s"},
		{Rate(0).Compact(), "0B/s"},
		{Rate(400e9 / 8).CompactBits(), "400Gbit/s"},
		{Rate(2.5e9 / 8).CompactBits(), "2.5Gbit/s"},
		{Rate(1e8 / 8).CompactBits(), "100Mbit/s"},
		{Rate(1.195e8).HumanBits(), "956 Mbit/s"},
		{Rate(400e9 / 8).HumanBits(), "400 Gbit/s"},
		{Rate(100).HumanBits(), "800 bit/s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if d, err := ParseDuration(Seconds(9.14e-6).Compact()); err != nil || math.Abs(float64(d)-9.14e-6) > 1e-18 {
		t.Errorf("9.14us reads back as %v, %v", d, err)
	}
	if r, err := ParseRate(Rate(400e9 / 8).CompactBits()); err != nil || float64(r) != 400e9/8 {
		t.Errorf("400Gbit/s reads back as %v, %v", r, err)
	}
}
