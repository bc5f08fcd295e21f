package report

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/importers"
	"github.com/gpupath/gpupath/pkg/importers/obs"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// This file turns a run of gpupath import (importers.Run) into the report's
// input: the files with what they say about the hardware, their series, and
// the verdicts of pkg/calib on the model of that hardware.

// FromImported makes the report's input of an imported run on scenario s:
// every file with its hardware (and the run's inventory files' hardware,
// which applies to every file), the path NCCL's log says, the tool's
// failures, the lines that could not be read and the import's notes, and its
// series (one per test, operation, variant, type, reduction, path, stage and
// metric) judged against the model on s with the hardware the file names
// (calib.JudgeImported).
func FromImported(run *importers.Run, s *model.Scenario) Imported {
	im, _ := FromImportedContext(context.Background(), run, s)
	return im
}

// FromImportedContext is FromImported that stops when ctx is done (it asks
// while it groups the records and judges the points) with ctx's error.
func FromImportedContext(ctx context.Context, run *importers.Run, s *model.Scenario) (Imported, error) {
	im, err := importedOf(ctx, run)
	if err != nil {
		return Imported{}, err
	}
	for i := range im.Files {
		inv := im.Hardware
		if hs := im.Files[i].Hardware.Hosts; len(hs) == 1 {
			if h, ok := im.ByHost[hs[0]]; ok {
				inv = mergeHardware(h, im.Hardware) // the host's own listings first
			}
		}
		if im.Files[i].Model, err = judgeFile(ctx, s, im.Files[i], inv); err != nil {
			return Imported{}, err
		}
	}
	return im, nil
}

// judgeFile models a file on s with its hardware and the run's, and judges
// its series there.
func judgeFile(ctx context.Context, s *model.Scenario, f ImportedFile, run Hardware) (*ImportedModel, error) {
	m := &ImportedModel{Hardware: mergeHardware(f.Hardware, run)}
	m.Scenario, m.Sets, m.Agrees, m.Refused = withHardware(s, hardwareFacts(m.Hardware))
	var err error
	m.Groups, err = calib.JudgeImportedStop(m.Scenario, f.Series, f.NCCL, m.Hardware.MemoryGPU, ctx.Err)
	return m, err
}

// hardwareFacts are the facts of the hardware an output names, for
// calib.Overrides: the first GPU, every NIC port (its link layer when it
// says InfiniBand or RoCE, its rate, whether it is active) and the GPU–NIC
// class.
func hardwareFacts(hw Hardware) calib.Facts {
	var f calib.Facts
	if len(hw.GPUs) > 0 {
		f.GPU = calib.Found(hw.GPUs[0], "the output's GPU"+lineOf(hw.GPUSource))
	}
	kinds := map[string]string{"InfiniBand": model.KindIB, "IB": model.KindIB, "RoCE": model.KindRoCE}
	for _, n := range hw.NICs {
		f.Ports = append(f.Ports, calib.Port{Name: n.Name, Kind: kinds[n.LinkLayer], Rate: units.Rate(n.RateBps / 8),
			Down: n.State != "" && !strings.Contains(strings.ToLower(n.State), "active"), Source: n.Source})
	}
	if hw.Inline != nil {
		f.Inline = calib.Found(units.Bytes(*hw.Inline), hw.InlineSource)
	}
	if c, err := model.ParseClass(hw.GPUNIC); err == nil {
		f.GPUNIC = calib.Found(c, "nearest GPU–NIC class"+lineOf(hw.GPUNICSource))
	}
	return f
}

// withHardware is base with the keys the facts give (calib.Overrides),
// each with where it came from ("nic.rate=200Gbit/s (mlx5_0 port 1 port
// rate (ibstat.txt line 9))"), then the keys the catalog entries they name
// imply (gpu.model: the GPU's PCIe link, memory and NVLink); agrees are
// the keys the facts confirm, refused those the scenario does not take
// (left as base has them).
func withHardware(base *model.Scenario, f calib.Facts) (s *model.Scenario, sets, agrees, refused []string) {
	s = base.Clone()
	for _, o := range calib.Overrides(f) {
		text, err := o.Text()
		if err != nil {
			refused = append(refused, fmt.Sprintf("%s (%s): %v", o.Key, o.Source, err))
			continue
		}
		if old, _ := s.Get(o.Key); old == text {
			agrees = append(agrees, o.Key+"="+text)
			continue
		}
		try := s.Clone()
		if err := try.Apply(o); err != nil {
			refused = append(refused, fmt.Sprintf("%s=%s (%s): %v", o.Key, text, o.Source, err))
			continue
		}
		s = try
		sets = append(sets, fmt.Sprintf("%s=%s (%s)", o.Key, text, o.Source))
	}
	for _, r := range s.Resolution() {
		if r.Rule == model.RuleCatalog {
			if old, _ := base.Get(r.Key); old != r.Value {
				sets = append(sets, fmt.Sprintf("%s=%s (%s)", r.Key, r.Value, r.Source))
			}
		}
	}
	return s, sets, agrees, refused
}

