package units

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestParseUnits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
	}{{"4096", 4096}, {"64KiB", 65536}, {"1.5MiB", 1572864}, {"4kB", 4000}, {"2 GB", 2e9}, {"1GiB", 1 << 30}, {"8B", 8}} {
		if got, err := ParseBytes(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want float64 // bytes per second
	}{
		{"400Gbit/s", 50e9}, // 400e9 bit/s / 8
		{"100Gbps", 12.5e9},
		{"25GB/s", 25e9},
		{"1GiB/s", 1 << 30},
		{"8bit/s", 1},
		{"1Mbit/s", 125000},
	} {
		if got, err := ParseRate(tc.in); err != nil || float64(got) != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, float64(got), err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want float64
	}{{"1.1us", 1.1e-6}, {"300ns", 300e-9}, {"2.5 µs", 2.5e-6}, {"1ms", 1e-3}, {"0", 0}, {"2s", 2}, {"1m", 60}, {"1.5min", 90}, {"2h", 7200}} {
		if got, err := ParseDuration(tc.in); err != nil || math.Abs(float64(got)-tc.want) > 1e-18 {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, float64(got), err, tc.want)
		}
	}
	if f, err := ParseFrequency("2.9GHz"); err != nil || f != 2.9e9 {
		t.Errorf("ParseFrequency = %v, %v", f, err)
	}
	for _, bad := range []string{"", "GiB", "12 parsecs", "1.5B", "NaN", "1e999KiB", "--3"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"400", "400Gbit", "fast", "Inf GB/s"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"1.1", "3 fortnights", "us"} {
		if _, err := ParseDuration(bad); err == nil {
			t.Errorf("ParseDuration(%q) accepted", bad)
		}
	}
}

func TestFormatReadsWell(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Seconds(9e-6).String(), "9us"},
		{Seconds(250e-9).String(), "250ns"},
		{Seconds(1.5e-3).String(), "1.5ms"},
		{Rate(50e9).BitString(), "400Gbit/s"},
		{Rate(25e9).String(), "25GB/s"},
		{Bytes(65536).String(), "64KiB"},
		{Bytes(1000).String(), "1000B"},
		{Seconds(3.123456e-6).Human(), "3.12 µs"},
		{Rate(24.5e9).Human(), "24.5 GB/s"},
		{Bytes(1536).Human(), "1.5 KiB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func FuzzDurationRoundTrip(f *testing.F) {
	for _, v := range []float64{0, 1.1e-6, 9e-6, 2.5e-7, 1, 3e-3, 1e-12, 123.456} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		s := Seconds(v).String()
		back, err := ParseDuration(s)
		if err != nil || float64(back) != v {
			t.Fatalf("ParseDuration(%q) = %v, %v; want %v", s, float64(back), err, v)
		}
	})
}

func FuzzRateRoundTrip(f *testing.F) {
	for _, v := range []float64{0, 50e9, 12.5e9, 307.2e9, 1, 0.125, 55.4e9} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		for _, s := range []string{Rate(v).String(), Rate(v).BitString()} {
			back, err := ParseRate(s)
			if err != nil || float64(back) != v {
				t.Fatalf("ParseRate(%q) = %v, %v; want %v", s, float64(back), err, v)
			}
		}
	})
}

func FuzzBytesRoundTrip(f *testing.F) {
	for _, v := range []int64{0, 1, 8, 4096, 65536, 1 << 30, 1000, -5} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v int64) {
		if v > math.MaxInt64/4 || v < -math.MaxInt64/4 {
			return
		}
		s := Bytes(v).String()
		back, err := ParseBytes(s)
		if err != nil || back != Bytes(v) {
			t.Fatalf("ParseBytes(%q) = %v, %v; want %v", s, back, err, v)
		}
	})
}

func FuzzFrequencyAndLengthRoundTrip(f *testing.F) {
	f.Add(2.9e9)
	f.Add(30.0)
	f.Fuzz(func(t *testing.T, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if back, err := ParseFrequency(Hertz(v).String()); err != nil || float64(back) != v {
			t.Fatalf("frequency %v -> %q -> %v, %v", v, Hertz(v).String(), float64(back), err)
		}
		if back, err := ParseLength(Meters(v).String()); err != nil || float64(back) != v {
			t.Fatalf("length %v -> %q -> %v, %v", v, Meters(v).String(), float64(back), err)
		}
	})
}

// FuzzParseText feeds arbitrary text to every unit parser: they never panic,
// and whatever they accept formats back to text that parses to the same value.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"64KiB", "400Gbit/s", "1.1us", "2.9GHz", "30m", "1e9", "-0", "1e-5ns", "0x10", "١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParseBytes(s); err == nil {
			if back, err := ParseBytes(b.String()); err != nil || back != b {
				t.Fatalf("bytes %q -> %v -> %q -> %v %v", s, b, b.String(), back, err)
			}
		}
		if r, err := ParseRate(s); err == nil {
			if back, err := ParseRate(r.String()); err != nil || back != r {
				t.Fatalf("rate %q -> %v -> %q", s, float64(r), r.String())
			}
		}
		if d, err := ParseDuration(s); err == nil {
			if back, err := ParseDuration(d.String()); err != nil || back != d {
				t.Fatalf("duration %q -> %v -> %q", s, float64(d), d.String())
			}
		}
		_, _ = ParseFrequency(s)
		_, _ = ParseLength(s)
		_, _ = ParseCount(s)
		_, _ = ParseSizes(s)
	})
}

