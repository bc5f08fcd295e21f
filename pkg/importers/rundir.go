package importers

// This file is the one place where imports meet the run directory: the
// types of pkg/measure today (Manifest, Result, ReadRun), pkg/record once
// the run directory moves there — the switch is a rename here.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/safeio"
	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/record"
)

// ToolName is the manifest's tool for an imported run.
const ToolName = "gpupath import"

// Meta is what the run directory says about the import itself.
type Meta struct {
	// Version is gpupath's version; Time when the import ran (the
	// manifest's start and end: the outputs rarely say when they ran);
	// Command the import's command line.
	Version string
	Time    time.Time
	Command string
	// HostDir names the host of each file that names none by the
	// directory the file is in (node17/ib_write_bw.txt: node17), as a
	// cluster's outputs are kept, one directory per node.
	HostDir bool
}

// FileInfo is what the manifest keeps of one imported file, as the
// inventory of the file's probe: the file and what its parsers read about
// the tool, the hardware and the path — not its records, which are in
// results.jsonl (a manifest that copied every row grew past what the
// reader reads). Series lists the records' identities once each; a record
// names its file and series in its Extra (ExtraFile, ExtraSeries), so
// FromRunData puts the records back into Output.Records.
type FileInfo struct {
	File   string      `json:"file"`
	Path   string      `json:"path"`
	Output *obs.Output `json:"output"`
	// NCCL is the NCCL log read from the same file's lines, if any.
	NCCL *obs.Output `json:"nccl_log,omitempty"`
	// Records counts the file's records in results.jsonl; Series are their
	// distinct identities.
	Records int          `json:"records,omitempty"`
	Series  []SeriesInfo `json:"series,omitempty"`
	// SHA256 is the file's content hash as read: the fit counts an output
	// imported into two runs once.
	SHA256 string `json:"sha256,omitempty"`
}

// SeriesInfo is what records of one series share: the fields of obs.Record
// that results.jsonl has no column for.
type SeriesInfo struct {
	Tool      string     `json:"tool"`
	Test      string     `json:"test"`
	Op        string     `json:"op,omitempty"`
	Variant   string     `json:"variant,omitempty"`
	Metric    obs.Metric `json:"metric"`
	Type      string     `json:"type,omitempty"`
	Redop     string     `json:"redop,omitempty"`
	Central   string     `json:"central,omitempty"`
	BytesNote string     `json:"bytes_note,omitempty"`
	Wrong     string     `json:"wrong,omitempty"`
}

// The Extra keys by which a record of an imported run names its file (its
// index among the manifest's probes with an inventory) and its series (an
// index into that file's Series).
const (
	ExtraFile   = "import_file"
	ExtraSeries = "import_series"
)

// MaxSeries bounds the distinct series of one file kept in the manifest;
// records of further series are written without one (they read back with
// what results.jsonl holds). Real outputs have tens.
const MaxSeries = 10_000

// MaxRecords bounds the records of one import: the run reader's limit.
const MaxRecords = record.MaxRecords

// ErrTooManyRecords is returned when the files hold more records than a
// run may.
var ErrTooManyRecords = record.ErrTooManyRecords

// ErrRunExists is returned when the directory already holds a run.
var ErrRunExists = record.ErrRunExists

// WriteRun writes the run directory dir (created if needed; it must not
// exist or be empty): manifest.json with one probe per file — named after
// the file's tool, ok, or failed with the tool's own error and line, its
// inventory the FileInfo — and results.jsonl with one record per result,
// its note "FILE:LINE". Both files are written into a new directory beside
// dir, record by record, and that directory is renamed to dir at the end:
// a failed or interrupted write leaves nothing.
func WriteRun(dir string, files []*File, meta Meta) (*record.Manifest, error) {
	return WriteRunContext(context.Background(), dir, files, meta)
}

