package plots

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

const sixProv = "measured on 6 hosts by gpupath sweep, 2026-12-04 10:00 UTC"

// sixHosts is a sweep of six hosts n0…n5 in which n3 is slow: its five
// pairs, both directions, at a third of the others' bandwidth (which vary
// a little), named outliers; n0 → n5 and n4 → n1 were not measured.
func sixHosts() PairMap {
	m := PairMap{Quantity: PairBandwidth, Bytes: 1 << 20, Provenance: sixProv}
	for i := range 6 {
		m.Hosts = append(m.Hosts, fmt.Sprintf("n%d", i))
		row, out := make([]float64, 6), make([]bool, 6)
		for j := range row {
			row[j] = 12e9 + 1e8*float64((i+j)%3)
			switch {
			case i == j, i == 0 && j == 5, i == 4 && j == 1:
				row[j] = math.NaN()
			case i == 3 || j == 3:
				row[j] = 4e9
				out[j] = true
			}
		}
		m.Values, m.Outlier = append(m.Values, row), append(m.Outlier, out)
	}
	return m
}

// render draws f as SVG and PNG (a drawing that panics fails the test)
// and onto a recorder, and checks that every line and fill stays inside
// the figure; it returns the recorder's actions.
func render(t *testing.T, f *Figure) []recorder.Action {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSVG(&b, f, 0, 0); err != nil || !strings.Contains(b.String(), "</svg>") {
		t.Fatalf("%s: SVG: %v", f.Name, err)
	}
	if err := WritePNG(io.Discard, f, 0, 0, 72); err != nil {
		t.Fatalf("%s: PNG: %v", f.Name, err)
	}
	rec := &recorder.Canvas{}
	if err := DrawTo(rec, f, 0, 0); err != nil {
		t.Fatal(err)
	}
	depth, bad := 0, 0
	for _, a := range rec.Actions {
		var path vg.Path
		switch x := a.(type) {
		case *recorder.Push:
			depth++
		case *recorder.Pop:
			depth--
		case *recorder.Stroke:
			path = x.Path
		case *recorder.Fill:
			path = x.Path
		}
		if depth != 0 {
			continue // text, drawn rotated about its point
		}
		for _, c := range path {
			if p := c.Pos; p.X < -0.5 || p.Y < -0.5 || p.X > f.Width+0.5 || p.Y > f.Height+0.5 {
				bad++
				if bad <= 3 {
					t.Errorf("%s: drawn at %v, outside %v × %v", f.Name, p, f.Width, f.Height)
				}
			}
		}
	}
	return rec.Actions
}

// drawnText is every string the figure draws.
func drawnText(acts []recorder.Action) []string {
	var out []string
	for _, a := range acts {
		if s, ok := a.(*recorder.FillString); ok {
			out = append(out, s.String)
		}
	}
	return out
}

// whiteStrokes counts the lines drawn in white: the inner line of the
// outlier marks, and nothing else of a heatmap.
func whiteStrokes(acts []recorder.Action) int {
	n, white := 0, false
	for _, a := range acts {
		switch x := a.(type) {
		case *recorder.SetColor:
			r, g, b, al := x.Color.RGBA()
			white = r == 0xffff && g == 0xffff && b == 0xffff && al == 0xffff
		case *recorder.Stroke:
			if white {
				n++
			}
		}
	}
	return n
}

func hasNote(f *Figure, want string) bool { return slices.Contains(f.Notes, want) }

