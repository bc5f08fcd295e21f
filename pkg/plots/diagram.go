package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DiagramOptions choose what Diagram draws.
type DiagramOptions struct {
	// Paths to draw (nil: every path). Paths that stay inside one node
	// (gpu-peer) and paths infeasible in the scenario are listed, not drawn.
	Paths []string
	// Highlight draws only this path, bold, with its stages lettered and
	// listed under the drawing. "" draws every path, each in its colour.
	Highlight string
	// ReasonsAt names the place of the document that says why the
	// infeasible paths cannot run, and ReasonsSaid the reasons it gives
	// (Input.ReasonsAt, Input.ReasonsSaid): the caption refers there
	// instead of repeating them.
	ReasonsAt   string
	ReasonsSaid map[string]string
}

// Diagram draws the two nodes (CPU, DDR, PCIe root complex, PCIe switch,
// GPU and NIC on each) and the network between them, laid out for the
// scenario's GPU–NIC topology class (PIX: GPU and NIC under one switch;
// PXB: two switch levels; PHB: separate root ports; NODE: separate host
// bridges; SYS: the NIC on the other socket). Each path's route is drawn
// as a coloured line through the boxes it passes, with its stages lettered
// A–G in the order the data meets them: A GPU → DDR by cudaMemcpy, B the send side
// on the CPU, C the NIC's DMA read, D the wire, E the NIC's DMA write, F
// the receive side on the CPU, G DDR → GPU. Dotted lines are control only
// (a doorbell, a completion, headers): the payload does not take them.
func Diagram(s *model.Scenario, o DiagramOptions) (*Figure, error) {
	if s == nil {
		return nil, inputErr("diagram: no scenario given")
	}
	if s.NIC.Kind == model.KindLoopback {
		return nil, inputErr("diagram: scenario %s uses the loopback device: there is no NIC and no network to draw", s.Name)
	}
	c, err := check(Input{Scenario: s, Paths: o.Paths, Sizes: []units.Bytes{1}, ReasonsAt: o.ReasonsAt, ReasonsSaid: o.ReasonsSaid}, true)
	if err != nil {
		return nil, err
	}
	if o.Highlight != "" && !slices.Contains(c.Paths, o.Highlight) {
		if _, err := model.LookupPath(o.Highlight); err != nil {
			return nil, inputErr("diagram: highlight: %v", err)
		}
		return nil, inputErr("diagram: highlight %q is not among the paths drawn (%s)", o.Highlight, strings.Join(c.Paths, ", "))
	}

	d := &diagram{s: s, highlight: o.Highlight}
	d.layout()
	var notes, reasons []string
	var skipped []string
	for _, r := range c.routes {
		if o.Highlight != "" && r.Path.Name != o.Highlight {
			continue
		}
		switch {
		case !r.Path.Internode:
			skipped = append(skipped, r.Path.Name+" (inside one node)")
		case !r.Feasible:
			skipped = append(skipped, r.Path.Name+" (infeasible)")
			reasons = append(reasons, r.Path.Name+": "+r.Reason)
		default:
			d.routes = append(d.routes, r)
		}
	}
	if len(skipped) > 0 && o.Highlight == "" {
		notes = append(notes, "Not drawn: "+strings.Join(skipped, ", ")+".")
	}
	d.plan()

	f := &Figure{Name: "diagram", Width: DiagramWidth, Height: DiagramHeight,
		Provenance: "modeled: scenario " + s.Name + " · GPU–NIC topology " + string(s.Topology.GPUNIC) + " (" + classWords(s.Topology.GPUNIC) + ")",
		Notes:      notes, body: d.draw, legendBelow: true}
	f.legend = d.key()
	f.Data = Table{Columns: []Column{textCol("path"), textCol("letter"), textCol("stage"), textCol("side"), textCol("route")}}
	for _, pr := range d.plans {
		for _, st := range pr.stages {
			f.Data.add(pr.route.Path.Name, st.stage.Letter, st.stage.Name, string(st.stage.Side), st.describe())
		}
	}
	if o.Highlight != "" {
		p, _ := model.LookupPath(o.Highlight)
		f.Name = "diagram-" + o.Highlight
		f.Title = "Data path " + p.Name + ": " + p.Title
		switch {
		case len(reasons) > 0:
			f.Notes = append(f.Notes, "Not drawn: "+o.Highlight+" is "+strings.TrimPrefix(reasons[0], o.Highlight+": "))
		case len(d.routes) == 0:
			f.Notes = append(f.Notes, "Not drawn: "+o.Highlight+" stays inside one node.")
		}
	} else {
		f.Title = "Data paths between two nodes"
	}
	what := "The two nodes and the network between them, laid out for GPU–NIC topology " + string(s.Topology.GPUNIC) + " (" + classWords(s.Topology.GPUNIC) + "). "
	if o.Highlight != "" {
		what += "The route of " + o.Highlight + " is drawn with its stages lettered A–G in the order the data meets them (A GPU → DDR copy, B send side on the CPU, C NIC DMA read, D wire, E NIC DMA write, F receive side on the CPU, G DDR → GPU copy); "
	} else {
		what += "Each path's route is drawn in its colour, its stages lettered A–G in the order the data meets them (A GPU → DDR copy, B send side on the CPU, C NIC DMA read, D wire, E NIC DMA write, F receive side on the CPU, G DDR → GPU copy); "
	}
	what += "dotted lines carry control only (doorbells, completions, headers), not the payload."
	if o.ReasonsAt != "" && len(reasons) > 0 {
		_, reasons = c.infeasible()
	}
	f.Caption = caption(what, f.Provenance, reasons)
	return f, nil
}

