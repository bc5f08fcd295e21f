package measure

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		r    record.Result
		want string
	}{
		{record.Result{Probe: "tcp", Variant: "pingpong", Bytes: 64, Target: "loopback", MedianS: 17.1e-6, P99S: 75.3e-6, Iterations: 36304, Stable: true},
			"tcp pingpong 64B loopback: 17.1 µs one-way median, p99 75.3 µs (n=36304)"},
		{record.Result{Probe: "tcp", Variant: "stream", Bytes: 128 << 10, Target: "veth tbf 1Gbit/s", MedianS: 1.1e-3, ThroughputBps: 119.5e6, Iterations: 12},
			"tcp stream 128KiB veth tbf 1Gbit/s: 956 Mbit/s, 1.1 ms per write median (n=12, not settled: its median did not hold within 2 % for two checks in a row)"},
		// Fewer samples than the third checkpoint (5, 8, 12) can never settle.
		{record.Result{Probe: "tcp", Variant: "stream", Bytes: 16 << 20, Target: "veth", MedianS: 1.4, ThroughputBps: 11.95e6, Iterations: 1},
			"tcp stream 16MiB veth: 95.6 Mbit/s, 1.4 s per write median (n=1, not settled: time for 1 sample, under the 12 that two checks in a row within 2 % need)"},
		{record.Result{Probe: "memcpy", Variant: "cold", Bytes: 64 << 20, Target: "host", MedianS: 4.64e-3, ThroughputBps: 14.5e9, Iterations: 41, Stable: true},
			"memcpy cold 64MiB host: 14.5 GB/s, 4.64 ms per copy median (n=41)"},
		{record.Result{Probe: "syscall", Variant: "getppid", Target: "host", MedianS: 236e-9, P99S: 249e-9, Iterations: 12, Stable: true},
			"syscall getppid 0B host: 236 ns per call median, p99 249 ns (n=12)"},
		{record.Result{Probe: "staged-host", Variant: "pipelined", Bytes: 1 << 20, Target: "loopback", MedianS: 2e-3, P99S: 3e-3, ThroughputBps: 5e8, Iterations: 20, Stable: true},
			"staged-host pipelined 1MiB loopback: 2 ms one-way + ack median, p99 3 ms (n=20)"},
		{record.Result{Probe: "perftest", Variant: "ib_read_lat", Bytes: 2, Target: "loopback mlx5_0", MedianS: 3.1e-6, P99S: 4e-6, Iterations: 1000, Stable: true},
			"perftest ib_read_lat 2B loopback mlx5_0: 3.1 µs round trip median, p99 4 µs (n=1000)"},
		{record.Result{Probe: "perftest", Variant: "ib_send_lat", Bytes: 2, Target: "loopback mlx5_0", MedianS: 1.5e-6, P99S: 2e-6, Iterations: 1000, Stable: true},
			"perftest ib_send_lat 2B loopback mlx5_0: 1.5 µs one-way median, p99 2 µs (n=1000)"},
		// A record of what is there, not a timing: its note, no "0 s median".
		{record.Result{Probe: "topo", Variant: "gpu", Target: "0000:17:00.0", Note: "10de:2330 nvidia 16GT/s x16"},
			"topo gpu 0000:17:00.0: 10de:2330 nvidia 16GT/s x16"},
	} {
		if got := Describe(tc.r); got != tc.want {
			t.Errorf("Describe\n got %q\nwant %q", got, tc.want)
		}
	}
}

func TestLinesProgress(t *testing.T) {
	var b strings.Builder
	p := Lines{W: &b}
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p.Start("tcp", 2, 18*time.Second)
	p.Step(record.Result{Probe: "tcp", Variant: "pingpong", Bytes: 1, MedianS: 1e-5, P99S: 2e-5, Iterations: 9, Stable: true})
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 1, BudgetS: 18, Start: t0, End: t0.Add(1500 * time.Millisecond)})
	p.Done(record.ProbeStatus{Name: "cuda", Status: record.StatusUnavailable, Reason: "no libcuda.so.1"})
	want := "tcp: 2 measurements, budget 18 s\n" +
		"  tcp pingpong 1B: 10 µs one-way median, p99 20 µs (n=9)\n" +
		"tcp: ok in 1.5 s of 18 s, 1 result\n" +
		"cuda: unavailable (no libcuda.so.1)\n"
	if b.String() != want {
		t.Errorf("lines\n got %q\nwant %q", b.String(), want)
	}
}

