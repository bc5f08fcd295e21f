package nb

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// ComparedPaths are the three paths the account compares (tcp, rdma,
// gdr), EndingPaths where it ends (devmem TCP and the plain-NIC idea), and
// GPUPaths both: the GPU-to-GPU paths between nodes. Each is a list of
// names in presentation order, from the model's path registry, so a path
// registered there appears here by its role.
func ComparedPaths() []string { return namesWith(model.RoleCompared) }

// EndingPaths: see ComparedPaths.
func EndingPaths() []string { return namesWith(model.RoleEnding) }

// GPUPaths: see ComparedPaths.
func GPUPaths() []string { return namesWith(model.RoleCompared, model.RoleEnding) }

func namesWith(roles ...model.Role) []string {
	var out []string
	for _, p := range model.PathsWith(func(p model.Path) bool { return slices.Contains(roles, p.Role) }) {
		out = append(out, p.Name)
	}
	return out
}

// Small and Large are the two sizes the notebooks quote: a message whose
// latency is all fixed costs, and one whose time is all bandwidth.
const (
	Small units.Bytes = 8
	Large units.Bytes = 64 << 20
)

func rate(r units.Rate) string {
	if math.IsInf(float64(r), 1) {
		return "—"
	}
	return r.Human()
}

// StageTable is the path's stage table at message size n: each stage with
// its letter, side, its own time (T(n): the stage alone) and share of the
// step-by-step sum,
// fixed cost α, rate β, CPU time, DDR bytes, whether it copies the payload,
// and what happens there; the last row is the total. An infeasible path
// gives a paragraph with the model's reason instead.
func StageTable(s *model.Scenario, path string, n units.Bytes) (string, error) {
	r, err := s.Route(path)
	if err != nil {
		return "", err
	}
	if !r.Feasible {
		return "<p><b>" + html.EscapeString(path) + "</b>: " + html.EscapeString(r.Reason) + "</p>", nil
	}
	res := r.Evaluate(n)
	t := &Table{
		Caption: fmt.Sprintf("%s — %s, %s message on %s: %s one way as the hardware moves it (%s step by step), %d copies",
			path, r.Path.Title, n.Human(), s.Name, res.Latency.Human(), res.StepByStep.Human(), res.Copies),
		Head:  []string{"step", "stage", "side", "time", "share", "fixed α", "rate β", "CPU", "DDR bytes", "copy", "what happens"},
		Right: []bool{false, false, false, true, true, true, true, true, true, false, false},
	}
	for i, st := range res.Stages {
		letter := st.Letter
		if letter == "" {
			letter = "·"
		}
		t.Add(letter, st.Name, string(st.Side), st.Latency.Human(),
			percent0(float64(st.Latency)/float64(res.Latency)), st.Alpha.Human(), rate(st.Rate),
			st.CPU.Human(), units.Bytes(math.Round(st.DDRBytes)).Human(), yes(st.Copy), r.Stages[i].What)
	}
	t.Add("", "total", "", res.Latency.Human(), "100%", "", rate(res.Bandwidth)+" streaming", res.CPU.Human(),
		units.Bytes(math.Round(res.DDRBytes)).Human(), strconv.Itoa(res.Copies), "bottleneck: "+res.Bottleneck)
	return t.HTML(), nil
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return ""
}

// percent0 formats a share as a whole percentage ("< 1%" for a sliver).
func percent0(x float64) string {
	if x > 0 && x < 0.005 {
		return "< 1%"
	}
	return fmt.Sprintf("%.0f%%", x*100)
}

// PathTable compares paths side by side: latency at small, pipelined
// latency at large, streaming bandwidth at large with its bottleneck, CPU
// cores at line rate, copies, DDR bytes per payload byte and PCIe
// crossings. An infeasible path shows the model's reason.
func PathTable(s *model.Scenario, paths []string, small, large units.Bytes) (string, error) {
	t := &Table{
		Caption: fmt.Sprintf("%s: the paths side by side", s.Name),
		Head: []string{"path", "latency " + small.Human(), "pipelined " + large.Human(), "bandwidth " + large.Human(),
			"cores at line rate", "copies", "DDR B per B", "PCIe crossings", "bottleneck"},
		Right: []bool{false, true, true, true, true, true, true, true, false},
	}
	for _, p := range paths {
		r, err := s.Route(p)
		if err != nil {
			return "", err
		}
		if !r.Feasible {
			t.Add(p, "infeasible", "", "", "", "", "", "", r.Reason)
			continue
		}
		a, b := r.Evaluate(small), r.Evaluate(large)
		t.Add(p, a.Latency.Human(), b.Pipelined.Human(), rate(b.Bandwidth), cores(b.Cores), strconv.Itoa(b.Copies),
			trim(b.DDRBytes/float64(large)), strconv.Itoa(b.Crossings), b.Bottleneck)
	}
	return t.HTML(), nil
}

