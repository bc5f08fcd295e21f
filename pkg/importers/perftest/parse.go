package perftest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Kind says what a perftest table measures.
type Kind string

// The kinds of perftest tables.
const (
	Bandwidth Kind = "bandwidth"
	Latency   Kind = "latency"
)

// Report is one parsed perftest output.
type Report struct {
	// Test is the title line ("RDMA_Write BW Test"), Verb the operation
	// ("RDMA_Write", "RDMA_Read", "Send") and Kind the table's kind.
	Test          string `json:"test,omitempty"`
	Verb          string `json:"verb,omitempty"`
	Kind          Kind   `json:"kind,omitempty"`
	Bidirectional bool   `json:"bidirectional,omitempty"`
	// Settings holds the banner's "key : value" pairs as printed
	// ("Device": "mlx5_2", "Number of qps": "16", "Mtu": "4096[B]").
	Settings map[string]string `json:"settings,omitempty"`
	// Device, LinkType ("IB", "Ethernet"), Connection ("RC", "UD"), QPs and
	// MTU (bytes) are read from the banner; zero when absent.
	Device     string `json:"device,omitempty"`
	LinkType   string `json:"link_type,omitempty"`
	Connection string `json:"connection,omitempty"`
	QPs        int    `json:"qps,omitempty"`
	MTU        int64  `json:"mtu,omitempty"`
	// Inline is the banner's "Max inline data" in bytes; nil when absent.
	Inline *int64 `json:"inline,omitempty"`
	// GPU is set when the run used GPU memory (--use_cuda, --use_rocm).
	GPU *GPU `json:"gpu,omitempty"`
	// Unit is the bandwidth or time unit of the table as printed ("Gb/sec",
	// "MB/sec", "usec").
	Unit      string    `json:"unit,omitempty"`
	Bandwidth []BWRow   `json:"bandwidth,omitempty"`
	Latency   []LatRow  `json:"latency,omitempty"`
	Errors    []Problem `json:"errors,omitempty"`
	// Skipped lists lines inside a table that could not be read.
	Skipped []Problem `json:"skipped,omitempty"`
	// Duplicates counts rows dropped because an identical row (same fields)
	// was already read, as happens when server and client output are mixed.
	Duplicates int `json:"duplicates,omitempty"`
}

// GPU describes the GPU buffer of a --use_cuda or --use_rocm run.
type GPU struct {
	Runtime string `json:"runtime"`           // "cuda" or "rocm"
	Device  int    `json:"device"`            // the GPU index picked; -1 when not printed
	Name    string `json:"name,omitempty"`    // "NVIDIA H200"
	PCIBus  string `json:"pci_bus,omitempty"` // as printed ("8F:00", "0x15")
	DMABuf  bool   `json:"dmabuf,omitempty"`  // the buffer was registered through DMA-BUF
	// BufferBytes is the size of the GPU buffer, when printed.
	BufferBytes int64 `json:"buffer_bytes,omitempty"`
}

// BWRow is one row of a bandwidth table.
type BWRow struct {
	Bytes      int64 `json:"bytes"`
	Iterations int64 `json:"iterations"`
	// PeakBps and AvgBps are bytes per second; MsgRate is messages per
	// second (0 when the table has no MsgRate column).
	PeakBps float64 `json:"peak_Bps"`
	AvgBps  float64 `json:"avg_Bps"`
	MsgRate float64 `json:"msg_rate,omitempty"`
	// Line is the line number in the input and Fields the original values.
	Line   int      `json:"line"`
	Fields []string `json:"fields"`
}

// LatRow is one row of a latency table, in seconds. Fields the table does
// not have are NaN-free zeros.
type LatRow struct {
	Bytes      int64    `json:"bytes"`
	Iterations int64    `json:"iterations"`
	Min        float64  `json:"min_s"`
	Max        float64  `json:"max_s"`
	Typical    float64  `json:"typical_s"`
	Avg        float64  `json:"avg_s"`
	Stdev      float64  `json:"stdev_s"`
	P99        float64  `json:"p99_s"`
	P999       float64  `json:"p999_s"`
	Line       int      `json:"line"`
	Fields     []string `json:"fields"`
}

