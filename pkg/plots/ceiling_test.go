package plots

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
)

func TestCeiling(t *testing.T) {
	in := CeilingInput{Title: "busbw against the model", Series: []CeilingSeries{
		{Label: "measured busbw", Path: "rdma", Bytes: []float64{1 << 20, 1 << 30}, Values: []float64{10e9, 15e9}},
		{Label: "model: rdma", Path: "rdma", Model: true, Bytes: []float64{1 << 19, 1 << 20, 1 << 30}, Values: []float64{20e9, 24e9, 24.5e9}},
	}}
	p, err := Ceiling(in)
	if err != nil {
		t.Fatal(err)
	}
	data := p.Data
	kind, value := data.Column("kind"), data.Column("value")
	if data.Len() != 5 || kind.Text[0] != "measured" || kind.Text[2] != "modeled" || value.Num[0] != 1e10 || value.Unit != "B/s" {
		t.Errorf("%+v", data)
	}
	svg, err := SVG(p, DefaultWidth, DefaultHeight)
	if err != nil || !strings.Contains(svg, "GB/s") || !strings.Contains(svg, "model: rdma") {
		t.Errorf("svg: %v", err)
	}
	for _, bad := range []CeilingInput{
		{},
		{Series: []CeilingSeries{{Label: "x", Bytes: []float64{0}, Values: []float64{1}}}},
		{Series: []CeilingSeries{{Label: "x", Bytes: []float64{8}, Values: []float64{-1}}}},
		{Series: []CeilingSeries{{Label: "x", Bytes: []float64{8, 16}, Values: []float64{1}}}},
	} {
		if _, err := Ceiling(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// Latency on a log axis, round trip labelled.
	p, err = Ceiling(CeilingInput{Latency: true, YLabel: "round-trip latency", Series: []CeilingSeries{{Label: "m", Bytes: []float64{8}, Values: []float64{5e-6}}}})
	if err != nil || p.panels[0].ylabel != "round-trip latency" || p.Data.Column("value").Unit != "s" {
		t.Errorf("%v", err)
	}
}

// Two model lines on one another (gdr and rdma both at the link's rate)
// are drawn once, labelled with both names; one 1% apart is drawn; the
// data keeps all three.
func TestCeilingSameLines(t *testing.T) {
	b := []float64{1 << 20, 1 << 30}
	in := CeilingInput{Series: []CeilingSeries{
		{Label: "measured", Path: "gdr", Bytes: b, Values: []float64{10e9, 20e9}},
		{Label: "model: gdr", Path: "gdr", Model: true, Bytes: b, Values: []float64{22e9, 24.5e9}},
		{Label: "model: rdma", Path: "rdma", Model: true, Bytes: b, Values: []float64{22.01e9, 24.5e9}},
		{Label: "model: tcp", Path: "tcp", Model: true, Bytes: b, Values: []float64{22e9 * 1.01, 24.5e9}},
	}}
	p, err := Ceiling(in)
	if err != nil {
		t.Fatal(err)
	}
	if p.Data.Len() != 8 {
		t.Errorf("%d rows of data, want 8", p.Data.Len())
	}
	svg, err := SVG(p, DefaultWidth, DefaultHeight)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, "model: gdr = model: rdma") || strings.Count(svg, "model: rdma") != 1 || !strings.Contains(svg, "model: tcp") {
		t.Errorf("legend: gdr=rdma %v, rdma %d times, tcp %v", strings.Contains(svg, "model: gdr = model: rdma"), strings.Count(svg, "model: rdma"), strings.Contains(svg, "model: tcp"))
	}
}

// Costs puts counts (copies, PCIe crossings) and a ratio (DDR bytes per
// payload byte) on axes of their own: two panels, never one axis for both.
func TestCostsPanels(t *testing.T) {
	f, err := Costs(Input{Scenario: model.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 2 || f.panels[0].xlabel == f.panels[1].xlabel ||
		!strings.Contains(f.panels[0].xlabel, "copies") || !strings.Contains(f.panels[1].xlabel, "DDR bytes per payload byte") {
		t.Errorf("panels %+v: want counts and DDR bytes per payload byte apart", f.panels)
	}
	for _, e := range f.legend {
		if e.count == 0 {
			t.Errorf("legend entry %q stands for no bar", e.label)
		}
	}
}
