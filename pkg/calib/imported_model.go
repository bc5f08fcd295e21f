package calib

// The calls of the imported-runs verdicts into pkg/model, kept in this one
// file (the model's API is being revised): a path's (or a copy stage's)
// model at a size, the fastest of some paths, and parallel TCP flows.

import (
	"math"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// withFlows is s with n parallel TCP flows (iperf3 -P), or s when it
// refuses the value.
func withFlows(s *model.Scenario, n int) (*model.Scenario, bool) {
	try := s.Clone()
	if err := try.Apply(model.Override{Key: "stack.flows", Value: n, Source: "the output's parallel streams"}); err != nil {
		return s, false
	}
	return try, true
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
	r, err := s.Route(path)
	return evalRoute(r, err, path, n)
}

// evalRoute is evalPath on a route already made (s.Route(path)): the one
// route of a series evaluated at each of its sizes.
func evalRoute(r *model.Route, err error, path string, n int64) modeled {
	if err != nil {
		return modeled{Path: path, Reason: err.Error()}
	}
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
		r, err := s.Route(path)
		if err != nil {
			continue
		}
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
// a large message; among equal ones, the lowest latency of a small one.
func bestPath(s *model.Scenario, paths []string) string {
	best, bw, lat := "", 0.0, 0.0
	for _, p := range paths {
		m := evalPath(s, p, int64(bigRef))
		if !m.Feasible {
			continue
		}
		l := evalPath(s, p, int64(smallRef)).Latency
		if m.Rate > bw && !model.Near(m.Rate, bw) || model.Near(m.Rate, bw) && l < lat {
			best, bw, lat = p, m.Rate, l
		}
	}
	return best
}
