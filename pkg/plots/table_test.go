package plots

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// The writers format each kind of column: text quoted where CSV needs it,
// numbers in Go's shortest form ("inf", empty for NaN; null in JSON where
// not finite), whole numbers and bytes without exponent, booleans.
func TestTableWriters(t *testing.T) {
	tb := Table{Columns: []Column{textCol("label"), numCol("bytes", "B"), numCol("value", "s"), intCol("count", ""), boolCol("ok")}}
	tb.add("a, \"b\"", units.Bytes(1<<30), 2.5e-6, 1<<30, true)
	tb.add(" lead", 8.0, math.Inf(1), int64(3), false)
	tb.add("<x>", 1.0, math.NaN(), 0, true)
	if tb.Len() != 3 || strings.Join(tb.Names(), ",") != "label,bytes,value,count,ok" || tb.Column("value").Unit != "s" || tb.Column("nope") != nil {
		t.Fatalf("table %+v", tb)
	}
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "label,bytes,value,count,ok\n\"a, \"\"b\"\"\",1073741824,2.5e-06,1073741824,true\n\" lead\",8,inf,3,false\n<x>,1,,0,true\n"
	if b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
	rows := tb.JSONRows()
	for i, w := range []string{
		`{"label":"a, \"b\"","bytes":1073741824,"value":0.0000025,"count":1073741824,"ok":true}`,
		`{"label":" lead","bytes":8,"value":null,"count":3,"ok":false}`,
		`{"label":"<x>","bytes":1,"value":null,"count":0,"ok":true}`,
	} {
		if string(rows[i]) != w {
			t.Errorf("JSON row %d: %s, want %s", i, rows[i], w)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a row of the wrong length did not panic")
		}
	}()
	tb.add("short")
}

func TestModelComparison(t *testing.T) {
	c := Comparison{Bytes: []float64{8, 1024, 1 << 20}, Measured: []float64{4e-6, 5e-6, 80e-6}, Band: 10, Models: []ComparisonModel{
		{Label: "preset", Role: PresetModel, Seconds: []float64{3e-6, 6e-6, 0}, Percent: []float64{-25, 20, -100}},
		{Label: "calibrated", Role: CalibratedModel, Seconds: []float64{4.1e-6, 5e-6, 81e-6}, Percent: []float64{2.5, 0, 1.25}},
		{Label: "components", Role: ComponentModel, Seconds: []float64{4e-6, 5.5e-6, 79e-6}, Percent: []float64{0, 10, -1.25}},
	}}
	d, err := ModelComparison(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Data.Names(), ","); got != "bytes,measured_s,preset_s,calibrated_s,preset_error_pct,calibrated_error_pct,components_s,components_error_pct" {
		t.Errorf("columns %s", got)
	}
	if e := d.Data.Column("preset_error_pct").Num; e[0] != -25 || !math.IsNaN(e[2]) {
		t.Errorf("preset errors %v: want -25 and NaN where the model has no time", e)
	}
	if len(d.panels) != 2 || !d.legendBelow || len(d.legend) != 4 {
		t.Errorf("figure: %d panels, legend below %v, %d legend entries; want 2, true, 4", len(d.panels), d.legendBelow, len(d.legend))
	}
	if _, err := SVG(d, 0, 0); err != nil {
		t.Fatal(err)
	}
	// With curves, each model's line goes through its curve, not through
	// the measured sizes only.
	cc := c
	cc.CurveBytes = []float64{4, 8, 64, 1024, 1 << 16, 1 << 20, 1 << 21}
	cc.Models = append([]ComparisonModel(nil), c.Models...)
	for i := range cc.Models {
		cc.Models[i].Curve = []float64{3e-6, 3e-6, 3.5e-6, 5e-6, 9e-6, 80e-6, 160e-6}
	}
	if _, err := ModelComparison(cc); err != nil {
		t.Fatal(err)
	}
	if curves, _, _ := cc.curves(); len(curves[1].line) != 7 || len(curves[1].es) != 3 {
		t.Errorf("calibrated curve: %d points in the line, %d errors; want 7 and 3", len(curves[1].line), len(curves[1].es))
	}
	for name, bad := range map[string]func(c *Comparison){
		"no size":        func(c *Comparison) { c.Bytes, c.Measured = nil, nil },
		"lengths":        func(c *Comparison) { c.Measured = c.Measured[:2] },
		"zero time":      func(c *Comparison) { c.Measured = []float64{4e-6, 0, 1} },
		"size below 1 B": func(c *Comparison) { c.Bytes = []float64{0.5, 1024, 1 << 20} },
		"model lengths":  func(c *Comparison) { c.Models = []ComparisonModel{{Seconds: []float64{1}}} },
		"curve lengths": func(c *Comparison) {
			c.CurveBytes, c.Models = []float64{8}, []ComparisonModel{{Seconds: c.Measured, Percent: c.Measured, Curve: []float64{1, 2}}}
		},
		"band not a number": func(c *Comparison) { c.Band = math.NaN() },
	} {
		cc := c
		bad(&cc)
		if _, err := ModelComparison(cc); !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestStageMap(t *testing.T) {
	s := model.Default()
	if err := s.Set("nic.kind", "loopback"); err != nil {
		t.Fatal(err)
	}
	d, err := StageMap(s, []string{"tcp", "rdma", "host-tcp"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Height != stageMapHeight(3) || d.Data.Column("path").Text[0] != "tcp" || d.Data.Column("copy").Kind != Bool {
		t.Errorf("stage map %+v", d.Data.Columns[:2])
	}
	if _, err := SVG(d, 495, d.Height); err != nil {
		t.Fatal(err)
	}
	if _, err := StageMap(s, []string{"nope"}); !errors.Is(err, ErrInput) {
		t.Errorf("unknown path: %v", err)
	}
}
