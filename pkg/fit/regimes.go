package fit

import (
	"fmt"
	"math"
)

// Regimes is a fit of two α–β lines that meet at a protocol change (eager
// below a size, rendezvous above; a copy engine that switches strategy).
type Regimes struct {
	// Break is the largest size of the lower regime; Below fits the sizes
	// up to it and Above the larger ones.
	Break float64 `json:"break_bytes"`
	Below Result  `json:"below"`
	Above Result  `json:"above"`
	// Improvement is the fraction of the single line's relative squared
	// error that the split removes (0 to 1): near 0, one line does as well
	// and the split is noise-fitting; near 1, the data have two regimes.
	Improvement float64 `json:"improvement"`
}

// Predict returns the fitted time in seconds for n bytes from the regime
// n falls in.
func (g Regimes) Predict(n float64) float64 {
	if n <= g.Break {
		return g.Below.Predict(n)
	}
	return g.Above.Predict(n)
}

// minRegimeSizes is the fewest distinct sizes on each side of a break: three,
// so that each line is checked by a size it was not forced through.
const minRegimeSizes = 3

// maxBreaks is the most candidate breaks TwoRegimes tries in its first
// pass; with more gaps it searches coarse, then fine around the best.
var maxBreaks = 256

// TwoRegimes fits t(n) = α₁ + n/β₁ up to a break and α₂ + n/β₂ above it,
// choosing the break among the gaps between measured sizes (the one whose
// two lines have the smallest relative squared error, each fitted as in
// AlphaBeta; with more than maxBreaks gaps, every step-th and then those
// around the best), then fitting each side with AlphaBeta, intervals and
// warnings included. The intervals are conditional on the chosen break. It
// needs at least three distinct sizes on each side: ErrTooFewSizes
// otherwise.
func TwoRegimes(obs []Observation, opt Options) (Regimes, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return Regimes{}, err
	}
	d, err := prepare(obs)
	if err != nil {
		return Regimes{}, err
	}
	k := len(d.bytes)
	if k < 2*minRegimeSizes {
		return Regimes{}, fmt.Errorf("%w: two regimes need %d distinct sizes on each side of the break, %d in all; there are %d",
			ErrTooFewSizes, minRegimeSizes, 2*minRegimeSizes, k)
	}
	single := d.deviance(0, k)
	best, bestAt := math.Inf(1), -1
	try := func(j int) error {
		if err := opt.stoppedAt(j); err != nil {
			return err
		}
		if dev := d.deviance(0, j) + d.deviance(j, k); dev < best {
			best, bestAt = dev, j
		}
		return nil
	}
	// Every gap is a candidate; past maxBreaks of them, every step-th is,
	// and then every gap within a step of the best: the work stays linear
	// in the sizes (a sweep of 10,000 sizes would otherwise refit 10,000
	// times over 10,000 sizes).
	lo, hi := minRegimeSizes, k-minRegimeSizes
	step := max(1, (hi-lo+1+maxBreaks-1)/maxBreaks)
	for j := lo; j <= hi; j += step {
		if err := try(j); err != nil {
			return Regimes{}, err
		}
	}
	if step > 1 && bestAt >= 0 {
		c := bestAt
		for j := max(lo, c-step+1); j <= min(hi, c+step-1); j++ {
			if j != c {
				if err := try(j); err != nil {
					return Regimes{}, err
				}
			}
		}
	}
	if bestAt < 0 {
		// Every split's error was NaN or infinite: the data cannot be fitted.
		return Regimes{}, fmt.Errorf("%w: no break gives a finite error (the times do not fit two lines)", ErrDegenerate)
	}
	g := Regimes{Break: d.bytes[bestAt-1]}
	if single > 0 {
		g.Improvement = math.Max(0, math.Min(1, 1-best/single))
	}
	below, above := d.split(bestAt)
	if g.Below, err = AlphaBeta(below, opt); err != nil {
		return Regimes{}, err
	}
	if g.Above, err = AlphaBeta(above, opt); err != nil {
		return Regimes{}, err
	}
	// Warnings about dropped values belong to the input, not to a side;
	// both sides see the cleaned data, so they carry none. Report them once,
	// on the lower side.
	if len(d.warns) > 0 {
		g.Below.Warnings = append(append([]Warning(nil), d.warns...), g.Below.Warnings...)
	}
	return g, nil
}

// deviance fits α–β to sizes [i, j) and returns Σ rₘ((mₘ − μₘ)/μₘ)², the
// relative squared error that the fit minimises.
func (d *data) deviance(i, j int) float64 {
	bytes, med := d.bytes[i:j], d.med[i:j]
	cnt := make([]float64, j-i)
	for m := range cnt {
		cnt[m] = float64(len(d.reps[i+m]))
	}
	lin := newLinear(j-i, 2, func(m int, row []float64) { row[0], row[1] = 1, bytes[m] })
	theta := make([]float64, 2)
	lin.irls(med, cnt, nil, theta)
	mu := make([]float64, j-i)
	lin.predict(theta, mu)
	var dev float64
	for m := range mu {
		mm := math.Max(mu[m], 1e-3*med[m])
		r := (med[m] - mm) / mm
		dev += cnt[m] * r * r
	}
	return dev
}

// split returns the cleaned observations below and from index j.
func (d *data) split(j int) (lo, hi []Observation) {
	for i, b := range d.bytes {
		o := Observation{Bytes: b, Seconds: d.reps[i]}
		if i < j {
			lo = append(lo, o)
		} else {
			hi = append(hi, o)
		}
	}
	return lo, hi
}
