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
	// ReasonsAt, when set, names the place of the document around the
	// figure that says why the infeasible paths cannot run (`the section
	// "The data paths"`): the figure names those paths and refers there,
	// instead of repeating the reasons in every caption. ReasonsSaid, when
	// not nil, holds the reasons that place gives, by path: a path whose
	// reason here is another keeps it in the caption.
	ReasonsAt   string
	ReasonsSaid map[string]string
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
	notes  []string       // what cleanMeasured left out, for the figure
}

// The range of a measured value a figure draws: times (latency, CPU per
// message) from 1 ps to 10⁶ s, as the fits accept, and rates from 1 mB/s to
// 10¹⁸ B/s. Outside it a value is no measurement (a 5e-324 s median, a rate
// of a time of zero) and breaks a log axis or an error in percent.
const (
	MinDrawnSeconds = float64(units.MinTime)
	MaxDrawnSeconds = float64(units.MaxTime)
	MinDrawnRate    = 1e-3
	MaxDrawnRate    = 1e18
)

// drawable says whether v is a value a log axis draws within [lo, hi]:
// finite, positive and in range. Every measured value of every figure, and
// every time of a model comparison, passes through it.
func drawable(v, lo, hi float64) bool { return v >= lo && v <= hi }

// drawableTime is drawable for a time in seconds.
func drawableTime(v float64) bool { return drawable(v, MinDrawnSeconds, MaxDrawnSeconds) }

// cleanMeasured is the one data-cleaning step of the figures' measured
// series: a value that is not drawable (NaN, ±Inf, zero or negative, or
// outside the range above) becomes "not measured" (0), a point whose size is
// not a finite positive number is left out, and a series left without a
// point is left out. notes says how many values it left out, for the
// figure; nothing is changed in place.
func cleanMeasured(ms []Measured) (out []Measured, notes []string) {
	values, empty, sizes, series := 0, 0, 0, 0
	for _, m := range ms {
		pts := make([]Point, 0, len(m.Points))
		for _, p := range m.Points {
			if !(p.Bytes > 0) || math.IsInf(p.Bytes, 0) {
				sizes++
				continue
			}
			had := p.Seconds != 0 || p.Rate != 0 || p.CPU != 0
			for _, v := range []struct {
				x      *float64
				lo, hi float64
			}{{&p.Seconds, MinDrawnSeconds, MaxDrawnSeconds}, {&p.Rate, MinDrawnRate, MaxDrawnRate}, {&p.CPU, MinDrawnSeconds, MaxDrawnSeconds}} {
				if *v.x != 0 && !drawable(*v.x, v.lo, v.hi) {
					*v.x = 0
					values++
				}
			}
			if had && p.Seconds == 0 && p.Rate == 0 && p.CPU == 0 {
				empty++
				continue
			}
			pts = append(pts, p)
		}
		if len(m.Points) > 0 && len(pts) == 0 {
			series++
			continue
		}
		m.Points = pts
		out = append(out, m)
	}
	if values+sizes > 0 {
		n := fmt.Sprintf("Not drawn: %d measured value(s) that are not finite, not positive or out of range (times outside %g s – %g s, rates outside %g – %g B/s)",
			values, MinDrawnSeconds, MaxDrawnSeconds, MinDrawnRate, MaxDrawnRate)
		if empty > 0 {
			n += fmt.Sprintf("; %d point(s) left without a value", empty)
		}
		if sizes > 0 {
			n += fmt.Sprintf("; %d point(s) whose size is not a positive number", sizes)
		}
		if series > 0 {
			n += fmt.Sprintf("; %d series left without a point", series)
		}
		notes = append(notes, n+".")
	}
	return out, notes
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

	out.Measured, out.notes = cleanMeasured(in.Measured)
	for i, m := range out.Measured {
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
// maxProvenanceSeries is the most measured series a figure's provenance
// names one by one (as many as a legend lists).
const maxProvenanceSeries = MaxLegendEntries

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
		if len(ms) > maxProvenanceSeries {
			// A run of many variants: the provenance names the first and
			// counts the rest (a figure's data holds every series).
			ms = append(ms[:maxProvenanceSeries-1], fmt.Sprintf("… and %d more series", len(ms)-maxProvenanceSeries+1))
		}
		if len(ms) > 0 {
			parts = append(parts, "measured: "+strings.Join(ms, "; "))
		}
	}
	return strings.Join(parts, " · ")
}

// infeasible lists the paths that cannot run in the scenario, with the
// reasons for the caption: each path's own, or, for the paths whose reason
// the document says (ReasonsAt, ReasonsSaid), one sentence that names them
// and refers there.
func (c *checked) infeasible() (names []string, reasons []string) {
	var said []string
	for _, r := range c.routes {
		if r.Feasible {
			continue
		}
		names = append(names, r.Path.Name)
		if c.said(r) {
			said = append(said, r.Path.Name)
			continue
		}
		reasons = append(reasons, r.Path.Name+": "+r.Reason)
	}
	if len(said) > 0 {
		reasons = append(reasons, strings.Join(said, ", ")+", infeasible in this scenario ("+c.ReasonsAt+" says why).")
	}
	return names, reasons
}

// said reports whether the document around the figure says why r cannot
// run.
func (c *checked) said(r *model.Route) bool {
	if c.ReasonsAt == "" {
		return false
	}
	if c.ReasonsSaid == nil {
		return true
	}
	why, ok := c.ReasonsSaid[r.Path.Name]
	return ok && why == r.Reason
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
func (c *checked) infeasibleNote(names []string) string {
	if len(names) == 0 {
		return ""
	}
	where := "reasons in the caption"
	all := true
	for _, r := range c.routes {
		if !r.Feasible && !c.said(r) {
			all = false
		}
	}
	if all && c.ReasonsAt != "" {
		where = c.ReasonsAt + " says why"
	}
	return "Not drawn, infeasible in this scenario: " + strings.Join(names, ", ") + " (" + where + ")."
}