// The six-host map: every measured pair in the data, in the hosts' order;
// the slow host's ten pairs outlined and darker; the two pairs not
// measured grey and counted; the caption says what was measured where.
func TestPairHeatmapSixHosts(t *testing.T) {
	m := sixHosts()
	f, err := PairHeatmap(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Data.Names(); !slices.Equal(got, []string{"host", "peer", "value", "unit", "outlier"}) {
		t.Fatalf("columns %q", got)
	}
	if u := f.Data.Units()["value"]; u != "B/s" {
		t.Errorf("value unit %q", u)
	}
	if f.Data.Len() != 28 {
		t.Fatalf("%d rows, want the 28 measured pairs", f.Data.Len())
	}
	host, peer, val, unit, out := f.Data.Column("host"), f.Data.Column("peer"), f.Data.Column("value"), f.Data.Column("unit"), f.Data.Column("outlier")
	r := 0
	for i := range 6 {
		for j := range 6 {
			if math.IsNaN(m.Values[i][j]) {
				continue
			}
			slow := i == 3 || j == 3
			if host.Text[r] != m.Hosts[i] || peer.Text[r] != m.Hosts[j] || val.Num[r] != m.Values[i][j] || unit.Text[r] != "B/s" || (out.Num[r] == 1) != slow {
				t.Errorf("row %d: %s → %s %v %s outlier %v; want n%d → n%d %v", r, host.Text[r], peer.Text[r], val.Num[r], unit.Text[r], out.Num[r], i, j, m.Values[i][j])
			}
			r++
		}
	}
	var csvOut strings.Builder
	if err := f.Data.WriteCSV(&csvOut); err != nil || !strings.HasPrefix(csvOut.String(), "host,peer,value,unit,outlier\nn0,n1,12100000000,B/s,false\n") ||
		!strings.Contains(csvOut.String(), "n3,n0,4000000000,B/s,true\n") {
		t.Errorf("CSV %v:\n%s", err, csvOut.String())
	}

	for _, want := range []string{"Not measured: 2 of 30 ordered pairs (grey).", "Outliers: 10 of the 28 measured pairs (outlined).",
		"Worst pair: n0 → n3, 4 GB/s (median of the 28 measured pairs 12 GB/s)."} {
		if !hasNote(f, want) {
			t.Errorf("no note %q in %q", want, f.Notes)
		}
	}
	if f.Provenance != sixProv || !strings.Contains(f.Caption, "Data: "+sixProv+".") || !strings.Contains(f.Caption, "Darker is worse (lower bandwidth)") ||
		!strings.Contains(f.Caption, "The diagonal (a host toward itself) is blank.") || strings.Contains(f.Caption, "Grouped") {
		t.Errorf("provenance %q, caption %q", f.Provenance, f.Caption)
	}
	if f.Title != "Bandwidth between every pair of 6 hosts (1 MiB messages)" || f.Name != "pair-bandwidth" {
		t.Errorf("title %q, name %q", f.Title, f.Name)
	}

	// What is drawn: one cell per pair, the slow host's marked and darker.
	c, _ := checkPairs(m)
	g := newPairGrid(c)
	if g.nb != 6 || g.size != 1 || !slices.Equal(g.labels, m.Hosts) {
		t.Fatalf("grid %d × %d of %d, labels %q", g.nb, g.nb, g.size, g.labels)
	}
	for i := range 6 {
		for j := range 6 {
			v, marked := g.cell(i, j)
			if marked != (i != j && (i == 3 || j == 3)) || !(v == m.Values[i][j] || math.IsNaN(v) && math.IsNaN(m.Values[i][j])) || g.blank(i, j) != (i == j) {
				t.Errorf("cell %d,%d: %v marked %v blank %v", i, j, v, marked, g.blank(i, j))
			}
		}
	}
	if grey, marked := g.counts(); grey != 2 || marked != 10 {
		t.Errorf("%d grey cells, %d marked; want 2 and 10", grey, marked)
	}
	if !(g.scale.goodness(4e9) < 0.4 && g.scale.goodness(12e9) > 0.7) {
		t.Errorf("goodness of 4 GB/s %v, of 12 GB/s %v: the slow host is not darker", g.scale.goodness(4e9), g.scale.goodness(12e9))
	}
	lay := f.Layout()
	if len(lay.Legend) != 2 || lay.Legend[0].Label != "2 pairs not measured" || lay.Legend[0].Drawn != 2 ||
		lay.Legend[1].Label != "10 pairs named an outlier" || lay.Legend[1].Drawn != 10 {
		t.Errorf("legend %+v", lay.Legend)
	}
	acts := render(t, f)
	// Ten marks in the map, one in the legend.
	if n := whiteStrokes(acts); n != 11 {
		t.Errorf("%d outlier marks drawn, want 10 and the legend's", n)
	}
	text := strings.Join(drawnText(acts), "\n")
	for _, want := range []string{"n0", "n5", "measuring host", "peer", "bandwidth (GB/s), dark: low", f.Title} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not drawn", want)
		}
	}
}