// WriteRunContext is WriteRun that stops when ctx is done (nothing is left).
func WriteRunContext(ctx context.Context, dir string, files []*File, meta Meta) (m *record.Manifest, err error) {
	if _, err := os.Stat(filepath.Join(dir, record.ManifestFile)); err == nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrRunExists)
	}
	// A directory that holds a user's files is not written into.
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%s holds %s and more: %w", dir, ents[0].Name(), record.ErrNotRunDir)
	} else if err == nil {
		// An empty directory is replaced by the new one (below).
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	total := 0
	for _, f := range files {
		total += f.Records()
	}
	if total > MaxRecords {
		return nil, fmt.Errorf("%d records: %w of %d per run", total, ErrTooManyRecords, MaxRecords)
	}
	parent := filepath.Dir(filepath.Clean(dir))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(filepath.Clean(dir))+".import*")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(stage)
		}
	}()
	if err := os.Chmod(stage, 0o755); err != nil {
		return nil, err
	}
	if meta.HostDir {
		for _, f := range files {
			if d := filepath.Base(filepath.Dir(filepath.Clean(f.Name))); d != "." && d != string(filepath.Separator) {
				f.NameHost(d, "the file's directory")
			}
		}
	}
	at := meta.Time.UTC()
	m = &record.Manifest{Format: record.ManifestFormat, Tool: ToolName, Version: meta.Version, Status: record.StatusComplete,
		Start: at, End: at, Results: record.ResultsFile, Host: hostOf(files),
		Plan: record.Plan{Options: map[string]string{"import.command": meta.Command}}}
	var fileHost []string
	m.Sources, fileHost = sourcesOf(files)
	rf, err := safeio.Create(filepath.Join(stage, record.ResultsFile), false)
	if err != nil {
		return nil, err
	}
	defer rf.Abort()
	bw := bufio.NewWriterSize(rf, 1<<20)
	enc := termtext.NewJSONEncoder(bw)
	fileIdx := 0
	var points record.Points // the reader's limits, so that the run reads back
	for fi, f := range files {
		if len(f.Outputs) == 0 {
			continue
		}
		o := f.Outputs[0]
		info := FileInfo{File: f.Base, Path: f.Name, Output: withoutRecords(o), SHA256: f.SHA256}
		if len(f.Outputs) > 1 {
			info.NCCL = withoutRecords(f.Outputs[1])
		}
		st := record.ProbeStatus{Name: o.Tool, Status: record.StatusOK, Start: at, End: at}
		series := map[SeriesInfo]int{}
		err := f.EachRecord(func(out *obs.Output, r *obs.Record) error {
			if st.Results%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			res := resultOf(out, f.Base, *r, at)
			res.Host = fileHost[fi]
			if err := points.Add(&res); err != nil {
				return fmt.Errorf("%s:%d: %w; nothing imported", f.Name, r.Line, err)
			}
			k := seriesOf(out, r)
			idx, ok := series[k]
			if !ok && len(info.Series) < MaxSeries {
				idx, ok = len(info.Series), true
				series[k] = idx
				info.Series = append(info.Series, k)
			}
			if res.Extra == nil {
				res.Extra = map[string]float64{}
			}
			res.Extra[ExtraFile] = float64(fileIdx)
			if ok {
				res.Extra[ExtraSeries] = float64(idx)
			}
			if err := enc.Encode(res); err != nil {
				return fmt.Errorf("%s:%d: %w", f.Name, r.Line, err)
			}
			st.Results++
			return nil
		})
		if err != nil {
			return nil, err
		}
		info.Records = st.Results
		// What the file said of itself and its hardware is from outside:
		// every text one line without control characters, as the manifest's
		// host (the records' names are cleaned by their reader).
		termtext.NameAll(&info)
		inv, err := termtext.MarshalJSON(info)
		if err != nil {
			return nil, err
		}
		st.Inventory = inv
		fileIdx++
		var fails []string
		for _, out := range f.Outputs {
			for _, p := range out.Failures {
				s := fmt.Sprintf("%s:%d: %s", f.Base, p.Line, p.Reason)
				if p.Text != "" {
					s += ": " + p.Text
				}
				fails = append(fails, s)
			}
		}
		if len(fails) == 0 && st.Results == 0 {
			// No record and lines not read: the file gave nothing, and
			// its unread lines are why (a listing carries no records and
			// has no such lines).
			for _, out := range f.Outputs {
				for _, p := range out.Problems {
					fails = append(fails, fmt.Sprintf("%s:%d: %s", f.Base, p.Line, p.Reason))
				}
			}
		}
		if len(fails) > 0 {
			st.Status = record.StatusFailed
			if n := len(fails); n > maxReasons {
				fails = append(fails[:maxReasons:maxReasons], fmt.Sprintf("and %d more (the first %d are in the inventory)", n-maxReasons, maxListed))
			}
			st.Reason = strings.Join(fails, "; ")
			if st.Results > 0 {
				st.Reason += fmt.Sprintf(" (the %d records printed before or beside it are kept)", st.Results)
			}
		}
		m.Probes = append(m.Probes, st)
	}
	if m.Counted() == 0 && slices.ContainsFunc(files, func(f *File) bool { return len(f.Outputs) > 0 && measures(f.Outputs[0].Tool) }) {
		// Outputs of measuring tools, and not one record: the run says
		// so (each file's status says why), not "complete".
		m.Status = record.StatusFailed
		m.Reason = "no record in any file: each file's status says why"
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	if err := rf.Commit(); err != nil {
		return nil, err
	}
	b, err := termtext.MarshalJSONIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if len(b) >= record.MaxManifestBytes {
		return nil, fmt.Errorf("the manifest would be %s, over the reader's limit of %s", safeio.FormatLimit(int64(len(b))), safeio.FormatLimit(record.MaxManifestBytes))
	}
	if err := safeio.WriteFile(filepath.Join(stage, record.ManifestFile), append(b, '\n'), false); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// An empty directory given as --out is replaced (os.Rename refuses a
	// directory as its target; os.Remove removes only an empty one).
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		if err := os.Remove(dir); err != nil {
			return nil, err
		}
	}
	if err := os.Rename(stage, dir); err != nil {
		return nil, err
	}
	return m, nil
}

