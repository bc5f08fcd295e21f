package calib

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpupath/gpupath/pkg/fit"
)

// candidates are the fitting points of one key on each candidate value of
// it, made for the bootstrap: the points whose log ratio is the same on
// every candidate are one group with its count (a series read from a file
// of repeated rows has few groups however many points), and on each
// candidate the groups are sorted by |log ratio| once, so that a resample
// — a count per group — finds its median error on a candidate in one pass
// over the groups, with no sort and no allocation.
type candidates struct {
	vals  []float64   // ascending
	group []int32     // per point, its group
	mult  []int32     // per group, its points
	abs   [][]float64 // per candidate, per group: |log ratio|
	order [][]int32   // per candidate, the groups with a model value, by abs
	nan   [][]int32   // per candidate, the groups without one
}

// newCandidates groups the points of logs(v) (one log ratio per point, NaN
// where the model has none) over the candidate values vals (ascending). It
// asks opt.Stop while it sorts.
func newCandidates(vals []float64, logs func(float64) []float64, opt fit.Options) (*candidates, error) {
	ls := make([][]float64, len(vals))
	for c, v := range vals {
		if ls[c] = logs(v); ls[c] == nil {
			return nil, opt.Stopped() // interrupted
		}
	}
	np := len(ls[0])
	cs := &candidates{vals: vals, group: make([]int32, np)}
	perm := make([]int32, np)
	for i := range perm {
		perm[i] = int32(i)
	}
	bits := func(c int, p int32) uint64 { return math.Float64bits(ls[c][p]) }
	slices.SortFunc(perm, func(a, b int32) int {
		for c := range ls {
			if d := cmp.Compare(bits(c, a), bits(c, b)); d != 0 {
				return d
			}
		}
		return cmp.Compare(a, b)
	})
	if err := opt.Stopped(); err != nil {
		return nil, err
	}
	var first []int32 // per group, one of its points
	for k, p := range perm {
		same := k > 0
		for c := 0; same && c < len(ls); c++ {
			same = bits(c, p) == bits(c, perm[k-1])
		}
		if !same {
			first = append(first, p)
			cs.mult = append(cs.mult, 0)
		}
		g := int32(len(first) - 1)
		cs.group[p] = g
		cs.mult[g]++
	}
	cs.abs = make([][]float64, len(vals))
	cs.order = make([][]int32, len(vals))
	cs.nan = make([][]int32, len(vals))
	err := parallel(len(vals), opt, func(c int) {
		abs := make([]float64, len(first))
		var order, nan []int32
		for g, p := range first {
			x := ls[c][p]
			abs[g] = math.Abs(x)
			if math.IsNaN(x) {
				nan = append(nan, int32(g))
			} else {
				order = append(order, int32(g))
			}
		}
		slices.SortFunc(order, func(a, b int32) int { return cmp.Compare(abs[a], abs[b]) })
		cs.abs[c], cs.order[c], cs.nan[c] = abs, order, nan
	})
	return cs, err
}

// objective is the median |log ratio| on candidate c of the points counted
// in counts (n in all), as stats.Median of them gives it: +Inf when one of
// them has no model value there.
func (cs *candidates) objective(c int, counts []int32, n int) float64 {
	for _, g := range cs.nan[c] {
		if counts[g] > 0 {
			return math.Inf(1)
		}
	}
	if n == 0 {
		return math.NaN()
	}
	// The values of ranks lo and hi (0-based): the middle one, or the two
	// middle ones of an even count.
	hiRank := n / 2
	loRank := hiRank
	if n%2 == 0 {
		loRank = hiRank - 1
	}
	abs := cs.abs[c]
	var lo, hi float64
	cum := 0
	for _, g := range cs.order[c] {
		k := int(counts[g])
		if k == 0 {
			continue
		}
		if cum <= loRank && loRank < cum+k {
			lo = abs[g]
		}
		if cum += k; hiRank < cum {
			hi = abs[g]
			break
		}
	}
	if loRank == hiRank {
		return hi
	}
	return lo + (hi-lo)/2
}

// best is the candidate whose median error over the counted points is the
// smallest; where several share it (the median is a step function of the
// value, flat between the points), the middle one of them, and lo and hi
// are the smallest and largest of them (all three the same where one is
// best). -1 when no candidate has a value.
func (cs *candidates) best(counts []int32, n int) (c, lo, hi int) {
	obj := make([]float64, len(cs.vals))
	parallel(len(cs.vals), fit.Options{}, func(c int) { obj[c] = cs.objective(c, counts, n) })
	least := math.Inf(1)
	for _, o := range obj {
		least = math.Min(least, o)
	}
	if math.IsInf(least, 1) || math.IsNaN(least) {
		return -1, -1, -1
	}
	var tied []int
	for c, o := range obj {
		if o == least {
			tied = append(tied, c)
		}
	}
	return tied[(len(tied)-1)/2], tied[0], tied[len(tied)-1]
}

// parallel runs f(0) … f(n-1), one worker per CPU; it asks opt.Stop before
// each and returns its error when one stopped the work.
func parallel(n int, opt fit.Options, f func(int)) error {
	var (
		next    atomic.Int64
		wg      sync.WaitGroup
		stopped atomic.Bool
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || stopped.Load() {
					return
				}
				if opt.Stop != nil && opt.Stopped() != nil {
					stopped.Store(true)
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
	if stopped.Load() {
		return opt.Stopped()
	}
	return nil
}
