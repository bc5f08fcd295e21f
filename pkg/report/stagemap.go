package report

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gpupath/gpupath/pkg/model"
)

// The stage map: one row per path, one column per seed letter A–G, each
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

func stageMapHeight(rows int) vg.Length {
	return vg.Points(mapHeadH + float64(rows)*mapRowH + 4)
}

// stageMapRows are the paths of the stage map: every GPU path, then the references.
func (a *analysis) stageMapRows() []model.Path {
	return append(append([]model.Path(nil), a.gpu...), a.refs...)
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

func (a *analysis) stageMap() (drawer, *table) {
	t := &table{Columns: []string{"path", "order", "letter", "stage", "side", "alpha_s", "rate_Bps", "cpu_s_1MiB", "ddr_bytes_per_byte", "pcie_crossings", "copy", "what"}}
	rows := a.stageMapRows()
	for _, p := range rows {
		r := a.routes[p.Name]
		for i, st := range r.Stages {
			t.add(p.Name, i+1, st.Letter, st.Name, string(st.Side), float64(st.Alpha), float64(st.Rate()),
				float64(st.CPU(refSize)), st.DDR, st.Crossings, st.Copy, st.What)
		}
	}
	d := drawFunc(func(c draw.Canvas) {
		x0 := c.Min.X + vg.Points(mapLabelW)
		cw := (c.Max.X - x0) / 7
		top := c.Max.Y
		head := textStyle(7, sansFont)
		head.XAlign, head.YAlign = draw.XCenter, draw.YTop
		band := textStyle(8, boldFont)
		band.XAlign, band.YAlign = draw.XCenter, draw.YTop
		// Node bands.
		for _, b := range []struct {
			from, to int
			label    string
			side     model.Side
		}{{0, 3, "sender node", model.Sender}, {3, 4, "network", model.Network}, {4, 7, "receiver node", model.Receiver}} {
			bx0, bx1 := x0+cw*vg.Length(b.from)+2, x0+cw*vg.Length(b.to)-2
			c.FillPolygon(sideFill[b.side], []vg.Point{{X: bx0, Y: top}, {X: bx1, Y: top}, {X: bx1, Y: top - 12}, {X: bx0, Y: top - 12}})
			c.FillText(band, vg.Point{X: (bx0 + bx1) / 2, Y: top - 1.5}, b.label)
		}
		for i, lr := range letterRoles[:7] {
			c.FillText(head, vg.Point{X: x0 + cw*vg.Length(i) + cw/2, Y: top - 15}, lr.letter+" "+lr.role)
		}
		name := textStyle(8.5, boldFont)
		name.YAlign = draw.YCenter
		sub := textStyle(6.5, sansFont)
		sub.Color = textGrey
		sub.YAlign = draw.YTop
		letter := textStyle(9, boldFont)
		letter.YAlign = draw.YTop
		small := textStyle(6, sansFont)
		small.YAlign = draw.YTop
		note := textStyle(7, sansFont)
		note.Color = textGrey
		note.YAlign = draw.YTop
		edge := draw.LineStyle{Color: rgb(0x888888), Width: vg.Points(0.5)}
		arrow := draw.LineStyle{Color: rgb(0x333333), Width: vg.Points(0.8)}
		for ri, p := range rows {
			yTop := top - vg.Points(mapHeadH) - vg.Length(ri)*vg.Points(mapRowH)
			yBot := yTop - vg.Points(mapRowH-6)
			yMid := (yTop + yBot) / 2
			c.FillText(name, vg.Point{X: c.Min.X + 2, Y: yMid + 5}, p.Name)
			kind := "GPU → GPU"
			if !p.GPU {
				kind = "host → host"
			}
			c.FillText(sub, vg.Point{X: c.Min.X + 2, Y: yMid - 1}, kind)
			r := a.routes[p.Name]
			if !r.Feasible {
				lines := wrapText(note, "infeasible: "+shortReason(r.Reason), 7*cw-8)
				for li, l := range lines {
					if li == 3 {
						break
					}
					c.FillText(note, vg.Point{X: x0 + 4, Y: yTop - 2 - vg.Length(li)*vg.Points(8.5)}, l)
				}
				continue
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
				bx1 := bx0 + cw - 10
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
				if prevRight >= 0 {
					c.StrokeLine2(arrow, prevRight+1, yMid, bx0-1, yMid)
					c.FillPolygon(arrow.Color, []vg.Point{{X: bx0 - 1, Y: yMid}, {X: bx0 - 4.5, Y: yMid + 2}, {X: bx0 - 4.5, Y: yMid - 2}})
				}
				prevRight = bx1
			}
		}
	})
	return d, t
}

// wrapText breaks s into lines no wider than w in style sty.
func wrapText(sty interface{ Width(string) vg.Length }, s string, w vg.Length) []string {
	var lines []string
	cur := ""
	for _, word := range strings.Fields(s) {
		try := word
		if cur != "" {
			try = cur + " " + word
		}
		if cur != "" && sty.Width(try) > w {
			lines = append(lines, cur)
			cur = word
			continue
		}
		cur = try
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}
