package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PairMap is one quantity of a sweep between hosts: every ordered pair of
// N hosts measured in both directions.
type PairMap struct {
	// Quantity is PairBandwidth or PairLatency.
	Quantity string
	// Hosts are the host names in the order to draw (the caller sorts
	// them); each named once.
	Hosts []string
	// Values[i][j] is what host i measured toward host j: bytes per second
	// for bandwidth, seconds for latency; NaN where the pair was not
	// measured. The diagonal (a host toward itself) is NaN. Every other
	// value is finite and not negative.
	Values [][]float64
	// Bytes is the message size of the quantity (≥ 1), for the title and
	// the caption.
	Bytes int64
	// Outlier, when not nil, is N × N as Values: the measured pairs the
	// caller named as outliers, drawn marked.
	Outlier [][]bool
	// Provenance says what was measured where and when: "measured on 6
	// hosts by gpupath sweep, 2026-12-04". It is required.
	Provenance string
}

// The quantities of a PairMap.
const (
	PairBandwidth = "bandwidth"
	PairLatency   = "latency"
)

// MaxPairBlocks is the most rows (and columns) a pair heatmap draws. Past
// it the hosts are grouped into blocks of consecutive hosts, at most
// MaxPairBlocks of them, each cell the worst pair between two blocks.
const MaxPairBlocks = 64

// pairQuantity is how a PairMap's quantity is drawn and judged.
type pairQuantity struct {
	name  string // "bandwidth"
	unit  string // base unit of the values: "B/s"
	worst string // what the worst value is: "the lowest bandwidth"
	// highBad: a high value is worse (latency); else a low one (bandwidth).
	highBad bool
}

var pairQuantities = map[string]pairQuantity{
	PairBandwidth: {name: PairBandwidth, unit: "B/s", worst: "the lowest bandwidth"},
	PairLatency:   {name: PairLatency, unit: "s", worst: "the highest latency", highBad: true},
}

// worse reports whether a is worse than b.
func (q pairQuantity) worse(a, b float64) bool {
	if q.highBad {
		return a > b
	}
	return a < b
}

// human writes a value in the quantity's unit, rounded: "12.3 GB/s", "2.1 µs".
func (q pairQuantity) human(v float64) string {
	if q.highBad {
		return units.Seconds(v).Human()
	}
	return units.Rate(v).Human()
}

// axis is how an axis of the quantity's values is drawn (the heatmap's
// colour bar, the distribution's x axis): linear from 0 to hi (base
// units), the values divided by scale, with ticker and label. Bandwidth
// goes in one decimal unit of bytes per second, as the size sweeps draw it
// (GB/s, or MB/s for slower links), latency in seconds labelled in one
// unit (timeAxisTicks).
func (q pairQuantity) axis(hi float64) (scale float64, ticker plot.Ticker, label string) {
	if q.highBad {
		return 1, timeAxisTicks{}, "latency"
	}
	scale, name := rateUnit(hi)
	return scale, linearTicks{}, "bandwidth (" + name + ")"
}

// rateUnit is the decimal unit of bytes per second a linear axis up to
// max is labelled in (as timeUnit is for seconds).
func rateUnit(max float64) (float64, string) {
	switch {
	case max >= 1e12:
		return 1e12, "TB/s"
	case max >= 1e9:
		return 1e9, "GB/s"
	case max >= 1e6:
		return 1e6, "MB/s"
	case max >= 1e3:
		return 1e3, "kB/s"
	}
	return 1, "B/s"
}

// pairChecked is a PairMap after validation.
type pairChecked struct {
	PairMap
	q        pairQuantity
	n        int
	text     []string // the host names as figures write them (termtext.Line)
	prov     string   // the provenance, likewise
	measured int      // measured ordered pairs
	missing  int      // ordered pairs of two hosts not measured
	outliers int      // measured pairs named outliers
	hi       float64  // the top of the value scale (base units)
	// worstI, worstJ are the worst measured pair; median the median value.
	worstI, worstJ int
	median         float64
}

func (c *pairChecked) outlier(i, j int) bool { return c.Outlier != nil && c.Outlier[i][j] }

