package plots

import (
	"strings"
	"testing"
)

func TestCeiling(t *testing.T) {
	in := CeilingInput{Title: "busbw against the model", Series: []CeilingSeries{
		{Label: "measured busbw", Path: "rdma", Bytes: []float64{1 << 20, 1 << 30}, Values: []float64{10e9, 15e9}},
		{Label: "model: rdma", Path: "rdma", Model: true, Bytes: []float64{1 << 19, 1 << 20, 1 << 30}, Values: []float64{20e9, 24e9, 24.5e9}},
	}}
	p, data, err := Ceiling(in)
	if err != nil {
		t.Fatal(err)
	}
	kind, value := data.Column("kind"), data.Column("value")
	if data.Len() != 5 || kind.Text[0] != "measured" || kind.Text[2] != "modeled" || value.Num[0] != 1e10 {
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
		if _, _, err := Ceiling(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	// Latency on a log axis, round trip labelled.
	p, _, err = Ceiling(CeilingInput{Latency: true, YLabel: "round-trip latency", Series: []CeilingSeries{{Label: "m", Bytes: []float64{8}, Values: []float64{5e-6}}}})
	if err != nil || p.Y.Label.Text != "round-trip latency" {
		t.Errorf("%v", err)
	}
}