// withoutRecords is o with its records, and the hardware's lists cut to
// what describes the machines, for the manifest.
func withoutRecords(o *obs.Output) *obs.Output {
	c := *o
	c.Records = nil
	if n := len(c.Problems) + len(c.Failures); n > 2*maxListed {
		c.Notes = append(append([]string(nil), c.Notes...), fmt.Sprintf("%d problems and %d failures; the manifest lists the first %d of each", len(c.Problems), len(c.Failures), maxListed))
	}
	c.Problems = capList(c.Problems, maxListed)
	c.Failures = capList(c.Failures, maxListed)
	if len(c.Notes) > maxListed {
		n := len(c.Notes)
		c.Notes = append(append([]string(nil), c.Notes[:maxListed]...), fmt.Sprintf("… and %d more notes", n-maxListed))
	}
	if len(c.Channels) > maxListed {
		c.Channels = c.Channels[:maxListed]
	}
	return &c
}

// maxListed bounds the problems, failures, notes and channels of one
// output that the manifest lists; maxReasons the failures a probe's reason
// names.
const (
	maxListed  = 1000
	maxReasons = 20
)

func capList(p []obs.Problem, n int) []obs.Problem {
	if len(p) <= n {
		return p
	}
	return p[:n]
}

func seriesOf(o *obs.Output, r *obs.Record) SeriesInfo {
	return SeriesInfo{Tool: o.Tool, Test: r.Test, Op: r.Op, Variant: r.Variant, Metric: r.Metric, Type: r.Type, Redop: r.Redop,
		Central: r.Central, BytesNote: r.BytesNote, Wrong: r.Wrong}
}

