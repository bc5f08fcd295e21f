package nccltests

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/model"
)

var (
	// Open MPI's --tag-output prefix, and srun -l's.
	tagRe    = regexp.MustCompile(`^\[\d+,\d+\]<std(?:out|err)>:`)
	srunRe   = regexp.MustCompile(`^\s*\d+: (#|\s*\d)`)
	paramsRe = regexp.MustCompile(`^#\s*nThread\s+(\d+)\s+nGpus\s+(\d+)\s+minBytes\s+(\d+)\s+maxBytes\s+(\d+)`)
	// itersRe matches "warmup iters: 5", "iters: 20" and "agg iters: 1";
	// the timed iterations are the one without a qualifier.
	itersRe = regexp.MustCompile(`(?:^|\s)(warmup\s+|agg\s+)?iters:\s*(\d+)`)
	// "#  Rank  0 Group  0 Pid  28616 on nccl-gib-test-0 device  0 [0000:8f:00] NVIDIA B200" (Group is newer).
	rankRe    = regexp.MustCompile(`^#\s*Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s+(.*?)\s*$`)
	versionRe = regexp.MustCompile(`NCCL version (\S+)`)
	testsRe   = regexp.MustCompile(`^#\s*nccl-tests version (\S+)`)
	startRe   = regexp.MustCompile(`^#\s*Collective test starting:\s*(\S+)`)
	avgRe     = regexp.MustCompile(`^#\s*Avg bus bandwidth\s*:\s*(\S+)(.*)$`)
	oobRe     = regexp.MustCompile(`^#\s*Out of bounds values\s*:\s*(\d+)\s*(\S*)`)
	errLineRe = regexp.MustCompile(`^#\s*error:\s*(.+)$`)
	cmdRe     = regexp.MustCompile(`^\+?\s*(?:\S*/)?(?:mpirun|mpiexec|srun|torchrun|\S*_perf(?:_mpi)?)\s`)
	tsRe      = regexp.MustCompile(`^\d{4}-\d\d-\d\d$`)
)

// column is one column of a result table.
type column struct {
	name  string // as in the header: "size", "time", "cputime", "algbw", "#wrong", "i_min", "timestamp"
	unit  string // from the units line: "(B)", "(us)", "(GB/s)"
	group int    // -1 for the size/count/type/redop/root columns, else the group index
}

// table is the layout of one result table.
type table struct {
	cols   []column
	groups []string // "out-of-place", "in-place"
	line   int
	ts     bool // a timestamp (two fields) ends the row
}

// Detect tells whether b is nccl-tests output: its "# nThread" parameter
// line, its result header, or its "Using devices" block.
func Detect(b []byte) bool {
	for _, l := range obs.Lines(b) {
		l = clean(l)
		if paramsRe.MatchString(l) || strings.HasPrefix(l, "# Using devices") || strings.HasPrefix(l, "# Collective test starting") {
			return true
		}
		if strings.HasPrefix(l, "#") && strings.Contains(l, " size ") && strings.Contains(l, " count ") &&
			strings.Contains(l, " algbw ") && strings.Contains(l, " busbw ") {
			return true
		}
	}
	return len(bytes.TrimSpace(b)) > 0 && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && bytes.Contains(b, []byte(`"alg_bw"`))
}

// clean strips launcher prefixes and line-end spaces.
func clean(l string) string {
	if strings.HasPrefix(l, "[") {
		l = tagRe.ReplaceAllString(l, "")
	}
	if m := srunRe.FindStringSubmatchIndex(l); m != nil {
		l = l[m[2]:]
	}
	return strings.TrimRight(l, " \t\r")
}

// Parse reads nccl-tests output, text or the JSON of -J. name is the file
// name: when the output does not say which test ran (an excerpt), a test
// program's name in it ("all_reduce_perf") is taken as the test, and the
// output says so in a note.
func Parse(name string, b []byte) (*obs.Output, error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		return parseJSON(name, b)
	}
	o, _, err := parseText(name, obs.Lines(b), nil)
	return o, err
}

