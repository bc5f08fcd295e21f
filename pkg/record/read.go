package record

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unique"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/units"
)

// Limits on a run directory read back. A run of gpupath measure writes a
// manifest of a few KiB and at most some thousands of records; these leave
// room for a thousand times that and stop a file that is not a run (a
// device, a runaway writer) from taking the reader's memory.
const (
	// MaxManifestBytes bounds manifest.json.
	MaxManifestBytes = 16 << 20
	// MaxResultsBytes bounds results.jsonl.
	MaxResultsBytes = 1 << 30
	// MaxRecords bounds the records of one run.
	MaxRecords = 1_000_000
	// MaxLineBytes bounds one line of results.jsonl; longer lines are
	// skipped and listed.
	MaxLineBytes = 1 << 20
	// MaxPointSamples bounds the samples (samples_s) kept of one point
	// (probe, variant, stage, path, target, host, timer and size), and
	// MaxSamples those of a run: past them a record keeps its median, not
	// its samples (RunData.SamplesLeft counts them). A fit works on at
	// most 65,536 times (fit.MaxTimes) whatever a run holds; 15,000
	// records of 2,500 samples each took 1.4 GB to read whole.
	MaxPointSamples = 1 << 16
	MaxSamples      = 1 << 24
)

// recordCap is MaxRecords; a test lowers it, since reading a million
// records to reach the real cap took 9.5 s of the suite.
var recordCap = MaxRecords

// ErrTooManyRecords is returned when a results file holds more than MaxRecords records.
var ErrTooManyRecords = errors.New("more records than the limit")

// ErrTooManySizes is returned when one series (a probe and variant) of a
// results file holds more than units.MaxSizes different message sizes —
// more than any size sweep gives, and more points than a figure, a table or
// a fit is made for (a million distinct sizes took all 24 GB of a machine
// to report). Repetitions of a size are not limited: they summarize.
var ErrTooManySizes = errors.New("more different sizes in one series than the limit")

// MaxPoints bounds the different (probe, variant, size) points of one run,
// all series together: every one is a point of a figure and of a fit, and
// the report's time and memory grow with them (about 1 ms and 13 KB each
// here: 117,000 points took 105 s and 1.5 GB), while a million took all of a
// 24 GB machine. Repetitions of a point are not limited.
const MaxPoints = 200_000

// Points counts the different (probe, variant, size) points of a run as
// its records come, and is the one check of the limits on them: at most
// units.MaxSizes sizes in one series (a probe and variant) and MaxPoints
// in all. The reader checks every run with it, and so does every writer of
// a run directory (import), so that what is written reads back.
type Points struct {
	sizes map[[2]string]map[int64]struct{}
	n     int
}

// Add counts r's point; past a limit it returns ErrTooManySizes or
// ErrTooManyPoints, saying which series and limit.
func (p *Points) Add(r *Result) error {
	if p.sizes == nil {
		p.sizes = map[[2]string]map[int64]struct{}{}
	}
	k := [2]string{r.Probe, r.Variant}
	if p.sizes[k] == nil {
		p.sizes[k] = map[int64]struct{}{}
	}
	if _, seen := p.sizes[k][r.Bytes]; seen {
		return nil
	}
	p.sizes[k][r.Bytes] = struct{}{}
	if p.n++; p.n > MaxPoints {
		return fmt.Errorf("%w of %d per run (probe, variant and size)", ErrTooManyPoints, MaxPoints)
	}
	if len(p.sizes[k]) > units.MaxSizes {
		return fmt.Errorf("%s/%s: %w of %d (a size sweep's)", r.Probe, r.Variant, ErrTooManySizes, units.MaxSizes)
	}
	return nil
}

// ErrTooManyPoints is returned past MaxPoints.
var ErrTooManyPoints = errors.New("more different sizes in all series than the limit")

// SkippedLine is a line of results.jsonl that the reader could not use.
type SkippedLine struct {
	Line   int    `json:"line"` // 1-based
	Reason string `json:"reason"`
}

func (s SkippedLine) String() string { return fmt.Sprintf("line %d: %s", s.Line, s.Reason) }

