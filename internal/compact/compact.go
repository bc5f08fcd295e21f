// Package compact writes values in the compact spelling that scenario keys,
// `--set` arguments and record labels use ("9.1us", "55.4GB/s",
// "400Gbit/s"), from pkg/model's formatters: the rounding (three
// significant digits) and the choice of prefix are model.Seconds.Human's and
// model.Rate.Human's; this package only drops the space and writes µs as
// "us". Sizes need nothing of it: model.Bytes.String is exact and compact.
//
// It exists because pkg/model has no compact formatter of its own; it is
// the one place the spelling is made, for pkg/calib, pkg/measure, the
// command and the benchmarks.
package compact

import (
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

// Seconds is model.Seconds(s).Human() compact: 9.14e-6 → "9.14us",
// 3.5e-7 → "350ns", 0 → "0s".
func Seconds(s float64) string { return squeeze(model.Seconds(s).Human()) }

// Rate is model.Rate(bps).Human() compact: 55.43e9 → "55.4GB/s".
func Rate(bps float64) string { return squeeze(model.Rate(bps).Human()) }

// BitRate is a byte rate written in bits per second with a decimal prefix,
// the model's rounding applied to the bit count: 5e10 B/s → "400Gbit/s",
// 1.25e7 B/s → "100Mbit/s".
func BitRate(bps float64) string {
	return strings.Replace(squeeze(model.Rate(8*bps).Human()), "B/s", "bit/s", 1)
}

func squeeze(human string) string {
	return strings.ReplaceAll(strings.ReplaceAll(human, " ", ""), "µs", "us")
}
