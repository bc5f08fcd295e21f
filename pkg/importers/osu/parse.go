// Package osu reads the output of the OSU Micro-Benchmarks point-to-point
// tests: osu_latency, osu_bw, osu_bibw (and others of the same layout), MPI,
// MPI-CUDA and MPI-ROCM builds, with the buffer line of `D D` / `H D` runs,
// the "# Datatype" line of OMB 7, the extra columns of -f (avg, min, max,
// iterations) and the Intel MPI startup lines before the table. The columns
// are found by their header names. Times are converted from µs to seconds,
// rates from OMB's MB/s (10⁶ bytes per second: osu_bw divides the bytes by
// 1e6) to bytes per second. osu_latency prints one-way latency, half the
// round trip; osu_bibw the sum of both directions.
package osu

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "osu"

var (
	titleRe  = regexp.MustCompile(`^#\s*OSU (MPI|OpenSHMEM|UPC\+\+|UPC|NCCL)(?:-(CUDA|ROCM|ACC|OpenACC))? (.+?) Test v(\S+)\s*$`)
	bufferRe = regexp.MustCompile(`^#\s*Send Buffer on (HOST|DEVICE|MANAGED) \((\w)\) and Receive Buffer on (HOST|DEVICE|MANAGED) \((\w)\)`)
	// Intel MPI's rank table: "[0] MPI startup(): 0       31332    pkb-6da5644b-0  {0,1,...}".
	impiRankRe = regexp.MustCompile(`^(?:\[\d+\] )?MPI startup\(\):\s+(\d+)\s+(\d+)\s+(\S+)\s+\{`)
	impiModeRe = regexp.MustCompile(`^(?:\[\d+\] )?MPI startup\(\): (\w+) data transfer mode`)
	colSplitRe = regexp.MustCompile(`\s{2,}|\t+`)
)

// errZero marks a row whose value prints as zero (rounded): no record.
var errZero = errors.New("the value prints as 0")

// names maps OMB test titles to the program.
var names = map[string]string{
	"Latency":                           "osu_latency",
	"Bandwidth":                         "osu_bw",
	"Bi-Directional Bandwidth":          "osu_bibw",
	"Multiple Bandwidth / Message Rate": "osu_mbw_mr",
	"Multi-threaded Latency":            "osu_latency_mt",
	"Latency Multi-threaded":            "osu_latency_mt",
	"Multi Latency":                     "osu_multi_lat",
}

// Detect tells whether b is OSU Micro-Benchmarks output.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b) {
		if titleRe.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

type col struct {
	name  string // as printed: "Size", "Latency (us)", "Avg Latency(us)", "Bandwidth (MB/s)"
	kind  string // size, avg, min, max, p50, p90, p99, iters, bw, msgrate, other
	scale float64
}

func classify(name string) (col, error) {
	c := col{name: name, scale: 1}
	n := strings.ToLower(strings.ReplaceAll(name, " ", ""))
	unit := func() (float64, error) {
		switch {
		case strings.Contains(n, "(us)"):
			return 1e-6, nil
		case strings.Contains(n, "(ms)"):
			return 1e-3, nil
		case strings.Contains(n, "(ns)"):
			return 1e-9, nil
		}
		return 0, fmt.Errorf("column %q: no time unit", name)
	}
	var err error
	switch {
	case n == "size":
		c.kind = "size"
	case strings.HasPrefix(n, "p50"), strings.HasPrefix(n, "p90"), strings.HasPrefix(n, "p99"):
		c.kind = n[:3]
		c.scale, err = unit()
	case strings.HasPrefix(n, "minlatency"):
		c.kind = "min"
		c.scale, err = unit()
	case strings.HasPrefix(n, "maxlatency"):
		c.kind = "max"
		c.scale, err = unit()
	case strings.HasPrefix(n, "latency"), strings.HasPrefix(n, "avglatency"):
		c.kind = "avg"
		c.scale, err = unit()
	case strings.HasPrefix(n, "bandwidth") || strings.HasPrefix(n, "mb/s"):
		c.kind = "bw"
		switch {
		case strings.Contains(n, "(mb/s)") || n == "mb/s":
			c.scale = 1e6
		case strings.Contains(n, "(gb/s)"):
			c.scale = 1e9
		default:
			err = fmt.Errorf("column %q: unknown bandwidth unit", name)
		}
	case strings.HasPrefix(n, "messages/s"):
		c.kind = "msgrate"
	case strings.HasPrefix(n, "iterations"):
		c.kind = "iters"
	case n == "validation":
		// OMB 7's -c: "Pass" or "Fail" per row, whether the data arrived whole.
		c.kind = "valid"
	default:
		c.kind = "other"
	}
	return c, err
}

// Parse reads OSU Micro-Benchmarks output into one record per size.
func Parse(b []byte) (*obs.Output, error) { return ParseStream(b, nil) }