// Latency: high is bad, so the scale turns over and the worst pair is the
// highest.
func TestPairHeatmapLatency(t *testing.T) {
	m := sixHosts()
	m.Quantity = PairLatency
	m.Bytes = 8
	for i, row := range m.Values {
		for j, v := range row {
			if !math.IsNaN(v) {
				m.Values[i][j] = 1e-6 * 12e9 / v // the slow host's at 3 µs
			}
		}
	}
	f, err := PairHeatmap(m)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := checkPairs(m)
	g := newPairGrid(c)
	if !(g.scale.goodness(3e-6) < g.scale.goodness(1e-6)) || f.Data.Units()["value"] != "s" || f.Data.Column("unit").Text[0] != "s" {
		t.Errorf("latency scale or unit wrong: %v %v %v", g.scale.goodness(3e-6), g.scale.goodness(1e-6), f.Data.Units())
	}
	if !strings.Contains(f.Caption, "Darker is worse (higher latency)") || !strings.Contains(strings.Join(f.Notes, " "), "Worst pair: n0 → n3, 3 µs") {
		t.Errorf("caption %q notes %q", f.Caption, f.Notes)
	}
	text := strings.Join(drawnText(render(t, f)), "\n")
	if !strings.Contains(text, "latency, dark: high") || !strings.Contains(text, "µs") {
		t.Errorf("colour bar not in seconds: %q", text)
	}
	d, err := PairDistribution(m)
	if err != nil {
		t.Fatal(err)
	}
	render(t, d)
}

