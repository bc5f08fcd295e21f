package report

import (
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// Comparison is two runs compared (gpupath report --data A --data B): B
// against A, per series and size, with the speed ratio and a bootstrap
// interval where both runs recorded repetitions, as calib.CompareRuns
// judged them (FromRuns makes it).
type Comparison struct {
	// A and B are the runs' directories.
	A, B string
	calib.RunComparison
}

func (b *builder) compare(sec *section, cmp *Comparison) {
	sec.p("Run B (%s) against run A (%s), series by series and size by size. The ratio is how many times faster B is: A's time over B's for latencies and costs, B's rate over A's for bandwidths (above 1: B is faster). Where both runs recorded repetitions the interval is a %d%% bootstrap of the ratio of medians; across sizes, of the geometric mean of the ratios.",
		cmp.B, cmp.A, int(fit.DefaultLevel*100))
	if len(cmp.Series) == 0 {
		sec.note("The two runs have no series in common (the same probe or tool, variant, path and target): nothing to compare.")
	}
	var verdicts []string
	for _, r := range cmp.Series {
		if len(r.Rows) == 0 {
			continue
		}
		sec.table(compareTable(r))
		verdicts = append(verdicts, r.Label+": "+r.Verdict)
	}
	if len(verdicts) > 0 {
		sec.p("Verdicts:")
		sec.list(verdicts)
	}
	if len(cmp.OnlyA) > 0 {
		sec.p("Only in run A: %s.", strings.Join(cmp.OnlyA, ", "))
	}
	if len(cmp.OnlyB) > 0 {
		sec.p("Only in run B: %s.", strings.Join(cmp.OnlyB, ", "))
	}
}

func compareTable(r calib.SeriesComparison) *docTable {
	t := &docTable{Caption: r.Label + ": B against A.", Head: []string{"size", "A", "B", "B faster by", "interval", "verdict"},
		Widths: []float64{0.8, 1, 1, 0.9, 1.3, 1.8}, Right: []bool{true, true, true, true, true, false}}
	val := func(v float64) string {
		if r.Quantity == record.Bandwidth {
			return units.Rate(v).Human()
		}
		return units.Seconds(v).Human()
	}
	for _, row := range pick(r.Rows, 12) {
		iv := "—"
		if row.Interval {
			iv = calib.RatioText(row.Ratio.Lo) + " – " + calib.RatioText(row.Ratio.Hi)
		}
		size := "—"
		if row.Bytes >= 1 {
			size = row.Bytes.Human()
		}
		t.Rows = append(t.Rows, []cell{c(size), c(val(row.A)), c(val(row.B)), c(calib.RatioText(row.Ratio.Value)), {Text: iv, NoWrap: true}, c(row.Verdict)})
	}
	return t
}
