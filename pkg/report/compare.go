package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/units"
)

// Comparison asks the report to compare two runs (gpupath report --data A
// --data B): B against A, per series and size, with the speed ratio and a
// bootstrap interval where both runs recorded repetitions.
type Comparison struct {
	A, B CompareRun
	// Seed makes the bootstrap intervals deterministic.
	Seed uint64
}

// CompareRun is one run's series for a comparison.
type CompareRun struct {
	Source string
	Series []CompareSeries
}

// CompareSeries is one series: Key pairs it with the other run's.
type CompareSeries struct {
	Key, Label string
	Quantity
	Points []ComparePoint
}

// ComparePoint is one size: the value (seconds per message for latency and
// cost, bytes per second for bandwidth) and the repetitions, when the run
// recorded them (the same quantity each).
type ComparePoint struct {
	Bytes   units.Bytes
	Value   float64
	Samples []float64
}

// noiseBand is the change below which two runs without repetitions are
// said to agree: a difference this small is within what repeated runs of
// one setup differ by (the bench results of this repository move by 1–3%
// between runs on one machine).
const noiseBand = 0.03

// speed turns a ratio of values into "how many times faster is B": for a
// time A/B, for a rate B/A.
func speed(q Quantity, a, b float64) float64 {
	if q == Bandwidth {
		return b / a
	}
	return a / b
}

type compared struct {
	label string
	q     Quantity
	rows  []compareRow
	total fit.Interval
	n     int
	err   error
}

type compareRow struct {
	bytes    units.Bytes
	a, b     float64
	ratio    fit.Interval
	interval bool
	verdict  string
}

func (b *builder) compare(sec *section, cmp *Comparison) {
	sec.p("Run B (%s) against run A (%s), series by series and size by size. The ratio is how many times faster B is: A's time over B's for latencies and costs, B's rate over A's for bandwidths (above 1: B is faster). Where both runs recorded repetitions the interval is a %d%% bootstrap of the ratio of medians; across sizes, of the geometric mean of the ratios.",
		cmp.B.Source, cmp.A.Source, int(fit.DefaultLevel*100))
	opt := fit.Options{Seed: cmp.Seed}
	idx := map[string]CompareSeries{}
	for _, s := range cmp.A.Series {
		idx[s.Key] = s
	}
	var onlyA, onlyB []string
	seenB := map[string]bool{}
	var results []compared
	for _, sb := range cmp.B.Series {
		seenB[sb.Key] = true
		sa, ok := idx[sb.Key]
		if !ok {
			onlyB = append(onlyB, sb.Label)
			continue
		}
		results = append(results, compareSeries(sa, sb, opt))
	}
	for _, sa := range cmp.A.Series {
		if !seenB[sa.Key] {
			onlyA = append(onlyA, sa.Label)
		}
	}
	if len(results) == 0 {
		sec.note("The two runs have no series in common (the same probe or tool, variant, path and target): nothing to compare.")
	}
	var verdicts []string
	for _, r := range results {
		if len(r.rows) == 0 {
			continue
		}
		sec.table(compareTable(r, cmp))
		verdicts = append(verdicts, r.label+": "+overall(r))
	}
	if len(verdicts) > 0 {
		sec.p("Verdicts:")
		sec.list(verdicts)
	}
	if len(onlyA) > 0 {
		sec.p("Only in run A: %s.", strings.Join(onlyA, ", "))
	}
	if len(onlyB) > 0 {
		sec.p("Only in run B: %s.", strings.Join(onlyB, ", "))
	}
}

