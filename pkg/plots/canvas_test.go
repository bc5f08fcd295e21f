package plots_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/plots"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
	"gonum.org/v1/plot/vg/vgeps"
)

// allFigures makes every figure for scenario s.
func allFigures(t *testing.T, s *model.Scenario) []*plots.Figure {
	t.Helper()
	in := plots.Input{Scenario: s, Pipelined: true}
	var figs []*plots.Figure
	add := func(f *plots.Figure, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		figs = append(figs, f)
	}
	add(plots.Latency(in))
	add(plots.Bandwidth(in))
	add(plots.CPUTime(in))
	add(plots.Cores(in))
	add(plots.CPUCost(in))
	add(plots.Breakdown(plots.Input{Scenario: s}))
	add(plots.Costs(in))
	add(plots.Diagram(s, plots.DiagramOptions{}))
	for _, p := range model.PathNames() {
		add(plots.Diagram(s, plots.DiagramOptions{Highlight: p}))
	}
	ci := plots.CollectiveInput{Scenario: s, Spec: model.DefaultCollectiveSpec(s)}
	add(plots.CollectiveBusBW(ci))
	add(plots.CollectiveScale(ci))
	add(plots.CollectiveCores(ci))
	if s.NIC.RDMA {
		add(plots.CollectiveGain(ci))
	}
	return figs
}

// boundsCanvas is a vg.Canvas that checks that everything drawn outside a
// transformed block (rotated text) lies inside a rectangle, with finite
// coordinates.
type boundsCanvas struct {
	t     *testing.T
	name  string
	r     vg.Rectangle
	depth int
	bad   int
}

func (c *boundsCanvas) SetLineWidth(vg.Length)             {}
func (c *boundsCanvas) SetLineDash([]vg.Length, vg.Length) {}
func (c *boundsCanvas) SetColor(color.Color)               {}
func (c *boundsCanvas) Rotate(float64)                     {}
func (c *boundsCanvas) Translate(vg.Point)                 {}
func (c *boundsCanvas) Scale(float64, float64)             {}
func (c *boundsCanvas) Push()                              { c.depth++ }
func (c *boundsCanvas) Pop()                               { c.depth-- }
func (c *boundsCanvas) Stroke(p vg.Path)                   { c.path("stroke", p) }
func (c *boundsCanvas) Fill(p vg.Path)                     { c.path("fill", p) }
func (c *boundsCanvas) DrawImage(vg.Rectangle, image.Image) {
	c.fail("DrawImage: figures must draw with strokes, fills and text only")
}

func (c *boundsCanvas) FillString(f font.Face, pt vg.Point, s string) {
	if c.depth > 0 {
		return
	}
	w := f.Width(s)
	if !c.in(pt) || !c.in(vg.Point{X: pt.X + w, Y: pt.Y}) {
		c.fail(fmt.Sprintf("text %q at %v (width %.1f) leaves %v", s, pt, float64(w), c.r))
	}
}

func (c *boundsCanvas) path(what string, p vg.Path) {
	if c.depth > 0 {
		return
	}
	for _, comp := range p {
		if comp.Type == vg.ArcComp || comp.Type == vg.CloseComp {
			continue
		}
		if !c.in(comp.Pos) {
			c.fail(fmt.Sprintf("%s point %v leaves %v", what, comp.Pos, c.r))
			return
		}
	}
}

func (c *boundsCanvas) in(p vg.Point) bool {
	const slack = 0.5
	if math.IsNaN(float64(p.X)) || math.IsNaN(float64(p.Y)) || math.IsInf(float64(p.X), 0) || math.IsInf(float64(p.Y), 0) {
		return false
	}
	return p.X >= c.r.Min.X-slack && p.X <= c.r.Max.X+slack && p.Y >= c.r.Min.Y-slack && p.Y <= c.r.Max.Y+slack
}

func (c *boundsCanvas) fail(msg string) {
	c.bad++
	if c.bad <= 5 {
		c.t.Errorf("%s: %s", c.name, msg)
	}
}

// TestFiguresStayInside draws every figure of every preset into a
// rectangle away from the origin (as the report places a figure on a PDF
// page) and checks that nothing is drawn outside it.
func TestFiguresStayInside(t *testing.T) {
	for _, name := range model.PresetNames() {
		s, err := model.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range allFigures(t, s) {
			w, h := f.Size()
			r := vg.Rectangle{Min: vg.Point{X: 40, Y: 60}, Max: vg.Point{X: 40 + w, Y: 60 + h}}
			bc := &boundsCanvas{t: t, name: name + "/" + f.Name, r: r}
			f.Draw(draw.Canvas{Canvas: bc, Rectangle: r})
			if bc.depth != 0 {
				t.Errorf("%s: unbalanced Push/Pop (%d)", bc.name, bc.depth)
			}
		}
	}
}

// TestAnyCanvas draws the default figures onto gonum's other back ends:
// EPS, PNG and a recorder. (gonum's vgpdf is left out: it registers
// Liberation Sans Bold under the wrong style and writes text as cp1252;
// the report draws PDF pages with its own UTF-8 canvas.)
func TestAnyCanvas(t *testing.T) {
	for _, f := range allFigures(t, model.Default())[:9] {
		w, h := f.Size()
		eps := vgeps.New(w, h)
		if err := plots.DrawTo(eps, f, 0, 0); err != nil {
			t.Fatal(err)
		}
		rec := &recorder.Canvas{}
		if err := plots.DrawTo(rec, f, 0, 0); err != nil {
			t.Fatal(err)
		}
		if len(rec.Actions) < 20 {
			t.Errorf("%s: only %d drawing actions", f.Name, len(rec.Actions))
		}
	}
	png, err := plots.PNG(allFigures(t, model.Default())[0], 0, 0, 72)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("PNG: %v", err)
	}
}

// TestDeterministic: the same input gives the same SVG, byte for byte,
// also when one figure is drawn twice.
func TestDeterministic(t *testing.T) {
	s, _ := model.Preset("cross-socket-sys")
	a, b := allFigures(t, s), allFigures(t, s)
	for i := range a {
		x, err := plots.SVG(a[i], 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := plots.SVG(b[i], 0, 0)
		z, _ := plots.SVG(a[i], 0, 0)
		if x != y || x != z {
			t.Errorf("%s: SVG differs between runs", a[i].Name)
		}
	}
}

// TestEscapedText: labels from outside (a scenario name, a measured
// series) reach the SVG escaped, so that the report can inline it.
func TestEscapedText(t *testing.T) {
	s := model.Default()
	s.Name = `<script>alert(1)</script>`
	m := okSeries()
	m.Label = `<b>probe</b> & "co"`
	for _, mk := range []func() (*plots.Figure, error){
		func() (*plots.Figure, error) {
			return plots.Latency(plots.Input{Scenario: s, Measured: []plots.Measured{m}})
		},
		func() (*plots.Figure, error) { return plots.Diagram(s, plots.DiagramOptions{Highlight: "tcp"}) },
	} {
		f, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		svg, err := plots.SVG(f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(svg, "<script>") || strings.Contains(svg, "<b>") {
			t.Errorf("%s: label not escaped in the SVG", f.Name)
		}
		if !strings.Contains(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s: escaped scenario name missing", f.Name)
		}
	}
}

// TestConcurrentDraw: a figure may be drawn from several goroutines at
// once (the report writes SVG and PDF side by side); run with -race.
func TestConcurrentDraw(t *testing.T) {
	figs := allFigures(t, model.Default())
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, f := range figs[:9] {
				if _, err := plots.SVG(f, 0, 0); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
