package report

// The calls of the imported-runs section into pkg/model, kept in this one
// file (the model's API is being revised): a scenario for the hardware an
// output names, and a path's (or a copy stage's) model at a size.

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// gpuLinks are the PCIe links of the GPUs an output may name, matched as a
// substring of the printed name, most specific first.
var gpuLinks = []struct{ match, link, source string }{
	{"H200", "gen5x16", "NVIDIA H200 datasheet: PCIe Gen5 x16"},
	{"H100", "gen5x16", "NVIDIA H100 datasheet: PCIe Gen5 x16"},
	{"A100", "gen4x16", "NVIDIA A100 datasheet: PCIe Gen4 x16"},
	{"A6000", "gen4x16", "NVIDIA RTX A6000 datasheet: PCIe Gen4 x16"},
	{"RTX 6000 Ada", "gen4x16", "NVIDIA RTX 6000 Ada datasheet: PCIe Gen4 x16"},
	{"L40S", "gen4x16", "NVIDIA L40S datasheet: PCIe Gen4 x16"},
	{"V100", "gen3x16", "NVIDIA V100 datasheet: PCIe Gen3 x16"},
	{"K80", "gen3x16", "NVIDIA Tesla K80 datasheet: PCIe Gen3 x16"},
}

// hardwareScenario is base with the keys the hardware names set, each with
// where it came from ("nic.rate=200Gbit/s (ibstat.txt line 9)"). A key whose
// value the scenario refuses is left as base has it, and said so.
func hardwareScenario(base *model.Scenario, hw Hardware) (s *model.Scenario, sets, agrees, refused []string) {
	s = base.Clone()
	set := func(key, value, why string) {
		old, _ := s.Get(key)
		if old == value {
			agrees = append(agrees, key+"="+value)
			return
		}
		try := s.Clone()
		if err := try.Set(key, value); err != nil {
			refused = append(refused, fmt.Sprintf("%s=%s (%s): %v", key, value, why, err))
			return
		}
		if err := try.Validate(); err != nil {
			refused = append(refused, fmt.Sprintf("%s=%s (%s): %v", key, value, why, err))
			return
		}
		s = try
		sets = append(sets, fmt.Sprintf("%s=%s (%s)", key, value, why))
	}
	if len(hw.GPUs) > 0 {
		g := hw.GPUs[0]
		set("gpu.model", g, "the output's GPU"+lineOf(hw.GPUSource))
		for _, l := range gpuLinks {
			if strings.Contains(g, l.match) {
				set("gpu.pcie", l.link, l.source)
				break
			}
		}
	}
	// The NIC: the link layer of the devices the output used, the rate of
	// the active ports (the most common one).
	kinds := map[string]string{"InfiniBand": model.KindIB, "IB": model.KindIB, "RoCE": model.KindRoCE}
	for _, n := range hw.NICs {
		if k, ok := kinds[n.LinkLayer]; ok {
			set("nic.kind", k, n.Name+" is "+n.LinkLayer+lineOf(n.Source))
			break
		}
	}
	rates := map[float64]int{}
	src := map[float64]NIC{}
	for _, n := range hw.NICs {
		if n.RateBps > 0 && (n.State == "" || strings.Contains(strings.ToLower(n.State), "active")) {
			rates[n.RateBps]++
			if _, ok := src[n.RateBps]; !ok {
				src[n.RateBps] = n
			}
		}
	}
	if len(rates) > 0 {
		rs := make([]float64, 0, len(rates))
		for r := range rates {
			rs = append(rs, r)
		}
		sort.Slice(rs, func(i, j int) bool {
			if rates[rs[i]] != rates[rs[j]] {
				return rates[rs[i]] > rates[rs[j]]
			}
			return rs[i] > rs[j]
		})
		n := src[rs[0]]
		set("nic.rate", fmt.Sprintf("%gGbit/s", rs[0]/1e9), fmt.Sprintf("%s port rate%s", n.Name, lineOf(n.Source)))
	}
	if hw.GPUNIC != "" {
		set("topology.gpu_nic", hw.GPUNIC, "nearest GPU–NIC class"+lineOf(hw.GPUNICSource))
	}
	return s, sets, agrees, refused
}

// nicRateText is the scenario's NIC rate, in words.
func nicRateText(s *model.Scenario) string { return s.NIC.Rate.Gbits() }

// withFlows is s with n parallel TCP flows (iperf3 -P), or s when it
// refuses the value.
func withFlows(s *model.Scenario, n int) (*model.Scenario, bool) {
	try := s.Clone()
	if err := try.Set("stack.flows", fmt.Sprint(n)); err != nil || try.Validate() != nil {
		return s, false
	}
	return try, true
}

func lineOf(src string) string {
	if src == "" {
		return ""
	}
	return ", " + src
}

// modeled is a path's model at one size.
type modeled struct {
	Path     string
	Feasible bool
	Reason   string
	// Rate is the streaming bandwidth and RateBound what limits it;
	// Latency the one-way latency (pipelined) and LatencyBound the stage
	// that takes longest.
	Rate         float64
	RateBound    string
	Latency      float64
	LatencyBound string
}

// evalPath evaluates a path of s at n bytes.
func evalPath(s *model.Scenario, path string, n int64) modeled {
	p, err := model.LookupPath(path)
	if err != nil {
		return modeled{Path: path, Reason: err.Error()}
	}
	r := p.Route(s)
	if !r.Feasible {
		return modeled{Path: path, Reason: r.Reason}
	}
	res := r.Evaluate(units.Bytes(max(n, 1)))
	m := modeled{Path: path, Feasible: true, Rate: float64(res.Bandwidth), RateBound: res.Bottleneck, Latency: float64(res.Pipelined)}
	worst := -1.0
	for _, st := range res.Stages {
		if v := float64(st.Latency); v > worst {
			worst, m.LatencyBound = v, stageName(st.Letter, st.Name)
		}
	}
	return m
}

func stageName(letter, name string) string {
	if letter != "" {
		return letter + " " + name
	}
	return name
}

// evalCopy models a copy between host and GPU memory: the stage of the
// letter (A: device to host, G: host to device) of a host-staged path.
func evalCopy(s *model.Scenario, letter string, n int64) modeled {
	for _, path := range []string{"rdma", "tcp"} {
		p, err := model.LookupPath(path)
		if err != nil {
			continue
		}
		r := p.Route(s)
		for _, st := range r.Stages {
			if st.Letter != letter {
				continue
			}
			t := float64(st.Time(units.Bytes(max(n, 1))))
			if !(t > 0) || math.IsInf(t, 0) {
				continue
			}
			b := stageName(st.Letter, st.Name) + " over the GPU's PCIe " + s.GPU.PCIe.String()
			return modeled{Path: "copy " + letter, Feasible: true, Rate: float64(max(n, 1)) / t, RateBound: b, Latency: t, LatencyBound: b}
		}
	}
	return modeled{Path: "copy " + letter, Reason: "the scenario has no copy stage " + letter}
}

// bestPath is the feasible path among paths with the highest bandwidth at
// a large message.
func bestPath(s *model.Scenario, paths []string) string {
	best, bw := "", 0.0
	for _, p := range paths {
		if m := evalPath(s, p, int64(bigRef)); m.Feasible && m.Rate > bw {
			best, bw = p, m.Rate
		}
	}
	return best
}

// scenarioName is the name of a scenario.
func scenarioName(s *model.Scenario) string { return s.Name }

func rateText(v float64) string    { return units.Rate(v).Human() }
func secondsText(v float64) string { return units.Seconds(v).Human() }
func bytesText(v int64) string     { return units.Bytes(v).Human() }