// checkPairs validates a PairMap once, up front: a known quantity, at
// least two hosts, each named once, Values (and Outlier) N × N, the
// diagonal NaN, every other value NaN or finite and not negative, at least
// one pair measured, outliers only on measured pairs, a message size and
// a provenance.
func checkPairs(m PairMap) (*pairChecked, error) {
	q, ok := pairQuantities[m.Quantity]
	if !ok {
		return nil, inputErr("pair map: unknown quantity %q (want %q or %q)", m.Quantity, PairBandwidth, PairLatency)
	}
	n := len(m.Hosts)
	if n < 2 {
		return nil, inputErr("pair map: %d host(s): a sweep between hosts needs at least 2", n)
	}
	if len(m.Values) != n {
		return nil, inputErr("pair map: %d hosts but %d rows of values", n, len(m.Values))
	}
	if m.Outlier != nil && len(m.Outlier) != n {
		return nil, inputErr("pair map: %d hosts but %d rows of outliers", n, len(m.Outlier))
	}
	if m.Bytes < 1 {
		return nil, inputErr("pair map: message size %d B: sizes must be at least 1 byte", m.Bytes)
	}
	if strings.TrimSpace(m.Provenance) == "" {
		return nil, inputErr("pair map: no provenance (what was measured, where and when)")
	}
	c := &pairChecked{PairMap: m, q: q, n: n, text: make([]string, n), prov: termtext.Line(m.Provenance), worstI: -1}
	seen := make(map[string]int, n)
	for i, h := range m.Hosts {
		if strings.TrimSpace(h) == "" {
			return nil, inputErr("pair map: host %d has no name", i+1)
		}
		if k, dup := seen[h]; dup {
			return nil, inputErr("pair map: host %q is listed twice (hosts %d and %d)", h, k+1, i+1)
		}
		seen[h] = i
		c.text[i] = termtext.Line(h)
	}
	var vals []float64
	for i, row := range m.Values {
		if len(row) != n {
			return nil, inputErr("pair map: row %d (host %q) has %d values for %d hosts", i+1, m.Hosts[i], len(row), n)
		}
		if m.Outlier != nil && len(m.Outlier[i]) != n {
			return nil, inputErr("pair map: row %d (host %q) has %d outlier flags for %d hosts", i+1, m.Hosts[i], len(m.Outlier[i]), n)
		}
		for j, v := range row {
			switch {
			case math.IsNaN(v):
				if c.outlier(i, j) {
					return nil, inputErr("pair map: %q → %q is named an outlier but was not measured", m.Hosts[i], m.Hosts[j])
				}
				if i != j {
					c.missing++
				}
				continue
			case i == j:
				return nil, inputErr("pair map: %q toward itself is %v: the diagonal must be NaN (not measured)", m.Hosts[i], v)
			case math.IsInf(v, 0) || v < 0:
				return nil, inputErr("pair map: %s %q → %q is %v: values must be finite and not negative (NaN: not measured)", q.name, m.Hosts[i], m.Hosts[j], v)
			}
			vals = append(vals, v)
			c.hi = math.Max(c.hi, v)
			if c.outlier(i, j) {
				c.outliers++
			}
			if c.worstI < 0 || q.worse(v, m.Values[c.worstI][c.worstJ]) {
				c.worstI, c.worstJ = i, j
			}
		}
	}
	c.measured = len(vals)
	if c.measured == 0 {
		return nil, inputErr("pair map: no pair of the %d hosts was measured", n)
	}
	c.hi = niceMax(c.hi)
	slices.Sort(vals)
	c.median = vals[len(vals)/2]
	if len(vals)%2 == 0 {
		c.median = (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
	}
	return c, nil
}

// pairCount writes a count of pairs or cells: 1,047,552.
func pairCount(n int) string { return units.Thousands(n) }

// pairCounted is a count with its noun: "1 pair", "9,216 pairs".
func pairCounted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return pairCount(n) + " " + many
}

// pairs is the number of ordered pairs of two hosts.
func (c *pairChecked) pairs() int { return c.n * (c.n - 1) }

// title is the figures' title: "Bandwidth between every pair of 6 hosts (1 MiB messages)".
func (c *pairChecked) title(prefix string) string {
	return fmt.Sprintf("%s between every pair of %s hosts (%s messages)", prefix, pairCount(c.n), units.Bytes(c.Bytes).Human())
}

// pairTable is the data behind the figures: one row per measured pair, in
// the hosts' order (row by row), with the host names as given (the CSV and
// JSON writers escape them).
func pairTable(c *pairChecked) Table {
	return Table{Columns: []Column{textCol("host"), textCol("peer"), numCol("value", c.q.unit), textCol("unit"), boolCol("outlier")}}
}

// worstNote names the worst pair and the median.
func (c *pairChecked) worstNote() string {
	return fmt.Sprintf("Worst pair: %s → %s, %s (median of the %s measured pairs %s).",
		c.text[c.worstI], c.text[c.worstJ], c.q.human(c.Values[c.worstI][c.worstJ]), pairCount(c.measured), c.q.human(c.median))
}

// missingNote counts the pairs not measured ("" when none).
func (c *pairChecked) missingNote(how string) string {
	if c.missing == 0 {
		return ""
	}
	return fmt.Sprintf("Not measured: %s of %s ordered pairs (%s).", pairCount(c.missing), pairCount(c.pairs()), how)
}

// outlierNote counts the pairs named outliers ("" when none).
func (c *pairChecked) outlierNote(how string) string {
	if c.outliers == 0 {
		return ""
	}
	return fmt.Sprintf("Outliers: %s of the %s measured pairs (%s).", pairCount(c.outliers), pairCount(c.measured), how)
}

