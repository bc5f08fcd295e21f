// Package ucxperf reads the output of ucx_perftest, UCX's performance test
// (openucx/ucx, src/tools/perf): the test header ("| API: ... | Test: ... |
// Message size: ... |"), the result table and its rows, in the layouts of
// old and new releases.
//
// Units are the tool's own, as print_progress (src/tools/perf/perftest_run.c;
// perftest.c before the split) prints them from ucx_perf_calc_result
// (src/tools/perf/lib/libperf.c):
//
//   - overhead / latency columns are microseconds (seconds × 1e6);
//   - "bandwidth (MB/s)" is bytes / (1024.0 * 1024.0) per second, so one
//     "MB/s" is 1 048 576 B/s (MiBps below);
//   - "message rate (msg/s)" is messages per second.
//
// For ping-pong tests (tag_lat, am_lat, put_lat, ucp_put_lat, stream_lat,
// ...) ucx_perf_calc_result divides the measured time by 2 (factor = 2.0 for
// UCX_PERF_TEST_TYPE_PINGPONG): the latency printed, and read here, is the
// one-way latency, half the round trip. Other tests print the overhead per
// message (factor 1).
//
// A row holds: iterations, the percentile column ("50.0%ile"; "typical", the
// median, in older releases), the average since the previous report and the
// overall value since the start, for time, bandwidth and message rate. The
// record of a test is its "Final:" row: Time is its overall time (the mean
// over all iterations), P50 the percentile column, Rate and MsgRate the
// overall rates, Iterations the count; the since-last-report values go to
// Extra (interval_time_s, interval_rate_Bps, interval_msg_rate). Progress
// rows ("[thread N]" in OpenMP builds, bare rows in the others) are kept as
// the Samples of the Final record that follows (their since-last-report
// time); progress rows that no Final row follows are a problem (the run
// was cut short): no record is made of them.
// The oldest releases print no "Final:" label and no Stage column: there the
// last row of a table is the result (print_progress prints it last) and the
// earlier ones are samples. With -f (a "Test" column) every row is a result.
// Multi-threaded runs print a Final row of four values (iterations, overall
// time, bandwidth, message rate).
//
// Test, memory types, data layout and message size come from the header;
// where the output has no header (the client side of old releases) the test
// is the -t argument of the command line and the size its -s argument.
package ucxperf

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
)

// Tool is the name of the format.
const Tool = "ucx_perftest"

// MiBps is ucx_perftest's "MB/s" in bytes per second.
const MiBps = 1024 * 1024

var (
	headRe   = regexp.MustCompile(`\|\s*(\w+) \(usec\)\s*\|\s*bandwidth \(MB/s\)\s*\|\s*message rate \(msg/s\)\s*\|`)
	colsRe   = regexp.MustCompile(`\|\s*(?:(Stage|Test)\s*\|\s*)?# iterations\s*\|\s*(typical|[0-9.]+%ile)\s*\|`)
	fieldRe  = regexp.MustCompile(`^\|\s*(API|Test|Data layout|Send memory|Recv memory|Send device|Recv device|Message size|Window size|AM header size):\s*(.*?)\s*\|$`)
	threadRe = regexp.MustCompile(`^\[thread (\d+)\]\s*`)
	logRe    = regexp.MustCompile(`^\[\d+\.\d+\]\s+\[([^:\]\s]+):\d+`)
	levelRe  = regexp.MustCompile(`\bUCX\s+(ERROR|FATAL|WARN|INFO|DIAG|DEBUG|TRACE\w*|PRINT|REQ|DATA|ASYNC|FUNC|POLL)\b`)
	cmdRe    = regexp.MustCompile(`(?:^|[\s/$#])ucx_perftest(?:\s|$)`)
	debugCmd = regexp.MustCompile(`\bcmd line: (.*ucx_perftest.*)$`)
	versRes  = []*regexp.Regexp{
		regexp.MustCompile(`UCX version=(\S+)`),
		regexp.MustCompile(`\bVersion (\d[\w.\-]*) \(loaded from`),
		regexp.MustCompile(`UCP version is (\S+(?: \(release \d+\))?)`),
		regexp.MustCompile(`^# Library version: (\S+)`),
	}
	numRe = regexp.MustCompile(`^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$`)
)

// Detect tells whether b is ucx_perftest output: its result table or its
// test header in the first 4 KiB.
func Detect(b []byte) bool {
	s := string(b[:min(len(b), 4096)])
	if headRe.MatchString(s) || colsRe.MatchString(s) {
		return true
	}
	return strings.Contains(s, "| API:") && (strings.Contains(s, "protocol layer") || strings.Contains(s, "transport layer")) &&
		strings.Contains(s, "| Test:")
}