// hostOf describes the machines the files name; the names from outside
// (hostnames, GPU models, NIC names) pass through record.CleanName before
// they go into the manifest.
func hostOf(files []*File) record.Host {
	var h record.Host
	var hosts []string
	seen := map[string]bool{}
	nicSeen := map[string]bool{}
	for _, f := range files {
		for _, o := range f.Outputs {
			hw := o.Hardware
			for _, x := range hw.Hosts {
				x = record.CleanName(x)
				if !seen[x] {
					seen[x] = true
					hosts = append(hosts, x)
				}
			}
			for _, g := range hw.GPUs {
				if len(h.GPUs) < 64 {
					h.GPUs = append(h.GPUs, record.GPU{Model: record.CleanName(g)})
				}
			}
			for _, n := range hw.NICs {
				k := fmt.Sprintf("%s:%d", n.Name, n.Port)
				if nicSeen[k] {
					continue
				}
				nicSeen[k] = true
				h.NICs = append(h.NICs, record.NIC{Name: record.CleanName(n.Name), State: record.CleanName(n.State), MTU: int(n.MTU), SpeedMbps: int(math.Round(n.RateBps / 1e6))})
			}
		}
	}
	if len(hosts) > 0 {
		h.Hostname = hosts[0]
	}
	h.Notes = append(h.Notes, fmt.Sprintf("imported by %s from %d file(s): the host fields are what the outputs name, not this machine", ToolName, len(files)))
	if len(hosts) > 1 {
		h.Notes = append(h.Notes, "hosts named: "+strings.Join(hosts, ", "))
	}
	h.Clean()
	return h
}

// NameHost gives a file whose output names no host the host name, and
// notes where the name came from (by, "the file's directory"); a file
// that names its host keeps it.
func (f *File) NameHost(name, by string) {
	if len(f.Outputs) == 0 || len(f.Outputs[0].Hardware.Hosts) > 0 || name == "" {
		return
	}
	o := f.Outputs[0]
	o.Hardware.AddHost(name)
	o.Notes = append(o.Notes, fmt.Sprintf("host named by %s: %s", by, name))
}

// sourcesOf keeps the hosts the files name apart, where they name more
// than one: each host with the hardware its own files name (a file that
// names one host: its GPUs and NICs are that host's; a file of several,
// a multi-node nccl-tests job, names them without saying whose is what),
// in the order first named, at most record.MaxSources; and per file the
// host its records are named by (the file's one host; "" for a file of
// none or several, or a run of one host, whose records need no name).
func sourcesOf(files []*File) ([]record.Host, []string) {
	fileHost := make([]string, len(files))
	var hosts []record.Host
	at := map[string]int{}
	nics := map[string]bool{}
	for i, f := range files {
		var named []string
		for _, o := range f.Outputs {
			for _, x := range o.Hardware.Hosts {
				if x = record.CleanName(x); x != "" && !slices.Contains(named, x) {
					named = append(named, x)
				}
			}
		}
		for _, x := range named {
			if _, ok := at[x]; !ok && len(hosts) < record.MaxSources {
				at[x] = len(hosts)
				hosts = append(hosts, record.Host{Hostname: x})
			}
		}
		if len(named) != 1 {
			continue
		}
		j, ok := at[named[0]]
		if !ok {
			continue
		}
		fileHost[i] = named[0]
		h := &hosts[j]
		for _, o := range f.Outputs {
			for _, g := range o.Hardware.GPUs {
				if len(h.GPUs) < 64 {
					h.GPUs = append(h.GPUs, record.GPU{Model: record.CleanName(g)})
				}
			}
			for _, n := range o.Hardware.NICs {
				k := fmt.Sprintf("%s\x00%s:%d", named[0], n.Name, n.Port)
				if !nics[k] {
					nics[k] = true
					h.NICs = append(h.NICs, record.NIC{Name: record.CleanName(n.Name), State: record.CleanName(n.State), MTU: int(n.MTU), SpeedMbps: int(math.Round(n.RateBps / 1e6))})
				}
			}
		}
	}
	if len(hosts) < 2 {
		return nil, make([]string, len(files))
	}
	for i := range hosts {
		hosts[i].Notes = []string{countFiles(fileHost, hosts[i].Hostname)}
		hosts[i].Clean()
	}
	return hosts, fileHost
}

// countFiles says how many files are a host's alone.
func countFiles(fileHost []string, host string) string {
	n := 0
	for _, h := range fileHost {
		if h == host {
			n++
		}
	}
	if n == 0 {
		return "named only by files of several hosts"
	}
	return fmt.Sprintf("%d imported file(s) of this host alone", n)
}

// StageOf names the model stage a copy between host and GPU memory
// measures: A (device to host), G (host to device); "" for other records.
func StageOf(r obs.Record) string {
	switch r.Op {
	case "host_to_device", "h2d":
		return "G"
	case "device_to_host", "d2h":
		return "A"
	}
	return ""
}

