package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

// The sizes the report's curves and tables use.
const (
	minSize  model.Bytes = 1
	maxSize  model.Bytes = 1 << 30
	smallRef model.Bytes = 8       // "a small message"
	refSize  model.Bytes = 1 << 20 // the size at which cores and bandwidth are quoted
	bigRef   model.Bytes = 1 << 30
)

// curveSizes are the sizes of every curve: 1 B to 1 GiB in powers of two.
func curveSizes() []model.Bytes {
	var out []model.Bytes
	for b := minSize; b <= maxSize; b *= 2 {
		out = append(out, b)
	}
	return out
}

// tableSizes are the sizes of the latency table.
var tableSizes = []model.Bytes{8, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 1 << 30}

// breakdownSizes are the small, medium and large sizes of the breakdown.
var breakdownSizes = []model.Bytes{8, 64 << 10, 16 << 20}

// analysis holds a scenario's routes: the GPU-to-GPU paths between two
// nodes (the subject) and the host-to-host references.
type analysis struct {
	s          *model.Scenario
	routes     map[string]*model.Route
	gpu        []model.Path // GPU→GPU across the network, feasible or not, in presentation order
	refs       []model.Path // host-tcp, host-rdma
	feasible   []string     // feasible GPU paths
	infeasible []string     // infeasible GPU paths
}

func analyse(s *model.Scenario) *analysis {
	a := &analysis{s: s, routes: map[string]*model.Route{}}
	for _, p := range model.Paths() {
		if !p.Internode {
			continue // gpu-peer stays inside one node: not comparable
		}
		r := p.Route(s)
		a.routes[p.Name] = r
		if !p.GPU {
			a.refs = append(a.refs, p)
			continue
		}
		a.gpu = append(a.gpu, p)
		if r.Feasible {
			a.feasible = append(a.feasible, p.Name)
		} else {
			a.infeasible = append(a.infeasible, p.Name)
		}
	}
	return a
}

// drawn lists the paths the figures draw: feasible GPU paths, then the
// feasible references.
func (a *analysis) drawn() []string {
	out := append([]string(nil), a.feasible...)
	for _, p := range a.refs {
		if a.routes[p.Name].Feasible {
			out = append(out, p.Name)
		}
	}
	return out
}

// notDrawn lists every infeasible path (GPU and reference) with its reason.
func (a *analysis) notDrawn() []string {
	var out []string
	for _, p := range append(append([]model.Path(nil), a.gpu...), a.refs...) {
		if r := a.routes[p.Name]; !r.Feasible {
			out = append(out, p.Name)
		}
	}
	return out
}

func (a *analysis) eval(path string, n model.Bytes) model.Result {
	return a.routes[path].Evaluate(n)
}

func (a *analysis) latency(path string, n model.Bytes) float64 {
	return float64(a.eval(path, n).Pipelined)
}

// near reports whether two latencies are equal for the purpose of ranking.
func near(x, y float64) bool {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return x == y
	}
	return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

// fastest is the feasible GPU path with the lowest pipelined latency at n;
// ties go to the path listed first.
func (a *analysis) fastest(n model.Bytes) string {
	best, bestT := "", math.Inf(1)
	for _, p := range a.feasible {
		t := a.latency(p, n)
		if t < bestT && !near(t, bestT) {
			best, bestT = p, t
		}
	}
	return best
}

// span is a range of sizes over which one path is the fastest.
type span struct {
	Path     string
	From, To model.Bytes
}