func appendNotes(notes []string, ns ...string) []string {
	for _, n := range ns {
		if n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// The colours of the pair heatmap. The scale is matplotlib's viridis (van
// der Walt and Smith, 2015), dark purple through blue and green to yellow,
// through its control colours interpolated in CIELAB with luminance
// linear in the value (moreland.NewLuminance): perceptually ordered, read
// in grey and by the common colour blindnesses. Dark is bad for either
// quantity. Pairs not measured are light grey, which the scale does not
// hold; a host toward itself is left white.
var (
	pairPalette = newPairPalette()
	// PairMissingColor fills the cells of pairs not measured.
	PairMissingColor color.Color = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}
)

// pairLevels is how many colours the scale is drawn in: more than the eye
// tells apart, few enough to compute once.
const pairLevels = 256

func newPairPalette() [pairLevels]color.RGBA {
	cm, err := moreland.NewLuminance([]color.Color{
		rgb(0x440154), rgb(0x414487), rgb(0x2a788e), rgb(0x22a884), rgb(0x7ad151), rgb(0xfde725),
	})
	if err != nil {
		panic(err) // the control colours' luminance rises: a bug here if not
	}
	cm.SetMin(0)
	cm.SetMax(1)
	var out [pairLevels]color.RGBA
	for i := range out {
		c, err := cm.At(float64(i) / (pairLevels - 1))
		if err != nil {
			panic(err)
		}
		r, g, b, _ := c.RGBA()
		out[i] = color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
	}
	return out
}

// pairScale maps a value to its colour: linear from 0 to hi, dark for the
// bad end (low bandwidth, high latency).
type pairScale struct {
	hi      float64
	highBad bool
}

// goodness is where v lies on the scale, 0 the worst and 1 the best.
func (s pairScale) goodness(v float64) float64 {
	t := math.Min(math.Max(v/s.hi, 0), 1)
	if s.highBad {
		t = 1 - t
	}
	return t
}

func (s pairScale) color(v float64) color.Color {
	return pairPalette[int(math.Round(s.goodness(v)*(pairLevels-1)))]
}

// pairGrid is what the heatmap draws: nb × nb cells, row r the measuring
// hosts of block r, column k the peers of block k; a block is size
// consecutive hosts (1: every host its own row and column).
type pairGrid struct {
	nb, size int
	value    []float64 // nb*nb, row by row: the worst measured pair, NaN for none
	marked   []bool    // nb*nb: a pair named an outlier in the cell
	labels   []string  // one per block
	domain   string    // the domain the labels leave out (commonDomain)
	scale    pairScale
	q        pairQuantity
	// barScale, barTicks and barLabel draw the colour bar.
	barScale float64
	barTicks plot.Ticker
	barLabel string
}

// pairBlockSize is the hosts per block that keeps n hosts in at most
// MaxPairBlocks blocks.
func pairBlockSize(n int) int { return (n + MaxPairBlocks - 1) / MaxPairBlocks }

func newPairGrid(c *pairChecked) *pairGrid {
	size := pairBlockSize(c.n)
	nb := (c.n + size - 1) / size
	g := &pairGrid{nb: nb, size: size, value: make([]float64, nb*nb), marked: make([]bool, nb*nb),
		scale: pairScale{hi: c.hi, highBad: c.q.highBad}, q: c.q}
	g.barScale, g.barTicks, g.barLabel = c.q.axis(c.hi)
	for k := range g.value {
		g.value[k] = math.NaN()
	}
	for i, row := range c.Values {
		bi := i / size
		for j, v := range row {
			if math.IsNaN(v) {
				continue
			}
			k := bi*nb + j/size
			if w := g.value[k]; math.IsNaN(w) || c.q.worse(v, w) {
				g.value[k] = v
			}
			if c.outlier(i, j) {
				g.marked[k] = true
			}
		}
	}
	g.domain = commonDomain(c.text)
	short := func(i int) string { return strings.TrimSuffix(c.text[i], g.domain) }
	for b := range nb {
		first, last := b*size, min(c.n, (b+1)*size)-1
		if first == last {
			g.labels = append(g.labels, cutLabel(short(first), maxHostLabel))
		} else {
			g.labels = append(g.labels, blockLabel(short(first), short(last)))
		}
	}
	return g
}

// commonDomain is the domain every host name ends with, from its first
// dot (".cluster.example.org"), which the axes leave out; "" when the
// names differ in it, or one has none.
func commonDomain(hosts []string) string {
	var d string
	for i, h := range hosts {
		k := strings.IndexByte(h, '.')
		if k <= 0 || k == len(h)-1 {
			return ""
		}
		if i == 0 {
			d = h[k:]
		} else if h[k:] != d {
			return ""
		}
	}
	return d
}

// maxHostLabel is the most characters of a host name an axis writes;
// a longer one keeps its start and, longer, its end, where the numbers
// of most names are ("gpu-nod…12-slot04-0001-a").
const maxHostLabel = 24

// cutLabel shortens s to max characters by leaving out its middle.
func cutLabel(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head := (max - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(max-1-head):])
}

// blockLabel names a block by its first and last host: "n000–n003"; a
// long pair leaves out of the last what both names start with, up to a
// run of digits ("gpu-node-0001–0004").
func blockLabel(first, last string) string {
	l := first + "–" + last
	if len([]rune(l)) <= 16 {
		return l
	}
	a, b := []rune(first), []rune(last)
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && p <= len(b) && unicode.IsDigit(b[p-1]) {
		p--
	}
	if p > 0 && p < len(b) {
		last = string(b[p:])
	}
	if len([]rune(first))+1+len([]rune(last)) <= maxBlockLabel {
		return first + "–" + last
	}
	half := (maxBlockLabel - 1) / 2
	return cutLabel(first, half) + "–" + cutLabel(last, maxBlockLabel-1-half)
}