// header is what the test header says.
type header struct {
	api, test, layout, send, recv, sendDev, recvDev string
	size                                            int64
	sizeSet                                         bool
	line                                            int
}

// maxSize is the largest message size a record takes (obs's bound, 1 EiB).
const maxSize = 1 << 60

// command is what a command line says.
type command struct {
	// badSize is an -s value that cannot be read (a problem of its line).
	badSize   string
	test, mem string
	size      int64
	sizeSet   bool
}

// row is one table row read.
type row struct {
	line   int
	prefix string
	vals   []float64
	fields []string
}

type parser struct {
	out     *obs.Output
	hdr     header
	cmd     command
	kind    string // "latency", "overhead"; "" outside a table
	style   string // "Stage", "Test", "old"
	pct     string // "typical", "50.0%ile"
	samples []float64
	sampleL int // line of the first pending progress row
	pending *row
	halfRT  bool
	gpu     bool
}

// Parse reads ucx_perftest output: one record per test result.
func Parse(b []byte) (*obs.Output, error) {
	p := &parser{out: &obs.Output{Tool: Tool}}
	found := false
	for i, raw := range obs.Lines(b) {
		n := i + 1
		l := strings.TrimSpace(raw)
		if l == "" {
			continue
		}
		if m := logRe.FindStringSubmatch(l); m != nil {
			p.out.Hardware.AddHost(m[1])
			p.out.Hardware.Mark("hosts", n)
		}
		if p.out.Version == "" {
			for _, re := range versRes {
				if m := re.FindStringSubmatch(l); m != nil {
					p.out.Version = m[1]
					break
				}
			}
		}
		switch {
		case headRe.MatchString(l):
			found = true
			p.endTable()
			p.kind = headRe.FindStringSubmatch(l)[1]
			p.style, p.pct = "", ""
		case colsRe.MatchString(l):
			found = true
			m := colsRe.FindStringSubmatch(l)
			p.style, p.pct = m[1], m[2]
			if p.style == "" {
				p.style = "old"
			}
		case fieldRe.MatchString(l):
			found = true
			p.field(n, fieldRe.FindStringSubmatch(l))
		case strings.HasPrefix(l, "+-") || strings.HasPrefix(l, "+="):
			// table rules; print_test_name's rule carries batch names
		case p.failure(n, l):
		case p.kind != "" && p.rowLike(l):
			p.row(n, l)
		case debugCmd.MatchString(l):
			p.command(n, strings.TrimSpace(debugCmd.FindStringSubmatch(l)[1]), false)
		case !strings.HasPrefix(l, "[") && !strings.Contains(l, "(+0x") && cmdRe.MatchString(l):
			p.command(n, l, true)
		}
	}
	if !found {
		return nil, obs.NotRecognized(Tool, "no ucx_perftest result table or test header")
	}
	p.endTable()
	if p.halfRT {
		p.out.Notes = append(p.out.Notes, "latency tests print one-way latency: half the round trip (ucx_perf_calc_result divides ping-pong times by 2)")
	}
	if p.gpu {
		p.out.Hardware.MemoryGPU = true
	}
	return p.out, nil
}

func (p *parser) field(n int, m []string) {
	k, v := m[1], m[2]
	if k == "API" {
		if p.style == "old" {
			p.flushOld()
		}
		p.hdr = header{line: n}
	}
	switch k {
	case "API":
		p.hdr.api = v
	case "Test":
		p.hdr.test = v
	case "Data layout":
		p.hdr.layout = v
	case "Send memory":
		p.hdr.send = v
	case "Recv memory":
		p.hdr.recv = v
	case "Send device":
		p.hdr.sendDev = v
	case "Recv device":
		p.hdr.recvDev = v
	case "Message size":
		s, err := strconv.ParseInt(v, 10, 64)
		if err != nil || s < 0 || s > maxSize {
			p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: m[0], Reason: "a message size that cannot be read"})
			return
		}
		p.hdr.size, p.hdr.sizeSet = s, true
	}
}

// failure records an error the tool printed; it tells whether l was one.
func (p *parser) failure(n int, l string) bool {
	if m := levelRe.FindStringSubmatch(l); m != nil {
		if m[1] == "ERROR" || m[1] == "FATAL" {
			p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Text: l, Reason: "ucx_perftest printed an error"})
			return true
		}
		return false
	}
	switch {
	case strings.Contains(l, "Assertion") && strings.Contains(l, "failed"),
		strings.HasPrefix(l, "Aborted"), strings.HasPrefix(l, "Segmentation fault"),
		strings.Contains(l, "Error:"), strings.Contains(l, "Fatal:"),
		strings.Contains(l, " failed") && !strings.HasPrefix(l, "|"):
		p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Text: l, Reason: "ucx_perftest printed an error"})
		return true
	}
	return false
}