// ParseStream is Parse that hands each record of a text output to sink as
// it is read instead of keeping it (the output's Streamed counts them).
// What only the whole output tells (the test a file name gives, busbw
// where it was printed as 0) is applied by fix, which the caller runs on
// each record as it reads the output a second time. A -J JSON output is
// read whole: its records are in the output, and fix is nil.
func ParseStream(name string, b []byte, sink func(obs.Record)) (*obs.Output, func(*obs.Record), error) {
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		o, err := parseJSON(name, b)
		return o, nil, err
	}
	return parseText(name, obs.Lines(b), sink)
}

type parser struct {
	out *obs.Output
	tab *table
	// headerLine is the line of the last table header seen (tab is
	// cleared when its table ends).
	headerLine int
	test       string // the program of the current table
	testSrc    string
	iters      int64
	hosts      map[int]string // rank -> host
	gpus       map[int]string // rank -> GPU model
	pending    []string       // the "out-of-place ... in-place" line seen before a header
	// tables counts the headers read; rows the rows read.
	tables, rows int
	// What finish needs of the records: the range of busbw/algbw all
	// rows allow (ratioLo..ratioHi over ratioRows rows), the last record's
	// test and op.
	ratioLo, ratioHi float64
	ratioRows        int
	lastTest, lastOp string
}

func parseText(name string, lines []string, sink func(obs.Record)) (*obs.Output, func(*obs.Record), error) {
	p := &parser{out: &obs.Output{Tool: Tool, Sink: sink}, hosts: map[int]string{}, gpus: map[int]string{}}
	found := false
	for i, raw := range lines {
		n := i + 1
		l := clean(raw)
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if strings.Contains(t, " NCCL INFO ") || strings.Contains(t, " NCCL WARN ") || strings.Contains(t, " NCCL TRACE ") {
			if m := versionRe.FindStringSubmatch(t); m != nil && p.out.Version == "" {
				p.out.Version = strings.TrimSuffix(m[1], ".")
			}
			continue // the NCCL log reader's
		}
		switch {
		case paramsRe.MatchString(t):
			found = true
			p.tab = nil
			for _, m := range itersRe.FindAllStringSubmatch(t, -1) {
				if m[1] == "" {
					p.iters, _ = strconv.ParseInt(m[2], 10, 64)
				}
			}
			continue
		case startRe.MatchString(t):
			found = true
			p.setTest(startRe.FindStringSubmatch(t)[1], "its \"Collective test starting\" line")
			continue
		case testsRe.MatchString(t):
			found = true
			continue
		case rankRe.MatchString(t):
			found = true
			m := rankRe.FindStringSubmatch(t)
			r, _ := strconv.Atoi(m[1])
			p.hosts[r], p.gpus[r] = m[2], m[5]
			p.out.Hardware.Mark("gpus", n)
			continue
		case strings.HasPrefix(t, "NCCL version ") || strings.HasPrefix(t, "# NCCL version"):
			if m := versionRe.FindStringSubmatch(t); m != nil {
				p.out.Version = strings.TrimSuffix(m[1], ".")
			}
			continue
		case cmdRe.MatchString(t) && p.out.Command == "" && !strings.HasPrefix(t, "#"):
			p.out.Command = strings.TrimSpace(strings.TrimPrefix(t, "+"))
			if tn := testIn(t); tn != "" && p.test == "" {
				p.setTest(tn, "the command line")
			}
			continue
		}
		if strings.HasPrefix(t, "#") {
			found = p.comment(t, n) || found
			continue
		}
		f := strings.Fields(t)
		if !digits(f[0]) {
			continue // other programs' output (launcher, MPI warnings)
		}
		if p.tab == nil {
			if found {
				p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: t, Reason: "a result row before any table header"})
			}
			continue
		}
		if err := p.row(f, n); err != nil {
			p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: t, Reason: err.Error()})
		}
	}
	if !found && p.tables == 0 {
		return nil, nil, obs.NotRecognized(Tool, "no nccl-tests header or table")
	}
	fix := p.finish(name)
	p.out.Sink = nil
	return p.out, fix, nil
}