// RunData is a run directory read back: the manifest, every complete
// record, and the lines that were skipped.
type RunData struct {
	Dir      string
	Manifest Manifest
	Results  []Result
	Skipped  []SkippedLine
	// Derived, when not empty, says why Manifest.Status is not what the
	// manifest says: a manifest left at running or pending by a writer that
	// died (SIGKILL, a full disk) is read as interrupted, and Derived says
	// what was found ("found running with 12 records; the writer died").
	// Written is the status the manifest holds.
	Derived string
	Written Status
	// SamplesLeft counts the records whose samples were not kept, past
	// MaxPointSamples of their point or MaxSamples of the run: their
	// median stands for them.
	SamplesLeft int
}

// maxLine bounds one record line; longer lines are skipped, not loaded.
const maxLine = MaxLineBytes

// ReadRun reads a run directory. A missing or malformed manifest is an error
// that names the file (and the line and column of a syntax error); a
// missing results.jsonl means no results. Lines of results.jsonl that are
// not complete records — a last line cut off when the run was killed, a
// damaged line — are skipped and listed in Skipped with their line numbers.
func ReadRun(dir string) (*RunData, error) {
	return ReadRunContext(context.Background(), dir)
}

// ReadRunContext is ReadRun that stops when ctx is done. Files are opened
// with safeio: a FIFO, a device or a directory in place of a file is an
// error at once, and manifest.json over MaxManifestBytes, results.jsonl
// over MaxResultsBytes or with more than MaxRecords records are errors
// that name the limit. A manifest that says running or pending is checked
// against what is there: when no process holds the writer's lock on
// results.jsonl (the runner holds it while it writes; the kernel drops it
// when the process dies), the status is read as interrupted and Derived
// says so. A leftover manifest.json.tmp is ignored.
func ReadRunContext(ctx context.Context, dir string) (*RunData, error) {
	m, f, err := openRun(ctx, dir)
	if err != nil {
		return nil, err
	}
	rd := &RunData{Dir: dir, Manifest: *m, Written: m.Status}
	if f == nil {
		rd.derive(false, true)
		rd.checkLost()
		return rd, nil
	}
	defer f.Close()
	hint, err := checkRecordCount(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	held, known := writerHolds(f)
	rd.Results, rd.Skipped, rd.SamplesLeft, err = readResults(ctx, f, hint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	if known {
		rd.derive(held, false)
	} else {
		rd.deriveByCount()
	}
	rd.checkLost()
	return rd, nil
}

// openRun reads a run directory's manifest and opens its results file
// (nil when there is none), refusing a file over MaxResultsBytes unread.
func openRun(ctx context.Context, dir string) (*Manifest, *os.File, error) {
	mpath := filepath.Join(dir, ManifestFile)
	b, err := safeio.ReadFile(ctx, mpath, MaxManifestBytes)
	if err != nil {
		return nil, nil, err
	}
	m, err := ParseManifest(b)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", mpath, err)
	}
	name := m.Results
	if name == "" || filepath.IsAbs(name) || filepath.Base(name) != name {
		name = ResultsFile // never follow a path out of the run directory
	}
	f, err := safeio.Open(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return m, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	// The limits before the work: a file over the size limit is refused
	// unread, and one with more records than a run holds after counting
	// them, before any is kept.
	if st, err := f.Stat(); err == nil && st.Size() > MaxResultsBytes {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w of %s (%d bytes)", f.Name(), safeio.ErrTooLarge, safeio.FormatLimit(MaxResultsBytes), st.Size())
	}
	return m, f, nil
}

// ErrTooManyInAll is returned by CheckTotal for runs that hold more than
// MaxRecords records together.
var ErrTooManyInAll = errors.New("more records in all than one fit or report takes")

// CheckTotal counts the records of the runs in dirs without keeping any
// (the lines that can be records: those that start with "{", a fast upper
// bound) and refuses more than MaxRecords in all, before any run is read
// whole: the limit of one fit or report, which then reads the runs.
// A directory that is not a run is left to the reader to name; one run
// alone is not counted here (ReadRun counts it against the same limit).
func CheckTotal(ctx context.Context, dirs []string) error {
	if len(dirs) < 2 {
		return ctx.Err() // one run: ReadRun's own count is the same limit
	}
	total := 0
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, f, err := openRun(ctx, d)
		if err != nil || f == nil {
			continue // ReadRun says what is wrong with it
		}
		n, err := countCandidates(ctx, safeio.NewReader(ctx, f, MaxResultsBytes))
		f.Close()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			continue
		}
		if total += n; total > recordCap {
			return fmt.Errorf("%w (%s): the runs up to %s hold more", ErrTooManyInAll, units.Thousands(recordCap), d)
		}
	}
	return nil
}

