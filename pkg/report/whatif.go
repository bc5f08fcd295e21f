package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
)

// Variants chooses the what-if scenarios of a report: two neighbours of s
// that change one thing a reader can change.
//
//   - Topology: GPU and NIC under one switch (PIX, PXB) move to different
//     sockets (SYS), the placement NCCL warns about; any other placement
//     moves under one switch (PIX), where GPUDirect RDMA wants it.
//   - NIC rate: doubled (the next port generation), or halved when it is
//     already 800 Gbit/s or more.
//
// Each Variant has its scenario filled in.
func Variants(s *model.Scenario) ([]Variant, error) {
	var vs []Variant
	if c := s.Topology.GPUNIC; c == model.PIX || c == model.PXB {
		vs = append(vs, Variant{Name: "GPU and NIC on different sockets (SYS)",
			Why:  fmt.Sprintf("the NIC sits on the other socket (topology.gpu_nic %s → SYS), so GPU↔NIC peer traffic crosses the inter-socket link; NCCL does not use GPUDirect RDMA there by default", c),
			Sets: []model.Override{{Key: "topology.gpu_nic", Value: model.SYS}}})
	} else {
		vs = append(vs, Variant{Name: "GPU and NIC under one PCIe switch (PIX)",
			Why:  fmt.Sprintf("GPU and NIC move under one PCIe switch (topology.gpu_nic %s → PIX), the placement GPUDirect RDMA wants", c),
			Sets: []model.Override{{Key: "topology.gpu_nic", Value: model.PIX}}})
	}
	rate := s.NIC.Rate
	const gbit = 1e9 / 8
	if rate < 800*gbit {
		nr := 2 * rate
		vs = append(vs, Variant{Name: "NIC rate doubled (" + nr.Gbits() + ")",
			Why:  fmt.Sprintf("the next port generation on the same hosts (nic.rate %s → %s): the paths whose bottleneck is not the wire fall behind", rate.Gbits(), nr.Gbits()),
			Sets: []model.Override{{Key: "nic.rate", Value: nr}}})
	} else {
		nr := rate / 2
		vs = append(vs, Variant{Name: "NIC rate halved (" + nr.Gbits() + ")",
			Why:  fmt.Sprintf("the previous port generation on the same hosts (nic.rate %s → %s)", rate.Gbits(), nr.Gbits()),
			Sets: []model.Override{{Key: "nic.rate", Value: nr}}})
	}
	for i := range vs {
		if err := vs[i].resolve(s); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// resolve fills v.Scenario from base and v.Sets.
func (v *Variant) resolve(base *model.Scenario) error {
	if v.Scenario != nil {
		return nil
	}
	s := base.Clone()
	ovs := make([]model.Override, len(v.Sets))
	for i, o := range v.Sets {
		if o.Source == "" {
			o.Source = "what-if " + v.Name
		}
		ovs[i] = o
	}
	if err := s.Apply(ovs...); err != nil {
		return fmt.Errorf("report: what-if %q: %w", v.Name, err)
	}
	var kvs []string
	for _, o := range v.Sets {
		kvs = append(kvs, o.Key+"="+overrideText(o))
	}
	s.Name = base.Name + " with " + strings.Join(kvs, ", ")
	v.Scenario = s
	return nil
}

// overrideText is an override's value as --set writes it (resolve has
// checked it).
func overrideText(o model.Override) string {
	v, err := o.Text()
	if err != nil {
		return fmt.Sprint(o.Value)
	}
	return v
}

// setsText writes a variant's changes as --set arguments.
func (v *Variant) setsText() string {
	var parts []string
	for _, o := range v.Sets {
		parts = append(parts, "--set "+o.Key+"="+overrideText(o))
	}
	return strings.Join(parts, " ")
}

// changes compares the variant with the base, path by path, in sentences.
func changes(base, vr *analysis) []string {
	var out []string
	for _, p := range base.gpu {
		rb, rv := base.routes[p.Name], vr.routes[p.Name]
		switch {
		case !rb.Feasible && !rv.Feasible:
			continue
		case rb.Feasible && !rv.Feasible:
			out = append(out, fmt.Sprintf("%s becomes infeasible: %s", p.Name, model.ShortReason(rv.Reason)))
			continue
		case !rb.Feasible && rv.Feasible:
			out = append(out, fmt.Sprintf("%s becomes feasible.", p.Name))
			continue
		}
		var parts []string
		l0, l1 := base.eval(p.Name, smallRef).Pipelined, vr.eval(p.Name, smallRef).Pipelined
		if rel(float64(l0), float64(l1)) > 0.01 {
			parts = append(parts, fmt.Sprintf("%s latency %s → %s", smallRef.Human(), l0.Human(), l1.Human()))
		}
		b0, b1 := base.eval(p.Name, refSize), vr.eval(p.Name, refSize)
		if rel(float64(b0.Bandwidth), float64(b1.Bandwidth)) > 0.01 {
			parts = append(parts, fmt.Sprintf("%s bandwidth %s → %s (%s)", refSize.Human(), b0.Bandwidth.Human(), b1.Bandwidth.Human(), b1.Bottleneck))
		}
		if rel(b0.Cores, b1.Cores) > 0.01 && math.Max(b0.Cores, b1.Cores) >= 0.01 {
			parts = append(parts, fmt.Sprintf("cores at line rate %s → %s", cores(b0.Cores), cores(b1.Cores)))
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("%s: %s.", p.Name, strings.Join(parts, ", ")))
		}
	}
	if len(out) == 0 {
		out = append(out, "No GPU-to-GPU path changes by more than 1% in latency, bandwidth or cores.")
	}
	return out
}

func rel(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}
