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
	// What the catalog entries the names find imply (gpu.model: the GPU's
	// PCIe link, memory and NVLink), each with its source.
	for _, r := range s.Resolution() {
		if r.Rule == model.RuleCatalog && base.Resolution() != nil {
			if old, _ := base.Get(r.Key); old != r.Value {
				sets = append(sets, fmt.Sprintf("%s=%s (%s)", r.Key, r.Value, r.Source))
			}
		}
	}
	return s, sets, agrees, refused
}

func lineOf(src string) string {
	if src == "" {
		return ""
	}
	return ", " + src
}
