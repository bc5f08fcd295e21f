package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/units"
)

// RepeatConfig says how often an operation is repeated.
type RepeatConfig struct {
	// Warmup iterations run first and are not recorded (default 3).
	Warmup int
	// MinIterations are always recorded unless the budget or ctx ends first (default 5).
	MinIterations int
	// MaxIterations bounds the loop (default 1,000,000).
	MaxIterations int
	// Budget bounds the wall time of the whole repetition, warm-up included (default 1s).
	Budget time.Duration
	// Tolerance is the relative change of the median between two checkpoints
	// under which the median counts as stable (default 0.02).
	Tolerance float64
	// Deadline, when set, is a hard end (the end of the probe's budget):
	// Repeat starts no iteration that, as long as the one before it, would
	// end past it, once it has one sample, even below MinIterations.
	Deadline time.Time

	// clock is the time (default time.Now; a fake one in tests); expect,
	// when known, is what one call of the operation takes (a stream's
	// chunk at its calibrated rate): with it, even the first warm-up is
	// skipped when it would leave no room for a sample before Deadline.
	clock  func() time.Time
	expect time.Duration
}

// DefaultTolerance is the tolerance of RepeatConfig and Plan when they
// give none: a median that moves by at most 2 % at two checkpoints in a
// row is settled.
const DefaultTolerance = 0.02

// defaultMinIterations is RepeatConfig's MinIterations when it gives none:
// the sample count of the first checkpoint.
const defaultMinIterations = 5

// sweep shares a probe's budget among the sizes of its sweep: each size
// gets its share of what is left, the repetitions end at the budget's end
// (RepeatConfig.Deadline), and once it is spent the sweep stops with
// errBudget, keeping what it measured. It also stops before a size that
// the time left cannot hold: one that must move more bytes (a warm-up, a
// sample, a calibration) than the time left carries at the rate the sweep
// last measured. Every probe loop over sizes uses it; a probe makes it as
// its Run begins, so its set-up counts against its budget.
type sweep struct {
	start       time.Time
	budget      time.Duration
	perSize     time.Duration // a fixed share (Plan.PerSize), 0: shared
	steps, done int
	tolerance   float64
	clock       func() time.Time
	// rate is the bytes per second the largest size measured so far moved
	// (measured), rateSize that size; 0: none yet.
	rate     float64
	rateSize int64
}

func newSweep(plan Plan, steps int) *sweep {
	return newSweepAt(plan, steps, time.Now)
}

// newSweepAt is newSweep on a clock (a fake one in tests).
func newSweepAt(plan Plan, steps int, clock func() time.Time) *sweep {
	return &sweep{start: clock(), budget: plan.Budget, perSize: plan.PerSize, steps: steps, tolerance: plan.Tolerance, clock: clock}
}

// predictFrom bounds how far a rate is carried to a larger size: the rate
// of a size under a sixteenth of the next (a latency-bound 1-byte message)
// predicts nothing about it.
const predictFrom = 16

// end is when the sweep's budget ends (zero without a budget).
func (s *sweep) end() time.Time {
	if s.budget <= 0 {
		return time.Time{}
	}
	return s.start.Add(s.budget)
}

// next is the repetition of the next size, size bytes, whose shortest
// measurement (its first warm-up, one sample and any calibration) moves
// need bytes; or errBudget when the budget is spent, or when the time left
// would not carry need bytes at the rate measured last. A probe always
// measures its first size.
func (s *sweep) next(size, need int64) (RepeatConfig, error) {
	left := s.budget - s.clock().Sub(s.start)
	if s.budget > 0 && left <= 0 && s.done > 0 {
		return RepeatConfig{}, fmt.Errorf("%w: %s ran out after %d of %d sizes (results kept)", errBudget, humanDuration(s.budget), s.done, s.steps)
	}
	if s.budget > 0 && s.done > 0 && s.rate > 0 && s.rateSize*predictFrom >= size {
		if want := float64(need) / s.rate; want > left.Seconds() {
			return RepeatConfig{}, fmt.Errorf("%w: after %d of %d sizes the %s left of %s would not hold the next, %s, which needs about %s at the last size's rate; results kept",
				errBudget, s.done, s.steps, humanDuration(left), humanDuration(s.budget), units.Bytes(size), humanSeconds(want))
		}
	}
	b := s.perSize
	if b <= 0 {
		b = max(left/time.Duration(max(s.steps-s.done, 1)), 20*time.Millisecond)
	}
	s.done++
	cfg := RepeatConfig{Budget: b, Tolerance: s.tolerance, clock: s.clock}
	if s.budget > 0 {
		cfg.Deadline = s.start.Add(s.budget)
	}
	return cfg, nil
}

// measured tells the sweep that the size it just measured moved bytes at
// rate bytes per second (its median): the estimate of the sizes after it.
func (s *sweep) measured(size int64, rate float64) {
	if rate > 0 && !math.IsInf(rate, 0) && size >= s.rateSize {
		s.rate, s.rateSize = rate, size
	}
}

// humanDuration is d in the one spelling of times for people:
// humanSeconds.
func humanDuration(d time.Duration) string { return humanSeconds(d.Seconds()) }

// humanSeconds is s seconds in the one spelling of times for people
// (units.Seconds.Human): "1.5 s", "350 ms", "3.44 µs", never
// time.Duration's "1.5s" or "3.44µs". It is rounded to Human's three
// digits first, so that the prefix is the rounded value's (a runner's share
// of 1 s less a few microseconds is "1 s", not "1000 ms").
func humanSeconds(s float64) string {
	if s != 0 && !math.IsNaN(s) && !math.IsInf(s, 0) {
		if r, err := strconv.ParseFloat(strconv.FormatFloat(s, 'g', 3, 64), 64); err == nil {
			s = r
		}
	}
	return units.Seconds(s).Human()
}

