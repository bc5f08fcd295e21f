package model

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/units"
)

// Segment is a range of message sizes, From to To (both included), over
// which Path has the lowest pipelined latency of the paths compared.
type Segment struct {
	Path     string
	From, To units.Bytes
}

// Crossover is a message size at which two paths change places: from At
// on (up to the pair's next crossover) Faster has the lower pipelined
// latency, below At Slower had it.
type Crossover struct {
	Faster, Slower string
	At             units.Bytes
}

// Fastest splits the message sizes from lo to hi into the segments over
// which one of paths has the lowest pipelined latency on s, with the exact
// byte at which the lead changes. Latencies within a relative 1e-9 of each
// other tie, and a tie goes to the path listed first. Infeasible paths take
// no part; when none is feasible there is no segment. Unknown path names
// and a range that does not satisfy 1 ≤ lo ≤ hi are errors.
//
// The sizes are searched on a grid of lo, hi and the sizes between in
// steps of 2^(1/8), and each change between two neighbours of the grid is
// pinned down by bisection (changes back and forth between two neighbours
// can be missed).
func Fastest(s *Scenario, paths []string, lo, hi units.Bytes) ([]Segment, error) {
	rs, err := feasibleRoutes(s, paths, lo, hi)
	if err != nil || len(rs) == 0 {
		return nil, err
	}
	return fastest(rs, lo, hi), nil
}

// Crossovers lists every size from lo to hi at which two of the feasible
// paths change places, pair by pair (in the order paths lists them), sorted
// by size: the segments of Fastest for each pair of paths.
func Crossovers(s *Scenario, paths []string, lo, hi units.Bytes) ([]Crossover, error) {
	rs, err := feasibleRoutes(s, paths, lo, hi)
	if err != nil {
		return nil, err
	}
	var out []Crossover
	for i, a := range rs {
		for _, b := range rs[i+1:] {
			segs := fastest([]*Route{a, b}, lo, hi)
			for k := 1; k < len(segs); k++ {
				out = append(out, Crossover{Faster: segs[k].Path, Slower: segs[k-1].Path, At: segs[k].From})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
}

// Ranked returns the feasible ones of paths at message size n, the lowest
// pipelined latency first; ties (as in Fastest) keep the order of paths.
func Ranked(s *Scenario, paths []string, n units.Bytes) ([]string, error) {
	rs, err := feasibleRoutes(s, paths, n, n)
	if err != nil {
		return nil, err
	}
	t := make([]units.Seconds, len(rs))
	for i, r := range rs {
		t[i] = r.Evaluate(n).Pipelined
	}
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		x, y := t[idx[i]], t[idx[j]]
		return x < y && !Near(float64(x), float64(y))
	})
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = rs[k].Path.Name
	}
	return out, nil
}

// Near reports whether two values are equal for the purpose of ranking
// paths: within a relative 1e-9 of each other (infinities only equal
// themselves).
func Near(x, y float64) bool {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return x == y
	}
	return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

func feasibleRoutes(s *Scenario, paths []string, lo, hi units.Bytes) ([]*Route, error) {
	if s == nil {
		return nil, fmt.Errorf("model: no scenario")
	}
	if lo < 1 || hi < lo {
		return nil, fmt.Errorf("model: need 1 ≤ lo ≤ hi, got %d, %d", lo, hi)
	}
	var rs []*Route
	for _, name := range paths {
		p, err := LookupPath(name)
		if err != nil {
			return nil, err
		}
		if r := p.Route(s); r.Feasible {
			rs = append(rs, r)
		}
	}
	return rs, nil
}

// fastest is Fastest on routes that are all feasible (at least one).
func fastest(rs []*Route, lo, hi units.Bytes) []Segment {
	winner := func(n units.Bytes) int {
		best, bt := 0, math.Inf(1)
		for i, r := range rs {
			if t := float64(r.Evaluate(n).Pipelined); t < bt && !Near(t, bt) {
				best, bt = i, t
			}
		}
		return best
	}
	w := winner(lo)
	out := []Segment{{Path: rs[w].Path.Name, From: lo}}
	prev := lo // winner(prev) == w
	for _, n := range sizeGrid(lo, hi) {
		for winner(n) != w {
			// The lead changes in (prev, n]: find the first byte where it does.
			a, b := prev, n
			for b-a > 1 {
				m := a + (b-a)/2
				if winner(m) == w {
					a = m
				} else {
					b = m
				}
			}
			out[len(out)-1].To = b - 1
			w, prev = winner(b), b
			out = append(out, Segment{Path: rs[w].Path.Name, From: b})
		}
		prev = n
	}
	out[len(out)-1].To = hi
	return out
}

// sizeGrid is lo, hi and the sizes between in steps of 2^(1/8).
func sizeGrid(lo, hi units.Bytes) []units.Bytes {
	out := []units.Bytes{lo}
	step := math.Pow(2, 0.125)
	for x := float64(lo) * step; x < float64(hi); x *= step {
		if n := units.Bytes(math.Round(x)); n > out[len(out)-1] {
			out = append(out, n)
		}
	}
	if hi > out[len(out)-1] {
		out = append(out, hi)
	}
	return out
}

// ShortReason cuts the reason a path is infeasible (Route.Reason) to its
// first clause, for a sentence or a figure: "the NIC has no RDMA."
func ShortReason(reason string) string {
	r := strings.TrimPrefix(reason, "infeasible: ")
	for _, sep := range []string{" — ", "; "} {
		if i := strings.Index(r, sep); i > 0 {
			r = r[:i]
		}
	}
	return strings.TrimSuffix(r, ".") + "."
}