// rowLike tells whether l is meant as a table row: a Final or thread
// label, or a line of numbers.
func (p *parser) rowLike(l string) bool {
	if strings.HasPrefix(l, "Final:") || threadRe.MatchString(l) {
		return true
	}
	f := strings.Fields(l)
	if len(f) < 2 {
		return false
	}
	last := f[len(f)-1]
	return numRe.MatchString(f[0]) && numRe.MatchString(last) || p.style == "Test" && len(f) >= 5 && numRe.MatchString(f[1]) && numRe.MatchString(last)
}

func (p *parser) row(n int, l string) {
	r := row{line: n, fields: strings.Fields(l)}
	rest := l
	switch {
	case strings.HasPrefix(l, "Final:"):
		r.prefix, rest = "Final:", strings.TrimPrefix(l, "Final:")
	case threadRe.MatchString(l):
		m := threadRe.FindString(l)
		r.prefix, rest = strings.TrimSpace(m), l[len(m):]
	default:
		f := strings.Fields(l)
		if !numRe.MatchString(f[0]) { // -f with batch files: test names first
			r.prefix, rest = f[0], strings.TrimSpace(strings.TrimPrefix(l, f[0]))
		}
	}
	for _, f := range strings.Fields(rest) {
		if !numRe.MatchString(f) {
			p.problem(n, l, "a table row with a value that is not a number")
			return
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(f, ",", ""), 64)
		if err != nil || math.IsInf(v, 0) {
			p.problem(n, l, "a table row with a value that cannot be read")
			return
		}
		r.vals = append(r.vals, v)
	}
	if len(r.vals) != 8 && !(len(r.vals) == 4 && r.prefix == "Final:") {
		p.problem(n, l, fmt.Sprintf("a table row of %d values (8 expected, or 4 in a multi-threaded Final row)", len(r.vals)))
		return
	}
	switch {
	case r.prefix == "Final:":
		p.emit(r)
	case p.style == "Test":
		p.emit(r)
	case p.style == "old" && r.prefix == "":
		if p.pending != nil {
			p.sample(*p.pending)
		}
		p.pending = &r
	default:
		p.sample(r)
	}
}

func (p *parser) problem(n int, l, why string) {
	p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: l, Reason: why})
}

// sample keeps a progress row's since-last-report time.
func (p *parser) sample(r row) {
	if len(p.samples) == 0 {
		p.sampleL = r.line
	}
	if t := r.vals[2] * 1e-6; t > 0 {
		p.samples = append(p.samples, t)
	} else {
		p.samples = append(p.samples, math.NaN()) // counted, not kept
	}
}

func (p *parser) flushOld() {
	if p.pending != nil {
		r := *p.pending
		p.pending = nil
		p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: a table without a Final: label (an old ucx_perftest): its last row is the result", r.line))
		p.emit(r)
	}
}

// endTable ends the current table: the result of an old table, a note for
// progress rows without a result.
func (p *parser) endTable() {
	p.flushOld()
	if len(p.samples) > 0 {
		p.out.Problems = append(p.out.Problems, obs.Problem{Line: p.sampleL, Reason: fmt.Sprintf("%d progress rows without a Final: row after them (the run was cut short): no record", len(p.samples))})
		p.samples = nil
	}
	p.kind = ""
}

func (p *parser) command(n int, l string, top bool) {
	l = strings.TrimSpace(strings.TrimSuffix(l, "\\"))
	if i := strings.Index(l, "# "); i > 0 && strings.Contains(l[:i], "@") { // root@host:dir# cmd
		l = strings.TrimSpace(l[i+2:])
	}
	l = strings.TrimSpace(strings.TrimPrefix(l, "$ "))
	p.endTable()
	if p.out.Command == "" {
		p.out.Command = l
	}
	if top {
		p.hdr = header{}
	}
	c := command{}
	f := strings.Fields(l)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "-t":
			c.test = f[i+1]
		case "-m":
			c.mem = f[i+1]
		case "-s":
			var sum int64
			ok := true
			for _, s := range strings.Split(f[i+1], ",") {
				v, err := strconv.ParseInt(s, 10, 64)
				if err != nil || v < 0 || sum+v < sum || sum+v > maxSize {
					ok = false
					break
				}
				sum += v
			}
			c.size, c.sizeSet = sum, ok
			if !ok {
				c.badSize = f[i+1]
			}
		}
	}
	p.cmd = c
	if c.badSize != "" {
		p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: l, Reason: fmt.Sprintf("-s %s: a message size that cannot be read (negative, past 1 EiB, or not a number)", obs.Quote(c.badSize, 40))})
	}
}

func (p *parser) testName() string {
	switch {
	case p.hdr.test != "":
		return p.hdr.test
	case p.cmd.test != "":
		return p.cmd.test
	}
	return Tool
}