// resultOf converts a record to gpupath's record format: the central time
// as the median (the note says which statistic it is), the rate as the
// throughput, the other figures in Extra, the file and line in the note.
func resultOf(o *obs.Output, file string, r obs.Record, at time.Time) record.Result {
	variant := r.Test
	if r.Variant != "" {
		variant += " " + r.Variant
	}
	if r.Type != "" && r.Type != "float" {
		variant += " " + r.Type
	}
	if r.Redop != "" && r.Redop != "sum" && r.Redop != "none" {
		variant += " " + r.Redop
	}
	res := record.Result{Probe: o.Tool, Variant: variant, Path: r.Path, Stage: StageOf(r), Target: r.Target, Bytes: r.Bytes,
		Iterations: int(r.Iterations), MinS: r.Min, MedianS: r.Time, P99S: r.P99, ThroughputBps: r.Rate, Samples: r.Samples, Time: at}
	if r.P50 > 0 {
		res.MedianS = r.P50
	}
	if strings.HasPrefix(r.Central, "mean") {
		res.MeanS = r.Time
	}
	if res.ThroughputBps == 0 && r.Metric == obs.Latency && r.Bytes > 0 && r.Time > 0 {
		res.ThroughputBps = float64(r.Bytes) / r.Time
	}
	extra := map[string]float64{}
	for k, v := range r.Extra {
		extra[k] = v
	}
	for k, v := range map[string]float64{"bus_rate_Bps": r.BusRate, "peak_rate_Bps": r.PeakRate, "msg_rate": r.MsgRate,
		"max_s": r.Max, "p90_s": r.P90, "p999_s": r.P999, "stdev_s": r.Stdev, "cpu_s": r.CPU, "count": float64(r.Count)} {
		if v != 0 {
			extra[k] = v
		}
	}
	if len(extra) > 0 {
		res.Extra = extra
	}
	note := []string{fmt.Sprintf("%s:%d", file, r.Line)}
	if r.Central != "" {
		note = append(note, "time: "+r.Central)
	}
	if r.BytesNote != "" {
		note = append(note, "size: "+r.BytesNote)
	}
	res.Note = strings.Join(note, "; ")
	return res
}

// Run is an imported run directory read back.
type Run struct {
	Dir   string
	Data  *record.RunData
	Files []FileInfo
}

// IsImported tells whether a manifest was written by WriteRun.
func IsImported(m *record.Manifest) bool { return m.Tool == ToolName }

// MaxFiles bounds the files of one import (and the files a run of gpupath
// import describes): a folder of one cluster's outputs holds tens or
// hundreds; each is judged against the model on its own scenario, so a
// manifest listing thousands would take minutes and gigabytes to report.
const MaxFiles = 512

// ErrNotImported is returned by ReadRun for a run that gpupath measured.
var ErrNotImported = errors.New("not a run directory of gpupath import")

// ReadRun reads an imported run directory: the records (record.ReadRun)
// and, from the manifest, what was read from each file.
func ReadRun(dir string) (*Run, error) {
	rd, err := record.ReadRun(dir)
	if err != nil {
		return nil, err
	}
	return FromRunData(rd)
}

// FromRunData reads the files of an imported run already read by
// record.ReadRun; ErrNotImported for another run.
func FromRunData(rd *record.RunData) (*Run, error) {
	return FromRunDataContext(context.Background(), rd)
}

