package report

import (
	"strings"
	"testing"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// A table past maxTableRows shows its first rows and a note under it that
// says how many more there are and where they are.
func TestTableRowCap(t *testing.T) {
	old := maxTableRows
	defer func() { maxTableRows = old }()
	maxTableRows = 3
	html := string(render(t, measuredInput()).File(HTMLFile))
	for _, want := range []string{"shows its first 3 rows", "more are not shown (a table lists at most 3)", "report&#39;s data files"} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML does not say %q", want)
		}
	}
	var sec section
	sec.table(&docTable{Rows: make([][]cell, 5), RowClass: make([]string, 5)})
	if tb := sec.Blocks[0].Table; len(sec.Blocks) != 2 || len(tb.Rows) != 3 || len(tb.RowClass) != 3 || !strings.Contains(sec.Blocks[1].Note, "2 more") {
		t.Errorf("blocks: %+v", sec.Blocks)
	}
}

// A size measured more than once is one row of the measurements table: its
// records, the median of their medians, the smallest min, the largest p99.
func TestMeasuredTableSummarizesRepeats(t *testing.T) {
	pt := func(b units.Bytes, med, lo, hi units.Seconds) record.Point {
		return record.Point{Bytes: b, Median: med, Min: lo, P99: hi}
	}
	s := record.Series{Label: "tcp pingpong", Quantity: record.Latency, Points: []record.Point{
		pt(64, 3e-6, 2e-6, 9e-6), pt(64, 1e-6, 1e-6, 4e-6), pt(64, 2e-6, 0.5e-6, 5e-6), pt(128, 4e-6, 4e-6, 4e-6)}}
	tb := measuredTable(&analysis{}, record.Latency, []record.Series{s})
	if len(tb.Rows) != 2 || tb.Head[2] != "records" {
		t.Fatalf("head %v, rows %v", tb.Head, tb.Rows)
	}
	got := []string{}
	for _, cl := range tb.Rows[0][:6] {
		got = append(got, cl.Text)
	}
	if want := []string{"tcp pingpong", "64 B", "3", units.Seconds(2e-6).Human(), units.Seconds(0.5e-6).Human(), units.Seconds(9e-6).Human()}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("row %v, want %v", got, want)
	}
}
