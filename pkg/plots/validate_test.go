package plots_test

import (
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func okSeries() plots.Measured {
	return plots.Measured{Label: "probe", Path: "host-tcp", Source: "host, 2026-11-29",
		Points: []plots.Point{{Bytes: 64, Seconds: 1e-5, Rate: 1e9, CPU: 1e-5}}}
}

// TestBadInput: bad input is an error wrapping ErrInput, never a panic.
func TestBadInput(t *testing.T) {
	def := model.Default()
	gcp, err := model.Preset("gcp-a3-tcpx")
	if err != nil {
		t.Fatal(err)
	}
	lo := model.Default()
	if err := lo.Set("nic.kind", "loopback"); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*plots.Measured)) []plots.Measured {
		m := okSeries()
		m.Points = append([]plots.Point(nil), m.Points...)
		f(&m)
		return []plots.Measured{m}
	}
	sweeps := map[string]func(plots.Input) (*plots.Figure, error){
		"Latency": plots.Latency, "Bandwidth": plots.Bandwidth, "CPUTime": plots.CPUTime,
		"Cores": plots.Cores, "CPUCost": plots.CPUCost, "Breakdown": plots.Breakdown,
		"Costs": plots.Costs, "Residuals": plots.Residuals,
	}
	cases := []struct {
		name string
		in   plots.Input
		only []string // the figures the case applies to (nil: all)
	}{
		{"nothing", plots.Input{}, nil},
		{"empty path list", plots.Input{Scenario: def, Paths: []string{}}, nil},
		{"unknown path", plots.Input{Scenario: def, Paths: []string{"tcp", "carrier-pigeon"}}, nil},
		{"path twice", plots.Input{Scenario: def, Paths: []string{"tcp", "tcp"}}, nil},
		{"empty size list", plots.Input{Scenario: def, Sizes: []units.Bytes{}}, []string{"Latency", "Bandwidth", "CPUTime", "Cores", "CPUCost", "Breakdown"}},
		{"zero size (log axis)", plots.Input{Scenario: def, Sizes: []units.Bytes{0, 8}}, []string{"Latency", "Bandwidth", "CPUTime", "Cores", "CPUCost", "Breakdown"}},
		{"negative size", plots.Input{Scenario: def, Sizes: []units.Bytes{-8}}, []string{"Latency", "Bandwidth", "CPUTime", "Cores", "CPUCost", "Breakdown"}},
		{"point without a value", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Points[0] = plots.Point{Bytes: 8} })}, []string{"Latency", "Bandwidth", "CPUTime", "CPUCost", "Residuals"}},
		{"no points", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Points = nil })}, []string{"Latency", "Bandwidth", "CPUTime", "CPUCost", "Residuals"}},
		{"no source", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Source = " " })}, []string{"Latency", "Bandwidth", "CPUTime", "CPUCost", "Residuals"}},
		{"no label", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Label = "" })}, []string{"Latency", "Bandwidth", "CPUTime", "CPUCost", "Residuals"}},
		{"unknown measured path", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Path = "smoke-signals" })}, []string{"Latency", "Bandwidth", "CPUTime", "CPUCost", "Residuals"}},
		{"measured only, no latency", plots.Input{Measured: with(func(m *plots.Measured) { m.Points[0].Seconds = 0 })}, []string{"Latency"}},
		{"measured only, no rate", plots.Input{Measured: with(func(m *plots.Measured) { m.Points[0].Rate = 0 })}, []string{"Bandwidth"}},
		{"measured only", plots.Input{Measured: []plots.Measured{okSeries()}}, []string{"Cores", "CPUCost", "Breakdown", "Costs", "Residuals"}},
		{"five breakdown sizes", plots.Input{Scenario: def, Sizes: []units.Bytes{1, 2, 3, 4, 5}}, []string{"Breakdown"}},
		{"no feasible path", plots.Input{Scenario: def, Paths: []string{"p2p-plain-nic"}}, []string{"Breakdown", "Costs"}},
		{"no measured series", plots.Input{Scenario: def}, []string{"Residuals"}},
		{"measured names no path", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Path = "" })}, []string{"Residuals"}},
		{"measured path infeasible", plots.Input{Scenario: gcp, Measured: with(func(m *plots.Measured) { m.Path = "rdma" })}, []string{"Residuals"}},
		{"residuals without latency or rate", plots.Input{Scenario: def, Measured: with(func(m *plots.Measured) { m.Points[0].Seconds, m.Points[0].Rate = 0, 0 })}, []string{"Residuals"}},
	}
	for _, tc := range cases {
		for name, fn := range sweeps {
			if tc.only != nil && !contains(tc.only, name) {
				continue
			}
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				f, err := fn(tc.in)
				if err == nil {
					t.Fatalf("no error (figure %q)", f.Title)
				}
				if !errors.Is(err, plots.ErrInput) {
					t.Errorf("error %v does not wrap ErrInput", err)
				}
				if !strings.HasPrefix(err.Error(), "plots: ") {
					t.Errorf("error %q does not start with plots:", err)
				}
			})
		}
	}

	diagrams := []struct {
		name string
		s    *model.Scenario
		o    plots.DiagramOptions
	}{
		{"nil scenario", nil, plots.DiagramOptions{}},
		{"loopback", lo, plots.DiagramOptions{}},
		{"unknown highlight", def, plots.DiagramOptions{Highlight: "teleport"}},
		{"highlight not drawn", def, plots.DiagramOptions{Paths: []string{"tcp"}, Highlight: "gdr"}},
		{"unknown path", def, plots.DiagramOptions{Paths: []string{"x"}}},
	}
	for _, tc := range diagrams {
		t.Run("Diagram/"+tc.name, func(t *testing.T) {
			if _, err := plots.Diagram(tc.s, tc.o); !errors.Is(err, plots.ErrInput) {
				t.Errorf("got %v, want an ErrInput", err)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestBadSize(t *testing.T) {
	f, err := plots.Latency(plots.Input{Scenario: model.Default()})
	if err != nil {
		t.Fatal(err)
	}
	for _, sz := range [][2]vg.Length{{-1, 100}, {vg.Length(math.NaN()), 200}, {200, vg.Length(math.Inf(1))}, {10, 10}, {1e5, 200}} {
		if err := plots.WriteSVG(io.Discard, f, sz[0], sz[1]); !errors.Is(err, plots.ErrInput) {
			t.Errorf("size %v: got %v, want an ErrInput", sz, err)
		}
	}
	if err := plots.WriteSVG(io.Discard, plot.New(), 0, 0); !errors.Is(err, plots.ErrInput) {
		t.Errorf("a plain plot with no size: got %v, want an ErrInput", err)
	}
	if err := plots.WriteSVG(io.Discard, nil, 100, 100); !errors.Is(err, plots.ErrInput) {
		t.Errorf("nil: got %v, want an ErrInput", err)
	}
	if err := plots.WritePNG(io.Discard, f, 0, 0, 5); !errors.Is(err, plots.ErrInput) {
		t.Errorf("dpi 5: got %v, want an ErrInput", err)
	}
}