// Compare says in Markdown how the paths compare on s, from the model's
// numbers: which is fastest at small and at large (pipelined), how much
// slower each other one is, what limits each one's streaming bandwidth,
// and the copies and DDR traffic each one costs. Infeasible paths are
// left out (Ending tells their story).
func Compare(s *model.Scenario, paths []string, small, large units.Bytes) (string, error) {
	var rs []*model.Route
	for _, p := range paths {
		r, err := s.Route(p)
		if err != nil {
			return "", err
		}
		if r.Feasible {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return "", fmt.Errorf("nb: none of %s is feasible on %s", strings.Join(paths, ", "), s.Name)
	}
	var b strings.Builder
	race := func(n units.Bytes, what string, lat func(model.Result) units.Seconds) {
		res := make([]model.Result, len(rs))
		best := 0
		for i, r := range rs {
			res[i] = r.Evaluate(n)
			if lat(res[i]) < lat(res[best]) {
				best = i
			}
		}
		fmt.Fprintf(&b, "- **%s %s**: `%s` is fastest (%s)", n.Human(), what, rs[best].Path.Name, lat(res[best]).Human())
		for i := range rs {
			if i != best {
				fmt.Fprintf(&b, "; `%s` %s (%s× as long)", rs[i].Path.Name, lat(res[i]).Human(), ratio(float64(lat(res[i])/lat(res[best]))))
			}
		}
		b.WriteString(".\n")
	}
	race(small, "message", func(r model.Result) units.Seconds { return r.Latency })
	race(large, "message, pipelined in "+s.Pipeline.Chunk.Human()+" chunks", func(r model.Result) units.Seconds { return r.Pipelined })
	// each writes a bullet with one clause per path at large.
	each := func(title string, clause func(r *model.Route, res model.Result) string) {
		b.WriteString("- **" + title + "**:")
		for i, r := range rs {
			if i > 0 {
				b.WriteString(";")
			}
			b.WriteString(" " + clause(r, r.Evaluate(large)))
		}
		b.WriteString(".\n")
	}
	each("Streaming", func(r *model.Route, res model.Result) string {
		return fmt.Sprintf("`%s` %s, bound by %s", r.Path.Name, rate(res.Bandwidth), res.Bottleneck)
	})
	each("Copies and memory", func(r *model.Route, res model.Result) string {
		return fmt.Sprintf("`%s` %s and moves %s DDR bytes per payload byte", r.Path.Name, copies(res.Copies), trim(res.DDRBytes/float64(large)))
	})
	return b.String(), nil
}

func copies(n int) string {
	switch n {
	case 0:
		return "makes no copy of the payload"
	case 1:
		return "copies the payload once"
	case 2:
		return "copies the payload twice"
	}
	return "copies the payload " + strconv.Itoa(n) + " times"
}

// ratio formats a ratio ≥ 1 with two decimals when it is close to 1.
func ratio(x float64) string {
	if x < 1.1 {
		return fmt.Sprintf("%.2f", x)
	}
	return trim(x)
}

// DevmemEnding tells, in Markdown, how the devmem story ends on s: with
// its numbers against tcp when the NIC can do it, and in any case what the
// model says of the same NIC without header split.
func DevmemEnding(s *model.Scenario, small, large units.Bytes) (string, error) {
	dev, err := s.Route("devmem")
	if err != nil {
		return "", err
	}
	tcp, err := s.Route("tcp")
	if err != nil {
		return "", err
	}
	if !dev.Feasible {
		return fmt.Sprintf("On the `%s` scenario: *%s*", s.Name, dev.Reason), nil
	}
	d, t := dev.Evaluate(large), tcp.Evaluate(large)
	var b strings.Builder
	fmt.Fprintf(&b, "On the `%s` scenario the NIC splits headers from payload, so devmem works: %s at %s (tcp: %s), %s streaming at %s, "+
		"bound by %s, with %s (tcp: %d) and %s CPU cores at line rate (tcp: %s).",
		s.Name, dev.Evaluate(small).Latency.Human(), small.Human(), tcp.Evaluate(small).Latency.Human(),
		rate(d.Bandwidth), large.Human(), d.Bottleneck, payloadCopies(d.Copies), t.Copies, cores(d.Cores), cores(t.Cores))
	no, err := With(s, "nic.header_split=false")
	if err != nil {
		return "", err
	}
	nr, _ := no.Route("devmem")
	fmt.Fprintf(&b, "\n\nThe same NIC without header split (`nic.header_split: false`): *%s*", nr.Reason)
	return b.String(), nil
}

// PlainNICEnding is, in Markdown, the model's reason why the first
// idea (a plain NIC reading raw GPU data by peer-to-peer DMA) cannot work.
func PlainNICEnding(s *model.Scenario) (string, error) {
	plain, err := s.Route("p2p-plain-nic")
	if err != nil {
		return "", err
	}
	if plain.Feasible {
		return "", fmt.Errorf("nb: the model finds p2p-plain-nic feasible on %s", s.Name)
	}
	return fmt.Sprintf("On the `%s` scenario: *%s*", s.Name, plain.Reason), nil
}

// payloadCopies says "1 payload copy", "4 payload copies".
func payloadCopies(n int) string {
	if n == 1 {
		return "1 payload copy"
	}
	return fmt.Sprintf("%d payload copies", n)
}
