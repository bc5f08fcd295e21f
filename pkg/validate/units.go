package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Kinds of quantity, in base units.
const (
	KindTime = "s"   // seconds
	KindRate = "B/s" // bytes per second
)

// QuantityKind is the kind of a published quantity, from its name: a time
// (latency_oneway, latency_rtt, collective_time, copy_time, … — "latency…"
// or "…_time") or a rate (bandwidth_uni, busbw, algbw, … — "bandwidth…",
// "busbw…", "algbw…"); false for a name that says neither.
func QuantityKind(q string) (string, bool) {
	switch {
	case strings.HasPrefix(q, "latency") || strings.HasSuffix(q, "_time"):
		return KindTime, true
	case strings.HasPrefix(q, "bandwidth") || strings.HasPrefix(q, "busbw") || strings.HasPrefix(q, "algbw"):
		return KindRate, true
	}
	return "", false
}

// kindWords names a kind in a message.
func kindWords(kind string) string {
	if kind == KindTime {
		return "a time"
	}
	return "a rate"
}

// parseValue converts a published value to base units: microseconds to
// seconds; MB/s (10⁶ B/s, as OSU and perftest print), GB/s (10⁹ B/s) and
// Gb/s (bits) to bytes per second. A range written "6-7" is taken at its
// middle (the README keeps ranges as written).
func parseValue(v, unit string) (float64, string, error) {
	v = strings.TrimSpace(v)
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		lo, hi, ok := strings.Cut(v, "-")
		a, e1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
		b, e2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
		if !ok || e1 != nil || e2 != nil || a > b {
			return 0, "", fmt.Errorf("value %q is not a number or a range a-b", v)
		}
		x = (a + b) / 2
	}
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, "", fmt.Errorf("value %q must be positive", v)
	}
	var base float64
	kind := KindRate
	switch unit {
	case "us":
		base, kind = x*1e-6, KindTime
	case "ms":
		base, kind = x*1e-3, KindTime
	case "GB/s":
		base = x * 1e9
	case "MB/s":
		base = x * 1e6
	case "Gb/s":
		base = x * 1e9 / 8
	default:
		return 0, "", fmt.Errorf("unit %q is not one of us, ms, GB/s, MB/s, Gb/s", unit)
	}
	if kind == KindTime && (base < MinTime || base > MaxTime) {
		return 0, "", fmt.Errorf("value %q %s is out of range: a time is 1 ps to 10⁶ s", v, unit)
	}
	if kind == KindRate && (base < MinRate || base > MaxRate) {
		return 0, "", fmt.Errorf("value %q %s is out of range: a rate is 1 kbit/s to 1,000,000 GB/s", v, unit)
	}
	return base, kind, nil
}

// The physical range of a published value, in base units (the range
// scenario values have): a time of 1 ps to 10⁶ s, a rate of 1 kbit/s to
// 1,000,000 GB/s; and of a message size stated as a number, 0 B to 1 EiB.
const (
	MinTime     = float64(units.MinTime)
	MaxTime     = float64(units.MaxTime)
	MinRate     = 1e3 / 8
	MaxRate     = 1e15
	MaxMsgBytes = 1 << 60
)

// checkMsgBytes refuses a msg_bytes that is written as a number but is not
// a whole number of bytes in range (-1, NaN, 1e20, 2.5); words ("large",
// "sweep", "qperf default") are left to the row's reading.
func checkMsgBytes(s string) error {
	t := strings.TrimSpace(s)
	if t == "" {
		return nil
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n < 0 || n > MaxMsgBytes {
			return fmt.Errorf("msg_bytes %q is out of range: 0 B to 1 EiB", t)
		}
		return nil
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil || strings.ContainsAny(t[:1], "+-.0123456789") {
		return fmt.Errorf("msg_bytes %q is not a whole number of bytes from 0 to 1 EiB (or a word: large, sweep, n/s, ...)", t)
	}
	return nil
}

// Format writes a base-unit value (seconds, bytes per second) in a row's
// unit, to four significant digits: Format(95.74e-6, "us") = "95.74".
func Format(x float64, unit string) string { return formatValue(x, unit) }

// formatValue writes a base-unit value back in a row's unit.
func formatValue(x float64, unit string) string {
	switch unit {
	case "us":
		x /= 1e-6
	case "ms":
		x /= 1e-3
	case "GB/s":
		x /= 1e9
	case "MB/s":
		x /= 1e6
	case "Gb/s":
		x = x * 8 / 1e9
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// tableValue writes a base-unit value for the table of `gpupath
// validate` with its unit, one unit per kind whatever the row was
// published in (µs for a time, GB/s for a rate), to four significant
// digits and never with an exponent: tableValue(12190e6, "MB/s") =
// "12.19 GB/s".
func tableValue(x float64, unit string) string {
	if unit == "us" || unit == "ms" {
		return fourDigits(x/1e-6) + " µs"
	}
	return fourDigits(x/1e9) + " GB/s"
}

// fourDigits writes x to four significant digits in plain decimals.
func fourDigits(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	d := max(3-int(math.Floor(math.Log10(math.Abs(x)))), 0)
	return strconv.FormatFloat(x, 'f', d, 64)
}