func classShort(c model.Class) string {
	switch c {
	case model.PIX:
		return "one PCIe switch"
	case model.PXB:
		return "a tree of PCIe switches"
	case model.PHB:
		return "separate root ports"
	case model.NODE:
		return "separate host bridges"
	case model.SYS:
		return "different sockets"
	}
	return string(c)
}

func classWords(c model.Class) string {
	switch c {
	case model.PIX:
		return "GPU and NIC under one PCIe switch"
	case model.PXB:
		return "GPU and NIC under a tree of PCIe switches"
	case model.PHB:
		return "GPU and NIC on separate root ports of the CPU"
	case model.NODE:
		return "GPU and NIC behind separate host bridges of one socket"
	case model.SYS:
		return "GPU and NIC on different sockets"
	}
	return string(c)
}

// --- layout ------------------------------------------------------------

// The design space: the diagram is laid out in a 560 × 250 pt box and
// stretched to the body of the figure; boxes and text keep their size.
const (
	designW = 560
	designH = 250
	nodeW   = 214 // one node's frame, from its outer edge
)

type dbox struct {
	id            string
	x, y          float64 // centre, design space
	w, h          vg.Length
	title, detail string
	network       bool
	c             vg.Point // centre on the canvas (set when drawing)
}

type dlink struct {
	a, b string
	via  []vg.Point // design-space corners from a to b
	cvia []vg.Point // on the canvas
	upi  bool       // the inter-socket link
}

type diagram struct {
	s         *model.Scenario
	highlight string
	boxes     []*dbox
	links     []*dlink
	routes    []*model.Route
	plans     []pathPlan
}

// clone copies the boxes and links, which place moves onto a canvas.
func (d *diagram) clone() *diagram {
	n := *d
	n.boxes = make([]*dbox, len(d.boxes))
	for i, b := range d.boxes {
		nb := *b
		n.boxes[i] = &nb
	}
	n.links = make([]*dlink, len(d.links))
	for i, l := range d.links {
		nl := *l
		nl.cvia = nil
		n.links[i] = &nl
	}
	return &n
}

func (d *diagram) box(id string) *dbox {
	for _, b := range d.boxes {
		if b.id == id {
			return b
		}
	}
	panic("plots: no box " + id) // a bug in the layout tables
}