// maxBlockLabel is the most characters of a block's label.
const maxBlockLabel = 28

// cell returns the value and mark of the cell in row r, column k.
func (g *pairGrid) cell(r, k int) (float64, bool) { return g.value[r*g.nb+k], g.marked[r*g.nb+k] }

// blank reports whether the cell of row r, column k is a host toward
// itself (ungrouped only: a block toward itself holds the pairs within it).
func (g *pairGrid) blank(r, k int) bool { return g.size == 1 && r == k }

// counts returns the cells drawn grey (no pair measured, the diagonal
// apart) and the cells marked.
func (g *pairGrid) counts() (grey, marked int) {
	for r := range g.nb {
		for k := range g.nb {
			v, m := g.cell(r, k)
			if math.IsNaN(v) && !g.blank(r, k) {
				grey++
			}
			if m {
				marked++
			}
		}
	}
	return grey, marked
}

// Label sizes of the heatmap's axes: the largest, the smallest, and the
// height of a row of labels as a share of their size.
var (
	pairLabelMax   = TickSize
	pairLabelMin   = vg.Points(4)
	pairLabelPitch = 1.12
)

// labelEvery is the step of the blocks labelled at a cell size: every one
// where a label of the smallest size fits, else every k-th.
func labelEvery(cell vg.Length) int {
	need := pairLabelMin * vg.Length(pairLabelPitch)
	if cell >= need {
		return 1
	}
	return int(math.Ceil(float64(need / cell)))
}

// labelFont is the size of the axes' labels at a cell size.
func labelFont(cell vg.Length) vg.Length {
	return min(pairLabelMax, max(pairLabelMin, cell/vg.Length(pairLabelPitch)))
}

// heatLayout is where the heatmap's parts go in a body canvas.
type heatLayout struct {
	x0, y0, side, cell vg.Length // the square of cells: bottom left and side
	font               vg.Length
	every              int
	labelW             vg.Length // the widest axis label
}

// Fixed parts of the heatmap: the gap between the labels and the square,
// the colour bar's gap, width and tick length.
const (
	heatLabelGap = vg.Length(3)
	barGap       = vg.Length(14)
	barWidth     = vg.Length(9)
	barTick      = vg.Length(3)
)

func (g *pairGrid) labelWidth(font vg.Length) vg.Length {
	ts := textStyle(font, false, TextColor)
	var w vg.Length
	for _, l := range g.labels {
		w = max(w, ts.Width(l))
	}
	return w
}

// barExtent is the width of the colour bar with its ticks and labels.
func (g *pairGrid) barExtent() vg.Length {
	ts := textStyle(TickSize, false, TextColor)
	var w vg.Length
	for _, t := range g.barTicks.Ticks(0, g.scale.hi/g.barScale) {
		w = max(w, ts.Width(t.Label))
	}
	return barGap + barWidth + barTick + 2 + w + 4 + axisLabelHeight()
}

func axisLabelHeight() vg.Length { return textStyle(LabelSize, false, TextColor).Height("Mg") + 3 }

// layout sizes the square to what the labels leave of c: the labels'
// size follows the cells', which follow the room the labels leave, so it
// settles in a few rounds.
func (g *pairGrid) layout(c draw.Canvas) heatLayout {
	lh := axisLabelHeight()
	bar := g.barExtent()
	var l heatLayout
	l.font = pairLabelMax
	for range 4 {
		l.labelW = g.labelWidth(l.font)
		w := c.Max.X - c.Min.X - lh - l.labelW - heatLabelGap - bar
		h := c.Max.Y - c.Min.Y - lh - l.labelW - heatLabelGap
		l.side = max(vg.Length(10), min(w, h))
		l.cell = l.side / vg.Length(g.nb)
		f := labelFont(l.cell)
		if f == l.font {
			break
		}
		l.font = f
	}
	l.labelW = g.labelWidth(l.font)
	l.every = labelEvery(l.cell)
	l.x0 = c.Min.X + lh + l.labelW + heatLabelGap
	l.y0 = c.Max.Y - l.side
	return l
}

