package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/report"
)

// readRun reads one measurement run directory (manifest.json and
// results.jsonl, as gpupath measure writes them) into the report's input.
// It is a hook: when the measure package is in, set it to a function that
// calls measure.ReadRun and maps its RunData with measuredOf's rules. An
// error is bad input (exit 2): a missing or corrupt manifest, a results
// file in which no line is a record. Lines of results.jsonl that are not
// records (the last line of a killed run) are skipped and listed in the
// report.
var readRun = readRunDir

// The files of a run directory.
const (
	runManifest = "manifest.json"
	runResults  = "results.jsonl"
)

// runManifestJSON is the part of manifest.json the report uses.
type runManifestJSON struct {
	Format  int       `json:"format"`
	Version string    `json:"version"`
	Status  string    `json:"status"`
	Start   time.Time `json:"start"`
	Host    struct {
		Hostname string `json:"hostname"`
		Kernel   string `json:"kernel"`
		CPUModel string `json:"cpu_model"`
		CPUs     int    `json:"cpus"`
	} `json:"host"`
	Probes []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"probes"`
	Results string `json:"results"`
}

// runRecord is one line of results.jsonl.
type runRecord struct {
	Probe      string  `json:"probe"`
	Variant    string  `json:"variant"`
	Stage      string  `json:"stage"`
	Path       string  `json:"path"`
	Target     string  `json:"target"`
	Bytes      int64   `json:"bytes"`
	Iterations int     `json:"iterations"`
	MinS       float64 `json:"min_s"`
	MedianS    float64 `json:"median_s"`
	P99S       float64 `json:"p99_s"`
	Stable     bool    `json:"stable"`
	Throughput float64 `json:"throughput_Bps"`
	CPUUserS   float64 `json:"cpu_user_s"`
	CPUSysS    float64 `json:"cpu_sys_s"`
}

func readRunDir(dir string) (report.Measured, error) {
	b, err := os.ReadFile(filepath.Join(dir, runManifest))
	if errors.Is(err, os.ErrNotExist) {
		return report.Measured{}, fmt.Errorf("no %s: not a run directory of gpupath measure", runManifest)
	}
	if err != nil {
		return report.Measured{}, unwrapPath(err)
	}
	var man runManifestJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&man); err != nil {
		return report.Measured{}, fmt.Errorf("%s is corrupt: %v", runManifest, jsonErr(b, err))
	}
	if dec.More() {
		return report.Measured{}, fmt.Errorf("%s is corrupt: data after the JSON object", runManifest)
	}
	if man.Format < 1 || man.Start.IsZero() || man.Status == "" {
		return report.Measured{}, fmt.Errorf("%s is corrupt: no format, start time or status", runManifest)
	}
	m := report.Measured{Source: dir, Start: man.Start, Tool: man.Version, Status: man.Status, Host: hostLine(man)}
	for _, p := range man.Probes {
		if p.Status == "unavailable" || p.Status == "failed" {
			reason := p.Reason
			if p.Status == "failed" {
				reason = "failed: " + reason
			}
			m.NotMeasured = append(m.NotMeasured, report.NotMeasured{Probe: p.Name, Reason: reason})
		}
	}
	name := man.Results
	if name == "" || filepath.Base(name) != name {
		name = runResults
	}
	f, err := os.Open(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return report.Measured{}, unwrapPath(err)
	}
	defer f.Close()
	recs, skipped, err := readRecords(f, name)
	if err != nil {
		return report.Measured{}, fmt.Errorf("%s: %v", name, err)
	}
	// A line cut off by a killed run is skipped and listed; a file in which
	// no line is a record is not a results file at all.
	if len(recs) == 0 && len(skipped) > 0 {
		return report.Measured{}, fmt.Errorf("%s is corrupt: no line is a record (%s)", name, strings.TrimPrefix(skipped[0], name+":"))
	}
	m.Skipped = skipped
	m.Series = measuredOf(recs)
	return m, nil
}

func hostLine(man runManifestJSON) string {
	h := man.Host
	parts := []string{orUnknown(h.Hostname)}
	if h.CPUModel != "" {
		parts = append(parts, fmt.Sprintf("%s × %d", h.CPUModel, h.CPUs))
	} else if h.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", h.CPUs))
	}
	if h.Kernel != "" {
		parts = append(parts, "Linux "+h.Kernel)
	}
	return strings.Join(parts, ", ")
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown host"
	}
	return s
}

// jsonErr adds the line and column to a JSON syntax error.
func jsonErr(b []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(b[:min(int(se.Offset), len(b))], []byte("\n"))
		return fmt.Errorf("line %d: %v", line, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("empty or cut off")
	}
	return err
}

// readRecords reads JSON Lines; a line that is not a record is skipped and
// listed with its number (a last line cut off by a killed run, a damaged
// line). The error is only for a failing reader.
func readRecords(r io.Reader, name string) ([]runRecord, []string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var recs []runRecord
	var skipped []string
	line := 0
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 {
			continue
		}
		var rec runRecord
		dec := json.NewDecoder(bytes.NewReader(t))
		err := dec.Decode(&rec)
		switch {
		case err != nil:
			skipped = append(skipped, fmt.Sprintf("%s:%d: not a JSON record: %v", name, line, err))
		case dec.More():
			skipped = append(skipped, fmt.Sprintf("%s:%d: data after the record", name, line))
		case rec.Probe == "" || rec.Bytes < 1:
			skipped = append(skipped, fmt.Sprintf("%s:%d: no probe name or no size", name, line))
		case !(rec.MedianS >= 0 && rec.MinS >= 0 && rec.P99S >= 0 && rec.Throughput >= 0) || !finite(rec.MedianS, rec.MinS, rec.P99S, rec.Throughput, rec.CPUUserS, rec.CPUSysS):
			skipped = append(skipped, fmt.Sprintf("%s:%d: a time or rate that is negative or not finite", name, line))
		default:
			recs = append(recs, rec)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return recs, append(skipped, fmt.Sprintf("%s:%d: a line longer than 1 MiB; the rest of the file is not read", name, line+1)), nil
		}
		return nil, nil, err
	}
	return recs, skipped, nil
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if v != v || v > 1e300 || v < -1e300 {
			return false
		}
	}
	return true
}

// measuredOf groups records into series, one per probe × variant × path ×
// stage × target, and says what each measures: streams are bandwidth;
// memcpy and syscall probes are costs of single operations; the rest
// (ping-pong, copies, RDMA latency) are latencies.
func measuredOf(recs []runRecord) []report.Series {
	type key struct{ probe, variant, path, stage, target string }
	idx := map[key]int{}
	var out []report.Series
	for _, r := range recs {
		k := key{r.Probe, r.Variant, r.Path, r.Stage, r.Target}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			s := report.Series{Label: seriesLabel(r), Probe: r.Probe, Variant: r.Variant, Path: r.Path, Stage: r.Stage, Target: r.Target, Quantity: report.Latency}
			switch {
			case strings.Contains(r.Variant, "stream") || strings.Contains(r.Variant, "bw"):
				s.Quantity = report.Bandwidth
			case r.Probe == "memcpy" || r.Probe == "syscall":
				s.Quantity = report.Cost
			}
			out = append(out, s)
		}
		p := report.Point{Bytes: model.Bytes(r.Bytes), Median: model.Seconds(r.MedianS), Min: model.Seconds(r.MinS), P99: model.Seconds(r.P99S),
			Rate: model.Rate(r.Throughput), CPU: model.Seconds(r.CPUUserS + r.CPUSysS), Iterations: r.Iterations, Stable: r.Stable}
		if out[i].Quantity == report.Bandwidth && p.Rate <= 0 {
			continue // a stream record without a throughput draws nothing
		}
		if out[i].Quantity != report.Bandwidth && p.Median <= 0 {
			continue
		}
		out[i].Points = append(out[i].Points, p)
	}
	var kept []report.Series
	for _, s := range out {
		if len(s.Points) > 0 {
			sort.SliceStable(s.Points, func(a, b int) bool { return s.Points[a].Bytes < s.Points[b].Bytes })
			kept = append(kept, s)
		}
	}
	return kept
}

func seriesLabel(r runRecord) string {
	l := r.Probe
	if r.Variant != "" {
		l += " " + r.Variant
	}
	if r.Target != "" {
		l += " (" + r.Target + ")"
	}
	return l
}
