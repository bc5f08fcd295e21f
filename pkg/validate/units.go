package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kinds of quantity, in base units.
const (
	KindTime = "s"   // seconds
	KindRate = "B/s" // bytes per second
)

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
	switch unit {
	case "us":
		return x * 1e-6, KindTime, nil
	case "ms":
		return x * 1e-3, KindTime, nil
	case "GB/s":
		return x * 1e9, KindRate, nil
	case "MB/s":
		return x * 1e6, KindRate, nil
	case "Gb/s":
		return x * 1e9 / 8, KindRate, nil
	}
	return 0, "", fmt.Errorf("unit %q is not one of us, ms, GB/s, MB/s, Gb/s", unit)
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