// ParseStream is Parse that hands each record to sink, when not nil,
// instead of keeping it (the output's Streamed counts them).
func ParseStream(b []byte, sink func(obs.Record)) (*obs.Output, error) {
	out := &obs.Output{Tool: Tool, Sink: sink}
	defer func() { out.Sink = nil }()
	var (
		cols    []col
		hdrLine int
		prog    string
		variant string
		title   bool
		mode    string
		// validated counts the rows OSU's -c passed; unreadSeen the columns
		// noted as not read.
		validated  int
		unreadSeen = map[string]bool{}
	)
	for i, raw := range obs.Lines(b) {
		n := i + 1
		l := strings.TrimSpace(raw)
		if l == "" {
			continue
		}
		if m := titleRe.FindStringSubmatch(l); m != nil {
			title = true
			t := m[3]
			prog = names[t]
			if prog == "" {
				prog = "osu " + strings.ToLower(t)
			}
			if out.Test == "" {
				out.Test = prog
			}
			out.Version = "v" + m[4]
			if m[2] != "" {
				out.Notes = appendOnce(out.Notes, "OMB built with "+m[2])
			}
			cols = nil
			continue
		}
		if m := bufferRe.FindStringSubmatch(l); m != nil {
			variant = m[2] + " " + m[4]
			if m[2] != "H" || m[4] != "H" {
				out.Hardware.MemoryGPU = true
				out.Hardware.Mark("memory_gpu", n)
			}
			continue
		}
		if m := impiRankRe.FindStringSubmatch(l); m != nil {
			out.Hardware.AddHost(m[3])
			out.Hardware.Mark("hosts", n)
			continue
		}
		if m := impiModeRe.FindStringSubmatch(l); m != nil {
			mode = m[1]
			continue
		}
		if strings.HasPrefix(l, "#") {
			body := strings.TrimSpace(strings.TrimPrefix(l, "#"))
			if strings.HasPrefix(body, "Size") {
				cols = nil
				hdrLine = n
				for _, name := range colSplitRe.Split(body, -1) {
					c, err := classify(strings.TrimSpace(name))
					if err != nil {
						out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: err.Error()})
						cols = nil
						break
					}
					cols = append(cols, c)
				}
			}
			continue
		}
		f := strings.Fields(l)
		if _, err := strconv.ParseInt(f[0], 10, 64); err != nil || !title {
			continue
		}
		if cols == nil {
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: "a result row without a header that can be read"})
			continue
		}
		rec, unread, err := row(cols, f, n, hdrLine)
		for _, u := range unread {
			if !unreadSeen[u.col] {
				unreadSeen[u.col] = true
				out.Notes = append(out.Notes, fmt.Sprintf("line %d: column %q is not one gpupath reads (it holds %q): kept in the line, not recorded", n, u.col, u.value))
			}
		}
		if err == nil && rec.Wrong == "Fail" {
			out.Failures = append(out.Failures, obs.Problem{Line: n, Text: l, Reason: fmt.Sprintf("OSU's validation (-c) failed at %d B: the data received was not the data sent", rec.Bytes)})
		}
		if err == nil && rec.Wrong == "Pass" {
			validated++
			rec.Wrong = ""
		}
		if errors.Is(err, errZero) {
			out.Notes = append(out.Notes, fmt.Sprintf("line %d: the result prints as 0: no record", n))
			continue
		}
		if err != nil {
			out.Problems = append(out.Problems, obs.Problem{Line: n, Text: l, Reason: err.Error()})
			continue
		}
		rec.Test, rec.Variant = prog, variant
		if prog == "osu_bibw" {
			rec.Variant = strings.TrimSpace(variant + " bidirectional (sum of both directions)")
		}
		if mode == "tcp" && !out.Hardware.MemoryGPU {
			rec.Path = "host-tcp" // Intel MPI says it moves the data over TCP sockets
		}
		out.Add(rec)
	}
	if !title {
		return nil, obs.NotRecognized(Tool, "no OSU title line")
	}
	if len(out.Hardware.Hosts) > 0 {
		out.Hardware.Nodes = len(out.Hardware.Hosts)
	}
	if mode != "" {
		out.Notes = append(out.Notes, "Intel MPI: "+mode+" data transfer mode")
	}
	if validated > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("OSU validated the data it received (-c): %d row(s) Pass", validated))
	}
	return out, nil
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}

// unreadCell is a cell of a column gpupath does not read that holds no
// number: a newer OSU's column, kept as a note.
type unreadCell struct{ col, value string }

// row reads one result row; the cells of unknown columns that are not
// numbers come back as unread, not as an error.
func row(cols []col, f []string, line, hdr int) (obs.Record, []unreadCell, error) {
	var unread []unreadCell
	if len(f) != len(cols) {
		return obs.Record{}, nil, fmt.Errorf("%d fields, the header at line %d has %d columns", len(f), hdr, len(cols))
	}
	r := obs.Record{Line: line, Fields: f}
	for i, c := range cols {
		if c.kind == "valid" {
			switch strings.ToLower(f[i]) {
			case "pass":
				r.Wrong = "Pass"
			case "fail", "failed":
				r.Wrong = "Fail"
			default:
				return r, nil, fmt.Errorf("column %s: %q is neither Pass nor Fail", c.name, f[i])
			}
			continue
		}
		if c.kind == "size" {
			v, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil || v < 0 {
				return r, nil, fmt.Errorf("size %q", f[i])
			}
			r.Bytes = v
			continue
		}
		v, err := strconv.ParseFloat(f[i], 64)
		if c.kind == "other" && err != nil {
			unread = append(unread, unreadCell{c.name, f[i]})
			continue
		}
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return r, nil, fmt.Errorf("column %s: cannot read %q", c.name, f[i])
		}
		v *= c.scale
		switch c.kind {
		case "avg":
			r.Time, r.Central = v, "mean"
		case "min":
			r.Min = v
		case "max":
			r.Max = v
		case "p50":
			r.P50 = v
		case "p90":
			r.P90 = v
		case "p99":
			r.P99 = v
		case "iters":
			r.Iterations = int64(v)
		case "bw":
			r.Rate = v
		case "msgrate":
			r.MsgRate = v
		default:
			if r.Extra == nil {
				r.Extra = map[string]float64{}
			}
			r.Extra[c.name] = v
		}
	}
	switch {
	case r.Rate > 0:
		r.Metric = obs.Bandwidth
		if r.Bytes > 0 {
			r.Time, r.Central = float64(r.Bytes)/r.Rate, "mean"
		}
	case r.Time > 0:
		r.Metric = obs.Latency
	default:
		return r, unread, errZero
	}
	return r, unread, nil
}
