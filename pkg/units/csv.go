package units

import (
	"math"
	"strconv"
)

// Cell is the one spelling of a number in gpupath's CSV files and
// machine-readable tables: full precision (the shortest text that reads
// back as the same float64), and a whole number below 2^53 as an integer
// with no exponent (16777216, not 1.6777216e+07); NaN (no value) is an
// empty cell, +Inf "inf" and −Inf "-inf". Every CSV writer of gpupath
// (model, validate, the report's figure tables) writes numbers with it.
func Cell(v float64) string {
	switch {
	case math.IsNaN(v):
		return ""
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v == math.Trunc(v) && math.Abs(v) < 1<<53:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// LineBreak returns the first line break in s (LF, CR, VT, FF, NEL, U+2028,
// U+2029) and true, or false: a name or a text value that a line of output
// shows must be one line.
func LineBreak(s string) (rune, bool) {
	for _, r := range s {
		switch r {
		case '\n', '\r', '\v', '\f', 0x85, 0x2028, 0x2029:
			return r, true
		}
	}
	return 0, false
}
