// Package stats is gpupath's one quantile helper: the medians and
// percentiles of the runner's records (pkg/measure), of the fits and their
// bootstrap (pkg/fit), and of the calibration (pkg/calib) all come from
// here.
//
// Quantiles interpolate linearly between the closest ranks, at position
// q·(n−1) of the sorted values: Hyndman and Fan's definition 7, the default
// of R and of numpy.quantile. gonum's stat.Quantile offers the empirical
// quantile (definition 1, whose median of an even count is the lower
// middle value) and a linear interpolation at position q·n − 1 (definition
// 4, which differs from 7 everywhere but at the extremes): using either
// would change the medians and percentiles of every record measured so far
// and of every golden file. The tests check this package against gonum
// where the definitions agree (the empirical median of an odd count, the
// maximum) and against hand-worked values of definition 7 elsewhere.
//
// It does not sort in place (except MedianInPlace, which says so), reads no
// files and knows nothing of records.
package stats

import (
	"math"
	"slices"
)

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted values (ascending),
// interpolating linearly between the closest ranks (definition 7); NaN for
// no values. q ≤ 0 is the minimum and q ≥ 1 the maximum. Halfway between
// two values (the median of an even count) it is their midpoint computed
// without overflow or underflow.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if q <= 0 {
		return sorted[0]
	}
	if q >= 1 {
		return sorted[n-1]
	}
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	if lo+1 >= n {
		return sorted[n-1]
	}
	f := pos - float64(lo)
	switch f {
	case 0:
		return sorted[lo]
	case 0.5: // the median of an even count
		return mid(sorted[lo], sorted[lo+1])
	}
	return sorted[lo]*(1-f) + sorted[lo+1]*f
}

// mid is the midpoint of a ≤ b without overflow near MaxFloat64 or
// underflow to 0 between subnormals (where a/2 + b/2 would round both
// halves away).
func mid(a, b float64) float64 { return a + (b-a)/2 }

// Median returns the median of v (in any order; v is not modified): the
// middle value, or the mean of the two middle ones; NaN for none.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return Quantile(s, 0.5)
}

// MedianInPlace is Median without the copy: it reorders xs (quickselect,
// linear time, no allocation), for the inner loop of a bootstrap. xs must
// hold no NaN.
func MedianInPlace(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	hi := selectKth(xs, n/2)
	if n%2 == 1 {
		return hi
	}
	// The lower middle is the largest value left of position n/2.
	lo := xs[0]
	for _, x := range xs[1 : n/2] {
		lo = math.Max(lo, x)
	}
	return mid(lo, hi)
}

// selectKth reorders xs so that xs[k] is the k-th smallest, everything
// before it no larger and everything after no smaller, and returns xs[k].
func selectKth(xs []float64, k int) float64 {
	lo, hi := 0, len(xs)-1
	for lo < hi {
		// Median of three as the pivot, then Hoare partition.
		mid := lo + (hi-lo)/2
		if xs[mid] < xs[lo] {
			xs[mid], xs[lo] = xs[lo], xs[mid]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[mid] {
			xs[hi], xs[mid] = xs[mid], xs[hi]
		}
		pivot := xs[mid]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}
