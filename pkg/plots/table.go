package plots

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/units"
)

// Kind is the type of a Table column's values.
type Kind int

// The kinds of column.
const (
	// Text columns hold strings (Column.Text).
	Text Kind = iota
	// Number columns hold float64 values (Column.Num) in base units,
	// written in Go's shortest exact form.
	Number
	// Integer columns hold whole numbers (Column.Num), written without
	// an exponent: counts, and every column of bytes (unit "B").
	Integer
	// Bool columns hold true (1) or false (0) in Column.Num.
	Bool
)

// Column is one column of a Table: its name, the base unit of its
// numbers, and its values, one per row.
type Column struct {
	Name string
	// Unit is the base unit of a numeric column ("B", "s", "B/s", "%",
	// "cores"; "" for a count, a ratio or text, or for a long-form value
	// column whose unit each row's quantity names).
	Unit string
	Kind Kind
	// Text holds a Text column's values, Num the others'.
	Text []string
	Num  []float64
}

// Table is the data behind a figure, for CSV or JSON: columns of equal
// length, one row per drawn value, numbers in base units.
type Table struct {
	Columns []Column
}

func textCol(name string) Column { return Column{Name: name, Kind: Text} }

// numCol is a column of numbers in unit; a column of bytes (unit "B") is
// an Integer column: a size is a whole number of bytes, written as one
// (16777216, not 1.6777216e+07).
func numCol(name, unit string) Column {
	if unit == BytesUnit {
		return intCol(name, unit)
	}
	return Column{Name: name, Unit: unit, Kind: Number}
}

// BytesUnit is the unit of a column of bytes.
const BytesUnit = "B"

func intCol(name, unit string) Column {
	return Column{Name: name, Unit: unit, Kind: Integer}
}
func boolCol(name string) Column { return Column{Name: name, Kind: Bool} }

// add appends a row: a string for a Text column, a number (float64, int,
// int64, units.Bytes, …) for the others, a bool for a Bool column. A row
// that does not fit the columns is a bug in this package: it panics.
func (t *Table) add(cells ...any) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("plots: row of %d cells for %d columns", len(cells), len(t.Columns)))
	}
	for j, v := range cells {
		c := &t.Columns[j]
		switch c.Kind {
		case Text:
			c.Text = append(c.Text, v.(string))
		case Bool:
			b := 0.0
			if v.(bool) {
				b = 1
			}
			c.Num = append(c.Num, b)
		default:
			c.Num = append(c.Num, number(v))
		}
	}
}

func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case units.Bytes:
		return float64(x)
	case units.Seconds:
		return float64(x)
	case units.Rate:
		return float64(x)
	}
	panic(fmt.Sprintf("plots: a cell of type %T in a numeric column", v))
}

// append adds the rows of u, whose columns are the same as t's.
func (t *Table) append(u Table) {
	for j := range t.Columns {
		t.Columns[j].Text = append(t.Columns[j].Text, u.Columns[j].Text...)
		t.Columns[j].Num = append(t.Columns[j].Num, u.Columns[j].Num...)
	}
}

// Len is the number of rows.
func (t Table) Len() int {
	if len(t.Columns) == 0 {
		return 0
	}
	c := t.Columns[0]
	if c.Kind == Text {
		return len(c.Text)
	}
	return len(c.Num)
}

// Names are the column names, in order.
func (t Table) Names() []string {
	out := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		out[j] = c.Name
	}
	return out
}

// Units maps each column that has a unit to it: {"bytes": "B",
// "value": "s"}. A column holds numbers of one unit.
func (t Table) Units() map[string]string {
	out := map[string]string{}
	for _, c := range t.Columns {
		if c.Unit != "" {
			out[c.Name] = c.Unit
		}
	}
	return out
}

// Column returns the named column, or nil.
func (t Table) Column(name string) *Column {
	for j := range t.Columns {
		if t.Columns[j].Name == name {
			return &t.Columns[j]
		}
	}
	return nil
}

// cell is the text of row i in CSV, the one formatter of every cell the
// report writes: numbers in Go's shortest form that reads back exactly
// (strconv 'g', -1; "inf" for +∞, "-inf" for −∞, empty for no value: NaN),
// whole numbers (counts, bytes) as integers without an exponent, true or
// false.
func (c Column) cell(i int) string {
	switch c.Kind {
	case Text:
		return c.Text[i]
	case Bool:
		return strconv.FormatBool(c.Num[i] != 0)
	}
	x := c.Num[i]
	if c.Kind == Integer && !math.IsNaN(x) && !math.IsInf(x, 0) {
		x = math.Round(x)
	}
	return units.Cell(x)
}

// json is the JSON value of row i: a string, a number, true or false, and
// null for a number that is not finite.
func (c Column) json(i int) []byte {
	var v any
	switch c.Kind {
	case Text:
		v = c.Text[i]
	case Bool:
		v = c.Num[i] != 0
	case Integer:
		if x := c.Num[i]; math.IsInf(x, 0) || math.IsNaN(x) {
			return []byte("null")
		}
		v = int64(math.Round(c.Num[i]))
	default:
		if x := c.Num[i]; math.IsInf(x, 0) || math.IsNaN(x) {
			return []byte("null")
		}
		v = c.Num[i]
	}
	b, err := marshal(v)
	if err != nil {
		panic(err) // strings, finite numbers and booleans always encode
	}
	return b
}

// WriteCSV writes the table as CSV (RFC 4180, as encoding/csv writes it)
// with a header line of the column names; every cell goes through
// termtext.CSVCell (one line, no control characters).
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	row := make([]string, len(t.Columns))
	for j, n := range t.Names() {
		row[j] = termtext.CSVCell(n)
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	for i := 0; i < t.Len(); i++ {
		for j, c := range t.Columns {
			row[j] = termtext.CSVCell(c.cell(i))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// JSONRows returns one JSON object per row, its keys the column names in
// order: {"path":"tcp","bytes":8,"latency_s":3.9e-06}. Numbers that are
// not finite are null; text is not HTML-escaped.
func (t Table) JSONRows() []json.RawMessage {
	keys := make([][]byte, len(t.Columns))
	for j, c := range t.Columns {
		keys[j], _ = marshal(c.Name)
	}
	out := make([]json.RawMessage, t.Len())
	for i := range out {
		var b bytes.Buffer
		b.WriteByte('{')
		for j, c := range t.Columns {
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(keys[j])
			b.WriteByte(':')
			b.Write(c.json(i))
		}
		b.WriteByte('}')
		out[i] = b.Bytes()
	}
	return out
}

// marshal is json.Marshal without HTML escaping (labels stay readable) and
// without a raw control character (termtext.JSON).
func marshal(v any) ([]byte, error) {
	return termtext.MarshalJSON(v)
}
