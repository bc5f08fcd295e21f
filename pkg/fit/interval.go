package fit

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/gpupath/gpupath/internal/stats"
)

// Interval is a point estimate with its bootstrap percentile interval
// [Lo, Hi]. Lo ≤ Value ≤ Hi always holds (the interval is widened to the
// point estimate in the rare skewed case where a percentile interval misses
// it). No field is ever NaN or negative; Hi (and for a bandwidth, Value) may be
// +Inf, meaning "unbounded": see UpperBound and LowerBound.
type Interval struct {
	Value float64
	Lo    float64
	Hi    float64
}

// UpperBound reports whether the data only bound the quantity from above:
// the interval reaches 0, so it should be reported as "< Hi" (a latency
// not distinguishable from 0).
func (v Interval) UpperBound() bool { return v.Lo <= 0 && !math.IsInf(v.Hi, 1) }

// LowerBound reports whether the data only bound the quantity from below:
// the interval is unbounded above, so it should be reported as "> Lo" (a
// bandwidth whose n/β term is lost in the noise).
func (v Interval) LowerBound() bool { return math.IsInf(v.Hi, 1) }

// Ratio is Hi/Lo, the factor the interval spans (+Inf when Lo is 0 or Hi
// is unbounded).
func (v Interval) Ratio() float64 {
	if v.Lo <= 0 || math.IsInf(v.Hi, 1) {
		return math.Inf(1)
	}
	return v.Hi / v.Lo
}

// String formats the interval with three significant digits and no unit:
// "1.23e-06 [1.2e-06, 1.26e-06]", or "< 3.1e-08" when only an upper bound
// is known, "> 5e+10" when only a lower bound is, "unknown" when neither.
func (v Interval) String() string {
	switch {
	case v.Lo <= 0 && math.IsInf(v.Hi, 1):
		return "unknown"
	case v.UpperBound():
		return fmt.Sprintf("< %.3g", v.Hi)
	case v.LowerBound():
		return fmt.Sprintf("> %.3g", v.Lo)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g]", v.Value, v.Lo, v.Hi)
}

type intervalJSON struct {
	Value *float64 `json:"value"`
	Lo    *float64 `json:"lo"`
	Hi    *float64 `json:"hi"`
}

func finitePtr(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

// MarshalJSON writes {"value":…, "lo":…, "hi":…} with null for +Inf
// (JSON has no infinity).
func (v Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{finitePtr(v.Value), finitePtr(v.Lo), finitePtr(v.Hi)})
}

// UnmarshalJSON reads what MarshalJSON writes; null reads as +Inf.
func (v *Interval) UnmarshalJSON(b []byte) error {
	var j intervalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	get := func(p *float64) float64 {
		if p == nil {
			return math.Inf(1)
		}
		return *p
	}
	*v = Interval{Value: get(j.Value), Lo: get(j.Lo), Hi: get(j.Hi)}
	return nil
}

// interval builds an Interval from a point estimate and sorted bootstrap
// samples at the given level.
func interval(value float64, sorted []float64, level float64) Interval {
	v := Interval{Value: value, Lo: value, Hi: value}
	if len(sorted) > 0 {
		v.Lo = math.Min(value, stats.Quantile(sorted, (1-level)/2))
		v.Hi = math.Max(value, stats.Quantile(sorted, (1+level)/2))
	}
	return v
}

// inverse maps an interval of γ = 1/β (seconds per byte) to one of β.
func inverse(g Interval) Interval {
	inv := func(x float64) float64 {
		if x <= 0 {
			return math.Inf(1)
		}
		return 1 / x
	}
	return Interval{Value: inv(g.Value), Lo: inv(g.Hi), Hi: inv(g.Lo)}
}
