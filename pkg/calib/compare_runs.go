package calib

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// RunComparison is one run (B) against another (A), series by series and
// size by size (CompareRuns).
type RunComparison struct {
	// Series are the series both runs hold, in B's order.
	Series []SeriesComparison
	// OnlyA and OnlyB are the labels of the series only one run holds.
	OnlyA, OnlyB []string
}

// SeriesComparison is one series of B against the same series of A.
type SeriesComparison struct {
	Label    string
	Quantity record.Quantity
	// Rows are the sizes both runs measured, ascending.
	Rows []RatioRow
	// Total is the geometric mean of the rows' ratios with its bootstrap
	// interval; Err says why there is none. Verdict says how B compares
	// with A across the sizes.
	Total   fit.Interval
	Err     error
	Verdict string
}

// RatioRow is one size both runs measured: their values (seconds per
// message for a latency or a cost, bytes per second for a bandwidth), how
// many times faster B is (A's time over B's, B's rate over A's), with a
// bootstrap interval where both runs recorded repetitions (Interval), and
// the verdict at that size.
type RatioRow struct {
	Bytes    units.Bytes
	A, B     float64
	Ratio    fit.Interval
	Interval bool
	Verdict  string
}

// NoiseBand is the change below which two runs without repetitions are
// said to agree: a difference this small is within what repeated runs of
// one setup differ by (the bench results of this repository move by 1–3%
// between runs on one machine).
const NoiseBand = 0.03

// CompareRuns compares run B's series with run A's: series are paired by
// their key (record.SeriesKey), and at each size both measured the ratio
// says how many times faster B is, with a bootstrap interval of the ratio of
// medians (opt: level, resamples, seed) where both runs recorded
// repetitions; across the sizes, the geometric mean of the ratios with its
// interval. A point's value is its rate for a bandwidth, its median time
// otherwise; values and repetitions that are not positive and finite are
// left out.
func CompareRuns(a, b []record.Series, opt fit.Options) RunComparison {
	var out RunComparison
	idx := map[record.SeriesKey]record.Series{}
	for _, s := range a {
		idx[s.SeriesKey] = s
	}
	seenB := map[record.SeriesKey]bool{}
	for _, sb := range b {
		seenB[sb.SeriesKey] = true
		sa, ok := idx[sb.SeriesKey]
		if !ok {
			out.OnlyB = append(out.OnlyB, sb.Label)
			continue
		}
		out.Series = append(out.Series, compareSeries(sa, sb, opt))
	}
	for _, sa := range a {
		if !seenB[sa.SeriesKey] {
			out.OnlyA = append(out.OnlyA, sa.Label)
		}
	}
	return out
}

// speed turns a ratio of values into "how many times faster is B": for a
// time A/B, for a rate B/A.
func speed(q record.Quantity, a, b float64) float64 {
	if q == record.Bandwidth {
		return b / a
	}
	return a / b
}

// valueOf is what a comparison compares of a point: its rate for a
// bandwidth, its median time otherwise; samples are its repetitions in the
// same quantity (a rate: the size over each time).
func valueOf(q record.Quantity, p record.Point) (float64, []float64) {
	if q != record.Bandwidth {
		return float64(p.Median), positiveFinite(p.Samples)
	}
	if p.Bytes <= 0 {
		return float64(p.Rate), nil
	}
	rates := make([]float64, 0, len(p.Samples))
	for _, t := range p.Samples {
		if t > 0 {
			rates = append(rates, float64(p.Bytes)/t)
		}
	}
	return float64(p.Rate), positiveFinite(rates)
}

func compareSeries(sa, sb record.Series, opt fit.Options) SeriesComparison {
	r := SeriesComparison{Label: sb.Label, Quantity: sb.Quantity}
	type value struct {
		v       float64
		samples []float64
	}
	pa := map[units.Bytes]value{}
	for _, p := range sa.Points {
		if v, samples := valueOf(sa.Quantity, p); finitePositive(v) && !math.IsNaN(v) {
			pa[p.Bytes] = value{v, samples}
		}
	}
	var ratios []float64
	for _, p := range sb.Points {
		a, ok := pa[p.Bytes]
		bv, bs := valueOf(sb.Quantity, p)
		if !ok || !finitePositive(bv) || math.IsNaN(bv) {
			continue
		}
		row := RatioRow{Bytes: p.Bytes, A: a.v, B: bv}
		v := speed(sb.Quantity, a.v, bv)
		row.Ratio = fit.Interval{Value: v, Lo: v, Hi: v}
		if len(a.samples) >= 2 && len(bs) >= 2 {
			if iv, err := fit.RatioOfMedians(a.samples, bs, opt); err == nil {
				if sb.Quantity != record.Bandwidth { // times: A over B is the inverse of median(B)/median(A)
					iv = fit.Interval{Value: 1 / iv.Value, Lo: 1 / iv.Hi, Hi: 1 / iv.Lo}
				}
				row.Ratio, row.Interval = iv, true
				row.Ratio.Value = v // the ratio of the values the runs report
				row.Ratio.Lo, row.Ratio.Hi = math.Min(row.Ratio.Lo, v), math.Max(row.Ratio.Hi, v)
			}
		}
		row.Verdict = rowVerdict(row)
		ratios = append(ratios, v)
		r.Rows = append(r.Rows, row)
	}
	sort.SliceStable(r.Rows, func(i, j int) bool { return r.Rows[i].Bytes < r.Rows[j].Bytes })
	if len(ratios) > 0 {
		r.Total, r.Err = fit.GeoMean(ratios, opt)
	}
	r.Verdict = overall(r)
	return r
}

// positiveFinite keeps the positive finite values.
func positiveFinite(xs []float64) []float64 {
	var out []float64
	for _, x := range xs {
		if finitePositive(x) && !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

func rowVerdict(r RatioRow) string {
	if r.Interval {
		switch {
		case r.Ratio.Lo > 1:
			return "faster"
		case r.Ratio.Hi < 1:
			return "slower"
		}
		return "no change within noise"
	}
	switch v := r.Ratio.Value; {
	case v > 1+NoiseBand:
		return "faster (no repetitions)"
	case v < 1-NoiseBand:
		return "slower (no repetitions)"
	}
	return fmt.Sprintf("within ±%.0f%% (no repetitions)", NoiseBand*100)
}

// RatioText spells a ratio as the verdicts do: "1.25×".
func RatioText(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s + "×"
}

// overall says how B compares with A across the sizes.
func overall(r SeriesComparison) string {
	n := len(r.Rows)
	if r.Err != nil || n == 0 {
		return "no size in common"
	}
	t := r.Total
	switch {
	case n == 1 && !r.Rows[0].Interval:
		return fmt.Sprintf("one size, no repetitions: %s, %s", RatioText(t.Value), r.Rows[0].Verdict)
	case n == 1:
		t = r.Rows[0].Ratio
	}
	iv := fmt.Sprintf("%s (%s–%s over %d size(s))", RatioText(t.Value), RatioText(t.Lo), RatioText(t.Hi), n)
	switch {
	case t.Lo > 1:
		return "B is faster: " + iv
	case t.Hi < 1:
		return "B is slower: " + iv
	case math.Abs(t.Value-1) <= NoiseBand || t.Lo <= 1 && t.Hi >= 1:
		return "no change within noise: " + iv
	}
	return iv
}
