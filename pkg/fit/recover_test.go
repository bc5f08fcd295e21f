package fit

import (
	"fmt"
	"math"
	"testing"
)

// The recovery tests draw observations from known parameters with
// multiplicative lognormal noise (σ = 2% and 5%; 3 to 20 repetitions per size,
// or a single one; 27 sizes from 4 B to 256 MiB), fit them 100 times over
// fixed seeds (so the tests are deterministic), and count how often the 95%
// bootstrap interval holds the true value: in at least 90 of 100 trials with
// repetitions (the bootstrap the fits are built around), and 88 of 100 with
// single repetitions (the residual bootstrap, whose coverage is a little
// under nominal). Every point estimate must lie within a stated tolerance.
//
// Measured over more trials, the intervals err on the wide side with
// repetitions — they held the truth in 96–99% of 200 trials, as percentile
// intervals of bootstrapped medians tend to — and sit a little under nominal
// with single repetitions: 92–95% of 400 trials.

const (
	trueAlpha = 2.5e-6 // 2.5 µs
	trueBeta  = 12.5e9 // 100 Gbit/s
	// The pipelined transfer: 20 µs to fill, 5 GB/s for one chunk through
	// all stages in series, 1 MiB chunks, 150 µs per further chunk (a 7 GB/s
	// pipeline).
	pipeAlpha, pipeBeta, pipeChunk, pipePeriod = 20e-6, 5e9, 1 << 20, 150e-6
)

type recoverCase struct {
	sigma float64
	reps  int
	// tol is the largest relative error of any point estimate over the
	// trials, for α–β and for the pipelined form (whose β rests on the few
	// sizes between α's reach and the chunk, so it is the loosest).
	tol, pipeTol float64
}

func (c recoverCase) String() string { return fmt.Sprintf("σ=%g%%,reps=%d", 100*c.sigma, c.reps) }

var recoverCases = []recoverCase{
	{0.02, 1, 0.03, 0.05},
	{0.02, 10, 0.01, 0.025},
	{0.05, 1, 0.06, 0.12},
	{0.05, 3, 0.04, 0.08},
	{0.05, 10, 0.02, 0.05},
	{0.05, 20, 0.015, 0.03},
}

const trials = 100

// cases returns the recovery cases to run: in -short mode one with
// repetitions and one without.
func cases() []recoverCase {
	if testing.Short() {
		return []recoverCase{recoverCases[2], recoverCases[4]}
	}
	return recoverCases
}

// tally counts the trials whose interval holds the true value and keeps the
// worst relative error of the point estimate.
type tally struct {
	name   string
	truth  float64
	inside int
	worst  float64
}

func (y *tally) add(v Interval) {
	if v.Lo <= y.truth && y.truth <= v.Hi {
		y.inside++
	}
	y.worst = math.Max(y.worst, math.Abs(v.Value/y.truth-1))
}

func (y *tally) check(t *testing.T, c recoverCase, tol float64) {
	t.Helper()
	n := trials
	t.Logf("%s: inside the 95%% interval in %d/%d trials; worst point error %.2f%%", y.name, y.inside, n, 100*y.worst)
	min := 90
	if c.reps == 1 {
		min = 88
	}
	if y.inside < min {
		t.Errorf("%s: the interval held the true value in %d/%d trials, want at least %d", y.name, y.inside, n, min)
	}
	if y.worst > tol {
		t.Errorf("%s: worst point error %.3g, want at most %.3g", y.name, y.worst, tol)
	}
}

func TestAlphaBetaRecovers(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.String(), func(t *testing.T) {
			n := trials
			a := tally{name: "α", truth: trueAlpha}
			b := tally{name: "β", truth: trueBeta}
			for seed := uint64(1); seed <= uint64(n); seed++ {
				obs := synth(seed, sizes4To256MiB(), c.reps, c.sigma, alphaBetaCurve(trueAlpha, trueBeta))
				r, err := AlphaBeta(obs, Options{Seed: seed})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				checkSane(t, r)
				noFalseAlarm(t, r, c.reps)
				a.add(r.Alpha)
				b.add(r.Beta)
			}
			a.check(t, c, c.tol)
			b.check(t, c, c.tol)
		})
	}
}

