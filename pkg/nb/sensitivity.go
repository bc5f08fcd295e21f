package nb

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Param is a parameter the sensitivity analysis moves one step each way:
// doubled and halved for a quantity, one generation or one topology class
// for the others.
type Param struct {
	Name     string // "NIC rate"
	Key      string // the scenario key it changes ("nic.rate"; PCIe changes gpu.pcie and nic.pcie)
	Down, Up string // what one step does: "÷2", "×2"
	// step changes s one step up (up) or down; it reports false when the
	// step leaves the parameter's range (a gen7 link, a class nearer than PIX).
	step func(s *model.Scenario, up bool) bool
}

func scale[T ~float64 | ~int64](p *T, up bool, lo, hi T) bool {
	v := *p / 2
	if up {
		v = *p * 2
	}
	if v < lo || v > hi {
		return false
	}
	*p = v
	return true
}

// Params are the parameters Sensitivities moves: the five what-if axes
// (NIC rate, PCIe generation, topology class, MTU, chunk size) and the two
// host costs that dominate the staged paths (one core's copy rate, the
// fixed cost of a cudaMemcpy).
func Params() []Param {
	return []Param{
		{Name: "NIC rate", Key: "nic.rate", Down: "÷2", Up: "×2",
			step: func(s *model.Scenario, up bool) bool { return scale(&s.NIC.Rate, up, 1e6, 1e15) }},
		{Name: "PCIe generation", Key: "gpu.pcie, nic.pcie", Down: "gen −1", Up: "gen +1",
			step: func(s *model.Scenario, up bool) bool {
				d := -1
				if up {
					d = 1
				}
				g, n := s.GPU.PCIe, s.NIC.PCIe
				g.Gen, n.Gen = g.Gen+d, n.Gen+d
				if g.Validate() != nil || n.Validate() != nil {
					return false
				}
				s.GPU.PCIe, s.NIC.PCIe = g, n
				return true
			}},
		{Name: "GPU–NIC topology", Key: "topology.gpu_nic", Down: "a class nearer", Up: "a class farther",
			step: func(s *model.Scenario, up bool) bool {
				i := slices.Index(model.Classes, s.Topology.GPUNIC)
				if up {
					i++
				} else {
					i--
				}
				if i < 0 || i >= len(model.Classes) {
					return false
				}
				s.Topology.GPUNIC = model.Classes[i]
				return true
			}},
		{Name: "MTU", Key: "nic.mtu", Down: "÷2", Up: "×2",
			step: func(s *model.Scenario, up bool) bool { return scale(&s.NIC.MTU, up, 256, 65536) }},
		{Name: "chunk size", Key: "pipeline.chunk", Down: "÷2", Up: "×2",
			step: func(s *model.Scenario, up bool) bool { return scale(&s.Pipeline.Chunk, up, 1024, 1<<30) }},
		{Name: "CPU copy rate", Key: "cpu.memcpy_rate", Down: "÷2", Up: "×2",
			step: func(s *model.Scenario, up bool) bool { return scale(&s.CPU.MemcpyRate, up, 1, 1e15) }},
		{Name: "cudaMemcpy fixed cost", Key: "gpu.copy_latency", Down: "÷2", Up: "×2",
			step: func(s *model.Scenario, up bool) bool { return scale(&s.GPU.CopyLatency, up, 0, 1e-3) }},
	}
}

// Metric is what the sensitivity analysis watches on each path.
type Metric int

// The metrics, in the order of Sensitivity.Change.
const (
	SmallLatency  Metric = iota // latency of a small message
	LargeTransfer               // one large message, pipelined in chunks
	LargeRate                   // streaming bandwidth with large messages
	numMetrics
)

// Name says what the metric is at sizes small and large.
func (m Metric) Name(small, large units.Bytes) string {
	switch m {
	case SmallLatency:
		return "latency at " + small.Human()
	case LargeTransfer:
		return large.Human() + " transfer (pipelined)"
	}
	return "bandwidth at " + large.Human()
}

// Sensitivity is how one path's metrics move when one parameter takes one
// step down (index 0) or up (index 1): relative changes, +0.5 for 50% more.
// A metric is NaN where the step is out of range or the path becomes
// infeasible.
type Sensitivity struct {
	Param  Param
	Path   string
	Change [numMetrics][2]float64
}