func lineOf(src string) string {
	if src == "" {
		return ""
	}
	return ", " + src
}

// mergeHardware adds the run's inventory to a file's hardware where the
// file says nothing.
func mergeHardware(f, run Hardware) Hardware {
	if len(f.NICs) == 0 || !hasRate(f.NICs) {
		f.NICs = append(f.NICs, run.NICs...)
	}
	if f.GPUNIC == "" {
		f.GPUNIC, f.GPUNICSource = run.GPUNIC, run.GPUNICSource
	}
	if len(f.GPUs) == 0 {
		f.GPUs, f.GPUSource = run.GPUs, run.GPUSource
	}
	return f
}

// describeTools names the tools whose outputs a run holds.
func describeTools(run *importers.Run) string {
	var tools []string
	seen := map[string]bool{}
	for _, f := range run.Files {
		if t := f.Output.Tool; !seen[t] {
			seen[t] = true
			tools = append(tools, t)
		}
	}
	return strings.Join(tools, ", ")
}

// importedOf converts an imported run for the report, without the model.
func importedOf(ctx context.Context, run *importers.Run) (Imported, error) {
	im := Imported{Source: run.Dir}
	for _, fi := range run.Files {
		o := fi.Output
		f := ImportedFile{File: fi.File, SHA256: fi.SHA256, Tool: o.Tool, Version: o.Version, Test: o.Test, Command: o.Command, Hardware: hardwareOf(fi.File, o.Hardware)}
		np := o.Path
		if fi.NCCL != nil {
			np = fi.NCCL.Path
			f.Hardware = mergeNCCL(f.Hardware, hardwareOf(fi.File, fi.NCCL.Hardware))
		}
		if np != nil {
			f.NCCL = &calib.NCCLPath{Path: np.Path, Intra: np.Intra, Line: np.Line, NICs: np.NICs, Verdict: np.Verdict}
		}
		for _, out := range []*obs.Output{o, fi.NCCL} {
			if out == nil {
				continue
			}
			for _, p := range out.Failures {
				s := fmt.Sprintf("%s:%d: %s", fi.File, p.Line, p.Reason)
				if p.Text != "" {
					s += ": " + p.Text
				}
				f.Failures = append(f.Failures, s)
			}
			for _, p := range out.Problems {
				f.Problems = append(f.Problems, fmt.Sprintf("%s:%d: %s", fi.File, p.Line, p.Reason))
			}
			f.Notes = append(f.Notes, out.Notes...)
		}
		var err error
		if f.Series, err = importedSeries(ctx, o); err != nil {
			return Imported{}, err
		}
		if len(o.Records) == 0 && fi.Records == 0 {
			// Hardware listings (ibstat, ibv_devinfo, nvidia-smi topo -m)
			// describe the machines: a listing of one host its files, one
			// that names none (or several) every file.
			if hs := f.Hardware.Hosts; len(hs) == 1 {
				if im.ByHost == nil {
					im.ByHost = map[string]Hardware{}
				}
				im.ByHost[hs[0]] = addListing(im.ByHost[hs[0]], f.Hardware)
			} else {
				im.Hardware = addListing(im.Hardware, f.Hardware)
			}
		}
		im.Files = append(im.Files, f)
	}
	im.Hosts = importedHostsOf(run, im.Files)
	return im, nil
}

// addListing adds what a hardware listing says to inv: its NICs, and its
// GPU–NIC class where inv has none.
func addListing(inv, l Hardware) Hardware {
	inv.NICs = append(inv.NICs, l.NICs...)
	if l.GPUNIC != "" && inv.GPUNIC == "" {
		inv.GPUNIC, inv.GPUNICSource = l.GPUNIC, l.GPUNICSource
	}
	return inv
}

