package validate

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/gpupath/gpupath/pkg/units"
	"io"
	"strings"

	"github.com/gpupath/gpupath/internal/safeio"
)

// publishedCSV is the table of published measurements (data/README.md
// says where every number comes from).
//
//go:embed data/published.csv
var publishedCSV []byte

// Attribution is the table's README: its sources, trust levels and
// conventions.
//
//go:embed data/README.md
var Attribution string

// Row is one published measurement, its columns as written.
type Row struct {
	Line     int // line in the CSV file (header = 1)
	ID       string
	Path     string // tcp_host_staged, rdma_host_staged, gdr, devmem_tcp, gpudirect_tcpxo, rdma_host, tcp_host, cudamemcpy_*, gdrcopy_*, registration
	Quantity string // latency_oneway, latency_rtt, bandwidth_uni, ...
	Unit     string // us, GB/s, MB/s, Gb/s
	MsgBytes string // a number of bytes, or "large", "sweep", "n/s", ...
	Value    string
	GPU      string
	NIC      string
	PCIe     string
	Topology string
	Software string
	Source   string
	Notes    string
}

// SourceID is the row's source group: "S08" of "S08-05".
func (r Row) SourceID() string {
	if i := strings.IndexByte(r.ID, '-'); i > 0 {
		return r.ID[:i]
	}
	return r.ID
}

var header = []string{"id", "path", "quantity", "unit", "msg_bytes", "value", "gpu", "nic", "pcie", "topology", "software", "source", "notes"}

// Published returns the embedded table.
func Published() []Row {
	rows, err := Parse(bytes.NewReader(publishedCSV), "published.csv")
	if err != nil {
		panic("validate: the embedded table does not parse: " + err.Error()) // caught by TestPublishedParses
	}
	return rows
}

// ParseError is a table that cannot be read, with the file and line.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// MaxTableBytes and MaxRows bound a table read with --data: a larger file
// or more rows is refused, the limit named in the error. Each row is
// modeled on its own resolved scenario, about 7 ms a row on a 2-core VM
// (10,000 rows took 69 s and 0.74 GB), so 2,000 rows keep a run near
// 15 s; the built-in table holds 113.
const (
	MaxTableBytes = 16 << 20
	MaxRows       = 2000
)

// ParseFile reads the table at path through the bounded reader: a regular
// file only (a FIFO or a device is refused at once), at most MaxTableBytes,
// streamed and checked against ctx as it is read, at most MaxRows rows.
func ParseFile(ctx context.Context, path string) ([]Row, error) {
	f, err := safeio.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxTableBytes {
		return nil, &ParseError{File: path, Err: fmt.Errorf("%w of %s (%d bytes)", safeio.ErrTooLarge, safeio.FormatLimit(MaxTableBytes), st.Size())}
	}
	return Parse(safeio.NewReader(ctx, f, MaxTableBytes), path)
}

// Parse reads a table in the published format: a header row with the
// columns id, path, quantity, unit, msg_bytes, value, gpu, nic, pcie,
// topology, software, source, notes, then one row per measurement. name is
// used in errors.
func Parse(r io.Reader, name string) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &ParseError{File: name, Err: errors.New("empty: expected a header row (id,path,quantity,unit,msg_bytes,value,...)")}
		}
		return nil, &ParseError{File: name, Line: 1, Err: err}
	}
	if len(head) != len(header) {
		return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf("header has %d columns, want %d: %s", len(head), len(header), strings.Join(header, ","))}
	}
	for i, h := range header {
		if strings.TrimSpace(strings.TrimPrefix(head[i], "\ufeff")) != h {
			return nil, &ParseError{File: name, Line: 1, Err: fmt.Errorf("column %d is %q, want %q", i+1, head[i], h)}
		}
	}
	var rows []Row
	seen := map[string]int{}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &ParseError{File: name, Line: pe.Line, Err: pe.Err}
			}
			return nil, &ParseError{File: name, Err: err}
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(header) {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%d columns, want %d", len(rec), len(header))}
		}
		for i, c := range rec {
			if r, ok := units.LineBreak(c); ok {
				return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("column %s holds a line break (%U): a cell is one line", header[i], r)}
			}
		}
		row := Row{Line: line, ID: rec[0], Path: rec[1], Quantity: rec[2], Unit: rec[3], MsgBytes: rec[4], Value: rec[5],
			GPU: rec[6], NIC: rec[7], PCIe: rec[8], Topology: rec[9], Software: rec[10], Source: rec[11], Notes: rec[12]}
		if row.ID == "" {
			return nil, &ParseError{File: name, Line: line, Err: errors.New("empty id")}
		}
		if prev, dup := seen[row.ID]; dup {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("id %s given twice (first on line %d)", row.ID, prev)}
		}
		seen[row.ID] = line
		_, kind, err := parseValue(row.Value, row.Unit)
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%s: %v", row.ID, err)}
		}
		if qk, ok := QuantityKind(row.Quantity); ok && qk != kind {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%s: quantity %q is %s, unit %q %s", row.ID, row.Quantity, kindWords(qk), row.Unit, kindWords(kind))}
		}
		if err := checkMsgBytes(row.MsgBytes); err != nil {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("%s: %v", row.ID, err)}
		}
		if len(rows) == MaxRows {
			return nil, &ParseError{File: name, Line: line, Err: fmt.Errorf("more than %d rows (the limit of a table)", MaxRows)}
		}
		rows = append(rows, row)
	}
	if len(rows) == 0 {
		return nil, &ParseError{File: name, Err: errors.New("no rows after the header")}
	}
	return rows, nil
}