func TestPipelinedRecovers(t *testing.T) {
	for _, c := range cases() {
		t.Run(c.String(), func(t *testing.T) {
			n := trials
			a := tally{name: "α", truth: pipeAlpha}
			b := tally{name: "β", truth: pipeBeta}
			p := tally{name: "p", truth: pipePeriod}
			s := tally{name: "stream", truth: pipeChunk / pipePeriod}
			for seed := uint64(1); seed <= uint64(n); seed++ {
				obs := synth(seed, sizes4To256MiB(), c.reps, c.sigma, pipeCurve(pipeAlpha, pipeBeta, pipeChunk, pipePeriod))
				r, err := Pipelined(obs, pipeChunk, Options{Seed: seed})
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				checkSane(t, r)
				noFalseAlarm(t, r, c.reps)
				a.add(r.Alpha)
				b.add(r.Beta)
				p.add(r.Period)
				s.add(r.Stream)
			}
			a.check(t, c, c.pipeTol)
			b.check(t, c, c.pipeTol)
			p.check(t, c, c.pipeTol)
			s.check(t, c, c.pipeTol)
		})
	}
}

// noFalseAlarm asserts that well-posed data get no warning but the one that
// says single repetitions switch to the residual bootstrap.
func noFalseAlarm(t *testing.T, r Result, reps int) {
	t.Helper()
	for _, w := range r.Warnings {
		if w.Code == CodeResidualBootstrap && reps == 1 {
			continue
		}
		t.Errorf("false alarm on well-posed data: %v", w)
	}
}

// The bootstrap is deterministic for a seed, and a different seed moves the
// interval only a little.
func TestBootstrapDeterministic(t *testing.T) {
	obs := synth(7, sizes4To256MiB(), 10, 0.05, alphaBetaCurve(trueAlpha, trueBeta))
	a, _ := AlphaBeta(obs, Options{Seed: 3})
	b, _ := AlphaBeta(obs, Options{Seed: 3})
	c, _ := AlphaBeta(obs, Options{Seed: 4})
	if a.Alpha != b.Alpha || a.Beta != b.Beta {
		t.Errorf("same seed, different intervals: %v %v vs %v %v", a.Alpha, a.Beta, b.Alpha, b.Beta)
	}
	if a.Alpha == c.Alpha {
		t.Errorf("different seeds gave identical intervals %v", a.Alpha)
	}
	if !near(a.Alpha.Lo, c.Alpha.Lo, 0.01) || !near(a.Alpha.Hi, c.Alpha.Hi, 0.01) {
		t.Errorf("seed moved α's interval by more than 1%%: %v vs %v", a.Alpha, c.Alpha)
	}
}

// A wider level gives a wider interval.
func TestLevel(t *testing.T) {
	obs := synth(7, sizes4To256MiB(), 10, 0.05, alphaBetaCurve(trueAlpha, trueBeta))
	r90, _ := AlphaBeta(obs, Options{Level: 0.90})
	r99, _ := AlphaBeta(obs, Options{Level: 0.99})
	if !(r99.Alpha.Lo < r90.Alpha.Lo && r99.Alpha.Hi > r90.Alpha.Hi) {
		t.Errorf("99%% interval %v not wider than 90%% %v", r99.Alpha, r90.Alpha)
	}
	if r90.Level != 0.90 || r90.Resamples != DefaultResamples {
		t.Errorf("level %v resamples %d", r90.Level, r90.Resamples)
	}
}

// One slow repetition in ten (an interrupt: 10× the time) at every size does
// not move the fit: it works on medians.
func TestOutliers(t *testing.T) {
	obs := synth(11, sizes4To256MiB(), 10, 0.02, alphaBetaCurve(trueAlpha, trueBeta))
	for i := range obs {
		obs[i].Seconds[3] *= 10
	}
	r, err := AlphaBeta(obs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.Alpha.Value, trueAlpha, 0.01) || !near(r.Beta.Value, trueBeta, 0.01) {
		t.Errorf("α %v β %v, want %g %g within 1%%", r.Alpha, r.Beta, trueAlpha, trueBeta)
	}
}
