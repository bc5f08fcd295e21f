package report

import (
	"fmt"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// The sizes the report's curves and tables use.
const (
	minSize  units.Bytes = 1
	maxSize  units.Bytes = 1 << 30
	smallRef units.Bytes = 8       // "a small message"
	refSize  units.Bytes = 1 << 20 // the size at which cores and bandwidth are quoted
	bigRef   units.Bytes = 1 << 30
)

// curveSizes are the sizes of every curve: 1 B to 1 GiB in powers of two.
func curveSizes() []units.Bytes {
	var out []units.Bytes
	for b := minSize; b <= maxSize; b *= 2 {
		out = append(out, b)
	}
	return out
}

// tableSizes are the sizes of the latency table.
var tableSizes = []units.Bytes{8, 4 << 10, 64 << 10, 1 << 20, 16 << 20, 1 << 30}

// breakdownSizes are the small, medium and large sizes of the breakdown.
var breakdownSizes = []units.Bytes{8, 64 << 10, 16 << 20}

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

// stageMapRows are the paths of the stage map and of the stage tables:
// every GPU path, then the references.
func (a *analysis) stageMapRows() []model.Path {
	return append(append([]model.Path(nil), a.gpu...), a.refs...)
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

func (a *analysis) eval(path string, n units.Bytes) model.Result {
	return a.routes[path].Evaluate(n)
}

func (a *analysis) latency(path string, n units.Bytes) float64 {
	return float64(a.eval(path, n).Pipelined)
}

// winners splits 1 B … 1 GiB into the segments where one feasible GPU
// path is fastest (model.Fastest).
func (a *analysis) winners() []model.Segment {
	ws, _ := model.Fastest(a.s, a.feasible, minSize, maxSize) // the names come from the model: no error
	return ws
}

// crossovers finds every size where two feasible GPU paths change places
// (model.Crossovers).
func (a *analysis) crossovers() []model.Crossover {
	cs, _ := model.Crossovers(a.s, a.feasible, minSize, maxSize)
	return cs
}

// order ranks the feasible GPU paths at n, fastest first (model.Ranked).
func (a *analysis) order(n units.Bytes) []string {
	ps, _ := model.Ranked(a.s, a.feasible, n)
	return ps
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
	if len(a.feasible) == 0 {
		answer = append(answer, fmt.Sprintf("On the %s scenario no GPU-to-GPU path between the two nodes is feasible.", a.s.Name))
	} else {
		answer = append(answer, a.winnersSentence())
		if len(a.feasible) > 1 {
			detail = append(detail, a.rankingSentence())
			answer = append(answer, a.crossoverSentence())
		}
		streaming, coresLine := a.lineRateSentences()
		detail = append(detail, streaming)
		answer = append(answer, coresLine)
	}
	answer = append(answer, a.infeasibleSentences()...)
	if s := a.referenceSentence(); s != "" {
		detail = append(detail, s)
	}
	return answer, detail
}

// winnersSentence says which GPU path is fastest at each size.
func (a *analysis) winnersSentence() string {
	s := a.s
	ws := a.winners()
	chunk := fmt.Sprintf("pipelined in %s chunks", s.Pipeline.Chunk.Human())
	if len(ws) == 1 {
		w := ws[0].Path
		return fmt.Sprintf("On the %s scenario, %s moves a message from GPU to GPU fastest at every size from %s to %s: %s for %s and %s for %s (%s).",
			s.Name, title(w), minSize.Human(), maxSize.Human(),
			units.Seconds(a.latency(w, smallRef)).Human(), smallRef.Human(),
			units.Seconds(a.latency(w, refSize)).Human(), refSize.Human(), chunk)
	}
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s from %s to %s", title(w.Path), w.From.Human(), w.To.Human()))
	}
	return fmt.Sprintf("On the %s scenario the fastest GPU-to-GPU path depends on the message size (latency %s): %s.",
		s.Name, chunk, list(parts))
}

// rankingSentence orders the GPU paths at a small and a large size.
func (a *analysis) rankingSentence() string {
	rank := func(n units.Bytes) string {
		var parts []string
		for _, p := range a.order(n) {
			parts = append(parts, fmt.Sprintf("%s %s", p, units.Seconds(a.latency(p, n)).Human()))
		}
		return strings.Join(parts, " < ")
	}
	return fmt.Sprintf("At %s the order is %s; at %s it is %s.", smallRef.Human(), rank(smallRef), bigRef.Human(), rank(bigRef))
}

// crossoverSentence lists where two GPU paths change places.
func (a *analysis) crossoverSentence() string {
	cs := a.crossovers()
	if len(cs) == 0 {
		return "No two paths change places between 1 B and 1 GiB."
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s overtakes %s at %s", c.Faster, c.Slower, c.At.Human()))
	}
	return fmt.Sprintf("Crossovers (found by bisection on the model): %s.", list(parts))
}

// lineRateSentences say what bandwidth each GPU path reaches streaming
// refSize messages, and the CPU cores it needs to carry its line rate.
func (a *analysis) lineRateSentences() (streaming, coresLine string) {
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
	streaming = fmt.Sprintf("Streaming %s messages, the paths reach %s.", refSize.Human(), strings.Join(bw, "; "))
	line := a.eval(a.feasible[0], refSize).LineRate
	for _, p := range a.feasible {
		if r := a.eval(p, refSize); !model.Near(float64(r.LineRate), float64(line)) {
			return streaming, fmt.Sprintf("To carry its line rate with %s messages, each path needs these CPU cores on both nodes together: %s.", refSize.Human(), list(cs))
		}
	}
	return streaming, fmt.Sprintf("To carry the line rate of %s with %s messages, the CPU cores each path needs on both nodes together are: %s.", line.Human(), refSize.Human(), list(cs))
}

// infeasibleSentences say why the infeasible GPU paths cannot work: one
// sentence per reason (rdma and gdr fail for the same one).
func (a *analysis) infeasibleSentences() []string {
	var reasons, out []string
	byReason := map[string][]string{}
	for _, p := range a.infeasible {
		r := model.ShortReason(a.routes[p].Reason)
		if byReason[r] == nil {
			reasons = append(reasons, r)
		}
		byReason[r] = append(byReason[r], p)
	}
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("%s cannot work here: %s", list(byReason[r]), r))
	}
	return out
}

// referenceSentence gives the small-message latency of the host-to-host
// references, or "" when none is feasible.
func (a *analysis) referenceSentence() string {
	var refs []string
	for _, p := range a.refs {
		if a.routes[p.Name].Feasible {
			refs = append(refs, fmt.Sprintf("%s %s", p.Name, units.Seconds(a.latency(p.Name, smallRef)).Human()))
		}
	}
	if len(refs) == 0 {
		return ""
	}
	return fmt.Sprintf("For reference, host to host (no GPU) a message of %s takes %s.", smallRef.Human(), list(refs))
}
