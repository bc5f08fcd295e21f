package measure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// fakeProbe emits n results and then returns err; check runs inside emit
// after each result was written, to look at the files mid-run.
type fakeProbe struct {
	name   string
	n      int
	avail  error
	err    error
	weight float64
	budget *time.Duration
	check  func(i int)
	cancel context.CancelFunc // cancel after the second result
	nan    bool
}

func (p *fakeProbe) Name() string     { return p.name }
func (p *fakeProbe) Available() error { return p.avail }
func (p *fakeProbe) Weight() float64  { return p.weight }
func (p *fakeProbe) Steps(Plan) int   { return p.n }
func (p *fakeProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	if p.budget != nil {
		*p.budget = plan.Budget
	}
	for i := 0; i < p.n; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := record.Result{Variant: "v", Bytes: int64(i + 1), Iterations: 10, MedianS: 1e-6 * float64(i+1)}
		if p.nan {
			r.MedianS = math.NaN()
		}
		if err := emit(r); err != nil {
			return err
		}
		if p.check != nil {
			p.check(i)
		}
		if p.cancel != nil && i == 1 {
			p.cancel()
		}
	}
	return p.err
}

var fakes = map[string]*fakeProbe{}

// useFake registers (once) a probe name whose behaviour the test sets.
func useFake(t *testing.T, p *fakeProbe) {
	t.Helper()
	if _, ok := fakes[p.name]; !ok {
		name := p.name
		Register(name, func(Env) Probe { return fakes[name] })
	}
	fakes[p.name] = p
}

type recordingProgress struct{ events []string }

func (r *recordingProgress) Start(probe string, steps int, budget time.Duration) {
	r.events = append(r.events, "start "+probe)
}
func (r *recordingProgress) Step(res record.Result) { r.events = append(r.events, "step "+res.Probe) }
func (r *recordingProgress) Done(st record.ProbeStatus) {
	r.events = append(r.events, "done "+st.Name+" "+string(st.Status))
}

// A finished run's status follows from its probes: a probe that failed is
// never passed off as a complete run, even when it kept records (a peer
// that went away after 13 sizes); absence alone (unavailable) is no failure.
func TestRunStatus(t *testing.T) {
	p := func(name string, st record.Status, results int) record.ProbeStatus {
		return record.ProbeStatus{Name: name, Status: st, Results: results}
	}
	for _, tc := range []struct {
		probes []record.ProbeStatus
		want   record.Status
		reason string
	}{
		{[]record.ProbeStatus{p("tcp", record.StatusFailed, 13)}, record.StatusFailed, "every probe was unavailable or failed (each says why): tcp failed, 13 results kept"},
		{[]record.ProbeStatus{p("tcp", record.StatusFailed, 0), p("rdma", record.StatusUnavailable, 0)}, record.StatusFailed, "measured nothing: every probe was unavailable or failed (each says why)"},
		{[]record.ProbeStatus{p("rdma", record.StatusUnavailable, 0)}, record.StatusFailed, "measured nothing: every probe was unavailable or failed (each says why)"},
		{nil, record.StatusFailed, "measured nothing: every probe was unavailable or failed (each says why)"},
		{[]record.ProbeStatus{p("syscall", record.StatusOK, 4), p("tcp", record.StatusFailed, 13)}, record.StatusPartial, "tcp failed (each says why); syscall measured"},
		{[]record.ProbeStatus{p("syscall", record.StatusOK, 4), p("rdma", record.StatusUnavailable, 0)}, record.StatusComplete, ""},
		{[]record.ProbeStatus{p("tcp", record.StatusPartial, 2)}, record.StatusComplete, ""},
	} {
		if st, reason := RunStatus(tc.probes); st != tc.want || reason != tc.reason {
			t.Errorf("%v: %s %q, want %s %q", tc.probes, st, reason, tc.want, tc.reason)
		}
	}
}