// Largest is the larger absolute change of metric m over the two steps (0
// when both are out of range), and which step gave it (0 down, 1 up).
func (s Sensitivity) Largest(m Metric) (float64, int) {
	best, dir := 0.0, -1
	for d := 0; d < 2; d++ {
		if c := s.Change[m][d]; !math.IsNaN(c) && (dir < 0 || math.Abs(c) > math.Abs(best)) {
			best, dir = c, d
		}
	}
	if dir < 0 {
		return 0, -1
	}
	return best, dir
}

func metrics(r *model.Route, small, large units.Bytes) [numMetrics]float64 {
	a, b := r.Evaluate(small), r.Evaluate(large)
	return [numMetrics]float64{float64(a.Latency), float64(b.Pipelined), float64(b.Bandwidth)}
}

// Sensitivities moves each parameter one step down and one step up from
// base and records the relative change of each feasible path's metrics
// (latency at small, pipelined transfer of large, bandwidth at large).
// Rows are path-major, in the order of paths, then params.
func Sensitivities(base *model.Scenario, params []Param, paths []string, small, large units.Bytes) ([]Sensitivity, error) {
	if small < 1 || large < 1 {
		return nil, fmt.Errorf("nb: message sizes must be at least 1 byte")
	}
	var out []Sensitivity
	for _, p := range paths {
		r0, err := base.Route(p)
		if err != nil {
			return nil, err
		}
		if !r0.Feasible {
			continue
		}
		m0 := metrics(r0, small, large)
		for _, par := range params {
			row := Sensitivity{Param: par, Path: p}
			for d, up := range []bool{false, true} {
				s := base.Clone()
				ok := par.step(s, up)
				var r *model.Route
				if ok {
					r, _ = s.Route(p)
					ok = r.Feasible
				}
				for m := range row.Change {
					row.Change[m][d] = math.NaN()
				}
				if !ok {
					continue
				}
				m1 := metrics(r, small, large)
				for m := range row.Change {
					row.Change[m][d] = m1[m]/m0[m] - 1
				}
			}
			out = append(out, row)
		}
	}
	return out, nil
}

// SensitivityTable lists every row with both steps of every metric.
func SensitivityTable(rows []Sensitivity, small, large units.Bytes) string {
	t := &Table{Caption: "Relative change of each metric when one parameter takes one step down / up",
		Head:  []string{"path", "parameter", "step down / up"},
		Right: []bool{false, false, false}}
	for m := Metric(0); m < numMetrics; m++ {
		t.Head = append(t.Head, m.Name(small, large))
		t.Right = append(t.Right, true)
	}
	for _, r := range rows {
		cells := []string{r.Path, r.Param.Name, r.Param.Down + " / " + r.Param.Up}
		for m := range r.Change {
			cells = append(cells, percent(r.Change[m][0])+" / "+percent(r.Change[m][1]))
		}
		t.Add(cells...)
	}
	return t.HTML()
}

// MostSensitive says in Markdown, for each path, which parameter moves each
// metric most, which step does it and by how much.
func MostSensitive(rows []Sensitivity, small, large units.Bytes) string {
	var b strings.Builder
	var paths []string
	for _, r := range rows {
		if !slices.Contains(paths, r.Path) {
			paths = append(paths, r.Path)
		}
	}
	for _, p := range paths {
		fmt.Fprintf(&b, "- `%s`:", p)
		for m := Metric(0); m < numMetrics; m++ {
			var top Sensitivity
			best, dir := 0.0, -1
			for _, r := range rows {
				if r.Path != p {
					continue
				}
				if c, d := r.Largest(m); d >= 0 && (dir < 0 || math.Abs(c) > math.Abs(best)) {
					top, best, dir = r, c, d
				}
			}
			sep := ";"
			if m == 0 {
				sep = ""
			}
			if dir < 0 || best == 0 {
				fmt.Fprintf(&b, "%s %s moves with none of them", sep, m.Name(small, large))
				continue
			}
			step := top.Param.Down
			if dir == 1 {
				step = top.Param.Up
			}
			fmt.Fprintf(&b, "%s %s moves most with the %s (%s: %s)", sep, m.Name(small, large), top.Param.Name, step, percent(best))
		}
		b.WriteString(".\n")
	}
	return b.String()
}
