package report

// The scenario for the hardware an imported output names, kept in this one
// file (the model's API is being revised). The verdicts' calls into the
// model are pkg/calib's (imported_model.go there).

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
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

func lineOf(src string) string {
	if src == "" {
		return ""
	}
	return ", " + src
}
