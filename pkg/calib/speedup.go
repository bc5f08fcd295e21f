package calib

import (
	"errors"
	"math"
	"slices"
)

// Times are the seconds of one transfer at one size: as measured, and as
// the calibrated and the base (preset) model predict them.
type Times struct {
	Measured, Calibrated, Preset float64
}

// SpeedupRow is the staged transfer at one size measured in both variants.
type SpeedupRow struct {
	Bytes                      float64
	StoreAndForward, Pipelined Times
}

// Speedup is the speed-up of pipelining at the row's size: the
// store-and-forward time over the pipelined time, measured and as each
// model predicts it; NaN where either time is not a positive, finite
// number.
func (r SpeedupRow) Speedup() Times {
	ratio := func(a, b float64) float64 {
		if !finitePositive(a) || !finitePositive(b) {
			return math.NaN()
		}
		return a / b
	}
	s, p := r.StoreAndForward, r.Pipelined
	return Times{Measured: ratio(s.Measured, p.Measured), Calibrated: ratio(s.Calibrated, p.Calibrated), Preset: ratio(s.Preset, p.Preset)}
}

func finitePositive(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// ErrNoSpeedup is returned when the runs do not hold the staged transfer in
// both variants at a common size.
var ErrNoSpeedup = errors.New("the staged transfer was not measured store-and-forward and pipelined at a common size")

// Speedup pairs the staged transfer's two variants (the comparisons of path
// tcp, store-and-forward and pipelined) at every size both measured, in
// ascending size: the one computation of the speed-up of pipelining that
// the report and the notebooks show.
func Speedup(c *Calibration) ([]SpeedupRow, error) {
	sf, pl := c.comparison("tcp", "store-and-forward"), c.comparison("tcp", "pipelined")
	if sf == nil || pl == nil {
		return nil, ErrNoSpeedup
	}
	var rows []SpeedupRow
	for i, n := range sf.Bytes {
		if j := slices.Index(pl.Bytes, n); j >= 0 {
			rows = append(rows, SpeedupRow{Bytes: n,
				StoreAndForward: Times{sf.Measured[i], sf.Calibrated[i], sf.Preset[i]},
				Pipelined:       Times{pl.Measured[j], pl.Calibrated[j], pl.Preset[j]}})
		}
	}
	if len(rows) == 0 {
		return nil, ErrNoSpeedup
	}
	slices.SortStableFunc(rows, func(a, b SpeedupRow) int {
		switch {
		case a.Bytes < b.Bytes:
			return -1
		case a.Bytes > b.Bytes:
			return 1
		}
		return 0
	})
	return rows, nil
}

// comparison is the first comparison of a path and variant with data, or nil.
func (c *Calibration) comparison(path, variant string) *Comparison {
	for i := range c.Comparison {
		if cmp := &c.Comparison[i]; cmp.Path == path && cmp.Variant == variant && len(cmp.Bytes) > 0 {
			return cmp
		}
	}
	return nil
}