func (p *parser) setTest(test, from string) {
	if test == p.test {
		return
	}
	p.test, p.testSrc = test, from
	if p.out.Test == "" {
		p.out.Test = test
	} else if !strings.Contains(p.out.Test, test) {
		p.out.Test += ", " + test
	}
}

// comment reads a "#" line: the table's header and units, the footer.
func (p *parser) comment(t string, n int) bool {
	body := strings.TrimSpace(strings.TrimPrefix(t, "#"))
	fields := strings.Fields(body)
	switch {
	case strings.Contains(body, "out-of-place") || strings.Contains(body, "in-place"):
		p.pending = nil
		for _, f := range fields {
			if f == "out-of-place" || f == "in-place" {
				p.pending = append(p.pending, f)
			}
		}
		return true
	case len(fields) > 3 && fields[0] == "size" && fields[1] == "count":
		p.header(fields, n)
		return true
	case len(fields) > 0 && fields[0] == "(B)" && p.tab != nil:
		p.units(body)
		return true
	}
	if m := avgRe.FindStringSubmatch(t); m != nil {
		if strings.Contains(m[2], "FAILED") {
			p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Text: t, Reason: "nccl-tests: average bus bandwidth below the check (-c)"})
		}
		p.tab = nil
		return true
	}
	if m := oobRe.FindStringSubmatch(t); m != nil {
		if m[2] == "FAILED" || m[1] != "0" {
			p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Text: t, Reason: "nccl-tests found out-of-bounds values"})
		}
		return true
	}
	if m := errLineRe.FindStringSubmatch(t); m != nil {
		p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Text: t, Reason: "nccl-tests reported an error"})
		return true
	}
	return false
}

// header reads "size count type redop [root] time algbw busbw #wrong ..." .
func (p *parser) header(fields []string, n int) {
	tab := &table{line: n}
	group := -1
	for _, f := range fields {
		switch f {
		case "time", "cputime":
			group++
		case "timestamp":
			tab.ts = true
			continue
		}
		tab.cols = append(tab.cols, column{name: f, group: group})
	}
	tab.groups = p.pending
	for len(tab.groups) < group+1 {
		if len(tab.groups) == 0 {
			tab.groups = append(tab.groups, "out-of-place")
		} else {
			tab.groups = append(tab.groups, "in-place")
		}
	}
	p.pending = nil
	p.tab = tab
	p.tables++
	p.headerLine = tab.line
}

// units reads the units line under the header, column by column.
func (p *parser) units(body string) {
	// The units line has blanks under type, redop, root and #wrong:
	// match its tokens to the columns that have units, in order.
	toks := strings.Fields(body)
	k := 0
	for i := range p.tab.cols {
		switch p.tab.cols[i].name {
		case "size", "count", "time", "cputime", "algbw", "busbw", "i_min", "i_max", "i_p99", "i_cv%":
			if k < len(toks) {
				p.tab.cols[i].unit = toks[k]
				k++
			}
		}
	}
}

func timeScale(unit string) (float64, error) {
	switch unit {
	case "", "(us)":
		return 1e-6, nil
	case "(ms)":
		return 1e-3, nil
	case "(ns)":
		return 1e-9, nil
	case "(s)":
		return 1, nil
	}
	return 0, fmt.Errorf("unknown time unit %s", unit)
}

func rateScale(unit string) (float64, error) {
	switch unit {
	case "", "(GB/s)":
		return 1e9, nil
	case "(MB/s)":
		return 1e6, nil
	}
	return 0, fmt.Errorf("unknown rate unit %s", unit)
}

// row reads one result row into a record per group.
// digits tells whether s is a whole number as nccl-tests prints its first
// column (the size), however large: a row, read or refused as one, never
// taken for another program's line.
func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