// Problem is a line the parser noted: an error perftest printed, or a line
// it could not read.
type Problem struct {
	Line   int    `json:"line"`
	Text   string `json:"text"`
	Reason string `json:"reason,omitempty"`
}

// ErrNoOutput is returned when the input holds neither a perftest banner
// nor a result table.
var ErrNoOutput = errors.New("perftest: no perftest output found")

// Err returns an error describing the first failure perftest reported, or
// nil when it reported none.
func (r *Report) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	return fmt.Errorf("perftest: line %d: %s", r.Errors[0].Line, r.Errors[0].Text)
}

// Rows returns the number of result rows.
func (r *Report) Rows() int { return len(r.Bandwidth) + len(r.Latency) }

var (
	titleRe   = regexp.MustCompile(`^\s*(\S(?:.*\S)?)\s+(BW|Latency)\s+Test\s*$`)
	settingRe = regexp.MustCompile(`([A-Za-z][\w.*/\- ]*?)\s*:\s*(\S+)`)
	columnRe  = regexp.MustCompile(`#\w+|(?:[^\s\[\]]+ )*[^\s\[\]]+\[[^\]]*\]`)
	dashesRe  = regexp.MustCompile(`^\s*-{20,}\s*$`)
	errorRe   = regexp.MustCompile(`(?i)\b(fail(ed|ure)?|couldn'?t|unable to|error|abort(ed)?)\b`)
	// GPU banner lines.
	cudaPickRe  = regexp.MustCompile(`Picking device No\.\s*(\d+)`)
	cudaNameRe  = regexp.MustCompile(`device name = \[([^\]]*)\]`)
	cudaBusRe   = regexp.MustCompile(`^CUDA device (\d+): PCIe address is (\S+)`)
	cudaAllocRe = regexp.MustCompile(`(?:cuMemAlloc\(\) of a|allocated GPU buffer of a|allocated) (\d+)`)
	rocmDevRe   = regexp.MustCompile(`Using ROCm Device with ID:\s*(\d+),\s*Name:\s*([^,]+),\s*PCI Bus ID:\s*(\S+?),`)
)

// column kinds
const (
	colOther = iota
	colBytes
	colIters
	colPeak
	colAvg
	colMsgRate
	colTMin
	colTMax
	colTTypical
	colTAvg
	colTStdev
	colP99
	colP999
)

type column struct {
	kind  int
	scale float64 // to base units
}

type table struct {
	kind Kind
	unit string
	cols []column
}

// bwScale converts perftest's bandwidth units to bytes per second.
func bwScale(unit string) (float64, bool) {
	switch unit {
	case "Gb/sec", "Gbit/sec", "Gbps":
		return 125e6, true
	case "MB/sec", "MiB/sec":
		return 1 << 20, true
	}
	return 0, false
}

// parseHeader reads a table header ("#bytes #iterations BW peak[Gb/sec] ...").
func parseHeader(line string) (table, error) {
	names := columnRe.FindAllString(line, -1)
	var t table
	for _, n := range names {
		name, unit, _ := strings.Cut(n, "[")
		unit = strings.TrimSuffix(unit, "]")
		c := column{scale: 1}
		switch {
		case name == "#bytes":
			c.kind = colBytes
		case name == "#iterations":
			c.kind = colIters
		case name == "BW peak" || name == "BW average":
			s, ok := bwScale(unit)
			if !ok {
				return table{}, fmt.Errorf("unknown bandwidth unit %q", unit)
			}
			c.kind, c.scale = colPeak, s
			if name == "BW average" {
				c.kind = colAvg
			}
			t.kind, t.unit = Bandwidth, unit
		case name == "MsgRate":
			if unit != "Mpps" {
				return table{}, fmt.Errorf("unknown message rate unit %q", unit)
			}
			c.kind, c.scale = colMsgRate, 1e6
		case strings.HasPrefix(name, "t_") || strings.HasSuffix(name, "percentile"):
			if unit != "usec" {
				return table{}, fmt.Errorf("latency unit %q cannot be converted to seconds", unit)
			}
			c.scale = 1e-6
			t.kind, t.unit = Latency, unit
			switch name {
			case "t_min":
				c.kind = colTMin
			case "t_max":
				c.kind = colTMax
			case "t_typical":
				c.kind = colTTypical
			case "t_avg":
				c.kind = colTAvg
			case "t_stdev":
				c.kind = colTStdev
			case "99% percentile":
				c.kind = colP99
			case "99.9% percentile":
				c.kind = colP999
			}
		}
		t.cols = append(t.cols, c)
	}
	if len(t.cols) < 2 || t.cols[0].kind != colBytes || t.kind == "" {
		return table{}, fmt.Errorf("unrecognised table header")
	}
	return t, nil
}