// A number in a power-of-ten unit is read as if its exponent were moved, so
// "0.8us" is the double nearest 0.8 µs (dividing 0.8 by 1e6 gave
// 8.000000000000001e-07), and a value printed in a unit reads back exactly
// without falling back to an exponent ("7.581180846139795e-06s" before).
func TestPowerOfTenUnitsAreExact(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"0.8us", 8e-7}, {"0.2us", 2e-7}, {"0.45 µs", 4.5e-7}, {"7.581180846139795us", 7.581180846139795e-06},
		{"1.1us", 1.1e-6}, {"300ns", 3e-7}, {"2.5e-3ms", 2.5e-6}, {"1.5E+3ns", 1.5e-6},
	} {
		got, err := ParseDuration(tc.in)
		if err != nil || float64(got) != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, float64(got), err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"22.21962052028561GB/s", 22.21962052028561e9}, {"0.3GB/s", 3e8}, {"6.74GB/s", 6.74e9}, {"1.2e-3MB/s", 1.2e3},
	} {
		got, err := ParseRate(tc.in)
		if err != nil || float64(got) != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, float64(got), err, tc.want)
		}
	}
	for v, want := range map[float64]string{7.581180846139795e-06: "7.581180846139795us", 2e-7: "200ns", 4.5e-7: "450ns", 1.25e-3: "1.25ms", 3: "3s"} {
		if got := Seconds(v).String(); got != want {
			t.Errorf("Seconds(%v) = %q, want %q", v, got, want)
		}
	}
	// Any value from 1 ns to 1000 s, and any rate from 1 B/s to 10 TB/s,
	// prints in a unit without an exponent and reads back exactly.
	g := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		d := Seconds(math.Pow(10, -9+12*g.Float64()))
		if s := d.String(); strings.ContainsAny(s, "eE") {
			t.Fatalf("Seconds(%v) = %q", float64(d), s)
		} else if back, err := ParseDuration(s); err != nil || back != d {
			t.Fatalf("%q reads back as %v (%v), not %v", s, float64(back), err, float64(d))
		}
		r := Rate(math.Pow(10, 13*g.Float64()))
		if s := r.String(); strings.ContainsAny(s, "eE") {
			t.Fatalf("Rate(%v) = %q", float64(r), s)
		} else if back, err := ParseRate(s); err != nil || back != r {
			t.Fatalf("%q reads back as %v (%v), not %v", s, float64(back), err, float64(r))
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1000000: "1,000,000", -12345: "-12,345"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		x          float64
		want, sign string
	}{{0.12, "12%", "+12%"}, {0.1 - 1e-12, "10%", "+10%"}, {0.034, "3.4%", "+3.4%"}, {-0.5, "-50%", "−50%"}, {0, "0.0%", "+0.0%"}, {math.NaN(), "—", "—"}} {
		if got := Percent(c.x); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.x, got, c.want)
		}
		if got := SignedPercent(c.x); got != c.sign {
			t.Errorf("SignedPercent(%v) = %q, want %q", c.x, got, c.sign)
		}
	}
}

// The hint of an unknown unit names every unit the parser accepts (TiB and
// TB among the sizes), each of which parses.
func TestUnknownUnitHintListsEveryUnit(t *testing.T) {
	check := func(kind string, parse func(string) error, names []string) {
		err := parse("1PX")
		if err == nil {
			t.Fatalf("%s: 1PX parsed", kind)
		}
		_, hint, _ := strings.Cut(err.Error(), "(use ")
		listed := map[string]bool{}
		for _, n := range strings.Split(strings.TrimSuffix(hint, ")"), ", ") {
			listed[n] = true
		}
		for _, n := range names {
			if n == "" {
				continue
			}
			if e := parse("1" + n); e != nil {
				t.Errorf("%s: 1%s: %v", kind, n, e)
			}
			if !listed[n] {
				t.Errorf("%s: %s is accepted but the hint leaves it out: %v", kind, n, err)
			}
		}
	}
	var names []string
	for _, u := range sizeUnits {
		names = append(names, u.name)
	}
	check("size", func(s string) error { _, err := ParseBytes(s); return err }, names)
	names = nil
	for _, u := range durationUnits {
		names = append(names, u.name)
	}
	check("time", func(s string) error { _, err := ParseDuration(s); return err }, names)
	names = nil
	for _, u := range rateUnits {
		names = append(names, u.name)
	}
	check("rate", func(s string) error { _, err := ParseRate(s); return err }, names)
}
