package report

import (
	"bytes"

	"github.com/gpupath/gpupath/internal/termtext"

	"github.com/gpupath/gpupath/pkg/plots"
)

// csvOf is a figure's CSV file: its data with a header row.
func csvOf(t plots.Table) []byte {
	var b bytes.Buffer
	if err := t.WriteCSV(&b); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}

// figureJSON is the JSON file of a figure: what it shows, where its data
// comes from, and the rows as objects keyed by column.
type figureJSON struct {
	Figure  int      `json:"figure"`
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Kind    string   `json:"kind"`
	Origin  string   `json:"origin"`
	Caption string   `json:"caption"`
	Columns []string `json:"columns"`
	// Units are the unit of each column that has one (bytes: "B").
	Units map[string]string `json:"units"`
	Rows  any               `json:"rows"`
}

// rowsMark stands for the rows while the rest of a figure's JSON is indented.
const rowsMark = "\x00rows\x00"

// figureFile writes a figure's JSON: indented, with one row per line.
func figureFile(fj figureJSON, t plots.Table) []byte {
	fj.Rows = rowsMark
	head := indentJSON(fj)
	var rows bytes.Buffer
	rows.WriteString("[")
	for i, r := range t.JSONRows() {
		if i > 0 {
			rows.WriteString(",")
		}
		rows.WriteString("\n    ")
		rows.Write(r)
	}
	if t.Len() > 0 {
		rows.WriteString("\n  ")
	}
	rows.WriteString("]")
	mark, _ := termtext.MarshalJSON(rowsMark)
	return bytes.Replace(head, mark, rows.Bytes(), 1)
}

func indentJSON(v any) []byte {
	var b bytes.Buffer
	enc := termtext.NewJSONEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err) // only report-built values, all encodable
	}
	return b.Bytes()
}