func (p *parser) row(f []string, n int) error {
	tab := p.tab
	want := len(tab.cols)
	if tab.ts {
		if len(f) >= 2 && tsRe.MatchString(f[len(f)-2]) {
			f = f[:len(f)-2]
		}
	}
	if len(f) != want {
		return fmt.Errorf("%d fields, the header at line %d has %d columns", len(f), tab.line, want)
	}
	base := obs.Record{Line: n, Test: p.test, Op: OpOf(p.test), Iterations: p.iters}
	if base.Test == "" {
		base.Test = "nccl-tests"
	}
	recs := make([]obs.Record, len(tab.groups))
	for i := range recs {
		recs[i] = base
		recs[i].Variant = tab.groups[i]
	}
	var err error
	for i, c := range tab.cols {
		v := f[i]
		if c.group < 0 {
			switch c.name {
			case "size":
				base.Bytes, err = strconv.ParseInt(v, 10, 64)
			case "count":
				base.Count, err = strconv.ParseInt(v, 10, 64)
			case "type":
				base.Type = v
			case "redop":
				base.Redop = v
			case "root":
				var r int
				r, err = strconv.Atoi(v)
				base.Root = &r
			}
			if err != nil || base.Bytes < 0 || base.Count < 0 {
				return fmt.Errorf("column %s: cannot read %q", c.name, v)
			}
			continue
		}
		r := &recs[c.group]
		if v == "N/A" && (c.name == "#wrong" || c.name == "error") {
			r.Wrong = v
			continue
		}
		x, perr := strconv.ParseFloat(v, 64)
		if perr != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return fmt.Errorf("column %s: cannot read %q", c.name, v)
		}
		switch c.name {
		case "time", "cputime":
			s, err := timeScale(c.unit)
			if err != nil {
				return err
			}
			r.Time, r.Central = x*s, "mean"
			if c.name == "cputime" {
				r.Central = "mean (CPU time, -C)"
			}
		case "algbw", "busbw":
			s, err := rateScale(c.unit)
			if err != nil {
				return err
			}
			if c.name == "algbw" {
				r.Rate = x * s
			} else {
				r.BusRate = x * s
			}
		case "#wrong":
			r.Wrong = v
		case "error":
			r.Wrong = v
			r.Extra = setExtra(r.Extra, "max_error", x)
		case "i_min", "i_max", "i_p99":
			s, err := timeScale(c.unit)
			if err != nil {
				return err
			}
			switch c.name {
			case "i_min":
				r.Min = x * s
			case "i_max":
				r.Max = x * s
			default:
				r.P99 = x * s
			}
		case "i_cv%":
			r.Extra = setExtra(r.Extra, "cv_percent", x)
		default:
			r.Extra = setExtra(r.Extra, c.name, x)
		}
	}
	p.rows++
	for i := range recs {
		r := recs[i]
		r.Bytes, r.Count, r.Type, r.Redop, r.Root = base.Bytes, base.Count, base.Type, base.Redop, base.Root
		if r.Time <= 0 {
			p.out.Problems = append(p.out.Problems, obs.Problem{Line: n, Text: strings.Join(f, " "), Reason: r.Variant + ": a time of 0: no record (nothing to judge without a time)"})
			continue
		}
		r.Metric = obs.Bandwidth
		if r.Rate == 0 && r.Bytes > 0 {
			// algbw printed as 0.00: nccl-tests defines it as bytes/time.
			r.Rate = float64(r.Bytes) / r.Time
			r.Extra = setExtra(r.Extra, "algbw_printed_as_zero", 1)
		}
		if r.Bytes == 0 {
			r.Metric, r.Rate, r.BusRate = obs.Latency, 0, 0
		}
		if w, err := strconv.ParseFloat(r.Wrong, 64); err == nil && w > 0 && !strings.Contains(r.Wrong, "e") && !strings.Contains(r.Wrong, ".") {
			p.out.Failures = append(p.out.Failures, obs.Problem{Line: n, Reason: fmt.Sprintf("%s: %s wrong elements at %d B (the results were not correct)", r.Variant, r.Wrong, r.Bytes)})
		}
		if r.Rate >= 1e9 && r.BusRate > 0 && r.Extra["algbw_printed_as_zero"] == 0 {
			lo, hi := ratioBounds(r.Rate, r.BusRate)
			if p.ratioRows == 0 {
				p.ratioLo, p.ratioHi = lo, hi
			}
			p.ratioLo, p.ratioHi, p.ratioRows = max(p.ratioLo, lo), min(p.ratioHi, hi), p.ratioRows+1
		}
		p.lastTest, p.lastOp = r.Test, r.Op
		p.out.Add(r)
	}
	return nil
}