func compareSeries(sa, sb CompareSeries, opt fit.Options) compared {
	r := compared{label: sb.Label, q: sb.Quantity}
	pa := map[units.Bytes]ComparePoint{}
	for _, p := range sa.Points {
		if finitePos(p.Value) {
			pa[p.Bytes] = p
		}
	}
	var ratios []float64
	for _, p := range sb.Points {
		a, ok := pa[p.Bytes]
		if !ok || !finitePos(p.Value) {
			continue
		}
		row := compareRow{bytes: p.Bytes, a: a.Value, b: p.Value}
		a.Samples, p.Samples = finitePositive(a.Samples), finitePositive(p.Samples)
		v := speed(sb.Quantity, a.Value, p.Value)
		row.ratio = fit.Interval{Value: v, Lo: v, Hi: v}
		if len(a.Samples) >= 2 && len(p.Samples) >= 2 {
			if iv, err := fit.RatioOfMedians(a.Samples, p.Samples, opt); err == nil {
				if sb.Quantity != Bandwidth { // times: A over B is the inverse of median(B)/median(A)
					iv = fit.Interval{Value: 1 / iv.Value, Lo: 1 / iv.Hi, Hi: 1 / iv.Lo}
				}
				row.ratio, row.interval = iv, true
				row.ratio.Value = v // the ratio of the values the runs report
				row.ratio.Lo, row.ratio.Hi = math.Min(row.ratio.Lo, v), math.Max(row.ratio.Hi, v)
			}
		}
		row.verdict = rowVerdict(row)
		ratios = append(ratios, v)
		r.rows = append(r.rows, row)
	}
	sort.Slice(r.rows, func(i, j int) bool { return r.rows[i].bytes < r.rows[j].bytes })
	r.n = len(ratios)
	if len(ratios) > 0 {
		r.total, r.err = fit.GeoMean(ratios, opt)
	}
	return r
}

func finitePositive(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if finitePos(x) {
			out = append(out, x)
		}
	}
	return out
}

func rowVerdict(r compareRow) string {
	if r.interval {
		switch {
		case r.ratio.Lo > 1:
			return "faster"
		case r.ratio.Hi < 1:
			return "slower"
		}
		return "no change within noise"
	}
	switch v := r.ratio.Value; {
	case v > 1+noiseBand:
		return "faster (no repetitions)"
	case v < 1-noiseBand:
		return "slower (no repetitions)"
	}
	return fmt.Sprintf("within ±%.0f%% (no repetitions)", noiseBand*100)
}

func ratioText(v float64) string { return trim(fmt.Sprintf("%.3f", v)) + "×" }

// overall says how B compares with A across the sizes.
func overall(r compared) string {
	if r.err != nil || r.n == 0 {
		return "no size in common"
	}
	t := r.total
	switch {
	case r.n == 1 && !r.rows[0].interval:
		return fmt.Sprintf("one size, no repetitions: %s, %s", ratioText(t.Value), r.rows[0].verdict)
	case r.n == 1:
		t = r.rows[0].ratio
	}
	iv := fmt.Sprintf("%s (%s–%s over %d size(s))", ratioText(t.Value), ratioText(t.Lo), ratioText(t.Hi), r.n)
	switch {
	case t.Lo > 1:
		return "B is faster: " + iv
	case t.Hi < 1:
		return "B is slower: " + iv
	case math.Abs(t.Value-1) <= noiseBand || t.Lo <= 1 && t.Hi >= 1:
		return "no change within noise: " + iv
	}
	return iv
}

func compareTable(r compared, cmp *Comparison) *docTable {
	t := &docTable{Caption: r.label + ": B against A.", Head: []string{"size", "A", "B", "B faster by", "interval", "verdict"},
		Widths: []float64{0.8, 1, 1, 0.9, 1.3, 1.8}, Right: []bool{true, true, true, true, true, false}}
	val := func(v float64) string {
		if r.q == Bandwidth {
			return units.Rate(v).Human()
		}
		return units.Seconds(v).Human()
	}
	for _, row := range pickRows(r.rows, 12) {
		iv := "—"
		if row.interval {
			iv = ratioText(row.ratio.Lo) + " – " + ratioText(row.ratio.Hi)
		}
		size := "—"
		if row.bytes >= 1 {
			size = row.bytes.Human()
		}
		t.Rows = append(t.Rows, []cell{c(size), c(val(row.a)), c(val(row.b)), c(ratioText(row.ratio.Value)), {Text: iv, NoWrap: true}, c(row.verdict)})
	}
	return t
}

func pickRows(rs []compareRow, n int) []compareRow {
	if len(rs) <= n {
		return rs
	}
	out := make([]compareRow, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, rs[i*(len(rs)-1)/(n-1)])
	}
	return out
}