func (p *parser) emit(r row) {
	samples := p.samples
	p.samples = nil
	rec := obs.Record{Line: r.line, Test: p.testName(), Op: p.hdr.api, Central: "mean", Fields: r.fields}
	var mem []string
	send, recv := p.hdr.send, p.hdr.recv
	if send == "" && recv == "" && p.cmd.mem != "" {
		ms := strings.SplitN(p.cmd.mem, ",", 2)
		send, recv = ms[0], ms[len(ms)-1]
	}
	if p.hdr.sendDev != "" {
		send = p.hdr.sendDev
	}
	if p.hdr.recvDev != "" {
		recv = p.hdr.recvDev
	}
	if send != "" {
		mem = append(mem, "send "+send)
	}
	if recv != "" {
		mem = append(mem, "recv "+recv)
	}
	if p.hdr.layout != "" {
		mem = append(mem, "layout "+p.hdr.layout)
	}
	rec.Variant = strings.Join(mem, ", ")
	for _, m := range []string{send, recv} {
		if strings.HasPrefix(m, "cuda") || strings.HasPrefix(m, "rocm") || strings.HasPrefix(m, "ze") {
			p.gpu = true
			p.out.Hardware.Mark("memory_gpu", r.line)
		}
	}
	switch {
	case p.hdr.sizeSet:
		rec.Bytes = p.hdr.size
	case p.cmd.sizeSet:
		rec.Bytes, rec.BytesNote = p.cmd.size, "from the command line (-s)"
	default:
		rec.BytesNote = "message size not printed"
	}
	if r.prefix != "" && r.prefix != "Final:" {
		rec.Target = r.prefix
	}
	v := r.vals
	rec.Iterations = int64(v[0])
	if v[0] < 0 || v[0] > math.MaxInt64/2 || float64(rec.Iterations) != v[0] {
		p.problem(r.line, strings.Join(r.fields, " "), "an iteration count that cannot be read")
		return
	}
	var overallT, overallB, overallM float64
	if len(v) == 4 {
		overallT, overallB, overallM = v[1], v[2], v[3]
		rec.Variant = strings.TrimPrefix(rec.Variant+", multi-threaded", ", ")
	} else {
		overallT, overallB, overallM = v[3], v[5], v[7]
		rec.Extra = map[string]float64{"interval_time_s": v[2] * 1e-6, "interval_rate_Bps": v[4] * MiBps, "interval_msg_rate": v[6]}
		p.percentile(&rec, v[1]*1e-6)
	}
	rec.Time, rec.Rate, rec.MsgRate = overallT*1e-6, overallB*MiBps, overallM
	rec.Metric = p.metric(rec.Test)
	if rec.Metric == obs.Latency && rec.Time <= 0 || rec.Metric == obs.Bandwidth && rec.Rate <= 0 {
		p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: a %s of 0: no record", r.line, map[obs.Metric]string{obs.Latency: "time", obs.Bandwidth: "bandwidth"}[rec.Metric]))
		return
	}
	dropped := 0
	for _, s := range samples {
		if s > 0 {
			rec.Samples = append(rec.Samples, s)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		p.out.Notes = append(p.out.Notes, fmt.Sprintf("line %d: %d progress rows with a time of 0 left out of the samples", r.line, dropped))
	}
	if rec.Metric == obs.Latency && pingPong(rec.Test) {
		p.halfRT = true
	}
	p.out.Add(rec)
}

// metric is a test's metric: bandwidth for the bandwidth and message rate
// tests (old releases head every table "latency (usec)"), else what the
// table head says.
func (p *parser) metric(test string) obs.Metric {
	switch {
	case strings.Contains(test, "bandwidth /"), strings.HasSuffix(test, "bandwidth"), strings.HasSuffix(test, "message rate"),
		strings.HasSuffix(test, "_bw"), strings.HasSuffix(test, "_mr"):
		return obs.Bandwidth
	case p.kind == "latency":
		return obs.Latency
	}
	return obs.Bandwidth
}

// pingPong tells whether a test is a ping-pong one, whose latency
// ucx_perftest halves (tests[] in perftest.c: the "... latency" tests and
// the -t names ending in _lat).
func pingPong(test string) bool {
	return strings.HasSuffix(test, " latency") || strings.HasSuffix(test, "_lat")
}

// percentile puts the percentile column where its rank says.
func (p *parser) percentile(rec *obs.Record, t float64) {
	switch p.pct {
	case "typical", "50.0%ile", "":
		rec.P50 = t
	case "90.0%ile":
		rec.P90 = t
	case "99.0%ile":
		rec.P99 = t
	case "99.9%ile":
		rec.P999 = t
	default:
		if rec.Extra == nil {
			rec.Extra = map[string]float64{}
		}
		rec.Extra["p"+strings.TrimSuffix(p.pct, "%ile")+"_s"] = t
	}
}
