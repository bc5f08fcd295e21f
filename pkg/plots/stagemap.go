package plots

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/units"
)

// The stage map: one row per path, one column per stage letter A–G, each
// stage a box coloured by the node it runs on, arrows in route order.

var sideFill = map[model.Side]color.Color{
	model.Sender:   rgb(0xDCEAF7),
	model.Network:  rgb(0xEEEEEE),
	model.Receiver: rgb(0xE2F2E2),
}

const (
	mapLabelW = 74
	mapHeadH  = 40
	mapRowH   = 44
)

// stageMapCPUSize is the message size of the data's CPU column.
const stageMapCPUSize = units.Bytes(1 << 20)

func stageMapHeight(rows int) vg.Length {
	return vg.Points(mapHeadH + float64(rows)*mapRowH + 4)
}

func letterColumn(letter string, side model.Side) int {
	if letter != "" && letter[0] >= 'A' && letter[0] <= 'G' {
		return int(letter[0] - 'A')
	}
	switch side {
	case model.Sender:
		return 1
	case model.Receiver:
		return 5
	}
	return 3
}

// StageMap draws the stages of each of paths on s: a row per path (its
// name, GPU → GPU or host → host), a column per stage letter A–G under the
// sender node, network and receiver node bands, each stage a box in the
// column of its letter coloured by the node it runs on, arrows in route
// order; an infeasible path gets its reason instead. It is the report's
// picture of the paths where Diagram cannot draw the scenario (the
// loopback device: no NIC). The data has a row per stage: path, order,
// letter, stage, side, alpha_s, rate_Bps, cpu_s_1MiB, ddr_bytes_per_byte,
// pcie_crossings, copy, what. Unknown path names are errors.
func StageMap(s *model.Scenario, paths []string) (Drawing, error) {
	if s == nil {
		return Drawing{}, inputErr("stage map: no scenario")
	}
	var routes []*model.Route
	for _, name := range paths {
		p, err := model.LookupPath(name)
		if err != nil {
			return Drawing{}, inputErr("%v", err)
		}
		routes = append(routes, p.Route(s))
	}
	t := Table{Columns: []Column{textCol("path"), intCol("order", ""), textCol("letter"), textCol("stage"), textCol("side"),
		numCol("alpha_s", "s"), numCol("rate_Bps", "B/s"), numCol("cpu_s_1MiB", "s"), numCol("ddr_bytes_per_byte", ""),
		intCol("pcie_crossings", ""), boolCol("copy"), textCol("what")}}
	for _, r := range routes {
		for i, st := range r.Stages {
			t.add(r.Path.Name, i+1, st.Letter, st.Name, string(st.Side), st.Alpha, st.Rate(),
				st.CPU(stageMapCPUSize), st.DDR, st.Crossings, st.Copy, st.What)
		}
	}
	return Drawing{Height: stageMapHeight(len(routes)), Data: t, Drawer: stageMap(routes)}, nil
}

// stageMap draws StageMap's routes: the head, then a row per route.
type stageMap []*model.Route

func (m stageMap) Draw(c draw.Canvas) {
	x0 := c.Min.X + vg.Points(mapLabelW)
	cw := (c.Max.X - x0) / 7
	top := c.Max.Y
	drawMapHead(c, x0, cw, top)
	for ri, r := range m {
		drawMapRow(c, r, x0, cw, top-vg.Points(mapHeadH)-vg.Length(ri)*vg.Points(mapRowH))
	}
}

// drawMapHead draws the bands of the two nodes and the network, and the
// letters' headings under them, from top down; x0 is the left of column A,
// cw the width of a column.
func drawMapHead(c draw.Canvas, x0, cw, top vg.Length) {
	head := plainText(7, false)
	head.XAlign, head.YAlign = draw.XCenter, draw.YTop
	band := plainText(8, true)
	band.XAlign, band.YAlign = draw.XCenter, draw.YTop
	for _, b := range []struct {
		from, to int
		label    string
		side     model.Side
	}{{0, 3, "sender node", model.Sender}, {3, 4, "network", model.Network}, {4, 7, "receiver node", model.Receiver}} {
		bx0, bx1 := x0+cw*vg.Length(b.from)+2, x0+cw*vg.Length(b.to)-2
		c.FillPolygon(sideFill[b.side], []vg.Point{{X: bx0, Y: top}, {X: bx1, Y: top}, {X: bx1, Y: top - 12}, {X: bx0, Y: top - 12}})
		c.FillText(band, vg.Point{X: (bx0 + bx1) / 2, Y: top - 1.5}, b.label)
	}
	for i, lr := range stageLetters {
		c.FillText(head, vg.Point{X: x0 + cw*vg.Length(i) + cw/2, Y: top - 15}, lr.letter+" "+lr.role)
	}
}