// draw draws the heatmap and its colour bar into c.
func (g *pairGrid) draw(c draw.Canvas) {
	l := g.layout(c)
	inset := min(vg.Points(0.5), l.cell*0.05)
	top := l.y0 + l.side
	for r := range g.nb {
		y1 := top - vg.Length(r)*l.cell
		for k := range g.nb {
			x0 := l.x0 + vg.Length(k)*l.cell
			if g.blank(r, k) {
				// A host toward itself: a faint stroke across a white cell.
				c.StrokeLine2(draw.LineStyle{Color: GridColor, Width: vg.Points(0.6)}, x0+inset, y1-inset, x0+l.cell-inset, y1-l.cell+inset)
				continue
			}
			v, _ := g.cell(r, k)
			fill := PairMissingColor
			if !math.IsNaN(v) {
				fill = g.scale.color(v)
			}
			c.FillPolygon(fill, rect(x0+inset, y1-l.cell+inset, x0+l.cell-inset, y1-inset))
		}
	}
	// The marks go on top, so that a neighbour's fill does not cover them.
	for r := range g.nb {
		for k := range g.nb {
			if _, m := g.cell(r, k); m {
				x0, y1 := l.x0+vg.Length(k)*l.cell, top-vg.Length(r)*l.cell
				drawOutlierMark(c, x0, y1-l.cell, x0+l.cell, y1)
			}
		}
	}
	frame := draw.LineStyle{Color: MutedColor, Width: vg.Points(0.6)}
	c.StrokeLines(frame, []vg.Point{{X: l.x0, Y: l.y0}, {X: l.x0 + l.side, Y: l.y0}, {X: l.x0 + l.side, Y: top}, {X: l.x0, Y: top}, {X: l.x0, Y: l.y0}})

	// The axes: a tick and a label per labelled block, rows from the top.
	ts := textStyle(l.font, false, TextColor)
	tick := draw.LineStyle{Color: MutedColor, Width: vg.Points(0.5)}
	tl := min(vg.Points(2), heatLabelGap)
	for b := 0; b < g.nb; b += l.every {
		mid := vg.Length(b)*l.cell + l.cell/2
		y := top - mid
		c.StrokeLine2(tick, l.x0-tl, y, l.x0, y)
		ys := ts
		ys.XAlign, ys.YAlign = draw.XRight, draw.YCenter
		c.FillText(ys, vg.Point{X: l.x0 - heatLabelGap, Y: y}, g.labels[b])
		x := l.x0 + mid
		c.StrokeLine2(tick, x, l.y0-tl, x, l.y0)
		xs := ts
		xs.Rotation = math.Pi / 2
		xs.XAlign, xs.YAlign = draw.XRight, draw.YCenter
		c.FillText(xs, vg.Point{X: x, Y: l.y0 - heatLabelGap}, g.labels[b])
	}
	ls := textStyle(LabelSize, false, TextColor)
	lh := axisLabelHeight()
	row, col := "measuring host", "peer"
	if g.size > 1 {
		row, col = fmt.Sprintf("measuring hosts (blocks of %d)", g.size), fmt.Sprintf("peers (blocks of %d)", g.size)
	}
	st := ls
	st.Rotation = math.Pi / 2
	st.XAlign, st.YAlign = draw.XCenter, draw.YTop
	c.FillText(st, vg.Point{X: c.Min.X + 1, Y: l.y0 + l.side/2}, row)
	st = ls
	st.XAlign, st.YAlign = draw.XCenter, draw.YBottom
	c.FillText(st, vg.Point{X: l.x0 + l.side/2, Y: l.y0 - heatLabelGap - l.labelW - lh + 1}, col)

	g.drawBar(c, l.x0+l.side+barGap, l.y0, top)
}

// drawBar draws the colour bar from y0 to y1 at x: the scale in thin
// bands, a frame, ticks and labels in the quantity's unit on the right,
// the axis label beyond them.
func (g *pairGrid) drawBar(c draw.Canvas, x, y0, y1 vg.Length) {
	bands := max(16, min(200, int(y1-y0)))
	h := (y1 - y0) / vg.Length(bands)
	for i := range bands {
		v := g.scale.hi * (float64(i) + 0.5) / float64(bands)
		// Each band reaches the top and the next one covers it: no seam
		// between two bands where a viewer smooths their edges.
		c.FillPolygon(g.scale.color(v), rect(x, y0+vg.Length(i)*h, x+barWidth, y1))
	}
	frame := draw.LineStyle{Color: MutedColor, Width: vg.Points(0.6)}
	c.StrokeLines(frame, []vg.Point{{X: x, Y: y0}, {X: x + barWidth, Y: y0}, {X: x + barWidth, Y: y1}, {X: x, Y: y1}, {X: x, Y: y0}})
	ts := textStyle(TickSize, false, TextColor)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YCenter
	hi := g.scale.hi / g.barScale
	var w vg.Length
	for _, t := range g.barTicks.Ticks(0, hi) {
		if t.Value < 0 || t.Value > hi*(1+1e-9) {
			continue
		}
		y := y0 + (y1-y0)*vg.Length(t.Value/hi)
		l := barTick
		if t.IsMinor() {
			l /= 2
		}
		c.StrokeLine2(frame, x+barWidth, y, x+barWidth+l, y)
		if !t.IsMinor() {
			c.FillText(ts, vg.Point{X: x + barWidth + barTick + 2, Y: y}, t.Label)
			w = max(w, ts.Width(t.Label))
		}
	}
	ls := textStyle(LabelSize, false, TextColor)
	ls.Rotation = math.Pi / 2
	ls.XAlign, ls.YAlign = draw.XCenter, draw.YBottom
	dark := ", dark: low"
	if g.q.highBad {
		dark = ", dark: high"
	}
	c.FillText(ls, vg.Point{X: x + barWidth + barTick + 2 + w + 4 + axisLabelHeight() - 2, Y: (y0 + y1) / 2}, g.barLabel+dark)
}

