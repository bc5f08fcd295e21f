package fit

import (
	"github.com/gpupath/gpupath/internal/stats"

	"fmt"
	"math"
	"slices"
)

// RatioOfMedians is median(b)/median(a) with a bootstrap percentile
// interval: each resample draws a's and b's values with replacement (each
// sample keeps its own size) and takes the ratio of their medians. Both
// samples need at least two finite, positive values; the interval is
// deterministic for opt.Seed.
func RatioOfMedians(a, b []float64, opt Options) (Interval, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Interval{}, err
	}
	for _, s := range []struct {
		name string
		xs   []float64
	}{{"a", a}, {"b", b}} {
		if len(s.xs) < 2 {
			return Interval{}, fmt.Errorf("%w: sample %s has %d values, the bootstrap needs at least 2", ErrNoData, s.name, len(s.xs))
		}
		if err := checkValues(s.name, s.xs, true); err != nil {
			return Interval{}, err
		}
	}
	point := stats.Median(b) / stats.Median(a)
	g := newRNG(opt.Seed)
	ra, rb := make([]float64, len(a)), make([]float64, len(b))
	est := make([]float64, opt.Resamples)
	for k := range est {
		if err := opt.stoppedAt(k); err != nil {
			return Interval{}, err
		}
		for i := range ra {
			ra[i] = a[g.index(len(a))]
		}
		for i := range rb {
			rb[i] = b[g.index(len(b))]
		}
		est[k] = stats.MedianInPlace(rb) / stats.MedianInPlace(ra)
	}
	return percentileInterval(point, est, opt.Level), nil
}

// GeoMean is the geometric mean of positive ratios with a bootstrap
// percentile interval over the ratios (resampled with replacement): the
// typical factor between two runs across the sizes they share. One ratio
// gives a point without an interval (Lo = Hi = Value).
func GeoMean(ratios []float64, opt Options) (Interval, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Interval{}, err
	}
	if len(ratios) == 0 {
		return Interval{}, fmt.Errorf("%w: no ratio", ErrNoData)
	}
	if err := checkValues("ratio", ratios, true); err != nil {
		return Interval{}, err
	}
	logs := make([]float64, len(ratios))
	for i, r := range ratios {
		logs[i] = math.Log(r)
	}
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	point := math.Exp(mean(logs))
	if len(ratios) == 1 {
		return Interval{Value: point, Lo: point, Hi: point}, nil
	}
	g := newRNG(opt.Seed)
	buf := make([]float64, len(logs))
	est := make([]float64, opt.Resamples)
	for k := range est {
		if err := opt.stoppedAt(k); err != nil {
			return Interval{}, err
		}
		for i := range buf {
			buf[i] = logs[g.index(len(logs))]
		}
		est[k] = math.Exp(mean(buf))
	}
	return percentileInterval(point, est, opt.Level), nil
}

// percentileInterval is the (1−level)/2 … (1+level)/2 percentile interval
// of the estimates, widened to hold the point estimate.
func percentileInterval(point float64, est []float64, level float64) Interval {
	slices.Sort(est)
	lo := stats.Quantile(est, (1-level)/2)
	hi := stats.Quantile(est, (1+level)/2)
	return Interval{Value: point, Lo: math.Min(lo, point), Hi: math.Max(hi, point)}
}
