package measure

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/gpupath/gpupath/internal/stats"
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
	// past it Repeat stops after the iteration under way, even below
	// MinIterations, once it has one sample.
	Deadline time.Time
}

// pastDeadline says whether the hard Deadline is set and passed.
func (c RepeatConfig) pastDeadline() bool {
	return !c.Deadline.IsZero() && time.Now().After(c.Deadline)
}

// sweep shares a probe's budget among the sizes of its sweep: each size
// gets its share of what is left, the repetitions end at the budget's end
// (RepeatConfig.Deadline), and once it is spent the sweep stops with
// errBudget, keeping what it measured. Every probe loop over sizes uses it.
type sweep struct {
	start       time.Time
	budget      time.Duration
	perSize     time.Duration // a fixed share (Plan.PerSize), 0: shared
	steps, done int
	tolerance   float64
}

func newSweep(plan Plan, steps int) *sweep {
	return &sweep{start: time.Now(), budget: plan.Budget, perSize: plan.PerSize, steps: steps, tolerance: plan.Tolerance}
}

// next is the repetition of the next size, or errBudget when the budget is
// spent (after the first size: a probe always measures one).
func (s *sweep) next() (RepeatConfig, error) {
	left := s.budget - time.Since(s.start)
	if s.budget > 0 && left <= 0 && s.done > 0 {
		return RepeatConfig{}, fmt.Errorf("%w: %v ran out after %d of %d sizes (results kept)", errBudget, s.budget.Round(time.Millisecond), s.done, s.steps)
	}
	b := s.perSize
	if b <= 0 {
		b = max(left/time.Duration(max(s.steps-s.done, 1)), 20*time.Millisecond)
	}
	s.done++
	cfg := RepeatConfig{Budget: b, Tolerance: s.tolerance}
	if s.budget > 0 {
		cfg.Deadline = s.start.Add(s.budget)
	}
	return cfg, nil
}

// errBudget is a sweep stopped at the end of its budget: ErrBudgetSpent,
// the one error the runner turns into a partial probe, whichever probe.
var errBudget = ErrBudgetSpent

func (c RepeatConfig) withDefaults() RepeatConfig {
	if c.Warmup <= 0 {
		c.Warmup = 3
	}
	if c.MinIterations <= 0 {
		c.MinIterations = 5
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
		c.Tolerance = 0.02
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
func Repeat(ctx context.Context, cfg RepeatConfig, op func() (float64, error)) (Stats, []float64, error) {
	cfg = cfg.withDefaults()
	start := time.Now()
	deadline := start.Add(cfg.Budget)
	for i := 0; i < cfg.Warmup; i++ {
		if err := ctx.Err(); err != nil {
			return Stats{}, nil, err
		}
		if _, err := op(); err != nil {
			return Stats{}, nil, err
		}
		if time.Now().After(deadline) || cfg.pastDeadline() {
			break
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
		t, err := op()
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
		if len(samples) >= cfg.MinIterations && time.Now().After(deadline) || cfg.pastDeadline() {
			break
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
