package fit

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/units"
)

// Observation is the timing of one message size: its repetitions, in
// seconds. Several observations may share a size; they are merged.
type Observation struct {
	Bytes   float64   `json:"bytes"`
	Seconds []float64 `json:"seconds"`
}

// Group turns the flat form — one (size, time) pair per measurement — into
// observations, one per distinct size, in ascending size. The values are not
// checked here (the fits do that); only the lengths must match.
func Group(bytes, seconds []float64) ([]Observation, error) {
	if len(bytes) != len(seconds) {
		return nil, fmt.Errorf("%w: %d sizes but %d times", ErrInput, len(bytes), len(seconds))
	}
	idx := map[float64]int{}
	var obs []Observation
	var nan []float64 // NaN never equals itself, so it cannot key the map
	for i, b := range bytes {
		if math.IsNaN(b) {
			nan = append(nan, seconds[i])
			continue
		}
		j, ok := idx[b]
		if !ok {
			j = len(obs)
			idx[b] = j
			obs = append(obs, Observation{Bytes: b})
		}
		obs[j].Seconds = append(obs[j].Seconds, seconds[i])
	}
	slices.SortFunc(obs, func(a, b Observation) int { return cmpFloat(a.Bytes, b.Bytes) })
	if len(nan) > 0 {
		obs = append(obs, Observation{Bytes: math.NaN(), Seconds: nan})
	}
	return obs, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// data is validated observations: distinct sizes in ascending order, each
// with at least one positive finite time (sorted ascending).
type data struct {
	bytes []float64
	reps  [][]float64
	med   []float64 // per-size median
	n     int       // number of times in all
	warns []Warning
}

// The physical range of what a fit accepts. A time below MinSeconds (a
// picosecond: a few clock cycles, below any message's cost) or above
// MaxSeconds (a million seconds, 11.6 days) is not a measurement of a
// transfer but a unit error or garbage, and squares of such values
// overflow or underflow float64 in the solver (5e-324 s, 1e300 s). Sizes
// above MaxBytes (1 EiB) likewise.
const (
	MinSeconds = float64(units.MinTime)
	MaxSeconds = float64(units.MaxTime)
	MaxBytes   = float64(units.MaxSize)
)

// MaxTimes bounds the times one fit works on: a bootstrap refits every
// resample over all of them, so a run of a million records each with its
// repetitions would take minutes. Past it, prepare thins each size to
// evenly spaced order statistics (CodeThinned), at least minKept a size.
const (
	MaxTimes = 1 << 16
	minKept  = 8
)

// evenlySpaced returns k of the sorted values r, evenly spaced from the
// smallest to the largest: the same distribution, fewer values.
func evenlySpaced(r []float64, k int) []float64 {
	out := make([]float64, k)
	for i := range out {
		out[i] = r[i*(len(r)-1)/max(1, k-1)]
	}
	return out
}

// prepare validates and merges observations. Unusable sizes and times are
// dropped with a CodeDropped warning; an error comes only when nothing usable
// is left.
func prepare(obs []Observation) (*data, error) {
	if len(obs) == 0 {
		return nil, fmt.Errorf("%w: the list is empty", ErrNoData)
	}
	var badSize, badTime, outTime, emptySize int
	byBytes := map[float64][]float64{}
	for _, o := range obs {
		if math.IsNaN(o.Bytes) || o.Bytes < 0 || o.Bytes > MaxBytes {
			badSize++
			continue
		}
		kept := 0
		for _, s := range o.Seconds {
			if math.IsNaN(s) || s <= 0 {
				badTime++
				continue
			}
			if s < MinSeconds || s > MaxSeconds {
				outTime++
				continue
			}
			byBytes[o.Bytes] = append(byBytes[o.Bytes], s)
			kept++
		}
		if kept == 0 && len(o.Seconds) == 0 {
			emptySize++
		}
	}
	d := &data{}
	for b := range byBytes {
		d.bytes = append(d.bytes, b)
	}
	slices.Sort(d.bytes)
	total := 0
	for _, r := range byBytes {
		total += len(r)
	}
	// Past MaxTimes, each size keeps at most keep of its times.
	keep := total
	if total > MaxTimes {
		keep = max(minKept, MaxTimes/len(d.bytes))
	}
	thinned := 0
	for _, b := range d.bytes {
		r := byBytes[b]
		slices.Sort(r)
		d.med = append(d.med, stats.Quantile(r, 0.5))
		if len(r) > keep {
			thinned += len(r) - keep
			r = evenlySpaced(r, keep)
		}
		d.reps = append(d.reps, r)
		d.n += len(r)
	}
	if thinned > 0 {
		d.warns = append(d.warns, warnf(CodeThinned, "%d times over %d sizes: each size kept at most %d evenly spaced order statistics of its times (%d left out; the medians are those of all)",
			total, len(d.bytes), keep, thinned))
	}
	var why []string
	if badSize > 0 {
		why = append(why, fmt.Sprintf("%d %s with a NaN, negative or over-1-EiB size", badSize, plural(badSize, "observation", "observations")))
	}
	if badTime > 0 {
		why = append(why, fmt.Sprintf("%d %s NaN, zero or negative", badTime, plural(badTime, "time was", "times were")))
	}
	if outTime > 0 {
		why = append(why, fmt.Sprintf("%d %s outside [%g s, %g s], the range of a real transfer", outTime, plural(outTime, "time was", "times were"), MinSeconds, MaxSeconds))
	}
	if emptySize > 0 {
		why = append(why, fmt.Sprintf("%d %s no times", emptySize, plural(emptySize, "observation had", "observations had")))
	}
	if len(d.bytes) == 0 {
		if len(why) == 0 {
			why = append(why, "no times at all")
		}
		return nil, fmt.Errorf("%w: %s", ErrNoData, strings.Join(why, "; "))
	}
	if len(why) > 0 {
		d.warns = append(d.warns, warnf(CodeDropped, "left out: %s", strings.Join(why, "; ")))
	}
	return d, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkMonotonic warns when a larger size is clearly faster than a smaller
// one: its median below the running maximum of the smaller sizes' medians by
// more than a tolerance. The tolerance is 10%, or six standard errors of a
// median when the noise is larger (a flat stretch of ~30 sizes has a largest
// pairwise drop of about 4 standard errors by chance), at most 50%. The noise
// σ of one repetition is estimated from the absolute log ratios of every two
// repetitions of a size (their median is 0.9539σ for normal log-noise; a size
// with more than 32 repetitions is thinned to 32 evenly spaced ones); when
// no size has two repetitions, from the log residuals around the fitted curve
// mu (1.4826 × their median absolute value). A median of r repetitions has a
// standard error of 1.2533σ/√r.
func (d *data) checkMonotonic(mu []float64) []Warning {
	var dev []float64
	minReps := d.n
	for _, r := range d.reps {
		minReps = min(minReps, len(r))
		// Beyond 32 repetitions, 32 evenly spaced order statistics stand
		// for them, which keeps the cost linear in the repetitions.
		if len(r) > 32 {
			sub := make([]float64, 32)
			for k := range sub {
				sub[k] = r[(2*k+1)*len(r)/64]
			}
			r = sub
		}
		for a := range r {
			for b := a + 1; b < len(r); b++ {
				dev = append(dev, math.Log(r[b]/r[a])) // r is sorted: ≥ 0
			}
		}
	}
	var sigma float64
	if len(dev) > 0 {
		slices.Sort(dev)
		sigma = stats.Quantile(dev, 0.5) / 0.9539
	} else {
		for i, r := range d.reps {
			m := math.Max(mu[i], 1e-3*d.med[i])
			for _, t := range r {
				dev = append(dev, math.Abs(math.Log(t/m)))
			}
		}
		slices.Sort(dev)
		sigma = 1.4826 * stats.Quantile(dev, 0.5)
	}
	se := 1.2533 * sigma / math.Sqrt(float64(minReps))
	tol := math.Min(0.5, math.Max(0.10, 6*se))
	maxMed, maxAt := 0.0, 0.0
	for i, m := range d.med {
		if m < maxMed*(1-tol) {
			return []Warning{warnf(CodeNonMonotonic,
				"%s B took %.3g s (median) but the smaller %s B took %.3g s: time should not fall as size grows",
				fmtBytes(d.bytes[i]), m, fmtBytes(maxAt), maxMed)}
		}
		if m > maxMed {
			maxMed, maxAt = m, d.bytes[i]
		}
	}
	return nil
}

func fmtBytes(b float64) string {
	if b == math.Trunc(b) && math.Abs(b) < 1e15 {
		return fmt.Sprintf("%.0f", b)
	}
	return fmt.Sprintf("%.4g", b)
}
