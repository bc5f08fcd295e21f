package measure

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The formatters and the one parser below follow the project's unit
// conventions (STYLE.md): decimal prefixes for rates (GB/s = 1e9 B/s,
// Gbit/s = 1e9 bit/s), binary prefixes for sizes (KiB = 1024 B), durations in
// SI seconds ("1.2us"). pkg/model owns the full parsers; these exist so that
// measure can write values the model reads back without importing it.

// sig3 formats v with three significant digits and no exponent, trailing
// zeros trimmed: 11.83 → "11.8", 0.3512 → "0.351", 1234 → "1234".
func sig3(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if digits < 0 {
		digits = 0
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// FormatRate writes a byte rate (bytes/s) with a decimal prefix: "11.8GB/s".
func FormatRate(bps float64) string {
	switch a := math.Abs(bps); {
	case a >= 1e12:
		return sig3(bps/1e12) + "TB/s"
	case a >= 1e9:
		return sig3(bps/1e9) + "GB/s"
	case a >= 1e6:
		return sig3(bps/1e6) + "MB/s"
	case a >= 1e3:
		return sig3(bps/1e3) + "kB/s"
	}
	return sig3(bps) + "B/s"
}

// FormatBitRate writes a byte rate (bytes/s) in bits with a decimal prefix:
// 1.25e8 → "1Gbit/s".
func FormatBitRate(bps float64) string {
	b := bps * 8
	switch a := math.Abs(b); {
	case a >= 1e12:
		return sig3(b/1e12) + "Tbit/s"
	case a >= 1e9:
		return sig3(b/1e9) + "Gbit/s"
	case a >= 1e6:
		return sig3(b/1e6) + "Mbit/s"
	case a >= 1e3:
		return sig3(b/1e3) + "kbit/s"
	}
	return sig3(b) + "bit/s"
}

// FormatSeconds writes a duration given in seconds: "350ns", "1.2us",
// "3.4ms", "2s". Values below a microsecond use ns, so that no precision is
// lost to rounding.
func FormatSeconds(s float64) string {
	switch a := math.Abs(s); {
	case a == 0:
		return "0s"
	case a < 1e-6:
		return sig3(s*1e9) + "ns"
	case a < 1e-3:
		return sig3(s*1e6) + "us"
	case a < 1:
		return sig3(s*1e3) + "ms"
	}
	return sig3(s) + "s"
}

// FormatBytes writes a size with a binary prefix when it is a whole multiple:
// 4096 → "4KiB", 1000 → "1000B".
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for i < len(units)-1 && n != 0 && n%1024 == 0 {
		n /= 1024
		i++
	}
	return strconv.FormatInt(n, 10) + units[i]
}

// ParseBytes reads a size: a plain number of bytes or a number with a binary
// (KiB, MiB, GiB) or decimal (kB, MB, GB) suffix, e.g. "64", "4KiB", "16MiB".
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"kB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad size %q (want e.g. 64, 4KiB, 16MiB)", s)
	}
	b := v * float64(mult)
	if b < 0 || b > math.MaxInt64/2 || b != math.Trunc(b) {
		return 0, fmt.Errorf("bad size %q: not a whole, non-negative number of bytes", s)
	}
	return int64(b), nil
}

// ParseBitRate reads a link rate and returns bytes per second. It accepts
// "1Gbit/s", "300Mbit/s", "10Gbit", "1.5GB/s" (bytes) and tc's spellings
// "1gbit", "300mbit". Prefixes are decimal. "bps" is refused: tc reads it
// as bytes, most people as bits.
func ParseBitRate(s string) (float64, error) {
	t := strings.TrimSpace(s)
	l := strings.ToLower(t)
	l = strings.TrimSuffix(l, "/s")
	bytes := false
	switch {
	case strings.HasSuffix(l, "bit"):
		l = strings.TrimSuffix(l, "bit")
	case strings.HasSuffix(t, "B/s"):
		bytes = true
		l = strings.TrimSuffix(l, "b")
	default:
		return 0, fmt.Errorf("bad rate %q (want e.g. 1Gbit/s, 300Mbit/s, 1.5GB/s)", s)
	}
	mult := 1.0
	if n := len(l); n > 0 {
		switch l[n-1] {
		case 'k':
			mult, l = 1e3, l[:n-1]
		case 'm':
			mult, l = 1e6, l[:n-1]
		case 'g':
			mult, l = 1e9, l[:n-1]
		case 't':
			mult, l = 1e12, l[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("bad rate %q (want e.g. 1Gbit/s, 300Mbit/s, 1.5GB/s)", s)
	}
	v *= mult
	if !bytes {
		v /= 8
	}
	return v, nil
}
