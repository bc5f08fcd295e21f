package importers

// This file is the one place where imports meet the run directory: the
// types of pkg/measure today (Manifest, Result, ReadRun), pkg/record once
// the run directory moves there — the switch is a rename here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

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
}

// FileInfo is what the manifest keeps of one imported file, as the
// inventory of the file's probe: the file and everything its parsers read,
// records included (they are in results.jsonl as well, in gpupath's record
// format).
type FileInfo struct {
	File   string      `json:"file"`
	Path   string      `json:"path"`
	Output *obs.Output `json:"output"`
	// NCCL is the NCCL log read from the same file's lines, if any.
	NCCL *obs.Output `json:"nccl_log,omitempty"`
}

// ErrRunExists is returned when the directory already holds a run.
var ErrRunExists = record.ErrRunExists

// WriteRun writes the run directory dir (created if needed; it must not
// hold a run): manifest.json with one probe per file — named after the
// file's tool, ok, or failed with the tool's own error and line, its
// inventory the FileInfo — and results.jsonl with one record per result,
// its note "FILE:LINE".
func WriteRun(dir string, files []*File, meta Meta) (*record.Manifest, error) {
	if _, err := os.Stat(filepath.Join(dir, record.ManifestFile)); err == nil {
		return nil, fmt.Errorf("%s: %w", dir, ErrRunExists)
	}
	// A directory that holds a user's files is not written into.
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("%s holds %s and more: %w", dir, ents[0].Name(), record.ErrNotRunDir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	at := meta.Time.UTC()
	m := &record.Manifest{Format: record.ManifestFormat, Tool: ToolName, Version: meta.Version, Status: record.StatusComplete,
		Start: at, End: at, Results: record.ResultsFile, Host: hostOf(files),
		Plan: record.Plan{Options: map[string]string{"import.command": meta.Command}}}
	var lines []byte
	for _, f := range files {
		if len(f.Outputs) == 0 {
			continue
		}
		o := f.Outputs[0]
		info := FileInfo{File: f.Base, Path: f.Name, Output: o}
		if len(f.Outputs) > 1 {
			info.NCCL = f.Outputs[1]
		}
		inv, err := json.Marshal(info)
		if err != nil {
			return nil, err
		}
		st := record.ProbeStatus{Name: o.Tool, Status: record.StatusOK, Start: at, End: at, Inventory: inv}
		for _, out := range f.Outputs {
			for _, r := range out.Records {
				res := resultOf(out, f.Base, r, at)
				b, err := json.Marshal(res)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", f.Name, r.Line, err)
				}
				lines = append(append(lines, b...), '\n')
				st.Results++
			}
		}
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
		if len(fails) > 0 {
			st.Status = record.StatusFailed
			st.Reason = strings.Join(fails, "; ")
			if st.Results > 0 {
				st.Reason += fmt.Sprintf(" (the %d records printed before or beside it are kept)", st.Results)
			}
		}
		m.Probes = append(m.Probes, st)
	}
	if err := os.WriteFile(filepath.Join(dir, record.ResultsFile), lines, 0o644); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, record.ManifestFile), append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

// hostOf describes the machines the files name.
func hostOf(files []*File) record.Host {
	var h record.Host
	var hosts []string
	seen := map[string]bool{}
	nicSeen := map[string]bool{}
	for _, f := range files {
		for _, o := range f.Outputs {
			hw := o.Hardware
			for _, x := range hw.Hosts {
				if !seen[x] {
					seen[x] = true
					hosts = append(hosts, x)
				}
			}
			for _, g := range hw.GPUs {
				if len(h.GPUs) < 64 {
					h.GPUs = append(h.GPUs, record.GPU{Model: g})
				}
			}
			for _, n := range hw.NICs {
				k := fmt.Sprintf("%s:%d", n.Name, n.Port)
				if nicSeen[k] {
					continue
				}
				nicSeen[k] = true
				h.NICs = append(h.NICs, record.NIC{Name: n.Name, State: n.State, MTU: int(n.MTU), SpeedMbps: int(math.Round(n.RateBps / 1e6))})
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
	return h
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
	if !IsImported(&rd.Manifest) {
		return nil, fmt.Errorf("%s: %w", rd.Dir, ErrNotImported)
	}
	run := &Run{Dir: rd.Dir, Data: rd}
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
	return run, nil
}