func setExtra(m map[string]float64, k string, v float64) map[string]float64 {
	if m == nil {
		m = map[string]float64{}
	}
	m[k] = v
	return m
}

// finish fills the hardware from the device lines and names the test. It
// applies to the records it holds, and returns, what only the whole output
// tells about each record.
func (p *parser) finish(name string) (fix func(*obs.Record)) {
	hw := &p.out.Hardware
	ranks := make([]int, 0, len(p.hosts))
	for r := range p.hosts {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	for _, r := range ranks {
		hw.AddHost(p.hosts[r])
		hw.GPUs = append(hw.GPUs, p.gpus[r])
	}
	if len(ranks) > 0 {
		hw.Ranks, hw.Nodes = len(ranks), len(hw.Hosts)
		if hw.Ranks%hw.Nodes == 0 {
			hw.GPUsPerNode = hw.Ranks / hw.Nodes
		}
		hw.MemoryGPU = true
		for _, k := range []string{"hosts", "ranks", "nodes"} {
			hw.Mark(k, hw.Lines["gpus"])
		}
	}
	rename := ""
	if p.test == "" && p.out.Test == "" {
		if tn := testIn(name); tn != "" {
			p.out.Test = tn
			p.out.Notes = append(p.out.Notes, fmt.Sprintf("the output does not name its test; the file name says %s", tn))
			rename = tn
			if p.lastTest == "nccl-tests" {
				p.lastOp = OpOf(tn)
			}
		}
	}
	// Ranks from busbw/algbw when the device lines are not in the output.
	if hw.Ranks == 0 {
		if op := p.lastOp; p.ratioRows > 0 && op != "" {
			if n, ok := ranksFromFactor(op, p.ratioLo, p.ratioHi); ok {
				hw.Ranks = n
				p.out.Notes = append(p.out.Notes, fmt.Sprintf("the output does not list its ranks; busbw/algbw of its %d rows of 1 GB/s or more lies in %.4f–%.4f, which only %d ranks give for %s", p.ratioRows, p.ratioLo, p.ratioHi, n, op))
			}
		}
	}
	p.ratioRows = 0
	// busbw printed as 0.00 where algbw was computed from the time: the
	// same factor applies (busbw = algbw × BusFactor).
	nranks := hw.Ranks
	factors := map[string]float64{}
	fix = func(r *obs.Record) {
		if rename != "" && r.Test == "nccl-tests" {
			r.Test, r.Op = rename, OpOf(rename)
		}
		if r.Extra["algbw_printed_as_zero"] == 1 && r.BusRate == 0 && r.Rate > 0 {
			f, ok := factors[r.Op]
			if !ok {
				f, _, _ = model.BusFactor(r.Op, nranks)
				factors[r.Op] = f
			}
			if f > 0 {
				r.BusRate = r.Rate * f
			}
		}
	}
	for i := range p.out.Records {
		fix(&p.out.Records[i])
	}
	if p.tables > 0 && p.rows == 0 {
		p.out.Failures = append(p.out.Failures, obs.Problem{Line: p.lastHeader(), Reason: "the table has a header and no result rows (the run stopped or stalled before its first size)"})
	}
	return fix
}

func (p *parser) lastHeader() int {
	if p.tab != nil {
		return p.tab.line
	}
	return max(p.headerLine, 1)
}
