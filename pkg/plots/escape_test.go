package plots

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpupath/gpupath/internal/termtext"
)

// FuzzCSVCell: a text cell from outside (a scenario's, a probe's, a
// variant's name) leaves the figure's CSV one line per record, with no
// control character, and the JSON rows valid with none either.
func FuzzCSVCell(f *testing.F) {
	for _, s := range []string{"", "tcp", "\x1b]0;pwn\x07", "nul\x00", "cr\r", "lf\n", "ls\u2028", "rlo\u202e", "c1\u009b", "del\x7f", "bad\xff", "a,\"b\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tb := Table{Columns: []Column{{Name: s, Kind: Text, Text: []string{s, "x"}}, {Name: "v", Kind: Number, Num: []float64{1, 2}}}}
		var b bytes.Buffer
		if err := tb.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if !termtext.Safe(out, true) {
			t.Fatalf("control characters in the CSV: %q", out)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) != 3 || strings.Count(out, "\n") != 3 {
			t.Fatalf("CSV %q: %d records, %v", out, len(recs), err)
		}
		for _, r := range tb.JSONRows() {
			if !json.Valid(r) || !termtext.Safe(string(r), false) {
				t.Fatalf("JSON row %q", r)
			}
		}
	})
}
