package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// table is the data behind a figure: named columns, one row per point.
// Cells are string, float64, int, int64 or bool.
type table struct {
	Columns []string
	Rows    [][]any
}

func (t *table) add(cells ...any) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("report: row of %d cells for %d columns", len(cells), len(t.Columns)))
	}
	t.Rows = append(t.Rows, cells)
}

func cellText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		if math.IsInf(x, 1) {
			return "inf"
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	panic(fmt.Sprintf("report: cell of type %T", v))
}

// csv writes the table with a header row.
func (t *table) csv() []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(t.Columns)
	row := make([]string, len(t.Columns))
	for _, r := range t.Rows {
		for i, c := range r {
			row[i] = cellText(c)
		}
		_ = w.Write(row)
	}
	w.Flush()
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
	Rows    any      `json:"rows"`
}

// rowsMark stands for the rows while the rest of a figure's JSON is indented.
const rowsMark = "\x00rows\x00"

// figureFile writes a figure's JSON: indented, with one row per line.
func figureFile(fj figureJSON, t *table) []byte {
	fj.Rows = rowsMark
	head := indentJSON(fj)
	var rows bytes.Buffer
	rows.WriteString("[")
	for i, r := range t.Rows {
		if i > 0 {
			rows.WriteString(",")
		}
		rows.WriteString("\n    ")
		rows.Write(t.rowJSON(r))
	}
	if len(t.Rows) > 0 {
		rows.WriteString("\n  ")
	}
	rows.WriteString("]")
	mark, _ := marshal(rowsMark)
	return bytes.Replace(head, mark, rows.Bytes(), 1)
}

// rowJSON writes one row as an object with the keys in column order.
func (t *table) rowJSON(r []any) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, c := range r {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(t.Columns[i])
		b.Write(k)
		b.WriteByte(':')
		if f, ok := c.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
			b.WriteString("null")
			continue
		}
		v, err := marshal(c)
		if err != nil {
			panic(err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal is json.Marshal without HTML escaping (labels stay readable).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func indentJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err) // only report-built values, all encodable
	}
	return b.Bytes()
}