// Parse reads perftest output. It returns ErrNoOutput when the input has no
// perftest banner and no result table; otherwise a Report, whose Errors and
// Skipped say what went wrong in the run or in reading it.
func Parse(r io.Reader) (*Report, error) {
	rep := &Report{Settings: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var (
		tab      *table
		inBanner bool
		seen     = map[string]bool{}
		found    bool
		n        int
		cudaBus  = map[int]string{}
	)
	for sc.Scan() {
		n++
		raw := strings.TrimRight(sc.Text(), "\r")
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if dashesRe.MatchString(line) {
			inBanner = false
			continue
		}
		if m := titleRe.FindStringSubmatch(line); m != nil && !strings.Contains(line, ":") {
			found, inBanner = true, true
			if rep.Test == "" {
				rep.Test = line
				verb := m[1]
				if v, ok := strings.CutSuffix(verb, " Bidirectional"); ok {
					verb, rep.Bidirectional = v, true
				}
				verb = strings.TrimSuffix(verb, " Post List")
				rep.Verb = verb
				rep.Kind = Bandwidth
				if m[2] == "Latency" {
					rep.Kind = Latency
				}
			}
			continue
		}
		if strings.HasPrefix(line, "#bytes") {
			found = true
			t, err := parseHeader(line)
			if err != nil {
				rep.Skipped = append(rep.Skipped, Problem{Line: n, Text: line, Reason: err.Error()})
				tab = nil
				continue
			}
			tab = &t
			if rep.Unit == "" {
				rep.Unit = t.unit
			}
			if rep.Kind == "" {
				rep.Kind = t.kind
			}
			continue
		}
		fields := strings.Fields(line)
		if tab != nil && isInt(fields[0]) {
			if err := rep.addRow(tab, fields, n, seen); err != nil {
				rep.Skipped = append(rep.Skipped, Problem{Line: n, Text: line, Reason: err.Error()})
			}
			continue
		}
		if errorRe.MatchString(line) {
			rep.Errors = append(rep.Errors, Problem{Line: n, Text: line})
			continue
		}
		rep.gpuLine(line, cudaBus)
		if inBanner {
			for _, kv := range settingRe.FindAllStringSubmatch(line, -1) {
				k := strings.TrimSpace(kv[1])
				if _, dup := rep.Settings[k]; !dup {
					rep.Settings[k] = kv[2]
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("perftest: %w", err)
	}
	if !found {
		return nil, ErrNoOutput
	}
	rep.fromSettings()
	if rep.GPU != nil && rep.GPU.PCIBus == "" {
		rep.GPU.PCIBus = cudaBus[rep.GPU.Device]
	}
	return rep, nil
}

// ParseBytes is Parse on a byte slice.
func ParseBytes(b []byte) (*Report, error) { return Parse(bytes.NewReader(b)) }

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func (rep *Report) addRow(t *table, fields []string, line int, seen map[string]bool) error {
	if len(fields) != len(t.cols) {
		return fmt.Errorf("%d fields, the header has %d columns", len(fields), len(t.cols))
	}
	vals := make([]float64, len(fields))
	var bytesN, iters int64
	for i, f := range fields {
		switch t.cols[i].kind {
		case colBytes, colIters:
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil || v < 0 {
				return fmt.Errorf("bad count %q", f)
			}
			if t.cols[i].kind == colBytes {
				bytesN = v
			} else {
				iters = v
			}
		default:
			v, err := strconv.ParseFloat(f, 64)
			if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				return fmt.Errorf("bad value %q", f)
			}
			vals[i] = v * t.cols[i].scale
		}
	}
	if bytesN <= 0 {
		return fmt.Errorf("message size %d", bytesN)
	}
	key := string(t.kind) + "\x00" + strings.Join(fields, " ")
	if seen[key] {
		rep.Duplicates++
		return nil
	}
	seen[key] = true
	kept := append([]string(nil), fields...)
	if t.kind == Bandwidth {
		row := BWRow{Bytes: bytesN, Iterations: iters, Line: line, Fields: kept}
		for i, c := range t.cols {
			switch c.kind {
			case colPeak:
				row.PeakBps = vals[i]
			case colAvg:
				row.AvgBps = vals[i]
			case colMsgRate:
				row.MsgRate = vals[i]
			}
		}
		rep.Bandwidth = append(rep.Bandwidth, row)
		return nil
	}
	row := LatRow{Bytes: bytesN, Iterations: iters, Line: line, Fields: kept}
	for i, c := range t.cols {
		v := vals[i]
		switch c.kind {
		case colTMin:
			row.Min = v
		case colTMax:
			row.Max = v
		case colTTypical:
			row.Typical = v
		case colTAvg:
			row.Avg = v
		case colTStdev:
			row.Stdev = v
		case colP99:
			row.P99 = v
		case colP999:
			row.P999 = v
		}
	}
	rep.Latency = append(rep.Latency, row)
	return nil
}

func (rep *Report) gpu(runtime string) *GPU {
	if rep.GPU == nil {
		rep.GPU = &GPU{Runtime: runtime, Device: -1}
	}
	return rep.GPU
}

// gpuLine reads the lines --use_cuda and --use_rocm runs print before the banner.
func (rep *Report) gpuLine(line string, cudaBus map[int]string) {
	switch {
	case line == "initializing CUDA":
		rep.gpu("cuda")
	case strings.HasPrefix(line, "CUDA device "):
		if m := cudaBusRe.FindStringSubmatch(line); m != nil {
			d, _ := strconv.Atoi(m[1])
			cudaBus[d] = m[2]
			rep.gpu("cuda")
		}
	case strings.HasPrefix(line, "Picking device No."):
		if m := cudaPickRe.FindStringSubmatch(line); m != nil {
			rep.gpu("cuda").Device, _ = strconv.Atoi(m[1])
		}
	case strings.Contains(line, "device name = ["):
		if m := cudaNameRe.FindStringSubmatch(line); m != nil {
			rep.gpu("cuda").Name = m[1]
		}
	case strings.HasPrefix(line, "using DMA-BUF"):
		if rep.GPU != nil {
			rep.GPU.DMABuf = true
		}
	case strings.HasPrefix(line, "Using ROCm Device"):
		if m := rocmDevRe.FindStringSubmatch(line); m != nil {
			g := rep.gpu("rocm")
			g.Device, _ = strconv.Atoi(m[1])
			g.Name, g.PCIBus = strings.TrimSpace(m[2]), m[3]
		}
	case strings.HasPrefix(line, "cuMemAlloc()"), strings.HasPrefix(line, "allocated "):
		if m := cudaAllocRe.FindStringSubmatch(line); m != nil && rep.GPU != nil && rep.GPU.BufferBytes == 0 {
			rep.GPU.BufferBytes, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
}

func (rep *Report) fromSettings() {
	s := rep.Settings
	rep.Device = s["Device"]
	rep.LinkType = s["Link type"]
	rep.Connection = s["Connection type"]
	if q, err := strconv.Atoi(s["Number of qps"]); err == nil && q > 0 {
		rep.QPs = q
	}
	if m, err := strconv.ParseInt(strings.TrimSuffix(s["Mtu"], "[B]"), 10, 64); err == nil && m > 0 {
		rep.MTU = m
	}
	if v, ok := s["Max inline data"]; ok {
		if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), "[B]"), 10, 64); err == nil && n >= 0 && n <= 1<<20 {
			rep.Inline = &n
		}
	}
	if strings.EqualFold(s["Use ROCm memory"], "ON") {
		rep.gpu("rocm")
	}
	if len(rep.Settings) == 0 {
		rep.Settings = nil
	}
}