// writerHolds says whether a live writer holds the lock on results.jsonl;
// known is false where the file system has no locks (then the record count
// decides, see deriveByCount).
func writerHolds(f *os.File) (held, known bool) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, true
	}
	if err != nil {
		return false, false
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false, true
}

// deriveByCount is the rule without locks: a manifest at running that
// counts fewer records than results.jsonl holds was left by a writer that
// could no longer write it (killed, or a full disk).
func (rd *RunData) deriveByCount() {
	m := &rd.Manifest
	if m.Status != StatusRunning && m.Status != StatusPending {
		return
	}
	counted := m.Counted()
	if n := len(rd.Results); n > counted {
		rd.Derived = fmt.Sprintf("found %s with %d record(s) (the manifest counts %d); the writer died", m.Status, n, counted)
		m.Status = StatusInterrupted
	}
}

// derive sets the status the run directory shows: a manifest at running or
// pending whose writer no longer holds the lock on results.jsonl (killed,
// crashed) is an interrupted run; one whose writer holds it is running,
// whatever its counts say between two manifest writes.
func (rd *RunData) derive(held, noResults bool) {
	m := &rd.Manifest
	if m.Status != StatusRunning && m.Status != StatusPending {
		return
	}
	counted := m.Counted()
	n := len(rd.Results)
	if held || noResults {
		return
	}
	rd.Derived = fmt.Sprintf("found %s with %d record(s) (the manifest counts %d); the writer died", m.Status, n, counted)
	m.Status = StatusInterrupted
}

// Corrupt is the error of a results file in which no line is a record (it
// names the first bad line), nil for any other run: a file cut off at its
// last line is read, one that is garbage throughout is not a results file
// at all. It is the one test of it for every reader (report, fit).
func (rd *RunData) Corrupt() error {
	if len(rd.Results) > 0 || len(rd.Skipped) == 0 {
		return nil
	}
	name := rd.Manifest.Results
	if name == "" || filepath.Base(name) != name {
		name = ResultsFile
	}
	return fmt.Errorf("%s is corrupt: no line is a record (line %d: %s)", name, rd.Skipped[0].Line, rd.Skipped[0].Reason)
}

// Counted is the number of records the manifest's probes say they wrote.
func (m *Manifest) Counted() int {
	n := 0
	for _, p := range m.Probes {
		n += p.Results
	}
	return n
}

// checkLost reads a finished run (complete or partial) whose results.jsonl
// holds fewer records than its manifest counts — the file truncated, emptied,
// removed or replaced after the run — as interrupted, and Derived says what
// was found: a run that lost records is not passed off as whole.
func (rd *RunData) checkLost() {
	m := &rd.Manifest
	if m.Status != StatusComplete && m.Status != StatusPartial {
		return
	}
	counted := m.Counted()
	if n := len(rd.Results); n < counted {
		rd.Derived = fmt.Sprintf("found %s, but %s holds %d record(s) of the %d its manifest counts (the others are missing or damaged)", m.Status, ResultsFile, n, counted)
		m.Status = StatusInterrupted
	}
}

// ReadResults reads JSON Lines records. It keeps going past bad lines and
// returns them as skipped: a line that is not one JSON object, a record
// without a probe name or with negative sizes or times, a line over 1 MiB,
// and a last line cut off before its end. Blank lines are ignored. The
// error is only for a failing reader.
func ReadResults(r io.Reader) ([]Result, []SkippedLine, error) {
	return ReadResultsContext(context.Background(), r)
}