// drawMapRow draws one route's row from yTop down: its name and kind, then
// its stages as boxes joined by arrows, or the reason it is infeasible.
func drawMapRow(c draw.Canvas, r *model.Route, x0, cw, yTop vg.Length) {
	name := plainText(8.5, true)
	name.YAlign = draw.YCenter
	sub := plainText(6.5, false)
	sub.Color = plainGrey
	sub.YAlign = draw.YTop
	note := plainText(7, false)
	note.Color = plainGrey
	note.YAlign = draw.YTop
	p := r.Path
	yBot := yTop - vg.Points(mapRowH-6)
	yMid := (yTop + yBot) / 2
	c.FillText(name, vg.Point{X: c.Min.X + 2, Y: yMid + 5}, p.Name)
	kind := "GPU → GPU"
	if !p.GPU {
		kind = "host → host"
	}
	c.FillText(sub, vg.Point{X: c.Min.X + 2, Y: yMid - 1}, kind)
	if !r.Feasible {
		lines := wrapText(note, "infeasible: "+model.ShortReason(r.Reason), 7*cw-8)
		for li, l := range lines {
			if li == 3 {
				break
			}
			c.FillText(note, vg.Point{X: x0 + 4, Y: yTop - 2 - vg.Length(li)*vg.Points(8.5)}, l)
		}
		return
	}
	used := map[int]bool{}
	var prevRight vg.Length = -1
	for _, st := range r.Stages {
		col := letterColumn(st.Letter, st.Side)
		for used[col] && col < 6 {
			col++
		}
		used[col] = true
		bx0 := x0 + cw*vg.Length(col) + 5
		drawMapStage(c, st, bx0, bx0+cw-10, yTop, yBot)
		if prevRight >= 0 {
			arrow := draw.LineStyle{Color: rgb(0x333333), Width: vg.Points(0.8)}
			c.StrokeLine2(arrow, prevRight+1, yMid, bx0-1, yMid)
			c.FillPolygon(arrow.Color, []vg.Point{{X: bx0 - 1, Y: yMid}, {X: bx0 - 4.5, Y: yMid + 2}, {X: bx0 - 4.5, Y: yMid - 2}})
		}
		prevRight = bx0 + cw - 10
	}
}

// drawMapStage draws one stage's box from bx0 to bx1, yTop to yBot: filled
// in its node's colour, its letter and its name inside.
func drawMapStage(c draw.Canvas, st model.Stage, bx0, bx1, yTop, yBot vg.Length) {
	letter := plainText(9, true)
	letter.YAlign = draw.YTop
	small := plainText(6, false)
	small.YAlign = draw.YTop
	edge := draw.LineStyle{Color: rgb(0x888888), Width: vg.Points(0.5)}
	box := []vg.Point{{X: bx0, Y: yTop}, {X: bx1, Y: yTop}, {X: bx1, Y: yBot}, {X: bx0, Y: yBot}}
	c.FillPolygon(sideFill[st.Side], box)
	c.StrokeLines(edge, append(box, box[0]))
	if st.Letter != "" {
		c.FillText(letter, vg.Point{X: bx0 + 2.5, Y: yTop - 2}, st.Letter)
	}
	lines := wrapText(small, st.Name, bx1-bx0-13)
	for li, l := range lines {
		if li == 4 {
			break
		}
		c.FillText(small, vg.Point{X: bx0 + 12, Y: yTop - 2.5 - vg.Length(li)*vg.Points(7)}, l)
	}
}
