package report

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// csvProblems lists the cells of a figure's CSV that break the one
// formatter's rules: a cell of a column of bytes (named bytes, or ending in
// _bytes) that is not a whole number written as one (16777216, not
// 1.6777216e+07), and a header without a name.
func csvProblems(data []byte) []string {
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		return []string{err.Error()}
	}
	if len(rows) == 0 {
		return []string{"no header"}
	}
	var out []string
	for j, name := range rows[0] {
		if name == "" {
			out = append(out, "column "+strconv.Itoa(j+1)+" has no name")
		}
		if name != "bytes" && !strings.HasSuffix(name, "_bytes") {
			continue
		}
		for i, r := range rows[1:] {
			if _, err := strconv.ParseInt(r[j], 10, 64); err != nil {
				out = append(out, "row "+strconv.Itoa(i+2)+": "+name+" "+strconv.Quote(r[j])+" is not an integer")
			}
		}
	}
	return out
}

// TestCSVBytesAreIntegers: every figure CSV of the committed examples and
// of fresh reports of the same inputs writes its sizes in bytes as
// integers, through the one formatter of plots.Table.
func TestCSVBytesAreIntegers(t *testing.T) {
	n := 0
	for _, dir := range committedReports(t) {
		csvs, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
		for _, p := range csvs {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			n++
			for _, e := range csvProblems(b) {
				t.Errorf("%s: %s", p, e)
			}
		}
	}
	reps, _ := freshExamples(t)
	for name, r := range reps {
		for _, f := range r.Files {
			if filepath.Ext(f.Name) == ".csv" {
				n++
				for _, e := range csvProblems(f.Data) {
					t.Errorf("fresh %s report: %s: %s", name, f.Name, e)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("%d CSV files checked: want every figure's", n)
	}
	if p := csvProblems([]byte("bytes,value\n16777216,1.5\n1.6777216e+07,2\n")); len(p) != 1 {
		t.Errorf("the check finds %q in a CSV with one size in exponent form", p)
	}
}
