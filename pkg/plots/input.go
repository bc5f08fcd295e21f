package plots

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// Input is what the figures draw: a modeled scenario, measured series, or
// both. Each figure function says which fields it reads.
type Input struct {
	// Scenario gives the modeled curves; nil draws measured data only
	// (where the figure allows it).
	Scenario *model.Scenario
	// Paths are the path names to draw, in order; nil: every path
	// (model.PathNames()).
	Paths []string
	// Sizes are the message sizes of the model curves (nil:
	// model.DefaultSizes()); for Breakdown, the sizes of its panels (nil:
	// BreakdownSizes).
	Sizes []units.Bytes
	// Measured series are drawn over the model curves.
	Measured []Measured
	// Pipelined adds the pipelined latency (dotted) to Latency, and makes
	// Residuals compare latency with it instead of the one-message latency.
	Pipelined bool
}

// Measured is one measured series, independent of any file format: the
// report maps measurement records onto it.
type Measured struct {
	// Label names the series in the legend: "sockperf ping-pong".
	Label string
	// Path is the model path the series corresponds to ("host-tcp"); it
	// picks the colour and the model curve Residuals compares with. It may
	// be empty for a measurement that matches no path.
	Path string
	// Source says where and when it was measured: "gpu01, 2026-11-29 10:02 UTC".
	// It is required: every figure says what is measured and where.
	Source string
	Points []Point
}

// Point is one measured message size. A zero Seconds, Rate or CPU means
// "not measured"; a figure draws the points that have its quantity.
type Point struct {
	Bytes   float64 // message size in bytes (> 0)
	Seconds float64 // one-way latency in seconds
	Rate    float64 // streaming throughput in bytes per second
	CPU     float64 // CPU seconds per message (user + system, both ends)
}

// ErrInput is wrapped by every error about bad input to a figure.
var ErrInput = errors.New("bad figure input")

func inputErr(format string, args ...any) error {
	return fmt.Errorf("plots: %w: %s", ErrInput, fmt.Sprintf(format, args...))
}

// checked is an Input after validation, with routes resolved.
type checked struct {
	Input
	routes []*model.Route // one per path, nil without a scenario
	sizes  []units.Bytes  // sorted, deduplicated
}

// check validates an Input once, up front: known paths, sizes ≥ 1, finite
// measured values, a source for every series.
func check(in Input, needScenario bool) (*checked, error) {
	if in.Scenario == nil && needScenario {
		return nil, inputErr("no scenario given")
	}
	if in.Scenario == nil && len(in.Measured) == 0 {
		return nil, inputErr("no scenario and no measured data: nothing to draw")
	}
	out := &checked{Input: in}
	names := in.Paths
	if names == nil {
		names = model.PathNames()
	} else if len(names) == 0 {
		return nil, inputErr("the path list is empty")
	}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return nil, inputErr("path %q is listed twice", n)
		}
		seen[n] = true
		p, err := model.LookupPath(n)
		if err != nil {
			return nil, inputErr("%v", err)
		}
		if in.Scenario != nil {
			out.routes = append(out.routes, p.Route(in.Scenario))
		}
	}
	out.Paths = names

	sizes := in.Sizes
	if sizes == nil {
		sizes = model.DefaultSizes()
	} else if len(sizes) == 0 {
		return nil, inputErr("the size list is empty")
	}
	for _, n := range sizes {
		if n < 1 {
			return nil, inputErr("message size %d B: sizes must be at least 1 byte (log axis)", n)
		}
	}
	out.sizes = slices.Compact(slices.Sorted(slices.Values(sizes)))

	for i, m := range in.Measured {
		if err := m.check(); err != nil {
			return nil, inputErr("measured series %d (%q): %v", i+1, m.Label, err)
		}
	}
	return out, nil
}

func (m Measured) check() error {
	if strings.TrimSpace(m.Label) == "" {
		return errors.New("no label")
	}
	if strings.TrimSpace(m.Source) == "" {
		return errors.New("no source (host and time)")
	}
	if m.Path != "" {
		if _, err := model.LookupPath(m.Path); err != nil {
			return err
		}
	}
	if len(m.Points) == 0 {
		return errors.New("no points")
	}
	for j, p := range m.Points {
		for _, v := range []struct {
			name string
			x    float64
		}{{"bytes", p.Bytes}, {"seconds", p.Seconds}, {"rate", p.Rate}, {"cpu", p.CPU}} {
			if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
				return fmt.Errorf("point %d: %s is %v", j+1, v.name, v.x)
			}
			if v.x < 0 {
				return fmt.Errorf("point %d: %s is negative (%v)", j+1, v.name, v.x)
			}
		}
		if p.Bytes <= 0 {
			return fmt.Errorf("point %d: bytes must be positive (log axis), got %v", j+1, p.Bytes)
		}
		if p.Seconds == 0 && p.Rate == 0 && p.CPU == 0 {
			return fmt.Errorf("point %d (%v B): no value measured", j+1, p.Bytes)
		}
	}
	return nil
}

// provenance is the line under the title: modeled from which scenario,
// measured where and when.
func (c *checked) provenance(measured bool) string {
	var parts []string
	if c.Scenario != nil {
		parts = append(parts, "modeled: scenario "+c.Scenario.Name)
	}
	if measured {
		var ms []string
		for _, m := range c.Measured {
			ms = append(ms, m.Label+" ("+m.Source+")")
		}
		if len(ms) > 0 {
			parts = append(parts, "measured: "+strings.Join(ms, "; "))
		}
	}
	return strings.Join(parts, " · ")
}

// infeasible lists the paths that cannot run in the scenario, with reasons.
func (c *checked) infeasible() (names []string, reasons []string) {
	for _, r := range c.routes {
		if !r.Feasible {
			names = append(names, r.Path.Name)
			reasons = append(reasons, r.Path.Name+": "+r.Reason)
		}
	}
	return names, reasons
}

func (c *checked) feasible() []*model.Route {
	var out []*model.Route
	for _, r := range c.routes {
		if r.Feasible {
			out = append(out, r)
		}
	}
	return out
}

// infeasibleNote is the short note drawn on the figure.
func infeasibleNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "Not drawn, infeasible in this scenario: " + strings.Join(names, ", ") + " (reasons in the caption)."
}