// TestLinesOverrun: a probe that ends past its budget says by how much and
// whether its last result or its ending was late; a run's tolerance words
// its "not settled".
func TestLinesOverrun(t *testing.T) {
	var b strings.Builder
	p := Lines{W: &b}.WithPlan(Plan{Tolerance: 0.05})
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p.Start("tcp", 2, 3*time.Second)
	p.Step(record.Result{Probe: "tcp", Variant: "stream", Bytes: 1 << 20, MedianS: 87.7e-3, ThroughputBps: 11.95e6, Iterations: 12, Stable: true, Time: t0.Add(1500 * time.Millisecond)})
	p.Step(record.Result{Probe: "tcp", Variant: "stream", Bytes: 16 << 20, MedianS: 1.4, ThroughputBps: 11.95e6, Iterations: 20, Time: t0.Add(5500 * time.Millisecond)})
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 2, BudgetS: 3, Start: t0, End: t0.Add(5600 * time.Millisecond)})
	p.Start("tcp", 1, time.Second) // its first size alone ran past the budget
	p.Step(record.Result{Probe: "tcp", Variant: "stream", Bytes: 16 << 20, MedianS: 1.4, ThroughputBps: 11.95e6, Iterations: 1, Time: t0.Add(4260 * time.Millisecond)})
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 1, BudgetS: 0.9999996, Start: t0, End: t0.Add(4263 * time.Millisecond)})
	p.Start("staged-host", 1, 2*time.Second)
	p.Step(record.Result{Probe: "staged-host", Variant: "store", Bytes: 1, MedianS: 1e-5, P99S: 1e-5, Iterations: 20, Stable: true, Time: t0.Add(7 * time.Second)})
	p.Done(record.ProbeStatus{Name: "staged-host", Status: record.StatusOK, Results: 1, BudgetS: 2, Start: t0.Add(5600 * time.Millisecond), End: t0.Add(8 * time.Second)})
	p.Start("syscall", 1, time.Second) // within a hundredth of its budget: nothing said
	p.Done(record.ProbeStatus{Name: "syscall", Status: record.StatusOK, Results: 1, BudgetS: 1, Start: t0, End: t0.Add(1005 * time.Millisecond)})
	want := "tcp: 2 measurements, budget 3 s\n" +
		"  tcp stream 1MiB: 95.6 Mbit/s, 87.7 ms per write median (n=12)\n" +
		"  tcp stream 16MiB: 95.6 Mbit/s, 1.4 s per write median (n=20, not settled: its median did not hold within 5 % for two checks in a row)\n" +
		"tcp: ok in 5.6 s of 3 s, 2 results; 2.6 s over its budget: its last result came 2.5 s after it, and the probe ended 100 ms after that\n" +
		"tcp: 1 measurement, budget 1 s\n" +
		"  tcp stream 16MiB: 95.6 Mbit/s, 1.4 s per write median (n=1, not settled: time for 1 sample, under the 12 that two checks in a row within 5 % need)\n" +
		"tcp: ok in 4.26 s of 1 s, 1 result; 3.26 s over its budget: its one result (a probe always measures its first size) came 3.26 s after it, and the probe ended 3 ms after that\n" +
		"staged-host: 1 measurement, budget 2 s\n" +
		"  staged-host store 1B: 10 µs one-way + ack median, p99 10 µs (n=20)\n" +
		"staged-host: ok in 2.4 s of 2 s, 1 result; 400 ms over its budget: its last result came in time; ending the probe took 1 s\n" +
		"syscall: 1 measurement, budget 1 s\n" +
		"syscall: ok in 1 s of 1 s, 1 result\n"
	if b.String() != want {
		t.Errorf("lines\n got %q\nwant %q", b.String(), want)
	}
}

