package measured

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/calib"
	"github.com/gpupath/gpupath/pkg/fit"
	"github.com/gpupath/gpupath/pkg/model"
	"github.com/gpupath/gpupath/pkg/nb"
	"github.com/gpupath/gpupath/pkg/plots"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/report"
	"github.com/gpupath/gpupath/pkg/units"
)

// The tests read the committed example run: real data from the project's
// GPU machine, the same the notebooks show.

func repo(t *testing.T) string {
	t.Helper()
	root, err := nb.Root("")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func example(t *testing.T) *record.RunData {
	t.Helper()
	rd, err := record.ReadRun(filepath.Join(repo(t), filepath.FromSlash(ExampleRun)))
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// cells returns the text of each table cell, row by row (the header first).
func cells(h string) [][]string {
	var out [][]string
	for _, tr := range strings.Split(h, "<tr>")[1:] {
		var row []string
		for _, td := range regexp.MustCompile(`<t[dh][^>]*>(.*?)</t[dh]>`).FindAllStringSubmatch(tr, -1) {
			row = append(row, td[1])
		}
		out = append(out, row)
	}
	return out
}

// copyRun copies a run directory's files into dir.
func copyRun(t *testing.T, from, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{record.ManifestFile, record.ResultsFile} {
		b, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeRoot is a repository root with the example run, and under
// reports/runs a readable run, a damaged one and one without records.
func fakeRoot(t *testing.T, local bool) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+nb.Module+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := filepath.Join(repo(t), filepath.FromSlash(ExampleRun))
	copyRun(t, ex, filepath.Join(root, filepath.FromSlash(ExampleRun)))
	if !local {
		return root
	}
	runs := filepath.Join(root, filepath.FromSlash(LocalRuns))
	copyRun(t, ex, filepath.Join(runs, "good"))
	copyRun(t, ex, filepath.Join(runs, "damaged"))
	if err := os.WriteFile(filepath.Join(runs, "damaged", record.ManifestFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	copyRun(t, ex, filepath.Join(runs, "empty"))
	if err := os.WriteFile(filepath.Join(runs, "empty", record.ResultsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestLoadRuns(t *testing.T) {
	rs, err := LoadRuns(fakeRoot(t, false))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.All) != 1 || len(rs.Notes) != 0 || len(rs.Example().Results) == 0 {
		t.Fatalf("example only: %d runs, notes %q", len(rs.All), rs.Notes)
	}
	if n := rs.Note(); !strings.Contains(n, "`reports/examples/h200-1gpu/run` (the committed example): measured on `vm` (NVIDIA H200, Linux 6.18.44-fc-v657-gpu)") ||
		!strings.Contains(n, "No run under `reports/runs/`") {
		t.Errorf("note:\n%s", n)
	}

	rs, err = LoadRuns(fakeRoot(t, true))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.All) != 2 || filepath.Base(rs.All[1].Dir) != "good" {
		t.Fatalf("%d runs", len(rs.All))
	}
	n := rs.Note()
	for _, w := range []string{"`reports/runs/good` (a run made here)", "`reports/runs/damaged` left out: ", "`reports/runs/empty` left out: no record (status interrupted)"} {
		if !strings.Contains(n, w) {
			t.Errorf("note lacks %q:\n%s", w, n)
		}
	}
	if strings.Contains(n, "No run under") {
		t.Errorf("note says there is no local run:\n%s", n)
	}

	if _, err := LoadRuns(t.TempDir()); err == nil {
		t.Error("no example run: no error")
	}
}

func TestRunHost(t *testing.T) {
	rd := example(t)
	h, err := RunHost(rd)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range cells(h)[1:] {
		got[r[0]] = r[1]
	}
	for k, w := range map[string]string{
		"host":             "vm, Ubuntu 24.04.3 LTS, Linux 6.18.44-fc-v657-gpu, amd64",
		"CPU":              "Intel(R) Xeon(R) Processor × 16, last-level cache 300 MiB",
		"GPU 0":            "NVIDIA H200, 0000:00:06.0, PCIe gen5 x16, 140 GiB memory, BAR1 256 GiB",
		"driver":           "NVIDIA 580.159.04, CUDA 13.0",
		"GPU–NIC topology": "PHB: GPU 0000:00:06.0 to NIC 0000:00:03.0",
	} {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	if !strings.Contains(got["run"], "complete: 373 records") {
		t.Errorf("run: %q", got["run"])
	}
	if _, err := RunHost(nil); err == nil {
		t.Error("no run: no error")
	}

	rows := cells(RunProbes(rd))
	if len(rows) != 1+len(rd.Manifest.Probes) {
		t.Fatalf("%d probe rows", len(rows))
	}
	for _, r := range rows[1:] {
		if r[0] == "rdma" && (r[1] != "unavailable" || !strings.Contains(r[3], "no RDMA device")) {
			t.Errorf("rdma row %q", r)
		}
	}
}

func TestThisHost(t *testing.T) {
	rd := example(t)
	base := model.Default()
	s, err := ThisHost(base, rd, "nic.kind=loopback", "nic.rdma=false")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Get("cpu.memcpy_rate"); v != "6.743GB/s" {
		t.Errorf("cpu.memcpy_rate %s, want the run's 6.743GB/s", v)
	}
	if s.NIC.Kind != model.KindLoopback || s.Name != "vm's measured values on loopback" {
		t.Errorf("scenario %q, nic %s", s.Name, s.NIC.Kind)
	}
	if v, _ := base.Get("cpu.memcpy_rate"); v == "6.743GB/s" {
		t.Error("the base scenario was changed")
	}

	h, err := ThisHostTable(base, rd)
	if err != nil {
		t.Fatal(err)
	}
	ovs, _, _ := calib.ThisHost(rd)
	rows := cells(h)
	if len(rows) < 1+len(ovs) {
		t.Fatalf("%d rows for %d values", len(rows), len(ovs))
	}
	for i, o := range ovs {
		before, _ := base.Get(o.Key)
		v, _ := o.Text()
		if r := rows[1+i]; r[0] != o.Key || r[1] != before || r[2] != v {
			t.Errorf("row %q, want %s %s → %s", r, o.Key, before, v)
		}
	}
}

func TestLoopback(t *testing.T) {
	rs, err := LoadRuns(fakeRoot(t, true))
	if err != nil {
		t.Fatal(err)
	}
	s, err := nb.With(model.Default(), "nic.kind=loopback", "nic.rdma=false")
	if err != nil {
		t.Fatal(err)
	}
	in := LoopbackInput(s, rs, false)
	if len(in.Measured) != 2 || in.Measured[0].Path != "host-tcp" || in.Measured[1].Path != "" {
		t.Fatalf("ping-pong series %+v", in.Measured)
	}
	if a, b := in.Measured[0].Label, in.Measured[1].Label; a == b || a != "ping-pong on vm, h200-1gpu/run" {
		t.Errorf("two runs of one host share a legend entry: %q, %q", a, b)
	}
	if n := len(in.Measured[0].Points); n != 15 { // the example's ping-pong sweep: 1 B to 256 MiB
		t.Errorf("%d ping-pong points", n)
	}
	for _, p := range in.Measured[0].Points {
		if p.Seconds <= 0 || p.Rate != 0 || p.CPU <= 0 {
			t.Errorf("ping-pong point %+v", p)
		}
	}
	st := LoopbackInput(s, rs, true)
	if len(st.Measured) != 2 || len(st.Measured[0].Points) != 8 || st.Measured[0].Points[0].Rate <= 0 {
		t.Errorf("stream series %+v", st.Measured)
	}
	for _, f := range []func(*model.Scenario, *Runs) (*plots.Figure, error){LoopbackLatency, LoopbackBandwidth} {
		fig, err := f(s, rs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(fig.Title, "loopback (no NIC, no wire)") || !strings.Contains(fig.Provenance, "loopback") {
			t.Errorf("figure %q / %q does not say loopback", fig.Title, fig.Provenance)
		}
	}

	// The table's numbers are fit.Compare's of the model against the records.
	rd := rs.Example()
	r, _ := s.Route("host-tcp")
	var bytes, pred, meas []float64
	for _, x := range rd.Results {
		if x.Probe == "tcp" && x.Variant == "pingpong" && x.Target == "loopback" {
			bytes = append(bytes, float64(x.Bytes))
			pred = append(pred, float64(r.Evaluate(units.Bytes(x.Bytes)).Latency))
			meas = append(meas, x.MedianS)
		}
	}
	want, err := fit.Compare(bytes, pred, meas)
	if err != nil {
		t.Fatal(err)
	}
	h, err := LoopbackErrors(rs, s)
	if err != nil {
		t.Fatal(err)
	}
	rows := cells(h)
	if len(rows) != 3 { // header, the example, the good local run
		t.Fatalf("%d rows", len(rows))
	}
	if got := rows[1][2]; got != trim(want.MedianAPE)+"%" {
		t.Errorf("latency median error %s, want %s%%", got, trim(want.MedianAPE))
	}
	if got := rows[1][3]; got != signed(want.WorstPercent)+" ("+units.Bytes(want.WorstBytes).Human()+")" {
		t.Errorf("latency worst %s", got)
	}

	th, err := ThisHost(model.Default(), rd, "nic.kind=loopback", "nic.rdma=false")
	if err != nil {
		t.Fatal(err)
	}
	note, err := LoopbackNote(rd, s, th)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "a median "+trim(want.MedianAPE)+"% off") || !strings.Contains(note, "Closer: `") {
		t.Errorf("note: %s", note)
	}
	// host-tcp is feasible on the default too (over its NIC): a row, no error.
	if _, err := LoopbackErrors(rs, model.Default()); err != nil {
		t.Errorf("default scenario: %v", err)
	}
}

// The notebooks draw a run's loopback TCP from the report's own input of
// it (report.FromRun), not from a mapping of their own: the same records
// are kept and left out. The run has records that a filter of its own
// would likely treat otherwise: a ping-pong without a size, a stream
// record with a rate but no time, a ping-pong on another target first.
func TestLoopbackIsTheReportsInput(t *testing.T) {
	rec := func(variant, target string, bytes int64, median, rate float64) record.Result {
		return record.Result{Probe: "tcp", Variant: variant, Path: "host-tcp", Target: target, Bytes: bytes, Iterations: 10, MedianS: median, ThroughputBps: rate, CPUUserS: 1e-6}
	}
	rd := &record.RunData{Dir: filepath.Join(t.TempDir(), "run"), Manifest: record.Manifest{Host: record.Host{Hostname: "h"}}, Results: []record.Result{
		rec("pingpong", "veth", 64, 9e-6, 0),
		rec("pingpong", "loopback", 0, 5e-6, 0), // no size: left out
		rec("pingpong", "loopback", 64, 7e-6, 9e6),
		rec("pingpong", "loopback", 1<<20, 0, 0),  // no time: left out
		rec("stream", "loopback", 1<<16, 0, 3e9),  // a rate without a time: drawn
		rec("stream", "loopback", 1<<17, 4e-5, 0), // a time without a rate: left out
	}}
	m, err := report.FromRun(rd)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]record.Point{}
	for _, s := range m.Series {
		if s.Probe == "tcp" && s.Target == "loopback" {
			want[s.Variant] = append(want[s.Variant], s.Points...)
		}
	}
	pp, st := loopbackSeries(rd, "host-tcp")
	for variant, got := range map[string]plots.Measured{"pingpong": pp, "stream": st} {
		w := want[variant]
		if len(got.Points) != len(w) || len(w) != 1 {
			t.Fatalf("%s: %d points, the report has %d (want 1): %+v", variant, len(got.Points), len(w), got.Points)
		}
		g := got.Points[0]
		if g.Bytes != float64(w[0].Bytes) || g.Seconds != 0 && g.Seconds != float64(w[0].Median) || g.Rate != 0 && g.Rate != float64(w[0].Rate) {
			t.Errorf("%s: %+v, the report's %+v", variant, g, w[0])
		}
	}
}

func TestCopies(t *testing.T) {
	rd := example(t)
	c, err := CopyChart(model.Default(), rd)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := nb.SVG(c, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"measured: D2H, pinned", "measured: H2D, pageable", "PCIe gen5 x16 raw: 63 GB/s", "model: copy stage, 7.6 µs + n / 55.4 GB/s"} {
		if !strings.Contains(svg, w) {
			t.Errorf("the copy chart has no %q", w)
		}
	}
	note, err := CopyNote(model.Default(), rd)
	if err != nil {
		t.Fatal(err)
	}
	// 1 GiB pinned D2H in the example: 55.4 GB/s, 100% of the model's 55.4 GB/s (the preset's
	// d2h efficiency comes from this run), 88% of the raw 63.0 GB/s.
	for _, w := range []string{"The model's copy rate for PCIe gen5 x16 is 55.4 GB/s (63 GB/s raw",
		"Pinned device to host at 1 GiB: 55.4 GB/s, 100% of the model's rate and 88% of the raw link.",
		"D2H 6.62 µs, H2D 8.4 µs, where the `default` preset assumes 7.6 µs."} {
		if !strings.Contains(note, w) {
			t.Errorf("note lacks %q:\n%s", w, note)
		}
	}

	// A run without the cuda probe's records says why.
	noGPU := &record.RunData{Dir: "x", Manifest: rd.Manifest}
	for _, r := range rd.Results {
		if r.Probe != "cuda" {
			noGPU.Results = append(noGPU.Results, r)
		}
	}
	if _, err := CopyChart(model.Default(), noGPU); err == nil || !strings.Contains(err.Error(), "no CUDA copy") {
		t.Errorf("no copies: %v", err)
	}
}

func TestLive(t *testing.T) {
	var last string
	n := 0
	p := Live(func(h string) { last, n = h, n+1 })
	p.Start("tcp", 2, 3*time.Second)
	if !strings.Contains(last, `<progress value="0" max="2"`) || !strings.Contains(last, "tcp: started, 3s budget") {
		t.Errorf("after Start: %s", last)
	}
	p.Step(record.Result{Probe: "tcp", Variant: "pingpong", Bytes: 64, Target: "loopback", MedianS: 17e-6, P99S: 30e-6, Iterations: 10, Stable: true})
	if !strings.Contains(last, `<progress value="1" max="2"`) || !strings.Contains(last, "tcp pingpong 64B loopback") {
		t.Errorf("after Step: %s", last)
	}
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 2})
	p.Done(record.ProbeStatus{Name: "<gpu>", Status: record.StatusUnavailable, Reason: "no <driver>"})
	if strings.Contains(last, "<progress") || !strings.Contains(last, "<b>tcp</b>: ok, 2 records") ||
		!strings.Contains(last, "&lt;gpu&gt;") || !strings.Contains(last, "no &lt;driver&gt;") {
		t.Errorf("after Done: %s", last)
	}
	p.Start("memcpy", 0, time.Second) // unknown length: a busy bar
	if !strings.Contains(last, `<progress style=`) || n != 5 {
		t.Errorf("unknown length (%d updates): %s", n, last)
	}
	Live(nil).Start("x", 1, time.Second) // no display: nothing to do, no panic
	if s := LiveOff(); !strings.Contains(s, "`runLive` is false") || !strings.Contains(s, "`reports/runs/`") {
		t.Errorf("LiveOff: %s", s)
	}
}

func TestQuickRunInterrupted(t *testing.T) {
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the run starts, writes its manifest and stops before its first probe
	note, err := QuickRun(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(note, "Quick run into `reports/runs/") || !strings.Contains(note, "status interrupted") || !strings.Contains(note, "stopped early") {
		t.Errorf("note: %s", note)
	}
	dirs, _ := nb.FindRuns(filepath.Join(root, "reports", "runs"))
	if len(dirs) != 1 {
		t.Errorf("runs made: %q", dirs)
	}
}

func TestInterval(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		v    fit.Interval
		unit func(float64) string
		want string
	}{
		{fit.Interval{Value: 6.92e-6, Lo: 6.89e-6, Hi: 6.96e-6}, seconds, "6.92 µs [6.89, 6.96]"},
		{fit.Interval{Value: 900e-9, Lo: 800e-9, Hi: 1.1e-6}, seconds, "900 ns [800 ns, 1.1 µs]"},
		{fit.Interval{Value: 1e-9, Lo: 0, Hi: 31e-9}, seconds, "< 31 ns"},
		{fit.Interval{Value: inf, Lo: 50e9, Hi: inf}, rateOf, "> 50 GB/s"},
		{fit.Interval{Value: 55.3e9, Lo: 55.2e9, Hi: 55.3e9}, rateOf, "55.3 GB/s [55.2, 55.3]"},
	} {
		if got := interval(c.v, c.unit); got != c.want {
			t.Errorf("interval(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	for x, want := range map[float64]string{12.34: "+12%", -3.44: "−3.4%", 0: "0%", 0.123: "+0.12%"} {
		if got := signed(x); got != want {
			t.Errorf("signed(%g) = %q, want %q", x, got, want)
		}
	}
}

// TestPairTable reads the committed two-host run: rank 1 against rank 0,
// paired by torchrun, with the tcp stream near the shaped 1 Gbit/s.
func TestPairTable(t *testing.T) {
	root, err := nb.Root("")
	if err != nil {
		t.Fatal(err)
	}
	h, err := PairTable(root, ExamplePair)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Rank 1 on", "against rank 0", "paired by torchrun", "staged-host", "pipelined", "Gbit/s"} {
		if !strings.Contains(h, w) {
			t.Errorf("pair table lacks %q:\n%s", w, h)
		}
	}
	if _, err := PairTable(root, ExampleRun); err == nil {
		t.Error("a one-host run gave no error")
	}
}

// The committed nccl-tests run: every busbw series of the 16 outputs is a
// row, with the median error or the reason; a run without nccl-tests is an
// error.
func TestNCCLTestsAgainstModel(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	h, err := NCCLTestsAgainstModel(root, NCCLTestsRun, model.Default())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(h, "<tr>") - 1; n < 20 {
		t.Errorf("%d rows", n)
	}
	for _, w := range []string{"deepops-all_reduce_perf-4node-dgxa100-slurm-error-column-excerpt.txt", "all_reduce 4×8", "median error ≥ 16 MiB", "tree/Simple"} {
		if !strings.Contains(h, w) {
			t.Errorf("table lacks %q", w)
		}
	}
	if _, err := NCCLTestsAgainstModel(root, ExampleRun, model.Default()); err == nil {
		t.Error("a run of gpupath measure gave an nccl-tests table")
	}
}

// The committed MOC run calibrates as gpupath fit does: the keys and the
// check on the sizes left out, per tool.
func TestImportedCalibration(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	html, err := ImportedCalibration(root, MOCRun, model.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"nic.rate", "nccl.net_efficiency", "perftest", "nccl-tests", "The sizes left out"} {
		if !strings.Contains(html, w) {
			t.Errorf("lacks %q", w)
		}
	}
	if _, err := ImportedCalibration(root, "reports/examples/h200-1gpu/run", model.Default()); err == nil {
		t.Error("a measured run: no error")
	}
}

// A cluster's outputs, one directory per node, keep their hosts apart: the
// table names each with its files, and node01's own ibstat sets node01's
// NIC rate alone.
func TestImportCluster(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	fx := "pkg/importers/testdata/fixtures/"
	dir, err := ImportCluster(root, t.TempDir(), map[string][]string{
		"node01": {fx + "perftest/moc-ib_write_bw-a-gbits-client-roce-raw.txt", fx + "ibstat/nersc-8hca-mlx5-mixed-ib-eth.txt"},
		"node02": {fx + "perftest/alibaba-ib_write_bw-b-q4-a-gbits-ionic-pollara-client.txt"},
	})
	if err != nil {
		t.Fatal(err)
	}
	html, err := ImportedHosts(dir, model.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"node01", "node02", "perftest, ibstat", "nic.rate=100Gbit/s", "the scenario&#39;s (no listing of this host)"} {
		if !strings.Contains(html, w) {
			t.Errorf("lacks %q:\n%s", w, html)
		}
	}
}

// The notebook draws the report's check of the MOC calibration.
func TestImportedResiduals(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	f, err := ImportedResiduals(root, MOCRun, "perftest", model.Default())
	if err != nil {
		t.Fatal(err)
	}
	if f.Data.Len() == 0 || !strings.HasPrefix(f.Title, "perftest:") {
		t.Errorf("%q, %d points", f.Title, f.Data.Len())
	}
	if _, err := ImportedResiduals(root, MOCRun, "osu", model.Default()); err == nil {
		t.Error("a tool the run has no outputs of: no error")
	}
}
