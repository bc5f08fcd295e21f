package units

import "strings"

// Compact spellings are the ones scenario keys, `--set` arguments and
// record labels use: Human's rounding (three significant digits) and
// choice of prefix, without the space, and µs written as "us", so that the
// parsers read them back ("9.14us", "55.4GB/s", "400Gbit/s"). Sizes need
// none: Bytes.String is exact and compact already.

// Compact is d.Human() without the space: 9.14e-6 → "9.14us", 3.5e-7 →
// "350ns", 0 → "0s".
func (d Seconds) Compact() string { return squeeze(d.Human()) }

// Compact is r.Human() without the space: 55.43e9 → "55.4GB/s".
func (r Rate) Compact() string { return squeeze(r.Human()) }

// CompactBits is r in bits per second with a decimal prefix, Human's
// rounding applied to the bit count: 5e10 B/s → "400Gbit/s", 1.25e7 B/s →
// "100Mbit/s".
func (r Rate) CompactBits() string { return squeeze(r.HumanBits()) }

func squeeze(human string) string {
	return strings.ReplaceAll(strings.ReplaceAll(human, " ", ""), "µs", "us")
}
