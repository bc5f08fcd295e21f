package plots

import (
	"math"
	"testing"
)

// Ticks over extreme ranges end, with a bounded number of ticks (a rate of
// 1e-300 bit/s once made the decade ticker allocate without end).
func TestTicksExtremeRanges(t *testing.T) {
	ranges := [][2]float64{
		{5e-324, 1e308}, {1e-300, 1e300}, {5e-324, 1e-323}, {1, math.MaxFloat64},
		{1e17, 1e17 + 1000}, {-1e300, 1e300}, {0, 5e-324}, {1e-300, 1e-300 * (1 + 1e-15)},
	}
	for _, r := range ranges {
		for name, tk := range map[string][]int{
			"decade":  {len(decadeTicks{}.Ticks(r[0], r[1])), 400},
			"clip":    {len(decadeTicks{clip: true, label: secondsLabel}.Ticks(r[0], r[1])), 400},
			"size":    {len(sizeTicks{}.Ticks(r[0], r[1])), 2200},
			"round":   {len(roundTicks(r[0], r[1], "%")), maxLinearTicks + 1},
			"percent": {len(percentTicks{}.Ticks(r[0], r[1])), 20},
		} {
			if tk[0] > tk[1] {
				t.Errorf("%s ticks over [%g, %g]: %d, want at most %d", name, r[0], r[1], tk[0], tk[1])
			}
		}
	}
}