// layout places the boxes of both nodes and the network for the
// scenario's topology class. The sender is laid out on the left with its
// NIC towards the middle; the receiver is its mirror image.
func (d *diagram) layout() {
	s := d.s
	kind := map[string]string{model.KindIB: "InfiniBand", model.KindRoCE: "RoCE", model.KindEthernet: "Ethernet"}[s.NIC.Kind]
	if kind == "" {
		kind = s.NIC.Kind
	}
	nicDetail := strings.TrimSuffix(s.NIC.Rate.Gbits(), "bit/s") + " " + kind
	cpuDetail := fmt.Sprintf("%d cores", s.CPU.Cores)
	ddrDetail := s.Memory.Rate.Human()
	gpuDetail := "PCIe " + s.GPU.PCIe.String()

	type b = dbox
	var boxes []b
	// oneSwitch: GPU and NIC side by side under one PCIe switch below the
	// root complex (PIX; PHB hangs the NIC on the root complex instead).
	oneSwitch := func() []b {
		return []b{
			{id: "cpu", x: 108, y: 222, w: 80, h: 26, title: "CPU", detail: cpuDetail},
			{id: "ddr", x: 26, y: 170, w: 44, h: 26, title: "DDR", detail: ddrDetail},
			{id: "rc", x: 108, y: 170, w: 80, h: 26, title: "PCIe root complex"},
			{id: "sw", x: 108, y: 105, w: 70, h: 22, title: "PCIe switch"},
			{id: "gpu", x: 108, y: 40, w: 62, h: 28, title: "GPU", detail: gpuDetail},
			{id: "nic", x: 182, y: 40, w: 56, h: 28, title: "NIC", detail: nicDetail},
		}
	}
	var links []dlink
	v := func(a, bb string) dlink { return dlink{a: a, b: bb} }
	switch s.Topology.GPUNIC {
	case model.PXB:
		boxes = []b{
			{id: "cpu", x: 108, y: 222, w: 80, h: 26, title: "CPU", detail: cpuDetail},
			{id: "ddr", x: 26, y: 170, w: 44, h: 26, title: "DDR", detail: ddrDetail},
			{id: "rc", x: 108, y: 170, w: 80, h: 24, title: "PCIe root complex"},
			{id: "sw", x: 108, y: 124, w: 70, h: 20, title: "PCIe switch"},
			{id: "sw2", x: 108, y: 82, w: 70, h: 20, title: "PCIe switch"},
			{id: "sw3", x: 182, y: 82, w: 56, h: 20, title: "PCIe switch"},
			{id: "gpu", x: 108, y: 36, w: 62, h: 28, title: "GPU", detail: gpuDetail},
			{id: "nic", x: 182, y: 36, w: 56, h: 28, title: "NIC", detail: nicDetail},
		}
		links = []dlink{v("cpu", "rc"), v("ddr", "rc"), v("rc", "sw"), v("sw", "sw2"),
			{a: "sw", b: "sw3", via: []vg.Point{{X: 182, Y: 124}}}, v("sw2", "gpu"), v("sw3", "nic")}
	case model.PHB: // as PIX, the NIC on the root complex
		boxes = oneSwitch()
		links = []dlink{v("cpu", "rc"), v("ddr", "rc"), v("rc", "sw"), v("sw", "gpu"),
			{a: "rc", b: "nic", via: []vg.Point{{X: 182, Y: 170}}}}
	case model.NODE:
		boxes = []b{
			{id: "cpu", x: 140, y: 222, w: 130, h: 26, title: "CPU", detail: cpuDetail},
			{id: "ddr", x: 28, y: 170, w: 48, h: 26, title: "DDR", detail: ddrDetail},
			{id: "rc", x: 98, y: 170, w: 66, h: 26, title: "root complex", detail: "host bridge 0"},
			{id: "rc2", x: 182, y: 170, w: 58, h: 26, title: "root complex", detail: "host bridge 1"},
			{id: "sw", x: 98, y: 105, w: 62, h: 22, title: "PCIe switch"},
			{id: "gpu", x: 98, y: 40, w: 62, h: 28, title: "GPU", detail: gpuDetail},
			{id: "nic", x: 182, y: 40, w: 56, h: 28, title: "NIC", detail: nicDetail},
		}
		links = []dlink{{a: "cpu", b: "rc", via: []vg.Point{{X: 98, Y: 222}}}, {a: "cpu", b: "rc2", via: []vg.Point{{X: 182, Y: 222}}},
			v("ddr", "rc"), v("rc", "rc2"), v("rc", "sw"), v("sw", "gpu"), v("rc2", "nic")}
	case model.SYS:
		boxes = []b{
			{id: "cpu", x: 96, y: 222, w: 66, h: 26, title: "CPU 0", detail: "socket 0"},
			{id: "cpu2", x: 184, y: 222, w: 56, h: 26, title: "CPU 1", detail: "socket 1"},
			{id: "ddr", x: 28, y: 170, w: 48, h: 26, title: "DDR", detail: ddrDetail},
			{id: "rc", x: 96, y: 170, w: 66, h: 26, title: "root complex", detail: "socket 0"},
			{id: "rc2", x: 184, y: 170, w: 56, h: 26, title: "root complex", detail: "socket 1"},
			{id: "sw", x: 96, y: 105, w: 66, h: 22, title: "PCIe switch"},
			{id: "gpu", x: 96, y: 40, w: 62, h: 28, title: "GPU", detail: gpuDetail},
			{id: "nic", x: 184, y: 40, w: 56, h: 28, title: "NIC", detail: nicDetail},
		}
		links = []dlink{v("cpu", "rc"), v("cpu2", "rc2"), v("ddr", "rc"), {a: "rc", b: "rc2", upi: true},
			v("rc", "sw"), v("sw", "gpu"), v("rc2", "nic")}
	default: // PIX
		boxes = oneSwitch()
		links = []dlink{v("cpu", "rc"), v("ddr", "rc"), v("rc", "sw"), v("sw", "gpu"),
			{a: "sw", b: "nic", via: []vg.Point{{X: 182, Y: 105}}}}
	}
	// Both nodes: the sender as laid out, the receiver mirrored.
	for _, side := range []string{"s", "r"} {
		for _, bx := range boxes {
			nb := bx
			nb.id = side + "." + bx.id
			if side == "r" {
				nb.x = designW - bx.x
			}
			d.boxes = append(d.boxes, &nb)
		}
		for _, l := range links {
			nl := l
			nl.a, nl.b = side+"."+l.a, side+"."+l.b
			nl.via = nil
			for _, p := range l.via {
				if side == "r" {
					p.X = designW - p.X
				}
				nl.via = append(nl.via, p)
			}
			d.links = append(d.links, &nl)
		}
	}
	// The network: the switch hops between the two NICs.
	nicY := d.box("s.nic").y
	left := d.box("s.nic").x + float64(d.box("s.nic").w)/2
	right := designW - left
	hops := d.s.Network.Hops
	shown := min(hops, 3)
	prev := "s.nic"
	for i := range shown {
		x := left + (right-left)*float64(i+1)/float64(shown+1)
		title := "switch"
		if hops > 3 && i == 1 {
			title = "…"
		}
		id := fmt.Sprintf("n.%d", i)
		d.boxes = append(d.boxes, &dbox{id: id, x: x, y: nicY, w: 28, h: 18, title: title, network: true})
		d.links = append(d.links, &dlink{a: prev, b: id})
		prev = id
	}
	d.links = append(d.links, &dlink{a: prev, b: "r.nic"})
}

