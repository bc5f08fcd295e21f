package measure

import (
	"math"
	"testing"
)

func TestFormatters(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{FormatRate(11.83e9), "11.8GB/s"},
		{FormatRate(1.25e8), "125MB/s"},
		{FormatRate(999), "999B/s"},
		{FormatBitRate(1.25e8), "1Gbit/s"},   // 1e9 bit/s
		{FormatBitRate(37.5e6), "300Mbit/s"}, // 3e8 bit/s
		{FormatBitRate(3.2375e9), "25.9Gbit/s"},
		{FormatSeconds(3.5e-7), "350ns"},
		{FormatSeconds(1.234e-6), "1.23us"},
		{FormatSeconds(0.0034), "3.4ms"},
		{FormatSeconds(2), "2s"},
		{FormatSeconds(0), "0s"},
		{FormatBytes(4096), "4KiB"},
		{FormatBytes(16 << 20), "16MiB"},
		{FormatBytes(1000), "1000B"},
		{FormatBytes(0), "0B"},
		{sig3(1234.6), "1235"}, // three significant digits, but never an exponent
		{sig3(0.0001234), "0.000123"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"64", 64}, {"4KiB", 4096}, {"16MiB", 16 << 20}, {"1GiB", 1 << 30}, {"1.5KiB", 1536}, {"2kB", 2000}, {"64B", 64}, {" 1MiB ", 1 << 20}} {
		got, err := ParseBytes(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "1.5B", "NaN", "1e300GiB", "4 KB B"} {
		if v, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", bad, v)
		}
	}
	// Round trip of the formatter for whole multiples.
	for _, n := range []int64{1, 4096, 3 << 20, 1 << 30} {
		back, err := ParseBytes(FormatBytes(n))
		if err != nil || back != n {
			t.Errorf("ParseBytes(FormatBytes(%d)) = %d, %v", n, back, err)
		}
	}
}

func TestParseBitRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64 // bytes/s
	}{
		{"1Gbit/s", 125e6}, {"300Mbit/s", 37.5e6}, {"1gbit", 125e6}, {"300mbit", 37.5e6},
		{"10Gbit", 1.25e9}, {"1.5GB/s", 1.5e9}, {"400Gbit/s", 50e9}, {"100kbit", 12500}, {"8bit/s", 1},
	} {
		got, err := ParseBitRate(tc.in)
		if err != nil || math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("ParseBitRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "1G", "fast", "0Gbit/s", "-1Gbit/s", "Gbit/s", "NaNGbit/s", "1Gbps"} {
		if v, err := ParseBitRate(bad); err == nil {
			t.Errorf("ParseBitRate(%q) = %v, want an error", bad, v)
		}
	}
	// FormatBitRate output reads back.
	for _, r := range []float64{125e6, 37.5e6, 50e9} {
		back, err := ParseBitRate(FormatBitRate(r))
		if err != nil || math.Abs(back-r) > 1e-3*r {
			t.Errorf("round trip of %v: %v, %v", r, back, err)
		}
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"64", "4KiB", "1.5MiB", "-1", "1e30GiB", "kB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseBytes(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseBytes(%q) = %d without error", s, n)
		}
	})
}

func FuzzParseBitRate(f *testing.F) {
	for _, s := range []string{"1Gbit/s", "300mbit", "1.5GB/s", "Gbit", "0bit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseBitRate(s)
		if err == nil && (r <= 0 || math.IsNaN(r) || math.IsInf(r, 0)) {
			t.Fatalf("ParseBitRate(%q) = %v without error", s, r)
		}
	})
}
