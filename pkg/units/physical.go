package units

import "math"

// The physical range of a measured time, the one every reader of
// measurements holds to (the run reader, the fits, the figures, the
// published table): below a picosecond (a few clock cycles, under any
// message's cost) or above 10⁶ s (11.6 days) a value is not the time of a
// transfer but a unit error or garbage — 5e-324 s, 1e300 s — whose squares
// and ratios overflow float64 (an error of +Inf %, a log axis that
// panics). Sizes above MaxSize (1 EiB) likewise.
// Rates above MaxRate (10¹⁵ B/s, a thousand times an NVLink 4 GPU's
// 900 GB/s) are garbage too.
const (
	MinTime Seconds = 1e-12
	MaxTime Seconds = 1e6
	MaxSize Bytes   = 1 << 60
	MaxRate Rate    = 1e15
)

// PhysicalTime says whether s seconds is in [MinTime, MaxTime] (NaN and
// ±Inf are not).
func PhysicalTime(s float64) bool {
	return !math.IsNaN(s) && s >= float64(MinTime) && s <= float64(MaxTime)
}

// PhysicalRate says whether r bytes per second is in (0, MaxRate] (NaN
// and ±Inf are not).
func PhysicalRate(r float64) bool {
	return !math.IsNaN(r) && r > 0 && r <= float64(MaxRate)
}