// --- routes ------------------------------------------------------------

// stagePlan is one stage of a path placed on the diagram: the boxes its
// payload (or, for control stages, its doorbell or completion) passes.
type stagePlan struct {
	stage   model.Stage
	ids     []string // waypoints; nil: not drawn
	control bool
}

// describe is the stage's route in words: "sender DDR → sender CPU → sender DDR".
func (sp stagePlan) describe() string { return sp.words(boxWords) }

// route is the stage's route in short words, without the side: "DDR → CPU → DDR".
func (sp stagePlan) route() string {
	return sp.words(func(id string) string {
		_, w, _ := strings.Cut(boxWords(id), " ")
		return w
	})
}

// words names the boxes the stage passes, by word, joined by arrows.
func (sp stagePlan) words(word func(id string) string) string {
	if sp.ids == nil {
		return "not drawn"
	}
	names := make([]string, len(sp.ids))
	for i, id := range sp.ids {
		names[i] = word(id)
	}
	s := strings.Join(names, " → ")
	if sp.control {
		s += " (control only)"
	}
	return s
}

func boxWords(id string) string {
	side, name, _ := strings.Cut(id, ".")
	w := map[string]string{"cpu": "CPU", "ddr": "DDR", "gpu": "GPU", "nic": "NIC"}[name]
	if w == "" {
		w = name
	}
	if side == "s" {
		return "sender " + w
	}
	return "receiver " + w
}

type pathPlan struct {
	route  *model.Route
	stages []stagePlan
}

// plan maps every stage of every drawn path onto the boxes, from the
// stage's letter, side, copy flag and DDR traffic (not from path names):
// a new path drawn from the same kinds of stages needs no code here.
func (d *diagram) plan() {
	for _, r := range d.routes {
		pp := pathPlan{route: r}
		for _, st := range r.Stages {
			sp := stagePlan{stage: st}
			through := st.Copy || st.DDR > 0
			switch st.Letter {
			case "A":
				sp.ids = []string{"s.gpu", "s.ddr"}
			case "G":
				sp.ids = []string{"r.ddr", "r.gpu"}
			case "B":
				if through {
					sp.ids = []string{"s.ddr", "s.cpu", "s.ddr"}
				} else {
					sp.ids, sp.control = []string{"s.cpu", "s.nic"}, true
				}
			case "F":
				if through {
					sp.ids = []string{"r.ddr", "r.cpu", "r.ddr"}
				} else {
					sp.ids, sp.control = []string{"r.nic", "r.cpu"}, true
				}
			case "C":
				if st.DDR > 0 {
					sp.ids = []string{"s.ddr", "s.nic"}
				} else {
					sp.ids = []string{"s.gpu", "s.nic"}
				}
			case "E":
				if st.DDR > 0 {
					sp.ids = []string{"r.nic", "r.ddr"}
				} else {
					sp.ids = []string{"r.nic", "r.gpu"}
				}
			case "D":
				sp.ids = []string{"s.nic", "r.nic"}
			}
			pp.stages = append(pp.stages, sp)
		}
		d.plans = append(d.plans, pp)
	}
}

// treePath returns the canvas points from box a to box b along the links.
func (d *diagram) treePath(a, b string) []vg.Point {
	type step struct {
		id   string
		pts  []vg.Point
		prev *step
	}
	seen := map[string]bool{a: true}
	queue := []*step{{id: a}}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur.id == b {
			var segs [][]vg.Point
			for s := cur; s.prev != nil; s = s.prev {
				segs = append(segs, s.pts)
			}
			out := []vg.Point{d.box(a).c}
			for i := len(segs) - 1; i >= 0; i-- {
				out = append(out, segs[i]...)
			}
			return out
		}
		for _, l := range d.links {
			var next string
			var pts []vg.Point
			switch cur.id {
			case l.a:
				next = l.b
				pts = append(append([]vg.Point{}, l.cvia...), d.box(l.b).c)
			case l.b:
				next = l.a
				for i := len(l.cvia) - 1; i >= 0; i-- {
					pts = append(pts, l.cvia[i])
				}
				pts = append(pts, d.box(l.a).c)
			default:
				continue
			}
			if seen[next] {
				continue
			}
			seen[next] = true
			queue = append(queue, &step{id: next, pts: pts, prev: cur})
		}
	}
	panic("plots: no link path from " + a + " to " + b)
}