// bisect finds the smallest n in (lo, hi] with pred(n) true, given
// pred(lo) false and pred(hi) true.
func bisect(lo, hi model.Bytes, pred func(model.Bytes) bool) model.Bytes {
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if pred(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// winners splits 1 B … 1 GiB into the spans where one path is fastest; the
// edges are found by bisection between the sizes of the grid.
func (a *analysis) winners() []span {
	if len(a.feasible) == 0 {
		return nil
	}
	sizes := curveSizes()
	cur := span{Path: a.fastest(sizes[0]), From: sizes[0]}
	var out []span
	for i := 1; i < len(sizes); i++ {
		w := a.fastest(sizes[i])
		if w == cur.Path {
			continue
		}
		prev := cur.Path
		edge := bisect(sizes[i-1], sizes[i], func(n model.Bytes) bool { return a.fastest(n) != prev })
		cur.To = edge - 1
		out = append(out, cur)
		cur = span{Path: a.fastest(edge), From: edge}
		if cur.Path != w { // another change inside the same interval: take it from the grid point
			cur.To = sizes[i] - 1
			out = append(out, cur)
			cur = span{Path: w, From: sizes[i]}
		}
	}
	cur.To = sizes[len(sizes)-1]
	return append(out, cur)
}

// crossover is a size at which two paths change places.
type crossover struct {
	A, B string      // in presentation order
	At   model.Bytes // the first size at which Faster is faster
	// Faster is the path that is faster from At up (until the next crossover).
	Faster string
}

// crossovers finds every size where two feasible GPU paths change places,
// on the grid of curveSizes refined by bisection.
func (a *analysis) crossovers() []crossover {
	sizes := curveSizes()
	var out []crossover
	for i, p := range a.feasible {
		for _, q := range a.feasible[i+1:] {
			sign := func(n model.Bytes) int {
				x, y := a.latency(p, n), a.latency(q, n)
				switch {
				case near(x, y):
					return 0
				case x < y:
					return -1
				}
				return 1
			}
			last, lastN := 0, model.Bytes(0)
			for _, n := range sizes {
				sg := sign(n)
				if sg == 0 {
					continue
				}
				if last != 0 && sg != last {
					from := last
					at := bisect(lastN, n, func(m model.Bytes) bool { s := sign(m); return s != 0 && s != from })
					c := crossover{A: p, B: q, At: at, Faster: p}
					if sg > 0 {
						c.Faster = q
					}
					out = append(out, c)
				}
				last, lastN = sg, n
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// order ranks the feasible GPU paths at n, fastest first.
func (a *analysis) order(n model.Bytes) []string {
	out := append([]string(nil), a.feasible...)
	sort.SliceStable(out, func(i, j int) bool {
		x, y := a.latency(out[i], n), a.latency(out[j], n)
		return x < y && !near(x, y)
	})
	return out
}

// title returns "GPUDirect RDMA (gdr)".
func title(p string) string {
	pp, err := model.LookupPath(p)
	if err != nil {
		return p
	}
	t := pp.Title
	if i := strings.Index(t, " ("); i > 0 && strings.HasSuffix(t, ")") {
		t = t[:i] + ", " + t[i+2:len(t)-1]
	}
	return t + " (" + p + ")"
}

// shortReason cuts an infeasibility reason to its first clause.
func shortReason(r string) string {
	r = strings.TrimPrefix(r, "infeasible: ")
	for _, sep := range []string{" — ", "; "} {
		if i := strings.Index(r, sep); i > 0 {
			r = r[:i]
		}
	}
	return strings.TrimSuffix(r, ".") + "."
}

// cores formats a number of CPU cores.
func cores(c float64) string {
	switch {
	case c < 0.01:
		return "under 0.01"
	case c >= 100:
		return fmt.Sprintf("%.0f", c)
	case c >= 10:
		return fmt.Sprintf("%.1f", c)
	}
	return trim(fmt.Sprintf("%.2f", c))
}

func trim(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// list joins words as people write them: "a", "a and b", "a, b and c".
func list(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// summary is the computed answer of a scenario, as sentences.
func (a *analysis) summary() []string {
	answer, detail := a.summaryParts()
	return append(answer, detail...)
}

// summaryParts returns the answer (who wins where, the crossovers, the
// cores at line rate, what cannot work) and the detail (rankings,
// bandwidths, references).
func (a *analysis) summaryParts() (answer, detail []string) {
	s := a.s
	var out []string
	if len(a.feasible) == 0 {
		out = append(out, fmt.Sprintf("On %s no GPU-to-GPU path between the two nodes is feasible.", s.Name))
	} else {
		ws := a.winners()
		chunk := fmt.Sprintf("pipelined in %s chunks", s.Pipeline.Chunk.Human())
		if len(ws) == 1 {
			w := ws[0].Path
			out = append(out, fmt.Sprintf("On %s, %s moves a message from GPU to GPU fastest at every size from %s to %s: %s for %s and %s for %s (%s).",
				s.Name, title(w), minSize.Human(), maxSize.Human(),
				model.Seconds(a.latency(w, smallRef)).Human(), smallRef.Human(),
				model.Seconds(a.latency(w, refSize)).Human(), refSize.Human(), chunk))
		} else {
			var parts []string
			for _, w := range ws {
				parts = append(parts, fmt.Sprintf("%s from %s to %s", title(w.Path), w.From.Human(), w.To.Human()))
			}
			out = append(out, fmt.Sprintf("On %s the fastest GPU-to-GPU path depends on the message size (latency %s): %s.",
				s.Name, chunk, list(parts)))
		}
		if len(a.feasible) > 1 {
			rank := func(n model.Bytes) string {
				var parts []string
				for _, p := range a.order(n) {
					parts = append(parts, fmt.Sprintf("%s %s", p, model.Seconds(a.latency(p, n)).Human()))
				}
				return strings.Join(parts, " < ")
			}
			detail = append(detail, fmt.Sprintf("At %s the order is %s; at %s it is %s.", smallRef.Human(), rank(smallRef), bigRef.Human(), rank(bigRef)))
			cs := a.crossovers()
			if len(cs) == 0 {
				out = append(out, "No two paths change places between 1 B and 1 GiB.")
			} else {
				var parts []string
				for _, c := range cs {
					other := c.A
					if other == c.Faster {
						other = c.B
					}
					parts = append(parts, fmt.Sprintf("%s overtakes %s at %s", c.Faster, other, c.At.Human()))
				}
				out = append(out, fmt.Sprintf("Crossovers (found by bisection on the model): %s.", list(parts)))
			}
		}
		// Bandwidth and cores at line rate.
		var bw, cs []string
		for _, p := range a.feasible {
			r := a.eval(p, refSize)
			bw = append(bw, fmt.Sprintf("%s %s (limit: %s)", p, r.Bandwidth.Human(), r.Bottleneck))
			if r.Cores < 0.01 {
				cs = append(cs, fmt.Sprintf("%s %s", p, cores(r.Cores)))
			} else {
				cs = append(cs, fmt.Sprintf("%s %s (%s sender, %s receiver)", p, cores(r.Cores), cores(r.CoresSender), cores(r.CoresReceiver)))
			}
		}
		detail = append(detail, fmt.Sprintf("Streaming %s messages, the paths reach %s.", refSize.Human(), strings.Join(bw, "; ")))
		line := a.eval(a.feasible[0], refSize).LineRate
		same := true
		for _, p := range a.feasible {
			if r := a.eval(p, refSize); !near(float64(r.LineRate), float64(line)) {
				same = false
			}
		}
		if same {
			out = append(out, fmt.Sprintf("To carry the line rate of %s with %s messages, the CPU cores each path needs on both nodes together are: %s.", line.Human(), refSize.Human(), list(cs)))
		} else {
			out = append(out, fmt.Sprintf("To carry its line rate with %s messages, each path needs these CPU cores on both nodes together: %s.", refSize.Human(), list(cs)))
		}
	}
	// One sentence per reason: rdma and gdr fail for the same one.
	var reasons []string
	byReason := map[string][]string{}
	for _, p := range a.infeasible {
		r := shortReason(a.routes[p].Reason)
		if byReason[r] == nil {
			reasons = append(reasons, r)
		}
		byReason[r] = append(byReason[r], p)
	}
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("%s cannot work here: %s", list(byReason[r]), r))
	}
	var refs []string
	for _, p := range a.refs {
		if a.routes[p.Name].Feasible {
			refs = append(refs, fmt.Sprintf("%s %s", p.Name, model.Seconds(a.latency(p.Name, smallRef)).Human()))
		}
	}
	if len(refs) > 0 {
		detail = append(detail, fmt.Sprintf("For reference, host to host (no GPU) a message of %s takes %s.", smallRef.Human(), list(refs)))
	}
	return out, detail
}