// FromRunDataContext is FromRunData that stops when ctx is done (it asks
// every CheckEvery records) with ctx's error.
func FromRunDataContext(ctx context.Context, rd *record.RunData) (*Run, error) {
	if !IsImported(&rd.Manifest) {
		return nil, fmt.Errorf("%s: %w", rd.Dir, ErrNotImported)
	}
	run := &Run{Dir: rd.Dir, Data: rd}
	if n := len(rd.Manifest.Probes); n > MaxFiles {
		return nil, fmt.Errorf("%s: %s describes %d files: an import holds at most %d", rd.Dir, record.ManifestFile, n, MaxFiles)
	}
	for _, p := range rd.Manifest.Probes {
		if len(p.Inventory) == 0 {
			continue
		}
		var fi FileInfo
		if err := json.Unmarshal(p.Inventory, &fi); err != nil || fi.Output == nil {
			return nil, fmt.Errorf("%s: %s: probe %s: the inventory of an imported file cannot be read", rd.Dir, record.ManifestFile, p.Name)
		}
		run.Files = append(run.Files, fi)
	}
	// The records are in results.jsonl: each names its file and series.
	// They are counted per file first, so that each file's records are
	// made once at their size (800,000 records grown by appending left
	// 330 MB behind).
	fileOf := func(res *record.Result) int {
		fv, ok := res.Extra[ExtraFile]
		if !ok {
			return -1 // a run written when the inventory held the records
		}
		k := int(fv)
		if k < 0 || k >= len(run.Files) || float64(k) != fv {
			return -1
		}
		return k
	}
	count := make([]int, len(run.Files))
	for i := range rd.Results {
		if k := fileOf(&rd.Results[i]); k >= 0 {
			count[k]++
		}
	}
	for k := range run.Files {
		fi := &run.Files[k]
		fi.Output.Records = slices.Grow(fi.Output.Records, count[k])
	}
	for i := range rd.Results {
		if i%CheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		res := &rd.Results[i]
		k := fileOf(res)
		if k < 0 {
			continue
		}
		fi := &run.Files[k]
		var si *SeriesInfo
		if sv, ok := res.Extra[ExtraSeries]; ok {
			if j := int(sv); j >= 0 && j < len(fi.Series) && float64(j) == sv {
				si = &fi.Series[j]
			}
		}
		out := fi.Output
		if fi.NCCL != nil && res.Probe == fi.NCCL.Tool && res.Probe != fi.Output.Tool {
			out = fi.NCCL
		}
		out.Records = append(out.Records, recordOf(res, si))
	}
	return run, nil
}

// recordOf is resultOf undone: the record as the parser read it, from the
// result and its series.
func recordOf(res *record.Result, si *SeriesInfo) obs.Record {
	r := obs.Record{Test: res.Variant, Metric: obs.Bandwidth, Bytes: res.Bytes, Iterations: int64(res.Iterations), Min: res.MinS,
		P99: res.P99S, Rate: res.ThroughputBps, Samples: res.Samples, Path: res.Path, Target: res.Target}
	if si != nil {
		r.Test, r.Op, r.Variant, r.Metric, r.Type, r.Redop = si.Test, si.Op, si.Variant, si.Metric, si.Type, si.Redop
		r.Central, r.BytesNote, r.Wrong = si.Central, si.BytesNote, si.Wrong
	}
	if r.Test == "" {
		r.Test = res.Probe
	}
	r.Time = res.MedianS
	if strings.HasPrefix(r.Central, "mean") && res.MeanS > 0 {
		r.Time = res.MeanS
	}
	if line, ok := noteLine(res.Note); ok {
		r.Line = line
	}
	if r.Metric == obs.Latency && r.Bytes > 0 && r.Time > 0 && math.Abs(r.Rate-float64(r.Bytes)/r.Time) <= 1e-9*r.Rate {
		r.Rate = 0 // resultOf's bytes/time, not the tool's
	}
	for k, v := range res.Extra {
		switch k {
		case ExtraFile, ExtraSeries:
		case "bus_rate_Bps":
			r.BusRate = v
		case "peak_rate_Bps":
			r.PeakRate = v
		case "msg_rate":
			r.MsgRate = v
		case "max_s":
			r.Max = v
		case "p90_s":
			r.P90 = v
		case "p999_s":
			r.P999 = v
		case "stdev_s":
			r.Stdev = v
		case "cpu_s":
			r.CPU = v
		case "count":
			r.Count = int64(v)
		default:
			if r.Extra == nil {
				r.Extra = map[string]float64{}
			}
			r.Extra[k] = v
		}
	}
	return r
}

// noteLine reads the line of a note "FILE:LINE; ...".
func noteLine(note string) (int, bool) {
	head, _, _ := strings.Cut(note, ";")
	i := strings.LastIndexByte(head, ':')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(head[i+1:])
	return n, err == nil && n > 0
}
