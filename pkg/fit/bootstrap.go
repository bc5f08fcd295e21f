package fit

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpupath/gpupath/internal/stats"
)

// stopDraws is how many values the resampling draws between two checks of
// Options.Stop (a few milliseconds of drawing).
const stopDraws = 1 << 18

// rng draws indices from a PCG stream. PCG's output is fixed by its
// specification and the index draw is written out here (multiply-shift), so
// bootstrap results do not depend on the Go release.
type rng struct{ src *rand.PCG }

func newRNG(seed uint64) rng { return rng{rand.NewPCG(seed, 0x9e3779b97f4a7c15)} }

// index returns a value in [0, n).
func (r rng) index(n int) int {
	hi, _ := bits.Mul64(r.src.Uint64(), uint64(n))
	return int(hi)
}

// bootstrap refits resampled data opt.Resamples times and returns, per
// parameter, the sorted resampled estimates.
//
// When every size has at least two repetitions, each resample draws each
// size's repetitions with replacement (the sizes stay fixed, as they were
// chosen, not sampled). When some size has a single repetition, that cannot
// vary, so all sizes are resampled from the fitted curve times a relative
// residual drawn from the pool of all log residuals log(t/μ̂), each divided
// by √(1−h) for its size's leverage h, and centred (residual is then true).
//
// Each refit starts from the point estimate, so it converges in a few
// reweighting steps.
//
// opt.Stop is asked every StopEvery resamples and every stopDraws values
// drawn, while drawing and while refitting; its error ends the bootstrap.
func bootstrap(d *data, lin *linear, point, cnt []float64, opt Options) (samples [][]float64, residual bool, err error) {
	samples = make([][]float64, lin.p)
	for k := range samples {
		samples[k] = make([]float64, 0, opt.Resamples)
	}
	for _, r := range d.reps {
		if len(r) < 2 {
			residual = true
		}
	}
	mu := make([]float64, lin.rows)
	lin.predict(point, mu)
	for i := range mu {
		mu[i] = math.Max(mu[i], 1e-3*d.med[i])
	}
	var pool []float64
	if residual {
		h := lin.leverage(point, cnt)
		pool = make([]float64, 0, d.n)
		var mean float64
		for i, r := range d.reps {
			// A size that pulls the curve through itself leaves a small
			// residual; dividing by √(1−h) restores its spread
			// (Davison & Hinkley 1997, §6.2.3).
			adj := 0.0
			if h[i] < 1-1e-9 {
				adj = 1 / math.Sqrt(1-h[i])
			}
			for _, t := range r {
				e := math.Log(t/mu[i]) * adj
				pool = append(pool, e)
				mean += e
			}
		}
		mean /= float64(len(pool))
		for j := range pool {
			pool[j] -= mean
		}
	}
	// The resamples are drawn in order from one generator, so the result
	// does not depend on how the refits below are scheduled.
	g := newRNG(opt.Seed)
	ys := make([]float64, opt.Resamples*lin.rows)
	var buf []float64
	drawn := 0 // values drawn since Stop was last asked
	for b := 0; b < opt.Resamples; b++ {
		if err := opt.stoppedAt(b); err != nil {
			return nil, false, err
		}
		y := ys[b*lin.rows : (b+1)*lin.rows]
		for i, r := range d.reps {
			// A resample of millions of repetitions takes long: Stop is
			// asked every stopDraws values too, not only every StopEvery
			// resamples.
			if drawn += len(r); drawn >= stopDraws {
				drawn = 0
				if err := opt.Stopped(); err != nil {
					return nil, false, err
				}
			}
			buf = buf[:0]
			for range r {
				if residual {
					buf = append(buf, mu[i]*math.Exp(pool[g.index(len(pool))]))
				} else {
					buf = append(buf, r[g.index(len(r))])
				}
			}
			y[i] = stats.MedianInPlace(buf)
		}
	}
	// The refits are independent (lin is read-only once built): one worker
	// per CPU, each taking the next resample.
	for k := range samples {
		samples[k] = samples[k][:opt.Resamples]
	}
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		stopped atomic.Bool
	)
	for range min(runtime.GOMAXPROCS(0), opt.Resamples) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			theta := make([]float64, lin.p)
			for {
				b := int(next.Add(1) - 1)
				if b >= opt.Resamples || stopped.Load() {
					return
				}
				if opt.stoppedAt(b) != nil {
					stopped.Store(true)
					return
				}
				// A resample that does not settle keeps its last iterate,
				// which is still non-negative; it is rare and only widens
				// the interval.
				lin.irls(ys[b*lin.rows:(b+1)*lin.rows], cnt, point, theta)
				for k, v := range theta {
					samples[k][b] = v
				}
			}
		}()
	}
	wg.Wait()
	if err := opt.Stopped(); stopped.Load() && err != nil {
		return nil, false, err
	}
	for k := range samples {
		slices.Sort(samples[k])
	}
	return samples, residual, nil
}