// drawOutlierMark outlines a cell in black and white, seen on the darkest
// and the lightest fill alike.
func drawOutlierMark(c draw.Canvas, x0, y0, x1, y1 vg.Length) {
	w := min(vg.Points(1.2), (x1-x0)*0.1)
	in := w / 2
	box := []vg.Point{{X: x0 + in, Y: y0 + in}, {X: x1 - in, Y: y0 + in}, {X: x1 - in, Y: y1 - in}, {X: x0 + in, Y: y1 - in}, {X: x0 + in, Y: y0 + in}}
	c.StrokeLines(draw.LineStyle{Color: Black, Width: w}, box)
	in2 := w + w/4
	inner := []vg.Point{{X: x0 + in2, Y: y0 + in2}, {X: x1 - in2, Y: y0 + in2}, {X: x1 - in2, Y: y1 - in2}, {X: x0 + in2, Y: y1 - in2}, {X: x0 + in2, Y: y0 + in2}}
	c.StrokeLines(draw.LineStyle{Color: color.White, Width: w / 2}, inner)
}

// cellThumb is a legend thumbnail: a cell of the heatmap, filled, marked
// as an outlier when mark.
type cellThumb struct {
	fill color.Color
	mark bool
}

func (t cellThumb) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	side := min(h, vg.Points(9))
	x0 := c.Max.X - side - 3
	y0 := c.Min.Y + (h-side)/2
	c.FillPolygon(t.fill, rect(x0, y0, x0+side, y0+side))
	if t.mark {
		drawOutlierMark(*c, x0, y0, x0+side, y0+side)
	}
}

// Heights of a pair heatmap: the square of cells is about pairCellTarget
// a row, between pairSideMin and pairSideMax, and the figure grows with
// it from DefaultHeight to at most pairMaxHeight.
var (
	pairCellTarget = vg.Points(7)
	pairSideMin    = vg.Points(190)
	pairSideMax    = vg.Points(350)
	pairMaxHeight  = vg.Inch * 8
)

// PairHeatmap draws a sweep between hosts as a heatmap of hosts × hosts:
// row the measuring host, column the peer, each cell coloured by its value
// on one perceptually ordered scale (viridis), linear from 0, dark for the
// bad end (low bandwidth, high latency), with a colour bar in the
// quantity's unit. Pairs not measured are light grey (a note counts them),
// a host toward itself is blank, and the pairs the caller named outliers
// are outlined. Up to MaxPairBlocks hosts each has its row and column,
// named on the axes; past it, the hosts are grouped into at most
// MaxPairBlocks blocks of consecutive hosts, each cell the worst pair
// between two blocks (the lowest bandwidth, the highest latency) so that
// a slow pair stays visible, the axes naming each block's first and last
// host (every k-th block where they would crowd). The figure's data lists
// every measured pair (host, peer, value, unit, outlier), not the blocks.
func PairHeatmap(m PairMap) (*Figure, error) {
	c, err := checkPairs(m)
	if err != nil {
		return nil, err
	}
	g := newPairGrid(c)
	t := pairTable(c)
	for i, row := range c.Values {
		for j, v := range row {
			if !math.IsNaN(v) {
				t.add(c.Hosts[i], c.Hosts[j], v, c.q.unit, c.outlier(i, j))
			}
		}
	}
	f := &Figure{Name: "pair-" + c.q.name, Title: c.title(capitalize(c.q.name)), Provenance: c.prov,
		Width: DefaultWidth, Data: t, body: g.draw, legendBelow: true}
	f.Height = pairHeight(g)

	grey, marked := g.counts()
	if grey > 0 {
		label := pairCounted(grey, "pair", "pairs") + " not measured"
		if g.size > 1 {
			label = pairCounted(grey, "cell", "cells") + " of blocks with no pair measured"
		}
		f.legend = append(f.legend, legendEntry{label: label, thumbs: []plot.Thumbnailer{cellThumb{fill: PairMissingColor}}, count: grey})
	}
	if marked > 0 {
		label := pairCounted(marked, "pair", "pairs") + " named an outlier"
		if g.size > 1 {
			label = pairCounted(marked, "cell", "cells") + " holding a pair named an outlier"
		}
		f.legend = append(f.legend, legendEntry{label: label, thumbs: []plot.Thumbnailer{cellThumb{fill: pairPalette[pairLevels/2], mark: true}}, count: marked})
	}

	dark := "lower bandwidth"
	if c.q.highBad {
		dark = "higher latency"
	}
	what := fmt.Sprintf("%s that each of %s hosts measured toward every other with %s messages: row the measuring host, column the peer; %s of the %s ordered pairs measured. "+
		"Darker is worse (%s), on one scale linear from 0 to %s; grey: not measured.",
		capitalize(c.q.name), pairCount(c.n), units.Bytes(c.Bytes).Human(), pairCount(c.measured), pairCount(c.pairs()), dark, c.q.human(c.hi))
	var grouped string
	if g.size > 1 {
		l := g.layout(draw.NewCanvas(nullCanvas{}, f.Width, f.Height))
		every := ""
		if l.every > 1 {
			every = fmt.Sprintf(", every %s block", ordinal(l.every))
		}
		lastSize := c.n - (g.nb-1)*g.size
		blocks := fmt.Sprintf("%d blocks of %d consecutive hosts", g.nb, g.size)
		if lastSize != g.size {
			blocks += fmt.Sprintf(" (the last of %d)", lastSize)
		}
		grouped = fmt.Sprintf("Grouped: the %s hosts, in the order given, in %s; each cell is the worst pair between two blocks (%s among its measured pairs), so that one slow pair stays visible; the axes name each block's first and last host%s; every pair is in the figure's data.",
			pairCount(c.n), blocks, c.q.worst, every)
		what += " " + grouped
	} else {
		what += " The diagonal (a host toward itself) is blank."
	}
	if g.domain != "" {
		what += fmt.Sprintf(" The axes leave out the domain every host name ends with (%s).", g.domain)
	}
	if c.outliers > 0 {
		what += fmt.Sprintf(" Outlined: the %s judged outliers.", pairCounted(c.outliers, "pair", "pairs"))
	}
	what += " " + c.worstNote()
	f.Notes = appendNotes(nil, c.missingNote("grey"), c.outlierNote("outlined"), grouped, c.worstNote())
	f.Caption = caption(what, c.prov, nil)
	return f, nil
}