func TestRunRecordsEveryOutcome(t *testing.T) {
	dir := t.TempDir()
	var sawLines []int
	var sawStatus []record.Status
	useFake(t, &fakeProbe{name: "fake-ok", n: 3, check: func(i int) {
		// Written through: the record is in the file before the probe goes on.
		rd, err := record.ReadRun(dir)
		if err != nil {
			t.Errorf("mid-run read: %v", err)
			return
		}
		sawLines = append(sawLines, len(rd.Results))
		sawStatus = append(sawStatus, rd.Manifest.Status, rd.Manifest.Probes[0].Status)
	}})
	useFake(t, &fakeProbe{name: "fake-unavail", avail: Unavailable("no GPU")})
	useFake(t, &fakeProbe{name: "fake-late-unavail", n: 1, err: Unavailable("no libcuda.so.1")})
	useFake(t, &fakeProbe{name: "fake-fail", n: 1, err: errors.New("boom\nsecond line")})
	// A budget that ran out before the plan did: the records kept are
	// valid, the probe is partial and says what was not measured, and the
	// run is not a failure (a busy machine must not fail the quick run).
	useFake(t, &fakeProbe{name: "fake-spent", n: 2, err: fmt.Errorf("fake: %w: 2 of 4 measurements", ErrBudgetSpent)})
	prog := &recordingProgress{}
	host := record.Host{Hostname: "testhost"}
	m, err := Run(context.Background(), RunConfig{
		Dir: dir, Probes: []string{"fake-ok", "fake-unavail", "fake-late-unavail", "fake-fail", "fake-spent"},
		Budget: time.Second, Progress: prog, Version: "v-test", Host: &host,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3}; len(sawLines) != 3 || sawLines[0] != 1 || sawLines[2] != 3 {
		t.Errorf("records visible mid-run: %v, want %v", sawLines, want)
	}
	if len(sawStatus) < 2 || sawStatus[0] != record.StatusRunning || sawStatus[1] != record.StatusRunning {
		t.Errorf("manifest mid-run: %v, want running/running", sawStatus)
	}
	rd, err := record.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	// One probe failed beside others that measured: partial, naming it.
	if rd.Manifest.Status != record.StatusPartial || rd.Manifest.Reason != "fake-fail failed (each says why); fake-ok, fake-spent measured" || rd.Manifest.End.IsZero() || rd.Manifest.Host.Hostname != "testhost" || rd.Manifest.Version != "v-test" {
		t.Errorf("final manifest %+v", rd.Manifest)
	}
	want := map[string]struct {
		st      record.Status
		reason  string
		results int
	}{
		"fake-ok":           {record.StatusOK, "", 3},
		"fake-unavail":      {record.StatusUnavailable, "no GPU", 0},
		"fake-late-unavail": {record.StatusUnavailable, "no libcuda.so.1", 1},
		"fake-fail":         {record.StatusFailed, "boom; second line", 1},
		"fake-spent":        {record.StatusPartial, "fake: budget spent: 2 of 4 measurements", 2},
	}
	for name, w := range want {
		p := m.Probe(name)
		if p == nil || p.Status != w.st || p.Reason != w.reason || p.Results != w.results {
			t.Errorf("%s: %+v, want %+v", name, p, w)
		}
	}
	if len(rd.Results) != 7 || rd.Results[0].Probe != "fake-ok" || rd.Results[0].Time.IsZero() {
		t.Errorf("results %+v", rd.Results)
	}
	got := strings.Join(prog.events, ",")
	wantEv := "start fake-ok,step fake-ok,step fake-ok,step fake-ok,done fake-ok ok,done fake-unavail unavailable," +
		"start fake-late-unavail,step fake-late-unavail,done fake-late-unavail unavailable," +
		"start fake-fail,step fake-fail,done fake-fail failed," +
		"start fake-spent,step fake-spent,step fake-spent,done fake-spent partial"
	if got != wantEv {
		t.Errorf("progress events\n got %s\nwant %s", got, wantEv)
	}
	if _, err := os.Stat(filepath.Join(dir, record.ManifestFile+".tmp")); !os.IsNotExist(err) {
		t.Error("temporary manifest left behind")
	}
	// A second run into the same directory is refused.
	if _, err := Run(context.Background(), RunConfig{Dir: dir, Probes: []string{"fake-ok"}, Budget: time.Second, Host: &host}); !errors.Is(err, record.ErrRunExists) {
		t.Errorf("second run: %v, want ErrRunExists", err)
	}
}

func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	useFake(t, &fakeProbe{name: "fake-first", n: 2})
	useFake(t, &fakeProbe{name: "fake-cancel", n: 5, cancel: cancel})
	useFake(t, &fakeProbe{name: "fake-never", n: 1})
	host := record.Host{Hostname: "testhost"}
	m, err := Run(ctx, RunConfig{Dir: dir, Probes: []string{"fake-first", "fake-cancel", "fake-never"}, Budget: time.Second, Host: &host})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	rd, rerr := record.ReadRun(dir)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if rd.Manifest.Status != record.StatusInterrupted || m.Status != record.StatusInterrupted {
		t.Errorf("run status %s", rd.Manifest.Status)
	}
	for name, want := range map[string]record.Status{"fake-first": record.StatusOK, "fake-cancel": record.StatusInterrupted, "fake-never": record.StatusPending} {
		if p := rd.Manifest.Probe(name); p == nil || p.Status != want {
			t.Errorf("%s: %+v, want %s", name, p, want)
		}
	}
	if len(rd.Results) != 4 || len(rd.Skipped) != 0 {
		t.Errorf("%d results (%v skipped), want the 4 measured before the interrupt", len(rd.Results), rd.Skipped)
	}
}