// screen is what a terminal shows after text: a carriage return goes back
// to the start of the line and what follows overwrites it.
func screen(text string) []string {
	lines := [][]rune{nil}
	col := 0
	for _, r := range text {
		l := &lines[len(lines)-1]
		switch r {
		case '\n':
			lines = append(lines, nil)
			col = 0
		case '\r':
			col = 0
		default:
			if col < len(*l) {
				(*l)[col] = r
			} else {
				*l = append(*l, r)
			}
			col++
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(string(l), " ")
	}
	return out
}

// TestBarKeepsTable: on a terminal, each result becomes a row of the
// probe's table above the bar, and when the probe ends the bar gives way
// to its outcome: every row stays on the screen (they were overwritten by
// the bar, and no table remained).
func TestBarKeepsTable(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p := (&Bar{W: &b, Width: 10, Now: func() time.Time { return now }}).WithPlan(Plan{})
	t0 := now
	p.Start("tcp", 3, 10*time.Second)
	results := []record.Result{
		{Probe: "tcp", Variant: "pingpong", Bytes: 1, Target: "loopback", MedianS: 7.54e-6, P99S: 7.98e-6, ThroughputBps: 1 / 7.54e-6, Spread: 0.031, Iterations: 12, Stable: true},
		{Probe: "tcp", Variant: "pingpong", Bytes: 4 << 20, Target: "loopback", MedianS: 1.21e-3, P99S: 1.67e-3, ThroughputBps: 3.47e9, Spread: 0.05, Iterations: 93, Stable: true},
		{Probe: "tcp", Variant: "stream", Bytes: 1 << 20, Target: "loopback", MedianS: 279e-6, P99S: 310e-6, ThroughputBps: 3.76e9, Spread: 0.04, Iterations: 49},
	}
	var bars []string
	for _, r := range results {
		now = now.Add(2 * time.Second)
		p.Step(r)
		s := screen(b.String())
		bars = append(bars, s[len(s)-1])
	}
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 3, BudgetS: 10, Start: t0, End: now})
	p.Done(record.ProbeStatus{Name: "cuda", Status: record.StatusUnavailable, Reason: "no libcuda.so.1"})
	want := []string{
		"tcp: 3 measurements, budget 10 s",
		"  variant          size  target             median                          p99         rate  spread       n",
		"  pingpong           1B  loopback           7.54 µs one-way             7.98 µs     133 kB/s   3.1 %      12",
		"  pingpong         4MiB  loopback           1.21 ms one-way             1.67 ms    3.47 GB/s   5.0 %      93",
		"  stream           1MiB  loopback           279 µs per write             310 µs  30.1 Gbit/s   4.0 %      49  not settled: its median did not hold within 2 % for two checks in a row",
		"tcp: ok in 6 s of 10 s, 3 results",
		"cuda: unavailable (no libcuda.so.1)",
		"",
	}
	got := screen(b.String())
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("screen at the end\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if want := "tcp      [######----] 2/3  4 s of 10 s"; bars[1] != want {
		t.Errorf("bar under the rows: %q, want %q", bars[1], want)
	}
}

// TestBarAndLinesSameResults: the terminal's table and the pipe's lines
// hold the same results; the lines are one per event, with no carriage
// return, whatever the terminal does.
func TestBarAndLinesSameResults(t *testing.T) {
	var tb, lb strings.Builder
	bar, lines := &Bar{W: &tb}, Lines{W: &lb}
	for _, p := range []Progress{bar, lines} {
		p.Start("syscall", 2, time.Second)
		p.Step(record.Result{Probe: "syscall", Variant: "getppid", Target: "host", MedianS: 236e-9, P99S: 249e-9, Iterations: 12, Stable: true})
		p.Step(record.Result{Probe: "syscall", Variant: "tcp-send", Bytes: 1, Target: "host", MedianS: 3.61e-6, P99S: 4.3e-6, Iterations: 18, Stable: true})
		p.Done(record.ProbeStatus{Name: "syscall", Status: record.StatusOK, Results: 2})
	}
	if strings.Contains(lb.String(), "\r") || strings.Count(lb.String(), "\n") != 4 {
		t.Errorf("lines: %q", lb.String())
	}
	s := strings.Join(screen(tb.String()), "\n")
	for _, want := range []string{"getppid", "236 ns per call", "tcp-send", "3.61 µs per call", "syscall: ok, 2 results"} {
		if !strings.Contains(s, want) || !strings.Contains(lb.String(), want) {
			t.Errorf("%q missing:\nterminal:\n%s\nlines:\n%s", want, s, lb.String())
		}
	}
}

// durationString matches what time.Duration.String writes ("3.44µs",
// "1.5s", "350ms", "1m30s") and the compact "us" of units.Seconds.Compact:
// never in progress text, which spells times as units.Seconds.Human does
// ("3.44 µs", "1.5 s").
var durationString = regexp.MustCompile(`\d(ns|us|µs|μs|ms|s|m|h)\b|\bus\b`)

func checkHumanTimes(t *testing.T, what, text string) {
	t.Helper()
	for _, l := range strings.Split(text, "\n") {
		if m := durationString.FindString(l); m != "" {
			t.Errorf("%s: %q is time.Duration's or the compact spelling, not units.Seconds.Human's, in %q", what, m, l)
		}
	}
}

