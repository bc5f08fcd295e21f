package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bytes is a size in bytes. Sizes use binary prefixes (KiB = 1024 B) and
// accept decimal ones (kB = 1000 B) when written so.
type Bytes int64

// Seconds is a time in seconds. float64 rather than time.Duration because
// per-byte costs are far below a nanosecond.
type Seconds float64

// Rate is a data rate in bytes per second. Link rates are decimal
// (1 Gbit/s = 1e9 bit/s = 1.25e8 B/s).
type Rate float64

// Hertz is a clock frequency.
type Hertz float64

// Meters is a cable length.
type Meters float64

type sizeUnit struct {
	name string
	mult float64
}

var sizeUnits = []sizeUnit{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"B", 1}, {"", 1},
}

// splitNumber splits "1.5GiB" into 1.5 and "GiB"; spaces between are allowed.
func splitNumber(s string) (float64, string, error) {
	v, _, unit, err := splitNumberText(s)
	return v, unit, err
}

// splitNumberText is splitNumber that also returns the number as written,
// for scaling it by a power of ten in decimal (scaleDecimal).
func splitNumberText(s string) (float64, string, string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, "", "", errors.New("empty value")
	}
	i := 0
	for i < len(s) {
		c := s[i]
		if (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' {
			i++
			continue
		}
		// exponent: 1e9, 2.5E-6 (but not the "E" of "EiB": require a digit or sign after it)
		if (c == 'e' || c == 'E') && i > 0 && i+1 < len(s) {
			n := s[i+1]
			if (n >= '0' && n <= '9') || ((n == '-' || n == '+') && i+2 < len(s) && s[i+2] >= '0' && s[i+2] <= '9') {
				i += 2
				continue
			}
		}
		break
	}
	num, unit := s[:i], strings.TrimSpace(s[i:])
	if num == "" {
		return 0, "", "", fmt.Errorf("%q: no number", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, "", "", fmt.Errorf("%q: bad number", s)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "", "", fmt.Errorf("%q: not a finite number", s)
	}
	return v, num, unit, nil
}

// scaleDecimal is num × 10^k rounded once, as if written with the exponent
// moved ("7.58us" is read as 7.58e-6, not 7.58 / 1e6, which can land one
// unit in the last place away): so a value printed in a unit (formatExact)
// reads back exactly.
func scaleDecimal(num string, k int) (float64, error) {
	mant, exp := num, 0
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		e, err := strconv.Atoi(num[i+1:])
		if err != nil {
			return 0, err
		}
		mant, exp = num[:i], e
	}
	return strconv.ParseFloat(mant+"e"+strconv.Itoa(exp+k), 64)
}

// pow10 returns k when m is exactly 10^k (|k| ≤ 18).
func pow10(m float64) (int, bool) {
	for k := -18; k <= 18; k++ {
		if math.Pow10(k) == m {
			return k, true
		}
	}
	return 0, false
}

// shiftedDecimal writes v / 10^k with the shortest digits that read back as
// v (strconv's shortest form, the decimal point moved k places), in plain
// notation unless that would take more than 21 digits or 4 leading zeros.
func shiftedDecimal(v float64, k int) string {
	e := strconv.FormatFloat(v, 'e', -1, 64) // "-7.581180846139795e-06"
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	digits := strings.Replace(e[:i], ".", "", 1)
	point := 1 + exp - k // digits before the decimal point
	switch {
	case point < -4 || point > 21:
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		return sign + m + "e" + strconv.Itoa(exp-k)
	case point <= 0:
		return sign + "0." + strings.Repeat("0", -point) + digits
	case point >= len(digits):
		return sign + digits + strings.Repeat("0", point-len(digits))
	}
	return sign + digits[:point] + "." + digits[point:]
}