// ReadResultsContext is ReadResults that stops when ctx is done, reads at
// most MaxResultsBytes and keeps at most MaxRecords records (more is an
// error that names the limit).
func ReadResultsContext(ctx context.Context, r io.Reader) ([]Result, []SkippedLine, error) {
	rs, skipped, _, err := readResults(ctx, r, 0)
	return rs, skipped, err
}

// readResults is ReadResultsContext with room made for hint records at
// once (the lines counted before: a million records are not copied as the
// slice grows), and the names records repeat (probe, variant, target, ...)
// kept once, not once per record.
func readResults(ctx context.Context, r io.Reader, hint int) (results []Result, skipped []SkippedLine, samplesLeft int, err error) {
	br := bufio.NewReaderSize(safeio.NewReader(ctx, r, MaxResultsBytes), 64<<10)
	results = make([]Result, 0, min(max(hint, 0), recordCap))
	var (
		names   = map[string]string{}
		points  Points
		extras  extraSet
		samples sampleBudget
	)
	intern := func(s *string) {
		if *s == "" {
			return
		}
		if v, ok := names[*s]; ok {
			*s = v
		} else if len(names) < 1<<16 {
			names[*s] = *s
		}
	}
	for line := 1; ; line++ {
		b, complete, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return results, skipped, samplesLeft, err
		}
		if len(b) == 0 && !tooLong && errors.Is(err, io.EOF) {
			return results, skipped, samplesLeft, nil
		}
		switch trimmed := bytes.TrimSpace(b); {
		case tooLong:
			skipped = append(skipped, SkippedLine{line, fmt.Sprintf("longer than %d bytes", maxLine)})
		case len(trimmed) == 0:
		default:
			res, why := parseRecord(trimmed)
			if why != "" {
				if !complete {
					why = "cut off (no newline at the end of the file): " + why
				}
				skipped = append(skipped, SkippedLine{line, why})
			} else {
				if len(results) == recordCap {
					return results, skipped, samplesLeft, fmt.Errorf("line %d: %w of %d per run", line, ErrTooManyRecords, recordCap)
				}
				for _, f := range []*string{&res.Probe, &res.Variant, &res.Stage, &res.Path, &res.Target, &res.Timer, &res.CPUScope, &res.Note} {
					intern(f)
				}
				res.Extra = extras.intern(res.Extra)
				if !samples.keep(&res) {
					res.Samples = nil
					samplesLeft++
				}
				if err := points.Add(&res); err != nil {
					return results, skipped, samplesLeft, fmt.Errorf("line %d: %w", line, err)
				}
				results = append(results, res)
			}
		}
		if errors.Is(err, io.EOF) {
			return results, skipped, samplesLeft, nil
		}
	}
}

// sampleBudget counts the samples kept, per point and in all, as records
// come (MaxPointSamples, MaxSamples).
type sampleBudget struct {
	point map[pointKey]int
	all   int
}

type pointKey struct {
	probe, variant, stage, path, target, host, timer string
	bytes                                            int64
}

// keep says whether r's samples fit the budgets, and counts them if so.
func (b *sampleBudget) keep(r *Result) bool {
	n := len(r.Samples)
	if n == 0 {
		return true
	}
	if b.point == nil {
		b.point = map[pointKey]int{}
	}
	k := pointKey{r.Probe, r.Variant, r.Stage, r.Path, r.Target, r.Host, r.Timer, r.Bytes}
	if b.point[k]+n > MaxPointSamples || b.all+n > MaxSamples {
		return false
	}
	b.point[k] += n
	b.all += n
	return true
}

// extraSet keeps one copy of each Result.Extra read (the maps of an
// import's records are the same few, {import_file: 0, import_series: 1}:
// 800,000 copies of them took 190 MB), up to 1<<16 different ones. The
// maps read back are shared between records: readers do not change them.
type extraSet struct {
	seen map[string]map[string]float64
	key  []byte
}