// importedHostsOf groups a run's files by the host they name, in the order
// first named, where they name more than one host.
func importedHostsOf(run *importers.Run, files []ImportedFile) []ImportedHost {
	var hosts []ImportedHost
	at := map[string]int{}
	for i, f := range files {
		for _, name := range f.Hardware.Hosts {
			j, ok := at[name]
			if !ok {
				j = len(hosts)
				at[name] = j
				hosts = append(hosts, ImportedHost{Name: name})
			}
			h := &hosts[j]
			if len(f.Hardware.Hosts) > 1 {
				h.Shared++
				continue
			}
			h.Files = append(h.Files, f.File)
			if !slices.Contains(h.Tools, f.Tool) {
				h.Tools = append(h.Tools, f.Tool)
			}
			h.Records += run.Files[i].Records
			h.Hardware = mergeHardware(h.Hardware, f.Hardware)
			h.Hardware.NICs = slices.CompactFunc(h.Hardware.NICs, func(a, b NIC) bool { return a.Name == b.Name })
		}
	}
	if len(hosts) < 2 {
		return nil
	}
	return hosts
}

func hardwareOf(file string, h obs.Hardware) Hardware {
	at := func(key string) string {
		if l := h.Lines[key]; l > 0 {
			return fmt.Sprintf("%s line %d", file, l)
		}
		return file
	}
	out := Hardware{Hosts: h.Hosts, GPUs: h.GPUs, GPUSource: at("gpus"), GPUNIC: h.GPUNIC, Ranks: h.Ranks, Nodes: h.Nodes,
		GPUsPerNode: h.GPUsPerNode, MemoryGPU: h.MemoryGPU}
	if h.GPUNIC != "" {
		out.GPUNICSource = file
	}
	if h.Inline != nil {
		out.Inline, out.InlineSource = h.Inline, file+", the test's Max inline data"
	}
	for _, n := range h.NICs {
		src := file
		if n.Line > 0 {
			src = fmt.Sprintf("%s line %d", file, n.Line)
		}
		name := n.Name
		if n.Port > 0 {
			name = fmt.Sprintf("%s port %d", n.Name, n.Port)
		}
		out.NICs = append(out.NICs, NIC{Name: name, LinkLayer: n.LinkLayer, State: n.State, RateBps: n.RateBps, Source: src})
	}
	return out
}

// mergeNCCL adds what an NCCL log says to the hardware of its file.
func mergeNCCL(h, l Hardware) Hardware {
	if h.Ranks == 0 {
		h.Ranks, h.Nodes, h.GPUsPerNode = l.Ranks, l.Nodes, l.GPUsPerNode
	}
	if len(h.NICs) == 0 {
		h.NICs = l.NICs
	}
	if len(h.Hosts) == 0 {
		h.Hosts = l.Hosts
	}
	return h
}

// importedPoint is a record of another tool as a point: the tool's time
// per message as the median, its rate and busbw, the target, the line.
func importedPoint(r obs.Record) record.Point {
	return record.Point{Bytes: units.Bytes(r.Bytes), Median: units.Seconds(r.Time), Rate: units.Rate(r.Rate), BusRate: units.Rate(r.BusRate),
		Target: r.Target, Line: r.Line, BytesNote: r.BytesNote, Samples: r.Samples}
}

func quantityOf(m obs.Metric) record.Quantity {
	if m == obs.Bandwidth {
		return record.Bandwidth
	}
	return record.Latency
}

// importedSeries groups a file's records into series: one per test,
// operation, variant, type, reduction, path, stage and metric.
func importedSeries(ctx context.Context, o *obs.Output) ([]calib.ImportedSeries, error) {
	type key struct {
		test, op, variant, typ, redop, path, stage string
		metric                                     obs.Metric
	}
	idx := map[key]int{}
	var out []calib.ImportedSeries
	hw := o.Hardware
	for n, r := range o.Records {
		if n%importers.CheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if _, coll := model.CollectiveOp(r.Op); coll && r.Bytes == 0 {
			continue // nccl-tests' size-0 rows time an empty collective
		}
		k := key{r.Test, r.Op, r.Variant, r.Type, r.Redop, r.Path, importers.StageOf(r), r.Metric}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			label := strings.TrimSpace(r.Test + " " + r.Variant)
			if r.Type != "" && r.Type != "float" {
				label += " " + r.Type
			}
			if r.Redop != "" && r.Redop != "sum" && r.Redop != "none" {
				label += " " + r.Redop
			}
			s := calib.ImportedSeries{
				Series: record.Series{SeriesKey: record.SeriesKey{Probe: o.Tool, Variant: r.Variant, Path: r.Path, Stage: importers.StageOf(r)},
					Label: label, Quantity: quantityOf(r.Metric)},
				Test: r.Test, Op: r.Op, RoundTrip: r.Extra["round_trip"] == 1, Bidirectional: strings.Contains(r.Variant, "bidirectional"),
				Streams: int(r.Extra["streams"])}
			if op, coll := model.CollectiveOp(r.Op); coll {
				c := &calib.Collective{Op: op, Ranks: hw.Ranks, Nodes: hw.Nodes, GPUsPerNode: hw.GPUsPerNode}
				c.Factor, c.Formula, _ = model.BusFactor(op, hw.Ranks)
				s.Collective = c
			}
			out = append(out, s)
		}
		out[i].Points = append(out[i].Points, importedPoint(r))
	}
	for i := range out {
		slices.SortStableFunc(out[i].Points, func(a, b record.Point) int { return cmp.Compare(a.Bytes, b.Bytes) })
	}
	return out, nil
}