// pairHeight is the height of a heatmap of g: room for the square at
// about pairCellTarget a row and for its rotated labels, between
// DefaultHeight and pairMaxHeight.
func pairHeight(g *pairGrid) vg.Length {
	side := min(pairSideMax, max(pairSideMin, pairCellTarget*vg.Length(g.nb)))
	labels := g.labelWidth(labelFont(side / vg.Length(g.nb)))
	// Title, provenance, legend and notes take about 130 pt.
	return min(pairMaxHeight, max(DefaultHeight, side+labels+heatLabelGap+axisLabelHeight()+130))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// ordinal writes 2 as "2nd", 3 as "3rd", 11 as "11th".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// vLine is a vertical reference line at x with a label at its top.
type vLine struct {
	x     float64
	label string
	style draw.LineStyle
}

func (l *vLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.x)
	if x < c.Min.X || x > c.Max.X {
		return
	}
	c.StrokeLine2(l.style, x, c.Min.Y, x, c.Max.Y)
	ts := textStyle(NoteSize, false, MutedColor)
	ts.YAlign = draw.YTop
	at := vg.Point{X: x + 3, Y: c.Max.Y - 3}
	if x > (c.Min.X+c.Max.X)/2 {
		ts.XAlign = draw.XRight
		at.X = x - 3
	}
	rect := ts.Rectangle(l.label)
	box := vg.Rectangle{Min: rect.Min.Add(at), Max: rect.Max.Add(at)}
	box.Min.X -= 1.5
	box.Max.X += 1.5
	c.FillPolygon(color.White, []vg.Point{box.Min, {X: box.Max.X, Y: box.Min.Y}, box.Max, {X: box.Min.X, Y: box.Max.Y}})
	c.FillText(ts, at, l.label)
}

func (l *vLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	return l.x, l.x, math.Inf(1), math.Inf(-1)
}