// errBudget is a sweep stopped at the end of its budget: ErrBudgetSpent,
// the one error the runner turns into a partial probe, whichever probe.
var errBudget = ErrBudgetSpent

func (c RepeatConfig) withDefaults() RepeatConfig {
	if c.Warmup <= 0 {
		c.Warmup = 3
	}
	if c.MinIterations <= 0 {
		c.MinIterations = defaultMinIterations
	}
	if c.MaxIterations <= 0 {
		c.MaxIterations = 1_000_000
	}
	if c.MaxIterations < c.MinIterations {
		c.MaxIterations = c.MinIterations
	}
	if c.Budget <= 0 {
		c.Budget = time.Second
	}
	if c.Tolerance <= 0 {
		c.Tolerance = DefaultTolerance
	}
	if c.clock == nil {
		c.clock = time.Now
	}
	return c
}

// Stats summarises repeated timings, in seconds.
type Stats struct {
	Iterations int
	Min        float64
	Median     float64
	P25, P75   float64
	P99        float64
	Mean       float64
	// Spread is (P75-P25)/Median.
	Spread float64
	// Stable is true when the median settled within the tolerance.
	Stable bool
}

// Summarize computes Stats from samples (seconds); samples is not modified.
func Summarize(samples []float64) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	var sum float64
	for _, v := range s {
		sum += v
	}
	st := Stats{
		Iterations: len(s),
		Min:        s[0],
		Median:     stats.Quantile(s, 0.5),
		P25:        stats.Quantile(s, 0.25),
		P75:        stats.Quantile(s, 0.75),
		P99:        stats.Quantile(s, 0.99),
		Mean:       sum / float64(len(s)),
	}
	if st.Median > 0 {
		st.Spread = (st.P75 - st.P25) / st.Median
	}
	return st
}

// Repeat runs op after a warm-up until the median of its timings is stable
// within cfg.Tolerance, cfg.MaxIterations is reached, or cfg.Budget is spent.
// op returns the seconds one iteration took (so it can use any clock: the
// wall clock, CUDA events). ctx is checked between iterations; on
// cancellation Repeat returns what it has with ctx.Err(). The samples are
// returned too, for fitting and bootstrap.
//
// Repeat looks ahead: it takes the wall time of the last call of op as the
// time of the next, and starts no warm-up past the first (past none, when
// the caller knows what a call takes) that would leave no room for
// MinIterations samples in the budget or for one sample before
// cfg.Deadline, and no sample that would end past cfg.Deadline (once it
// has one) or past the budget (once it has MinIterations). A repetition
// so ends within its time, not one iteration after it.
func Repeat(ctx context.Context, cfg RepeatConfig, op func() (float64, error)) (Stats, []float64, error) {
	cfg = cfg.withDefaults()
	now := cfg.clock
	end := now().Add(cfg.Budget)
	last := cfg.expect // wall time of the latest call of op
	call := func() (float64, error) {
		t0 := now()
		t, err := op()
		last = now().Sub(t0)
		return t, err
	}
	// fits says whether k more calls, each as long as the last, end by t
	// (the zero time: no bound).
	fits := func(t time.Time, k int) bool {
		return t.IsZero() || !now().Add(time.Duration(k)*last).After(t)
	}
	for i := 0; i < cfg.Warmup; i++ {
		if err := ctx.Err(); err != nil {
			return Stats{}, nil, err
		}
		if (i > 0 || cfg.expect > 0) && (!fits(end, 1+cfg.MinIterations) || !fits(cfg.Deadline, 2)) {
			break
		}
		if _, err := call(); err != nil {
			return Stats{}, nil, err
		}
	}
	samples := make([]float64, 0, 64)
	next := cfg.MinIterations // next checkpoint
	prevMedian := math.NaN()
	calm := 0
	stable := false
	for len(samples) < cfg.MaxIterations {
		if err := ctx.Err(); err != nil {
			st := Summarize(samples)
			return st, samples, err
		}
		if len(samples) > 0 && !fits(cfg.Deadline, 1) || len(samples) >= cfg.MinIterations && !fits(end, 1) {
			break
		}
		t, err := call()
		if err != nil {
			st := Summarize(samples)
			return st, samples, err
		}
		if math.IsNaN(t) || t < 0 {
			return Summarize(samples), samples, errors.New("measure: operation returned an invalid time")
		}
		samples = append(samples, t)
		if len(samples) >= next {
			m := stats.Median(samples)
			if !math.IsNaN(prevMedian) && prevMedian > 0 && math.Abs(m-prevMedian)/prevMedian <= cfg.Tolerance {
				calm++
			} else {
				calm = 0
			}
			prevMedian = m
			// Two calm checkpoints in a row, each 1.5× further apart.
			if calm >= 2 {
				stable = true
				break
			}
			next = int(math.Ceil(float64(next) * 1.5))
		}
	}
	st := Summarize(samples)
	st.Stable = stable
	return st, samples, nil
}

// MaxSamples bounds the samples a record keeps.
const MaxSamples = 256

// KeepSamples returns at most MaxSamples of samples, taken at an even
// stride (deterministic), each multiplied by scale; nil for none.
func KeepSamples(samples []float64, scale float64) []float64 {
	if len(samples) == 0 {
		return nil
	}
	k := len(samples)
	if k > MaxSamples {
		k = MaxSamples
	}
	out := make([]float64, k)
	for i := range out {
		out[i] = samples[i*len(samples)/k] * scale
	}
	return out
}