// ParseBytes parses a size such as "4096", "64KiB", "1.5MiB", "4kB" or "2 GB".
// Binary prefixes are powers of 1024, decimal ones powers of 1000. The result
// must be a whole number of bytes.
func ParseBytes(s string) (Bytes, error) {
	v, unit, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	for _, u := range sizeUnits {
		if unit == u.name {
			b := v * u.mult
			if b != math.Trunc(b) {
				return 0, fmt.Errorf("%q is not a whole number of bytes", s)
			}
			if math.Abs(b) > math.MaxInt64/2 {
				return 0, fmt.Errorf("%q is too large", s)
			}
			return Bytes(b), nil
		}
	}
	return 0, fmt.Errorf("%q: unknown size unit %q (use %s)", s, unit, unitList(sizeUnits, func(u sizeUnit) string { return u.name }))
}

// unitList is the hint of an unknown unit: every name of the parser's own
// table, in its order (the empty one left out), so that the hint and what
// is accepted cannot drift apart.
func unitList[T any](table []T, name func(T) string) string {
	var names []string
	for _, u := range table {
		if n := name(u); n != "" {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// String formats b exactly, with the largest binary unit that divides it: "64KiB", "1000B".
func (b Bytes) String() string {
	units := []struct {
		n string
		m int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if b != 0 && int64(b)%u.m == 0 {
			return fmt.Sprintf("%d%s", int64(b)/u.m, u.n)
		}
	}
	return fmt.Sprintf("%dB", int64(b))
}

// Human formats b for reading at a glance, rounded: "1.5 MiB", "8 B".
func (b Bytes) Human() string {
	v := float64(b)
	for _, u := range []struct {
		n string
		m float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if math.Abs(v) >= u.m {
			return FormatSig(v/u.m, 3) + " " + u.n
		}
	}
	return fmt.Sprintf("%d B", int64(b))
}

// durationUnits: value = number / div (division by an exact power of ten is
// correctly rounded, so "9us" is the double nearest 9e-6).
type durationUnit struct {
	name string
	div  float64
}

var durationUnits = []durationUnit{
	{"ns", 1e9}, {"us", 1e6}, {"µs", 1e6}, {"μs", 1e6}, {"ms", 1e3}, {"s", 1},
	// Minutes and hours, as Go's durations (--budget 5m) write them.
	{"m", 1.0 / 60}, {"min", 1.0 / 60}, {"h", 1.0 / 3600},
}

// ParseDuration parses a time such as "1.1us", "300ns", "2.5 µs", "1ms",
// "1m" (a minute), "2h" or "0".
func ParseDuration(s string) (Seconds, error) {
	v, num, unit, err := splitNumberText(s)
	if err != nil {
		return 0, err
	}
	if unit == "" && v == 0 {
		return 0, nil
	}
	for _, u := range durationUnits {
		if unit == u.name {
			if k, ok := pow10(u.div); ok {
				if x, err := scaleDecimal(num, -k); err == nil && !math.IsInf(x, 0) {
					return Seconds(x), nil
				}
			}
			return Seconds(v / u.div), nil
		}
	}
	return 0, fmt.Errorf("%q: unknown time unit %q (use %s)", s, unit, unitList(durationUnits, func(u durationUnit) string { return u.name }))
}

// String formats d so that ParseDuration gives back exactly d: "1.1us".
func (d Seconds) String() string {
	v := float64(d)
	return formatExact(v, []unitMult{{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}}, "s",
		func(s string) (float64, error) { x, err := ParseDuration(s); return float64(x), err })
}

// Human formats d rounded for reading: "3.12 µs", "1.5 ms".
func (d Seconds) Human() string {
	v := float64(d)
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0 s"
	case a < 1e-6:
		return FormatSig(v*1e9, 3) + " ns"
	case a < 1e-3:
		return FormatSig(v*1e6, 3) + " µs"
	case a < 1:
		return FormatSig(v*1e3, 3) + " ms"
	}
	return FormatSig(v, 3) + " s"
}

type rateUnit struct {
	name string
	mult float64 // bytes per second per unit
}

var rateUnits = []rateUnit{
	{"bit/s", -8}, {"bps", -8}, {"b/s", -8}, // negative: divide by 8
	{"kbit/s", 1e3 / 8}, {"Kbit/s", 1e3 / 8}, {"kbps", 1e3 / 8}, {"Kb/s", 1e3 / 8},
	{"Mbit/s", 1e6 / 8}, {"Mbps", 1e6 / 8}, {"Mb/s", 1e6 / 8},
	{"Gbit/s", 1e9 / 8}, {"Gbps", 1e9 / 8}, {"Gb/s", 1e9 / 8},
	{"Tbit/s", 1e12 / 8}, {"Tbps", 1e12 / 8}, {"Tb/s", 1e12 / 8},
	{"B/s", 1}, {"kB/s", 1e3}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
	{"KiB/s", 1 << 10}, {"MiB/s", 1 << 20}, {"GiB/s", 1 << 30},
}

// ParseRate parses a data rate such as "400Gbit/s", "100Gbps", "25GB/s" or
// "12.5 GiB/s" into bytes per second. Bit rates are decimal.
func ParseRate(s string) (Rate, error) {
	v, num, unit, err := splitNumberText(s)
	if err != nil {
		return 0, err
	}
	for _, u := range rateUnits {
		if unit == u.name {
			if u.mult < 0 {
				return Rate(v / -u.mult), nil
			}
			if k, ok := pow10(u.mult); ok {
				if x, err := scaleDecimal(num, k); err == nil && !math.IsInf(x, 0) {
					return Rate(x), nil
				}
			}
			return Rate(v * u.mult), nil
		}
	}
	if unit == "" {
		return 0, fmt.Errorf("%q: a rate needs a unit (e.g. 400Gbit/s or 25GB/s)", s)
	}
	return 0, fmt.Errorf("%q: unknown rate unit %q (use %s)", s, unit, unitList(rateUnits, func(u rateUnit) string { return u.name }))
}

// String formats r in GB/s (or B/s) so that ParseRate gives back exactly r.
func (r Rate) String() string {
	return formatExact(float64(r), []unitMult{{"GB/s", 1e9}, {"MB/s", 1e6}, {"B/s", 1}}, "B/s",
		func(s string) (float64, error) { x, err := ParseRate(s); return float64(x), err })
}

// Human formats r rounded in decimal bytes per second: "23.6 GB/s".
func (r Rate) Human() string {
	v := float64(r)
	for _, u := range []struct {
		n string
		m float64
	}{{"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}} {
		if math.Abs(v) >= u.m {
			return FormatSig(v/u.m, 3) + " " + u.n
		}
	}
	return FormatSig(v, 3) + " B/s"
}

// HumanBits is r in bits per second, rounded for reading as Human rounds
// bytes: 1.195e8 B/s → "956 Mbit/s", 5e10 B/s → "400 Gbit/s" (stream
// goodputs, compared with link rates, are read in bits).
func (r Rate) HumanBits() string {
	return strings.Replace((8 * r).Human(), "B/s", "bit/s", 1)
}

// Gbits formats r in Gbit/s, rounded: "200 Gbit/s".
func (r Rate) Gbits() string { return FormatSig(float64(r)*8/1e9, 3) + " Gbit/s" }

// ParseFrequency parses "2.9GHz", "3500MHz".
func ParseFrequency(s string) (Hertz, error) {
	v, unit, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	switch unit {
	case "Hz":
		return Hertz(v), nil
	case "kHz":
		return Hertz(v * 1e3), nil
	case "MHz":
		return Hertz(v * 1e6), nil
	case "GHz":
		return Hertz(v * 1e9), nil
	}
	return 0, fmt.Errorf("%q: unknown frequency unit %q (use GHz, MHz)", s, unit)
}

// String formats f so that ParseFrequency gives back exactly f.
func (f Hertz) String() string {
	return formatExact(float64(f), []unitMult{{"GHz", 1e9}, {"MHz", 1e6}, {"Hz", 1}}, "Hz",
		func(s string) (float64, error) { x, err := ParseFrequency(s); return float64(x), err })
}

// ParseLength parses a cable length: "3m", "30 m", "150cm", "0.5km".
func ParseLength(s string) (Meters, error) {
	v, unit, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	switch unit {
	case "m":
		return Meters(v), nil
	case "cm":
		return Meters(v / 100), nil
	case "km":
		return Meters(v * 1000), nil
	}
	return 0, fmt.Errorf("%q: unknown length unit %q (use m, cm, km)", s, unit)
}

// String formats m so that ParseLength gives back exactly m.
func (m Meters) String() string {
	return formatExact(float64(m), []unitMult{{"m", 1}}, "m",
		func(s string) (float64, error) { x, err := ParseLength(s); return float64(x), err })
}

type unitMult struct {
	name string
	mult float64
}

// formatExact writes v in the largest unit in which it is at least 1,
// with the fewest significant digits that parse back to exactly v; when no
// unit gives v back exactly it uses the base unit with Go's shortest
// round-tripping float text.
func formatExact(v float64, units []unitMult, base string, parse func(string) (float64, error)) string {
	if v == 0 {
		return "0" + base
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		// No unit holds it; the parsers refuse it, so it never round-trips.
		return strconv.FormatFloat(v, 'g', -1, 64) + base
	}
	try := func(u unitMult) (string, bool) {
		if k, ok := pow10(u.mult); ok {
			if s := shiftedDecimal(v, k) + u.name; func() bool { back, err := parse(s); return err == nil && back == v }() {
				return s, true
			}
		}
		x := v / u.mult
		for p := 1; p <= 17; p++ {
			s := plainFloat(x, p) + u.name
			if back, err := parse(s); err == nil && back == v {
				return s, true
			}
		}
		return "", false
	}
	for _, u := range units {
		if math.Abs(v) >= u.mult*(1-1e-12) {
			if s, ok := try(u); ok {
				return s
			}
		}
	}
	for i := len(units) - 1; i >= 0; i-- {
		if s, ok := try(units[i]); ok {
			return s
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64) + base
}

// plainFloat formats x with p significant digits, without an exponent
// when x is between 1e-4 and 1e15.
func plainFloat(x float64, p int) string {
	t := strconv.FormatFloat(x, 'g', p, 64)
	y, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return t
	}
	if a := math.Abs(y); a >= 1e-4 && a < 1e15 {
		return strconv.FormatFloat(y, 'f', -1, 64)
	}
	return t
}

// FormatSig formats v with about sig significant digits and no trailing
// zeros, in plain notation: FormatSig(0.1234, 2) = "0.12", FormatSig(1234, 2) = "1234".
func FormatSig(v float64, sig int) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	dec := sig - 1 - int(math.Floor(math.Log10(a)))
	if dec < 0 {
		dec = 0
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// BitString formats r in Gbit/s or Mbit/s when that is exact (nominal link
// rates): "400Gbit/s"; otherwise as String.
func (r Rate) BitString() string {
	return formatExact(float64(r), []unitMult{{"Gbit/s", 1e9 / 8}, {"Mbit/s", 1e6 / 8}}, "B/s",
		func(s string) (float64, error) { x, err := ParseRate(s); return float64(x), err })
}

// ParseCount parses a count per second: "200M/s", "215 Mpps", "2e8/s", "1.5G/s".
func ParseCount(v string) (float64, error) {
	x, unit, err := splitNumber(v)
	if err != nil {
		return 0, err
	}
	mult := map[string]float64{"/s": 1, "pps": 1, "msg/s": 1, "k/s": 1e3, "kpps": 1e3, "M/s": 1e6, "Mpps": 1e6, "Mmsg/s": 1e6, "G/s": 1e9, "Gpps": 1e9}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("%q: a count per second looks like 200M/s or 215Mpps", v)
	}
	return x * m, nil
}

// FormatCount formats a count per second so that ParseCount gives it back
// exactly: "215M/s".
func FormatCount(x float64) string {
	return formatExact(x, []unitMult{{"M/s", 1e6}, {"k/s", 1e3}, {"/s", 1}}, "/s", ParseCount)
}

// Thousands writes a count with commas between groups of three digits
// (1,000,000), as the limits in the commands' help are written.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// Percent spells a relative error or a share as a percentage: whole
// percents from 10 % up ("12%"), one decimal below ("0.5%"), "—" for NaN.
func Percent(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.Abs(x) >= 0.0995: // rounds to 10.0 % or more
		return fmt.Sprintf("%.0f%%", 100*x)
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// SignedPercent is Percent with its sign always written ("+12%", "−3.4%"),
// for a residual.
func SignedPercent(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case x < 0:
		return "−" + Percent(-x)
	}
	return "+" + Percent(x)
}