// PairDistribution draws the distribution of a sweep's measured pairs:
// the share of pairs at or below each value (a step per pair, 0 to 100 %)
// against the value, linear from 0 in the quantity's unit, with the
// median dashed and the pairs the caller named outliers marked (and
// counted). Pairs not measured are left out and counted in a note. The
// data lists every measured pair in the order of its value, with its
// cumulative share.
func PairDistribution(m PairMap) (*Figure, error) {
	c, err := checkPairs(m)
	if err != nil {
		return nil, err
	}
	type pair struct {
		i, j int
		v    float64
	}
	ps := make([]pair, 0, c.measured)
	for i, row := range c.Values {
		for j, v := range row {
			if !math.IsNaN(v) {
				ps = append(ps, pair{i, j, v})
			}
		}
	}
	// By value, then in the hosts' order: one order, run after run.
	slices.SortStableFunc(ps, func(a, b pair) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	scale, ticker, label := c.q.axis(c.hi)
	t := pairTable(c)
	t.Columns = append(t.Columns, numCol("cumulative_percent", "%"))
	var steps stepThinner
	steps.eps = c.hi / scale / cdfResolution
	steps.add(ps[0].v/scale, 0)
	var outs markThinner
	outs.dx, outs.dy = c.hi/scale/markResolutionX, 100.0/markResolutionY
	for k, p := range ps {
		share := 100 * float64(k+1) / float64(len(ps))
		t.add(c.Hosts[p.i], c.Hosts[p.j], p.v, c.q.unit, c.outlier(p.i, p.j), share)
		steps.add(p.v/scale, share)
		if c.outlier(p.i, p.j) {
			outs.add(p.v/scale, share)
		}
	}

	p := newPlot()
	p.X.Min, p.X.Max = 0, c.hi/scale
	p.Y.Min, p.Y.Max = 0, 100
	p.X.Tick.Marker = ticker
	p.Y.Tick.Marker = linearTicks{suffix: "%", round: true}
	line, _ := plotter.NewLine(steps.done())
	line.StepStyle = plotter.PostStep
	line.LineStyle = draw.LineStyle{Color: Blue, Width: LineWidth}
	p.Add(line)
	med := &vLine{x: c.median / scale, label: "median " + c.q.human(c.median), style: draw.LineStyle{Color: MutedColor, Width: vg.Points(0.9), Dashes: Dashed}}
	p.Add(med)
	legend := []legendEntry{{label: fmt.Sprintf("%s (share at or below each value)", pairCounted(c.measured, "measured pair", "measured pairs")), thumbs: []plot.Thumbnailer{line}},
		{label: "median, " + c.q.human(c.median), thumbs: []plot.Thumbnailer{lineThumb{style: med.style}}, count: 1}}
	if len(outs.xys) > 0 {
		sc, _ := plotter.NewScatter(outs.xys)
		sc.GlyphStyle = draw.GlyphStyle{Color: Vermillion, Radius: GlyphRadius, Shape: Mark{Shape: Circle}}
		p.Add(sc)
		legend = append(legend, legendEntry{label: pairCounted(c.outliers, "pair", "pairs") + " named an outlier", thumbs: []plot.Thumbnailer{sc}})
	}

	f := &Figure{Name: "pair-" + c.q.name + "-distribution", Title: c.title("Distribution of the " + c.q.name), Provenance: c.prov,
		Width: DefaultWidth, Height: DefaultHeight, Data: t, legend: legend, legendBelow: true}
	f.panels = []axes{{p: p, xlabel: label + ", " + units.Bytes(c.Bytes).Human() + " messages", ylabel: "pairs at or below"}}
	lo, hi := ps[0].v, ps[len(ps)-1].v
	worse := "lower"
	if c.q.highBad {
		worse = "higher"
	}
	what := fmt.Sprintf("Distribution of the %s of the %s measured pairs of %s hosts (%s messages): the share of pairs at or below each value, a step per pair, on a linear axis from 0; "+
		"lowest %s, median %s (dashed), highest %s; %s is worse.",
		c.q.name, pairCount(c.measured), pairCount(c.n), units.Bytes(c.Bytes).Human(), c.q.human(lo), c.q.human(c.median), c.q.human(hi), worse)
	if c.outliers > 0 {
		what += fmt.Sprintf(" Marked: the %s judged outliers.", pairCounted(c.outliers, "pair", "pairs"))
	} else {
		what += " No pair was named an outlier."
	}
	if c.missing > 0 {
		what += fmt.Sprintf(" %s of the %s ordered pairs were not measured and are not in the distribution.", pairCount(c.missing), pairCount(c.pairs()))
	}
	what += fmt.Sprintf(" Worst pair: %s → %s.", c.text[c.worstI], c.text[c.worstJ])
	outlierNote := c.outlierNote("marked")
	if c.outliers == 0 {
		outlierNote = "Outliers: none."
	}
	f.Notes = appendNotes(nil, c.missingNote("left out"), outlierNote, c.worstNote())
	f.Caption = caption(what, c.prov, nil)
	return f, nil
}

// The distribution draws its steps to a resolution finer than the eye's
// and its marks about a mark apart: a step within 1/cdfResolution of the
// axis of the last one joins it, a mark in the same cell of a grid of
// markResolutionX × markResolutionY across the axes as one drawn (about
// the size of a mark on a figure of the default size) is not drawn
// again. A sweep of a million pairs draws a few thousand points; its data
// holds every pair.
const (
	cdfResolution   = 4000
	markResolutionX = 200
	markResolutionY = 80
)

// stepThinner collects the points of a post-step line, in order of x,
// keeping of each run of points closer than eps in x its last one: the
// riser is drawn at most eps to the right of where it is.
type stepThinner struct {
	eps   float64
	xys   plotter.XYs
	start float64 // x of the run the last point ends
}

func (s *stepThinner) add(x, y float64) {
	if n := len(s.xys); n > 1 && x-s.start < s.eps {
		s.xys[n-1] = plotter.XY{X: x, Y: y}
		return
	}
	s.xys = append(s.xys, plotter.XY{X: x, Y: y})
	s.start = x
}

func (s *stepThinner) done() plotter.XYs { return s.xys }

// markThinner collects marks, leaving out one that would cover one
// already kept.
type markThinner struct {
	dx, dy float64
	xys    plotter.XYs
	seen   map[[2]int64]bool
}

func (m *markThinner) add(x, y float64) {
	if m.seen == nil {
		m.seen = map[[2]int64]bool{}
	}
	k := [2]int64{int64(math.Floor(x / m.dx)), int64(math.Floor(y / m.dy))}
	if m.seen[k] {
		return
	}
	m.seen[k] = true
	m.xys = append(m.xys, plotter.XY{X: x, Y: y})
}