// importedCompareSeries gives an imported run's series for a comparison:
// one per tool, test, operation, variant, type, reduction, target and
// metric, over all its files (the key's Variant joins all but the tool and
// the target, which are its Probe and Target).
func importedCompareSeries(ctx context.Context, run *importers.Run) ([]record.Series, error) {
	var out []record.Series
	idx := map[record.SeriesKey]int{}
	for _, fi := range run.Files {
		for n, r := range fi.Output.Records {
			if n%importers.CheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			k := record.SeriesKey{Probe: fi.Output.Tool, Variant: strings.Join([]string{r.Test, r.Op, r.Variant, r.Type, r.Redop, string(r.Metric)}, "|"), Target: r.Target}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, record.Series{SeriesKey: k, Label: strings.TrimSpace(fi.Output.Tool + " " + r.Test + " " + r.Variant + " " + r.Target), Quantity: quantityOf(r.Metric)})
			}
			out[i].Points = append(out[i].Points, importedPoint(r))
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Points, func(a, b record.Point) int { return cmp.Compare(a.Bytes, b.Bytes) })
	}
	return out, nil
}

// FitInput is an imported run's files as calib.FitImported takes them:
// each with the scenario its verdicts were judged on (FromImported).
func FitInput(im Imported) []calib.ImportedFile {
	var out []calib.ImportedFile
	for _, f := range im.Files {
		if f.Model == nil || len(f.Series) == 0 {
			continue
		}
		out = append(out, calib.ImportedFile{File: f.File, Tool: f.Tool, Scenario: f.Model.Scenario, Series: f.Series,
			NCCL: f.NCCL, MemoryGPU: f.Model.Hardware.MemoryGPU})
	}
	return out
}

// CalibrateImported fits the model on base to the imported runs among runs
// (calib.FitImported over every file of each, on the scenario its verdicts
// are judged on); nil without an imported run. It also returns their
// directories.
func CalibrateImported(runs []*record.RunData, base *model.Scenario, opt fit.Options) (*calib.ImportedCalibration, []string, error) {
	return CalibrateImportedContext(context.Background(), runs, base, opt)
}

// CalibrateImportedContext is CalibrateImported that stops when ctx is
// done (or opt.Stop says so) with that error.
func CalibrateImportedContext(ctx context.Context, runs []*record.RunData, base *model.Scenario, opt fit.Options) (*calib.ImportedCalibration, []string, error) {
	var files []calib.ImportedFile
	var dirs, once []string
	seen := map[string]string{} // content hash → the first run and file that had it
	for _, rd := range runs {
		run, err := importers.FromRunDataContext(ctx, rd)
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if err != nil {
			continue // a run gpupath measured
		}
		if err := rd.Corrupt(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", rd.Dir, err) // as the measured runs' fit and the report say
		}
		dirs = append(dirs, rd.Dir)
		im, err := FromImportedContext(ctx, run, base)
		if err != nil {
			return nil, nil, err
		}
		kept := im.Files[:0]
		for _, f := range im.Files {
			where := rd.Dir + ": " + f.File
			if first, ok := seen[f.SHA256]; ok && f.SHA256 != "" && len(f.Series) > 0 {
				once = append(once, fmt.Sprintf("%s: the same output as %s: counted once", where, first))
				continue
			}
			if f.SHA256 != "" {
				seen[f.SHA256] = where
			}
			kept = append(kept, f)
		}
		im.Files = kept
		files = append(files, FitInput(im)...)
	}
	if len(dirs) == 0 {
		return nil, nil, nil
	}
	c, err := calib.FitImported(files, opt)
	if c != nil {
		c.Unused = append(c.Unused, once...)
	}
	return c, dirs, err
}