func (d *diagram) polyline(ids []string) []vg.Point {
	var out []vg.Point
	for i := 1; i < len(ids); i++ {
		seg := d.treePath(ids[i-1], ids[i])
		if len(out) > 0 {
			seg = seg[1:]
		}
		out = append(out, seg...)
	}
	return dedup(out)
}

func dedup(pts []vg.Point) []vg.Point {
	var out []vg.Point
	for _, p := range pts {
		if len(out) > 0 && near(out[len(out)-1], p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

func near(a, b vg.Point) bool {
	return math.Abs(float64(a.X-b.X)) < 0.01 && math.Abs(float64(a.Y-b.Y)) < 0.01
}

func unit(a, b vg.Point) (float64, float64) {
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	l := math.Hypot(dx, dy)
	if l == 0 {
		return 0, 0
	}
	return dx / l, dy / l
}

// offset shifts a polyline of horizontal and vertical segments sideways by
// o (to the left of the direction of travel), mitring the corners and
// turning back on the other side at a reversal.
func offset(pts []vg.Point, o vg.Length) []vg.Point {
	if len(pts) < 2 || o == 0 {
		return pts
	}
	n := func(i int) vg.Point { // left normal of segment i
		ux, uy := unit(pts[i], pts[i+1])
		return vg.Point{X: vg.Length(-uy) * o, Y: vg.Length(ux) * o}
	}
	out := []vg.Point{pts[0].Add(n(0))}
	for i := 1; i < len(pts)-1; i++ {
		n1, n2 := n(i-1), n(i)
		dot := float64(n1.X*n2.X + n1.Y*n2.Y)
		switch {
		case dot > 0.99*float64(o*o): // straight on
			out = append(out, pts[i].Add(n1))
		case dot < -0.99*float64(o*o): // a reversal: cross over inside the box
			out = append(out, pts[i].Add(n1), pts[i].Add(n2))
		default: // a corner
			out = append(out, pts[i].Add(n1).Add(n2))
		}
	}
	return append(out, pts[len(pts)-1].Add(n(len(pts)-2)))
}

// --- drawing -----------------------------------------------------------

var (
	boxFill     color.Color = color.RGBA{0xff, 0xff, 0xff, 0xff}
	boxEdge     color.Color = color.RGBA{0x44, 0x44, 0x44, 0xff}
	wireColor   color.Color = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}
	frameFill   color.Color = color.RGBA{0xf4, 0xf4, 0xf2, 0xff}
	networkFill color.Color = color.RGBA{0xee, 0xee, 0xee, 0xff}
)

const badgeR = vg.Length(6.2)

func (d *diagram) draw(c draw.Canvas) {
	d = d.clone() // placing boxes must not touch the figure: it may be drawn twice at once
	d.place(c)
	d.drawFrames(c)
	d.drawLinks(c)
	d.drawRoutes(c)
	d.drawBoxes(c)
	d.drawBadges(c)
}

// place maps the design space onto the body.
func (d *diagram) place(c draw.Canvas) {
	sx := float64(c.Max.X-c.Min.X) / designW
	sy := float64(c.Max.Y-c.Min.Y-16) / designH // 16 pt for the node labels at the top
	at := func(x, y float64) vg.Point {
		return vg.Point{X: c.Min.X + vg.Length(x*sx), Y: c.Min.Y + vg.Length(y*sy)}
	}
	for _, b := range d.boxes {
		b.c = at(b.x, b.y)
	}
	for _, l := range d.links {
		l.cvia = nil
		for _, p := range l.via {
			l.cvia = append(l.cvia, at(float64(p.X), float64(p.Y)))
		}
	}
}

func (d *diagram) drawFrames(c draw.Canvas) {
	sx := (c.Max.X - c.Min.X) / designW
	w := nodeW * sx
	top := c.Max.Y
	bottom := c.Min.Y
	ts := textStyle(LabelSize, true, TextColor)
	ts.YAlign = draw.YTop
	ss := textStyle(NoteSize, false, MutedColor)
	ss.YAlign = draw.YBottom
	for i, name := range []string{"sender node", "receiver node"} {
		x0 := c.Min.X
		if i == 1 {
			x0 = c.Max.X - w
		}
		c.FillPolygon(frameFill, roundRect(x0, bottom, x0+w, top, 6))
		at := vg.Point{X: x0 + 6, Y: top - 4}
		tts := ts
		if i == 1 {
			tts.XAlign = draw.XRight
			at.X = x0 + w - 6
		}
		c.FillText(tts, at, name)
		sub := ss
		sat := vg.Point{X: x0 + w/2, Y: bottom + 3}
		sub.XAlign = draw.XCenter
		c.FillText(sub, sat, "GPU–NIC: "+string(d.s.Topology.GPUNIC)+" ("+classShort(d.s.Topology.GPUNIC)+")")
	}
	// The network label, under the hops.
	ns := textStyle(NoteSize, false, MutedColor)
	ns.XAlign, ns.YAlign = draw.XCenter, draw.YTop
	y := d.box("s.nic").c.Y - 12
	mid := (c.Min.X + c.Max.X) / 2
	hops := d.s.Network.Hops
	first := plural(hops, "switch hop", "switch hops")
	if hops == 0 {
		first = "direct cable"
	}
	lines := []string{"network", first + ", " + d.s.Network.Cable.String()}
	for _, l := range lines {
		c.FillText(ns, vg.Point{X: mid, Y: y}, l)
		y -= lineHeight(ns)
	}
}

func roundRect(x0, y0, x1, y1, r vg.Length) []vg.Point {
	var pts []vg.Point
	corner := func(cx, cy vg.Length, a0 float64) {
		for k := 0; k <= 4; k++ {
			a := a0 + float64(k)*math.Pi/8
			pts = append(pts, vg.Point{X: cx + r*vg.Length(math.Cos(a)), Y: cy + r*vg.Length(math.Sin(a))})
		}
	}
	corner(x1-r, y0+r, -math.Pi/2)
	corner(x1-r, y1-r, 0)
	corner(x0+r, y1-r, math.Pi/2)
	corner(x0+r, y0+r, math.Pi)
	return pts
}

func (d *diagram) drawLinks(c draw.Canvas) {
	ws := draw.LineStyle{Color: wireColor, Width: vg.Points(5)}
	for _, l := range d.links {
		pts := append(append([]vg.Point{d.box(l.a).c}, l.cvia...), d.box(l.b).c)
		c.StrokeLines(ws, pts)
		if l.upi {
			ts := textStyle(NoteSize-1, false, MutedColor)
			ts.XAlign, ts.YAlign = draw.XCenter, draw.YBottom
			a, b := d.box(l.a), d.box(l.b)
			x := ((a.c.X + a.w/2) + (b.c.X - b.w/2)) / 2
			c.FillText(ts, vg.Point{X: x, Y: a.c.Y + a.h/2 + 1}, "UPI")
		}
	}
}

// lane is the sideways offset of path k's payload line, to the left of
// its direction of travel, so that traffic each way keeps to its own side
// of a link. Control lines run down the middle.
func (d *diagram) lane(k int) vg.Length {
	if d.highlight != "" {
		return 2.6
	}
	return vg.Length(k+1) * 2.0
}

func (d *diagram) lineWidth() vg.Length {
	if d.highlight != "" {
		return 2.2
	}
	return 1.5
}

func (d *diagram) drawRoutes(c draw.Canvas) {
	drawn := map[string]bool{}
	for k, pp := range d.plans {
		st := PathStyle(pp.route.Path.Name)
		for _, sp := range pp.stages {
			if sp.ids == nil {
				continue
			}
			clr := st.Color
			ls := draw.LineStyle{Color: clr, Width: d.lineWidth()}
			lane := d.lane(k)
			if sp.control {
				// One control line per route, in the middle of the link.
				key := strings.Join(sp.ids, ">")
				if drawn[key] {
					continue
				}
				drawn[key] = true
				if d.highlight == "" {
					clr = MutedColor
				}
				ls = draw.LineStyle{Color: clr, Width: 1.1, Dashes: controlDashes}
				lane = 0
			}
			pts := offset(d.polyline(sp.ids), lane)
			c.StrokeLines(ls, pts)
			d.arrowhead(c, pts, d.box(sp.ids[len(sp.ids)-1]), clr)
		}
	}
}

// arrowhead draws a small arrow where the line pts enters box b.
func (d *diagram) arrowhead(c draw.Canvas, pts []vg.Point, b *dbox, clr color.Color) {
	if len(pts) < 2 {
		return
	}
	p0, p1 := pts[len(pts)-2], pts[len(pts)-1]
	ux, uy := unit(p0, p1)
	// Walk back from the end to the box edge.
	hw, hh := float64(b.w)/2+1, float64(b.h)/2+1
	t := math.Inf(1)
	if ux != 0 {
		t = math.Min(t, hw/math.Abs(ux))
	}
	if uy != 0 {
		t = math.Min(t, hh/math.Abs(uy))
	}
	seg := math.Hypot(float64(p1.X-p0.X), float64(p1.Y-p0.Y))
	if t > seg {
		return
	}
	tip := vg.Point{X: p1.X - vg.Length(ux*t), Y: p1.Y - vg.Length(uy*t)}
	l, w := 5.5*float64(d.lineWidth())/1.5, 2.4*float64(d.lineWidth())/1.5
	l, w = math.Max(l, 5), math.Max(w, 2.4)
	base := vg.Point{X: tip.X - vg.Length(ux*l), Y: tip.Y - vg.Length(uy*l)}
	nx, ny := vg.Length(-uy*w), vg.Length(ux*w)
	c.FillPolygon(clr, []vg.Point{tip, {X: base.X + nx, Y: base.Y + ny}, {X: base.X - nx, Y: base.Y - ny}})
}

func (d *diagram) drawBoxes(c draw.Canvas) {
	edge := draw.LineStyle{Color: boxEdge, Width: vg.Points(0.8)}
	for _, b := range d.boxes {
		x0, y0 := b.c.X-b.w/2, b.c.Y-b.h/2
		x1, y1 := b.c.X+b.w/2, b.c.Y+b.h/2
		fill := boxFill
		if b.network {
			fill = networkFill
		}
		r := roundRect(x0, y0, x1, y1, 2.5)
		c.FillPolygon(fill, r)
		c.StrokeLines(edge, append(r, r[0]))
		ts := textStyle(NoteSize+0.5, true, TextColor)
		ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
		if b.network {
			ts = textStyle(NoteSize-1, false, TextColor)
			ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
		}
		if b.detail == "" {
			c.FillText(ts, b.c, fit(ts, b.title, b.w-4))
			continue
		}
		ds := textStyle(NoteSize-1, false, MutedColor)
		ds.XAlign, ds.YAlign = draw.XCenter, draw.YCenter
		c.FillText(ts, vg.Point{X: b.c.X, Y: b.c.Y + 4.5}, fit(ts, b.title, b.w-4))
		c.FillText(ds, vg.Point{X: b.c.X, Y: b.c.Y - 5}, fit(ds, b.detail, b.w-4))
	}
}

// fit shortens s with an ellipsis until it is no wider than w.
func fit(ts text.Style, s string, w vg.Length) string {
	if ts.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 1 {
		r = r[:len(r)-1]
		if t := strings.TrimSpace(string(r)) + "…"; ts.Width(t) <= w {
			return t
		}
	}
	return s
}

// badge is a lettered circle on a route.
type badge struct {
	letter string
	at     vg.Point
	color  color.Color
}

// badges places the letters. With one path highlighted, each stage's
// letter sits on a free stretch of its own route; with every path drawn,
// each letter sits once beside the box where its step happens (the lines
// show which path takes which way). The wire's D sits above the network.
func (d *diagram) badges() []badge {
	var out []badge
	placed := map[string]bool{}
	for _, pp := range d.plans {
		for _, sp := range pp.stages {
			if sp.ids == nil || sp.stage.Letter == "" {
				continue
			}
			key := sp.stage.Letter
			if d.highlight != "" {
				key += ":" + strings.Join(sp.ids, ">")
			}
			if placed[key] {
				continue
			}
			placed[key] = true
			clr := color.Color(TextColor)
			at, ok := d.anchor(sp.stage.Letter)
			if d.highlight != "" {
				clr = PathStyle(pp.route.Path.Name).Color
				if sp.stage.Letter != "D" {
					pts := d.polyline(sp.ids)
					if sp.control { // beside the CPU, where the work happens
						pts = d.cpuEnd(sp.ids, pts)
					}
					at, ok = d.badgeSpot(pts, out), true
				}
			}
			if ok {
				out = append(out, badge{letter: sp.stage.Letter, at: at, color: clr})
			}
		}
	}
	return out
}

// cpuEnd keeps the segment of a control route that touches the CPU.
func (d *diagram) cpuEnd(ids []string, pts []vg.Point) []vg.Point {
	if len(pts) < 2 {
		return pts
	}
	if strings.HasSuffix(ids[0], ".cpu") {
		return pts[:2]
	}
	return pts[len(pts)-2:]
}

// anchor is the place of a letter beside its box, in the all-paths view.
func (d *diagram) anchor(letter string) (vg.Point, bool) {
	gap := badgeR + 4
	beside := func(id string, dir vg.Length) vg.Point {
		b := d.box(id)
		return vg.Point{X: b.c.X + dir*(b.w/2+gap), Y: b.c.Y}
	}
	above := func(id string, dir vg.Length) vg.Point {
		b := d.box(id)
		return vg.Point{X: b.c.X - dir*(b.w/2-badgeR-1), Y: b.c.Y + b.h/2 + gap - 1}
	}
	switch letter {
	case "A":
		return beside("s.gpu", -1), true
	case "B":
		return beside("s.cpu", -1), true
	case "C":
		return above("s.nic", 1), true
	case "D":
		l, r := d.box("s.nic"), d.box("r.nic")
		y := l.c.Y + 9 + gap
		return vg.Point{X: (l.c.X + r.c.X) / 2, Y: y}, true
	case "E":
		return above("r.nic", -1), true
	case "F":
		return beside("r.cpu", 1), true
	case "G":
		return beside("r.gpu", 1), true
	}
	return vg.Point{}, false
}

func (d *diagram) badgeSpot(pts []vg.Point, taken []badge) vg.Point {
	type cand struct {
		p   vg.Point
		len float64
	}
	var cands []cand
	for i := 0; i+1 < len(pts); i++ {
		a, b := pts[i], pts[i+1]
		for _, t := range []float64{0.5, 0.32, 0.68, 0.2, 0.8} {
			p := vg.Point{X: a.X + vg.Length(t)*(b.X-a.X), Y: a.Y + vg.Length(t)*(b.Y-a.Y)}
			l := math.Hypot(float64(b.X-a.X), float64(b.Y-a.Y))
			cands = append(cands, cand{p, l * (1 - math.Abs(t-0.5))})
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int {
		switch {
		case x.len > y.len:
			return -1
		case x.len < y.len:
			return 1
		}
		return 0
	})
	free := func(p vg.Point) bool {
		for _, b := range d.boxes {
			if math.Abs(float64(p.X-b.c.X)) < float64(b.w/2+badgeR+1) && math.Abs(float64(p.Y-b.c.Y)) < float64(b.h/2+badgeR+1) {
				return false
			}
		}
		for _, o := range taken {
			if math.Hypot(float64(p.X-o.at.X), float64(p.Y-o.at.Y)) < float64(2*badgeR+2) {
				return false
			}
		}
		return true
	}
	for _, cd := range cands {
		if free(cd.p) {
			return cd.p
		}
	}
	if len(cands) > 0 {
		return cands[0].p
	}
	return pts[0]
}

func (d *diagram) drawBadges(c draw.Canvas) {
	for _, b := range d.badges() {
		drawBadge(c, b.at, b.letter, b.color)
	}
}

func drawBadge(c draw.Canvas, at vg.Point, letter string, clr color.Color) {
	circle := shapePath(Circle, at, badgeR)
	c.SetColor(color.White)
	c.Fill(circle)
	c.SetLineStyle(draw.LineStyle{Color: clr, Width: vg.Points(1.2)})
	c.Stroke(circle)
	ts := textStyle(NoteSize+0.5, true, clr)
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YCenter
	c.FillText(ts, vg.Point{X: at.X, Y: at.Y - 0.3}, letter)
}

// key returns the legend under the drawing: the highlighted path's
// stages, or the paths and the letters.
func (d *diagram) key() []legendEntry {
	var out []legendEntry
	if len(d.plans) == 0 {
		return nil
	}
	// What the drawing holds: stages per letter, control-only segments.
	letters, control := map[string]int{}, 0
	for _, pp := range d.plans {
		for _, sp := range pp.stages {
			letters[sp.stage.Letter]++
			if sp.control {
				control++
			}
		}
	}
	if d.highlight != "" {
		pp := d.plans[0]
		clr := PathStyle(pp.route.Path.Name).Color
		for _, sp := range pp.stages {
			label := sp.stage.Name + ": " + sp.route()
			var th []plot.Thumbnailer
			if sp.stage.Letter != "" {
				th = []plot.Thumbnailer{badgeThumb{letter: sp.stage.Letter, color: clr}}
			}
			out = append(out, legendEntry{label: label, thumbs: th, count: 1})
		}
		return out
	}
	for _, pp := range d.plans {
		st := PathStyle(pp.route.Path.Name)
		out = append(out, legendEntry{label: pp.route.Path.Name, thumbs: []plot.Thumbnailer{lineThumb{draw.LineStyle{Color: st.Color, Width: 2}}}, count: len(pp.stages)})
	}
	if control > 0 {
		out = append(out, legendEntry{label: "control only", thumbs: []plot.Thumbnailer{lineThumb{draw.LineStyle{Color: MutedColor, Width: 1.2, Dashes: controlDashes}}}, count: control})
	}
	out = append(out, legendEntry{header: true})
	for _, l := range stageLetters {
		if letters[l.letter] > 0 {
			out = append(out, legendEntry{label: l.key, thumbs: []plot.Thumbnailer{badgeThumb{letter: l.letter, color: TextColor}}, count: letters[l.letter]})
		}
	}
	return out
}

var controlDashes = []vg.Length{vg.Points(1.5), vg.Points(2)}

type badgeThumb struct {
	letter string
	color  color.Color
}

func (b badgeThumb) Thumbnail(c *draw.Canvas) {
	drawBadge(*c, vg.Point{X: c.Min.X + badgeR + 1, Y: (c.Min.Y + c.Max.Y) / 2}, b.letter, b.color)
}

type lineThumb struct{ style draw.LineStyle }

func (l lineThumb) Thumbnail(c *draw.Canvas) {
	y := (c.Min.Y + c.Max.Y) / 2
	c.StrokeLine2(l.style, c.Min.X, y, c.Max.X, y)
}