func (e *extraSet) intern(m map[string]float64) map[string]float64 {
	if len(m) == 0 || len(m) > 8 {
		return m
	}
	if e.seen == nil {
		e.seen = map[string]map[string]float64{}
	}
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	e.key = e.key[:0]
	for _, k := range ks {
		e.key = strconv.AppendQuote(e.key, k)
		e.key = strconv.AppendUint(append(e.key, '='), math.Float64bits(m[k]), 16)
		e.key = append(e.key, ';')
	}
	if v, ok := e.seen[string(e.key)]; ok {
		return v
	}
	if len(e.seen) < 1<<16 {
		e.seen[string(e.key)] = m
	}
	return m
}

// checkRecordCount reads r (results.jsonl) without keeping its records,
// says how many there may be (room for the reader to make) and fails at
// the record past recordCap. Lines that may be records (their
// first byte that is not a space is "{") are counted first; only when
// there are more of them than the cap are they decoded to count the
// records among them.
func checkRecordCount(ctx context.Context, f *os.File) (int, error) {
	n, err := countCandidates(ctx, f)
	if err != nil || n <= recordCap {
		return n, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	br := bufio.NewReaderSize(safeio.NewReader(ctx, f, MaxResultsBytes), 64<<10)
	count := 0
	for line := 1; ; line++ {
		b, _, tooLong, err := readLine(br)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if t := bytes.TrimSpace(b); !tooLong && len(t) > 0 {
			if isRecord(t) {
				if count++; count > recordCap {
					return 0, fmt.Errorf("line %d: %w of %d per run", line, ErrTooManyRecords, recordCap)
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return count, nil
		}
	}
}

// isRecord is parseRecord's verdict on the fields it checks (the probe,
// the size, the iterations, the times), decoded alone: several times
// faster than a whole record with its samples and extras. A line whose
// other fields do not decode counts here and is skipped by the reader.
func isRecord(b []byte) bool {
	var r struct {
		Probe      string  `json:"probe"`
		Bytes      int64   `json:"bytes"`
		Iterations int     `json:"iterations"`
		MinS       float64 `json:"min_s"`
		MedianS    float64 `json:"median_s"`
		P99S       float64 `json:"p99_s"`
	}
	if b[0] != '{' || json.Unmarshal(b, &r) != nil {
		return false
	}
	return r.Probe != "" && r.Bytes >= 0 && r.Iterations >= 0 && r.MinS >= 0 && r.MedianS >= 0 && r.P99S >= 0
}

// countCandidates counts the lines of r whose first byte that is not a
// space or a tab is "{".
func countCandidates(ctx context.Context, r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	n, start := 0, true // start: only blanks seen since the last newline
	for {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k, err := r.Read(buf)
		for _, c := range buf[:k] {
			switch {
			case c == '\n':
				start = true
			case !start, c == ' ', c == '\t', c == '\r':
			case c == '{':
				n, start = n+1, false
			default:
				start = false
			}
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// readLine returns one line without its newline; complete is false for a
// last line without a newline; a line over maxLine is consumed and reported
// as tooLong.
func readLine(br *bufio.Reader) (b []byte, complete, tooLong bool, err error) {
	for {
		frag, e := br.ReadSlice('\n')
		if !tooLong {
			if len(b)+len(frag) > maxLine+1 {
				tooLong, b = true, nil
			} else {
				b = append(b, frag...)
			}
		}
		switch {
		case e == nil:
			if !tooLong {
				b = b[:len(b)-1]
			}
			return b, true, tooLong, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return b, false, tooLong, e
		}
	}
}

// parseRecord decodes one record; a non-empty reason says why it is not one.
func parseRecord(b []byte) (Result, string) {
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		if se, ok := err.(*json.SyntaxError); ok && strings.Contains(se.Error(), "after top-level value") {
			return r, "data after the JSON record"
		}
		return r, "not a JSON record: " + err.Error()
	}
	// The names come from outside (a run written by another program, or
	// edited): one line with no control character, as everything that
	// shows them (figures, their legends and data files, report.json)
	// takes them; and they repeat on every record of a series: one copy of
	// each, so that a million records do not hold a million copies of
	// "cuda".
	for _, p := range []*string{&r.Probe, &r.Variant, &r.Stage, &r.Path, &r.Target, &r.Timer, &r.CPUScope} {
		if *p != "" {
			*p = unique.Make(termtext.Name(*p)).Value()
		}
	}
	r.Note = termtext.Name(r.Note)
	if r.Host != "" {
		r.Host = unique.Make(CleanName(r.Host)).Value()
	}
	if r.Peer != "" {
		r.Peer = unique.Make(CleanName(r.Peer)).Value()
	}
	switch {
	case r.Probe == "":
		return r, "record without a probe name"
	case r.Bytes < 0:
		return r, "negative size"
	case r.Iterations < 0:
		return r, "negative iteration count"
	case r.MinS < 0 || r.MedianS < 0 || r.P99S < 0:
		return r, "negative time"
	}
	// A time of 0 is "not known" (an imported output without a minimum);
	// any other outside the physical range is no measurement, and would
	// reach every figure, fit and comparison downstream.
	for _, t := range [...]struct {
		name string
		v    float64
	}{{"min_s", r.MinS}, {"median_s", r.MedianS}, {"p99_s", r.P99S}, {"mean_s", r.MeanS}} {
		if t.v != 0 && !units.PhysicalTime(t.v) {
			return r, fmt.Sprintf("%s %g outside %s – %s: not a measured time", t.name, t.v, units.MinTime, units.MaxTime)
		}
	}
	return r, ""
}

// MaxRuns bounds the run directories one fit or report is given: a report
// shows every run in its own section, and past a few dozen its PDF would
// pass its page limit after minutes of work.
const MaxRuns = 64

// CheckDirs checks the run directories of one fit or report before any is
// read: each exists and is a directory, none is given twice (the same
// directory under two names too: its records would count twice), at most
// MaxRuns. The error names the directory.
func CheckDirs(dirs []string) error {
	if len(dirs) > MaxRuns {
		return fmt.Errorf("%d run directories: at most %d in one fit or report", len(dirs), MaxRuns)
	}
	var seen []os.FileInfo
	for _, d := range dirs {
		fi, err := os.Stat(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("%s: no such directory", d)
		case err != nil:
			return fmt.Errorf("%s: %w", d, errors.Unwrap(err))
		case !fi.IsDir():
			return fmt.Errorf("%s: not a directory (give a run directory made by gpupath measure or gpupath import)", d)
		}
		for j, s := range seen {
			if os.SameFile(s, fi) {
				return fmt.Errorf("%s: the same run as %s, given before: its records would count twice", d, dirs[j])
			}
		}
		seen = append(seen, fi)
	}
	// A copy of a run under another name is the same run: the same tool,
	// host and start to the nanosecond, the same plan and records counted
	// and a results file of the same size (two imports with one
	// SOURCE_DATE_EPOCH share a start, not their files). A manifest that
	// cannot be read is left to the reader to name.
	first := map[string]string{}
	for _, d := range dirs {
		b, err := safeio.ReadFile(context.Background(), filepath.Join(d, ManifestFile), MaxManifestBytes)
		if err != nil {
			continue
		}
		m, err := ParseManifest(b)
		if err != nil {
			continue
		}
		peer := ""
		if m.Peer != nil {
			peer = m.Peer.Hostname
		}
		size := int64(-1)
		if fi, err := os.Stat(filepath.Join(d, ResultsFile)); err == nil {
			size = fi.Size()
		}
		plan, _ := termtext.MarshalJSON(m.Plan)
		k := fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%s", m.Tool, m.Host.Hostname, peer, m.Start.UnixNano(), m.Counted(), size, plan)
		if o, ok := first[k]; ok {
			return fmt.Errorf("%s: a copy of the run in %s (the same tool, host and start, %s): its records would count twice", d, o, m.Start.UTC().Format(time.RFC3339Nano))
		}
		first[k] = d
	}
	return nil
}