// TestProgressTimesHuman: the progress of every probe, on a terminal and
// in a pipe, spells its times in the one human spelling: records of each
// probe, budgets and outcomes of every kind, the reasons the runner and the
// sweeps give, and a real run of the host probes.
func TestProgressTimesHuman(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	records := []record.Result{
		{Probe: "tcp", Variant: "pingpong", Bytes: 64, Target: "loopback", MedianS: 3.44e-6, P99S: 1.5e-3, ThroughputBps: 1.8e7, Iterations: 36304},
		{Probe: "tcp", Variant: "stream", Bytes: 1 << 20, Target: "veth tbf 1Gbit/s", MedianS: 8.77e-3, ThroughputBps: 119.5e6, Iterations: 9},
		{Probe: "memcpy", Variant: "warm", Bytes: 4096, Target: "host", MedianS: 36.8e-9, ThroughputBps: 111e9, Iterations: 12, Stable: true},
		{Probe: "syscall", Variant: "socketpair", Bytes: 1, Target: "host", MedianS: 1.95e-6, P99S: 2.64e-6, Iterations: 27, Stable: true},
		{Probe: "staged-host", Variant: "store", Bytes: 64 << 20, Target: "loopback", MedianS: 90e-3, P99S: 2.5, ThroughputBps: 7e8, Iterations: 5},
		{Probe: "cuda", Variant: "h2d-pinned", Bytes: 1 << 30, Target: "gpu0", MedianS: 40e-3, P99S: 61e-3, ThroughputBps: 25e9, Iterations: 12, Stable: true},
		{Probe: "perftest", Variant: "ib_write_bw", Bytes: 65536, Target: "loopback mlx5_0", MedianS: 5.3e-6, P99S: 5.3e-6, ThroughputBps: 12.3e9, Iterations: 5000, Stable: true},
		{Probe: "peer", Variant: "stream", Bytes: 128 << 10, Target: "node01", MedianS: 4.1, P99S: 4.1, Iterations: 1},
		{Probe: "topo", Variant: "gpu-nic", Target: "gpu@0000:17:00.0->nic@0000:18:00.0", Note: "PIX"},
	}
	reasons := []string{
		fmt.Sprintf("stopped at %s, past its budget of %s", humanDuration(25*time.Second), humanDuration(10*time.Second)),
	}
	for _, fake := range []func() time.Time{
		func() time.Time { return t0 },
		func() time.Time { return t0.Add(24 * time.Hour) }, // past every budget: the sweeps' budget errors
	} {
		for _, size := range []int64{1 << 20, 64 << 20} {
			sw := newSweepAt(Plan{Budget: 1500 * time.Millisecond}, 3, func() time.Time { return t0 })
			sw.next(1, 4)
			sw.measured(1<<20, 1e6)
			sw.clock = fake
			if _, err := sw.next(size, 3*size); err != nil {
				reasons = append(reasons, err.Error())
			}
		}
	}
	if len(reasons) < 3 {
		t.Fatalf("the sweeps gave no budget errors: %q", reasons)
	}
	var tb, lb strings.Builder
	for _, p := range []Progress{(&Bar{W: &tb}).WithPlan(Plan{}), Lines{W: &lb}.WithPlan(Plan{})} {
		for i, budget := range []time.Duration{350 * time.Millisecond, 1500 * time.Millisecond, 90 * time.Second} {
			p.Start("tcp", i, budget)
			for _, r := range records {
				r.Time = t0.Add(budget * 2)
				p.Step(r)
			}
			for _, st := range []record.Status{record.StatusOK, record.StatusPartial, record.StatusFailed, record.StatusInterrupted} {
				for _, reason := range reasons {
					p.Done(record.ProbeStatus{Name: "tcp", Status: st, Reason: reason, Results: 9, BudgetS: budget.Seconds(), Start: t0, End: t0.Add(budget*2 + 3*time.Millisecond)})
				}
			}
		}
		p.Done(record.ProbeStatus{Name: "cuda", Status: record.StatusUnavailable, Reason: "no libcuda.so.1"})
	}
	checkHumanTimes(t, "terminal", strings.Join(screen(tb.String()), "\n"))
	checkHumanTimes(t, "pipe", lb.String())

	// A real run of the host probes, through the runner.
	probes := []string{"syscall"}
	if !testing.Short() {
		probes = append(probes, "tcp", "staged-host")
	}
	for _, term := range []bool{true, false} {
		var b strings.Builder
		var p Progress = Lines{W: &b}
		if term {
			p = &Bar{W: &b}
		}
		_, err := Run(context.Background(), RunConfig{Dir: filepath.Join(t.TempDir(), "run"), Probes: probes, Budget: time.Duration(len(probes)) * 300 * time.Millisecond,
			Plan: Plan{Sizes: []int64{64, 4096}, Target: "loopback"}, Progress: p, Host: &record.Host{Hostname: "h"}})
		if err != nil && !errors.Is(err, ErrBudgetSpent) {
			t.Fatal(err)
		}
		out := b.String()
		if term {
			out = strings.Join(screen(out), "\n")
		}
		checkHumanTimes(t, fmt.Sprintf("a run of %v (terminal %v)", probes, term), out)
		if !strings.Contains(out, "per call") {
			t.Errorf("a run of %v: no syscall result in\n%s", probes, out)
		}
	}
}