func TestRunBudgetShares(t *testing.T) {
	var a, b time.Duration
	useFake(t, &fakeProbe{name: "fake-w3", n: 1, weight: 3, budget: &a})
	useFake(t, &fakeProbe{name: "fake-w1", n: 1, weight: 1, budget: &b})
	host := record.Host{}
	if _, err := Run(context.Background(), RunConfig{Dir: t.TempDir(), Probes: []string{"fake-w3", "fake-w1"}, Budget: 8 * time.Second, Host: &host}); err != nil {
		t.Fatal(err)
	}
	// 3/4 of 8s for the first; the second gets what is left (≈ 2s + the unused 6s).
	if math.Abs(a.Seconds()-6) > 0.2 || b.Seconds() < 7.5 || b.Seconds() > 8 {
		t.Errorf("budgets %v and %v, want 6s and ~8s", a, b)
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	host := record.Host{}
	if _, err := Run(context.Background(), RunConfig{Dir: t.TempDir(), Budget: 0, Host: &host}); err == nil {
		t.Error("zero budget accepted")
	}
	if _, err := Run(context.Background(), RunConfig{Dir: t.TempDir(), Budget: -time.Second, Host: &host}); err == nil {
		t.Error("negative budget accepted")
	}
	if _, err := Run(context.Background(), RunConfig{Dir: t.TempDir(), Probes: []string{"no-such"}, Budget: time.Second, Host: &host}); err == nil || !strings.Contains(err.Error(), "unknown probe") {
		t.Errorf("unknown probe: %v", err)
	}
	// A NaN in a record is refused, and the probe is marked failed.
	dir := t.TempDir()
	useFake(t, &fakeProbe{name: "fake-nan", n: 1, nan: true})
	m, err := Run(context.Background(), RunConfig{Dir: dir, Probes: []string{"fake-nan"}, Budget: time.Second, Host: &host})
	if err != nil || m.Probe("fake-nan").Status != record.StatusFailed || !strings.Contains(m.Probe("fake-nan").Reason, "median_s is NaN") {
		t.Errorf("NaN record: err %v, status %+v", err, m.Probe("fake-nan"))
	}
}

func TestRunDirName(t *testing.T) {
	got := record.RunDirName("node 1/a", time.Date(2026, 11, 29, 13, 54, 0, 0, time.FixedZone("x", 3600)))
	if got != "node_1_a-20261129T125400Z" {
		t.Errorf("RunDirName = %q", got)
	}
}

// envProbe keeps the Env it was made with.
type envProbe struct{ env Env }

func (*envProbe) Name() string     { return "fake-env" }
func (*envProbe) Available() error { return nil }
func (p *envProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	p.env.Logf("read %s", p.env.Sys("class", "net"))
	return nil
}

// TestRunMakesProbesWithEnv: the runner makes each probe with the run's
// Env (no setters), and the zero Env is /sys with diagnostics discarded.
func TestRunMakesProbesWithEnv(t *testing.T) {
	var made []*envProbe
	if _, ok := registry["fake-env"]; !ok { // -count=N runs this again
		Register("fake-env", func(env Env) Probe { return &envProbe{env: env} })
	}
	newEnvProbe := registry["fake-env"]
	registry["fake-env"] = func(env Env) Probe { p := newEnvProbe(env).(*envProbe); made = append(made, p); return p }
	t.Cleanup(func() { registry["fake-env"] = newEnvProbe })
	var lines []string
	host := record.Host{Hostname: "testhost"}
	_, err := Run(context.Background(), RunConfig{Dir: t.TempDir(), Probes: []string{"fake-env"}, Budget: time.Second, Host: &host,
		Env: Env{SysRoot: "/fixture/sys", Log: func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) }}})
	if err != nil {
		t.Fatal(err)
	}
	// Listing a probe's options makes one with the zero Env; the one that
	// runs is made last.
	if len(made) == 0 || made[len(made)-1].env.SysRoot != "/fixture/sys" {
		t.Fatalf("probes made: %+v", made)
	}
	if want := "read /fixture/sys/class/net"; len(lines) != 1 || lines[0] != want {
		t.Errorf("log %q, want %q", lines, want)
	}
	if got := (Env{}).Sys("bus", "pci"); got != "/sys/bus/pci" {
		t.Errorf("zero Env: %s", got)
	}
	(Env{}).Logf("discarded") // must not panic
}

// A write that fails for lack of space (results.jsonl on /dev/full) ends
// the run with a manifest that says the write failed and counts what is on
// disk, not "running".
func TestRunWriteFailureStatus(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	if err := os.Symlink("/dev/full", filepath.Join(dir, record.ResultsFile)); err != nil {
		t.Fatal(err)
	}
	host := record.Host{Hostname: "h"}
	m, err := Run(context.Background(), RunConfig{Dir: dir, Probes: []string{"fake-ok"}, Budget: time.Second, Host: &host})
	if err == nil || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("want ENOSPC, got %v", err)
	}
	b, rerr := os.ReadFile(filepath.Join(dir, record.ManifestFile))
	if rerr != nil {
		t.Fatal(rerr)
	}
	var disk record.Manifest
	if err := json.Unmarshal(b, &disk); err != nil {
		t.Fatal(err)
	}
	if disk.Status != record.StatusFailed || !strings.Contains(disk.Reason, "writing the run failed") || !strings.Contains(disk.Reason, "0 records kept") {
		t.Errorf("manifest status %q reason %q", disk.Status, disk.Reason)
	}
	for _, p := range disk.Probes {
		if p.Status == record.StatusRunning || p.Results != 0 {
			t.Errorf("probe %s: %s with %d results", p.Name, p.Status, p.Results)
		}
	}
	if m.Status != record.StatusFailed {
		t.Errorf("returned manifest %q", m.Status)
	}
}