// The distribution: every measured pair in the order of its value with
// its cumulative share, the median marked, the outliers marked and
// counted.
func TestPairDistribution(t *testing.T) {
	m := sixHosts()
	f, err := PairDistribution(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Data.Names(); !slices.Equal(got, []string{"host", "peer", "value", "unit", "outlier", "cumulative_percent"}) {
		t.Fatalf("columns %q", got)
	}
	val, out, cum := f.Data.Column("value"), f.Data.Column("outlier"), f.Data.Column("cumulative_percent")
	if f.Data.Len() != 28 || !slices.IsSorted(val.Num) || cum.Num[27] != 100 || math.Abs(cum.Num[0]-100.0/28) > 1e-12 {
		t.Fatalf("%d rows, values %v, shares %v", f.Data.Len(), val.Num, cum.Num)
	}
	for r := range 28 {
		if (out.Num[r] == 1) != (r < 10) || (r < 10) != (val.Num[r] == 4e9) {
			t.Errorf("row %d: %v outlier %v: the ten slow pairs come first, as outliers", r, val.Num[r], out.Num[r])
		}
	}
	var vals []float64
	for _, row := range m.Values {
		for _, v := range row {
			if !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
	}
	slices.Sort(vals)
	median := (vals[13] + vals[14]) / 2
	c, _ := checkPairs(m)
	if c.median != median {
		t.Errorf("median %v, want %v", c.median, median)
	}
	for _, want := range []string{"Not measured: 2 of 30 ordered pairs (left out).", "Outliers: 10 of the 28 measured pairs (marked)."} {
		if !hasNote(f, want) {
			t.Errorf("no note %q in %q", want, f.Notes)
		}
	}
	if !strings.Contains(f.Caption, "median 12 GB/s (dashed), highest 12.2 GB/s; lower is worse.") || !strings.Contains(f.Caption, "Marked: the 10 pairs judged outliers.") ||
		!strings.Contains(f.Caption, "Data: "+sixProv+".") {
		t.Errorf("caption %q", f.Caption)
	}
	lay := f.Layout()
	if len(lay.Legend) != 3 || lay.Legend[1].Label != "median, 12 GB/s" || lay.Legend[2].Label != "10 pairs named an outlier" || lay.Legend[2].Drawn != 10 {
		t.Errorf("legend %+v", lay.Legend)
	}
	for _, b := range lay.Legend {
		if b.Drawn == 0 {
			t.Errorf("legend entry %q stands for nothing drawn", b.Label)
		}
	}
	text := strings.Join(drawnText(render(t, f)), "\n")
	if !strings.Contains(text, "median 12 GB/s") {
		t.Errorf("median not drawn: %q", text)
	}

	// No outlier named: none marked, the note says so.
	m.Outlier = nil
	f, err = PairDistribution(m)
	if err != nil || !hasNote(f, "Outliers: none.") || len(f.legend) != 2 {
		t.Errorf("%v, notes %q", err, f.Notes)
	}
}

// hosts200 is a sweep of 200 hosts n000…n199 with pairs not measured, a
// few slow pairs (named outliers) and a pair of blocks with no pair
// measured at all (hosts 40–43 toward 80–83).
func hosts200(q string) PairMap {
	const n = 200
	m := PairMap{Quantity: q, Bytes: 1 << 20, Provenance: "measured on 200 hosts by gpupath sweep, 2026-12-04"}
	for i := range n {
		m.Hosts = append(m.Hosts, fmt.Sprintf("n%03d", i))
		row, out := make([]float64, n), make([]bool, n)
		for j := range row {
			v := 10e9 * (1 + 0.01*float64((i*7+j*13)%11))
			if q == PairLatency {
				v = 2e-6 * (1 + 0.01*float64((i*7+j*13)%11))
			}
			switch {
			case i == j, (i*31+j*17)%29 == 0, i >= 40 && i < 44 && j >= 80 && j < 84:
				v = math.NaN()
			case (i*5+j*3)%97 == 0:
				if q == PairLatency {
					v *= 4
				} else {
					v /= 4
				}
				out[j] = true
			}
			row[j] = v
		}
		m.Values, m.Outlier = append(m.Values, row), append(m.Outlier, out)
	}
	return m
}

// Past 64 hosts the map groups them: 200 hosts in 50 blocks of 4, each
// cell the worst of its pairs (computed here again from the pairs), the
// axes naming each block's first and last host; the data still holds
// every pair.
func TestPairHeatmapGrouped(t *testing.T) {
	for _, q := range []string{PairBandwidth, PairLatency} {
		t.Run(q, func(t *testing.T) {
			m := hosts200(q)
			f, err := PairHeatmap(m)
			if err != nil {
				t.Fatal(err)
			}
			c, _ := checkPairs(m)
			g := newPairGrid(c)
			if g.nb != 50 || g.nb > MaxPairBlocks || g.size != 4 || len(g.labels) != 50 {
				t.Fatalf("%d blocks of %d, %d labels", g.nb, g.size, len(g.labels))
			}
			grey := 0
			for a := range 50 {
				if want := fmt.Sprintf("n%03d–n%03d", 4*a, 4*a+3); g.labels[a] != want {
					t.Errorf("block %d labelled %q, want %q", a, g.labels[a], want)
				}
				for b := range 50 {
					want, marked := math.NaN(), false
					for i := 4 * a; i < 4*a+4; i++ {
						for j := 4 * b; j < 4*b+4; j++ {
							v := m.Values[i][j]
							if math.IsNaN(v) {
								continue
							}
							if math.IsNaN(want) || q == PairBandwidth && v < want || q == PairLatency && v > want {
								want = v
							}
							marked = marked || m.Outlier[i][j]
						}
					}
					got, gotMark := g.cell(a, b)
					if !(got == want || math.IsNaN(got) && math.IsNaN(want)) || gotMark != marked {
						t.Errorf("block %d × %d: %v marked %v, want %v marked %v", a, b, got, gotMark, want, marked)
					}
					if math.IsNaN(want) {
						grey++
					}
				}
			}
			if v, _ := g.cell(10, 20); !math.IsNaN(v) || grey != 1 {
				t.Errorf("hosts 40–43 toward 80–83: %v; %d grey blocks, want that one", v, grey)
			}
			if g.blank(3, 3) {
				t.Error("a block toward itself holds the pairs within it: not blank")
			}
			if f.Data.Len() != c.measured || c.measured < 30000 {
				t.Errorf("%d rows for %d measured pairs", f.Data.Len(), c.measured)
			}
			grouped := "Grouped: the 200 hosts, in the order given, in 50 blocks of 4 consecutive hosts; each cell is the worst pair between two blocks (" + c.q.worst
			if !strings.Contains(f.Caption, grouped) || !strings.Contains(strings.Join(f.Notes, "\n"), grouped) {
				t.Errorf("caption %q\nnotes %q", f.Caption, f.Notes)
			}
			l := g.layout(draw.NewCanvas(nullCanvas{}, f.Width, f.Height))
			if l.every != 1 || l.font < pairLabelMin || l.side < 250 || l.x0+l.side > f.Width {
				t.Errorf("layout %+v", l)
			}
			lay := f.Layout()
			if len(lay.Legend) != 2 || lay.Legend[0].Drawn != 1 || !strings.HasPrefix(lay.Legend[0].Label, "1 cell of blocks with no pair measured") {
				t.Errorf("legend %+v", lay.Legend)
			}
			text := strings.Join(drawnText(render(t, f)), "\n")
			for _, want := range []string{"n000–n003", "n196–n199", "measuring hosts (blocks of 4)"} {
				if !strings.Contains(text, want) {
					t.Errorf("%q not drawn", want)
				}
			}
			if _, h := f.Size(); h > pairMaxHeight || h < DefaultHeight {
				t.Errorf("height %v", h)
			}
			d, err := PairDistribution(m)
			if err != nil {
				t.Fatal(err)
			}
			render(t, d)
			if d.Data.Len() != c.measured {
				t.Errorf("distribution: %d rows", d.Data.Len())
			}
		})
	}
}

// Block sizes and labels: at most MaxPairBlocks blocks for any number of
// hosts, every k-th block labelled where they would crowd, long names cut
// in the middle and a block's last host written without what it shares
// with the first.
func TestPairBlocks(t *testing.T) {
	for _, n := range []int{2, 64, 65, 128, 129, 200, 1024, 5000} {
		size := pairBlockSize(n)
		nb := (n + size - 1) / size
		if nb > MaxPairBlocks || (n <= MaxPairBlocks) != (size == 1) || (nb-1)*size >= n {
			t.Errorf("%d hosts: %d blocks of %d", n, nb, size)
		}
	}
	if labelEvery(vg.Points(8)) != 1 || labelEvery(vg.Points(2)) != 3 {
		t.Errorf("label every %d at 8 pt, %d at 2 pt", labelEvery(vg.Points(8)), labelEvery(vg.Points(2)))
	}
	for _, c := range [][3]string{
		{"n000", "n003", "n000–n003"},
		{"gpu-node-0001", "gpu-node-0004", "gpu-node-0001–0004"},
		{"a-very-long-host-name-01.example.org", "a-very-long-host-name-99.example.org", "a-ve…mple.org–99.example.org"},
	} {
		if got := blockLabel(c[0], c[1]); got != c[2] {
			t.Errorf("blockLabel(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	if got := cutLabel("gpu-node-rack12-slot04-0001-a", maxHostLabel); got != "gpu-nod…12-slot04-0001-a" {
		t.Errorf("cut to %q", got)
	}
	for _, c := range []struct {
		hosts []string
		want  string
	}{
		{[]string{"a.x.org", "b.x.org"}, ".x.org"}, {[]string{"a.x.org", "b.y.org"}, ""}, {[]string{"a.x.org", "b"}, ""}, {[]string{"a.", "b."}, ""}, {[]string{".x", ".x"}, ""},
	} {
		if got := commonDomain(c.hosts); got != c.want {
			t.Errorf("commonDomain(%q) = %q, want %q", c.hosts, got, c.want)
		}
	}
	// A sweep of 5,000 hosts of one domain: 64 blocks, named by their
	// hosts without it.
	m := PairMap{Quantity: PairLatency, Bytes: 8, Provenance: "p"}
	for i := range 5000 {
		m.Hosts = append(m.Hosts, fmt.Sprintf("host-%05d.example.org", i))
	}
	for i := range 5000 {
		row := make([]float64, 5000)
		for j := range row {
			row[j] = math.NaN()
		}
		row[(i+1)%5000] = 2e-6
		m.Values = append(m.Values, row)
	}
	f, err := PairHeatmap(m)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := checkPairs(m)
	g := newPairGrid(c)
	if g.nb != 64 || g.domain != ".example.org" || g.labels[0] != "host-00000–00078" || g.labels[63] != "host-04977–04999" ||
		!strings.Contains(f.Caption, "The axes leave out the domain every host name ends with (.example.org).") {
		t.Errorf("%d blocks, domain %q, labels %q … %q; caption %q", g.nb, g.domain, g.labels[0], g.labels[63], f.Caption)
	}
	render(t, f)
}

// A host name with ESC, BEL and a newline, and markup, reaches neither the
// figures' text nor their CSV raw: the text shows its escape, the CSV
// and the JSON rows hold no control character, and the data keeps the
// name itself.
func TestPairMapEscaping(t *testing.T) {
	bad := "evil\x1b]0;pwn\x07\nhost<b>"
	m := sixHosts()
	m.Hosts[3] = bad
	m.Provenance = "measured on \x1b[2J6 hosts"
	for _, mk := range []func(PairMap) (*Figure, error){PairHeatmap, PairDistribution} {
		f, err := mk(m)
		if err != nil {
			t.Fatal(err)
		}
		acts := render(t, f)
		texts := append([]string{f.Title, f.Provenance, f.Caption}, f.Notes...)
		texts = append(texts, drawnText(acts)...)
		for _, s := range texts {
			if !termtext.Safe(s, false) {
				t.Errorf("%s: control character in %q", f.Name, s)
			}
		}
		if want := termtext.Line(bad); !strings.Contains(f.Caption, want) || !strings.Contains(strings.Join(f.Notes, " "), want) {
			t.Errorf("%s: the escaped name %q is not in the caption %q", f.Name, want, f.Caption)
		}
		svg, err := SVG(f, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(svg, "\x1b\x07") || strings.Contains(svg, "<b>") || !strings.Contains(svg, `evil\x1b]0;pwn\x07\x0ahost&lt;b&gt;`) {
			t.Errorf("%s: the name reaches the SVG raw, or not escaped", f.Name)
		}
		var b bytes.Buffer
		if err := f.Data.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if !termtext.Safe(out, true) || err != nil || len(recs) != f.Data.Len()+1 || strings.Count(out, "\n") != f.Data.Len()+1 {
			t.Errorf("%s: CSV with control characters or broken records (%v): %q", f.Name, err, out)
		}
		for _, r := range f.Data.JSONRows() {
			if !json.Valid(r) || !termtext.Safe(string(r), false) {
				t.Errorf("%s: JSON row %q", f.Name, r)
			}
		}
		if !slices.Contains(f.Data.Column("host").Text, bad) {
			t.Errorf("%s: the data does not keep the name as given", f.Name)
		}
	}
}

// Bad input is an error wrapping ErrInput, from both figures.
func TestPairMapErrors(t *testing.T) {
	mod := func(f func(m *PairMap)) PairMap {
		m := sixHosts()
		f(&m)
		return m
	}
	for name, m := range map[string]PairMap{
		"unknown quantity": mod(func(m *PairMap) { m.Quantity = "jitter" }),
		"no quantity":      mod(func(m *PairMap) { m.Quantity = "" }),
		"one host":         {Quantity: PairBandwidth, Hosts: []string{"a"}, Values: [][]float64{{math.NaN()}}, Bytes: 8, Provenance: "p"},
		"no host":          {Quantity: PairBandwidth, Bytes: 8, Provenance: "p"},
		"rows":             mod(func(m *PairMap) { m.Values = m.Values[:5] }),
		"row length":       mod(func(m *PairMap) { m.Values[2] = m.Values[2][:5] }),
		"outlier rows":     mod(func(m *PairMap) { m.Outlier = m.Outlier[:1] }),
		"outlier length":   mod(func(m *PairMap) { m.Outlier[4] = append(m.Outlier[4], true) }),
		"nothing measured": mod(func(m *PairMap) {
			m.Outlier = nil
			for _, row := range m.Values {
				for j := range row {
					row[j] = math.NaN()
				}
			}
		}),
		"negative":          mod(func(m *PairMap) { m.Values[1][2] = -1 }),
		"+Inf":              mod(func(m *PairMap) { m.Values[1][2] = math.Inf(1) }),
		"-Inf":              mod(func(m *PairMap) { m.Values[2][1] = math.Inf(-1) }),
		"diagonal":          mod(func(m *PairMap) { m.Values[2][2] = 1e9 }),
		"host twice":        mod(func(m *PairMap) { m.Hosts[4] = "n1" }),
		"host without name": mod(func(m *PairMap) { m.Hosts[4] = " " }),
		"no size":           mod(func(m *PairMap) { m.Bytes = 0 }),
		"no provenance":     mod(func(m *PairMap) { m.Provenance = "" }),
		"outlier not measured": mod(func(m *PairMap) {
			m.Outlier[0][5] = true
		}),
	} {
		for fig, mk := range map[string]func(PairMap) (*Figure, error){"heatmap": PairHeatmap, "distribution": PairDistribution} {
			f, err := mk(m)
			if f != nil || !errors.Is(err, ErrInput) {
				t.Errorf("%s, %s: figure %v, error %v", name, fig, f != nil, err)
			}
		}
	}
	// Zero is a value (a link that carried nothing), not an error.
	m := sixHosts()
	m.Values[1][2] = 0
	if _, err := PairHeatmap(m); err != nil {
		t.Errorf("a zero bandwidth: %v", err)
	}
}

// sparse1024 is a sweep of 1,024 hosts of which each measured nine peers
// (the next nine, around the ring): 9,216 pairs, the rest not measured;
// one host slow.
func sparse1024(q string) PairMap {
	const n = 1024
	m := PairMap{Quantity: q, Bytes: 1 << 20, Provenance: "measured on 1024 hosts by gpupath sweep, 2026-12-04"}
	for i := range n {
		m.Hosts = append(m.Hosts, fmt.Sprintf("gpu%04d", i))
		row, out := make([]float64, n), make([]bool, n)
		for j := range row {
			row[j] = math.NaN()
		}
		for k := 1; k <= 9; k++ {
			j := (i + k) % n
			row[j] = 24e9 * (1 + 0.01*float64((i+k)%5))
			if i == 517 {
				row[j] /= 3
				out[j] = true
			}
		}
		m.Values, m.Outlier = append(m.Values, row), append(m.Outlier, out)
	}
	return m
}

// A sweep of 1,024 hosts and 9,216 pairs builds and draws (SVG) in well
// under the 5 s a report may take; here, a small part of it.
func TestPairHeatmap1024(t *testing.T) {
	m := sparse1024(PairBandwidth)
	start := time.Now()
	f, err := PairHeatmap(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := PairDistribution(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, fig := range []*Figure{f, d} {
		if err := WriteSVG(io.Discard, fig, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("building and drawing took %v", took)
	}
	if f.Data.Len() != 9216 || d.Data.Len() != 9216 {
		t.Errorf("%d and %d rows, want 9216", f.Data.Len(), d.Data.Len())
	}
	c, _ := checkPairs(m)
	g := newPairGrid(c)
	if g.nb != 64 || g.size != 16 || g.labels[0] != "gpu0000–gpu0015" {
		t.Errorf("%d blocks of %d, first %q", g.nb, g.size, g.labels[0])
	}
	// The slow host's block row is the darkest: its worst pair is the
	// map's worst.
	if v, marked := g.cell(517/16, 518/16); v != c.Values[c.worstI][c.worstJ] || !marked || c.worstI != 517 {
		t.Errorf("the slow host's block: %v marked %v; worst pair %d → %d", v, marked, c.worstI, c.worstJ)
	}
	render(t, f)
}

func BenchmarkPairHeatmap1024(b *testing.B) {
	m := sparse1024(PairBandwidth)
	b.ReportAllocs()
	for b.Loop() {
		f, err := PairHeatmap(m)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteSVG(io.Discard, f, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPairDistribution1024(b *testing.B) {
	m := sparse1024(PairLatency)
	for i, row := range m.Values {
		for j, v := range row {
			if !math.IsNaN(v) {
				m.Values[i][j] = 1e-6 * 24e9 / v
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := PairDistribution(m)
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteSVG(io.Discard, f, 0, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// The figures may be drawn from several goroutines at once (the report
// writes SVG and PDF side by side); run with -race.
func TestPairConcurrentDraw(t *testing.T) {
	m := hosts200(PairBandwidth)
	f, err := PairHeatmap(m)
	if err != nil {
		t.Fatal(err)
	}
	d, err := PairDistribution(m)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := SVG(f, 0, 0)
	done := make(chan string)
	for range 3 {
		go func() {
			s, _ := SVG(f, 0, 0)
			_, _ = SVG(d, 0, 0)
			done <- s
		}()
	}
	for range 3 {
		if <-done != want {
			t.Error("the SVG differs between draws")
		}
	}
}
