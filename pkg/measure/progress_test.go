package measure

import (
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
			"tcp pingpong 64B loopback: 17.1us median, p99 75.3us (n=36304)"},
		{record.Result{Probe: "tcp", Variant: "stream", Bytes: 128 << 10, Target: "veth tbf 1Gbit/s", MedianS: 1.1e-3, ThroughputBps: 119.5e6, Iterations: 12},
			"tcp stream 128KiB veth tbf 1Gbit/s: 956Mbit/s, 1.1ms per op median (n=12, not settled)"},
		{record.Result{Probe: "memcpy", Variant: "cold", Bytes: 64 << 20, Target: "host", MedianS: 4.64e-3, ThroughputBps: 14.5e9, Iterations: 41, Stable: true},
			"memcpy cold 64MiB host: 14.5GB/s, 4.64ms per op median (n=41)"},
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
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 1, Start: t0, End: t0.Add(1500 * time.Millisecond)})
	p.Done(record.ProbeStatus{Name: "cuda", Status: record.StatusUnavailable, Reason: "no libcuda.so.1"})
	want := "tcp: 2 measurements, budget 18.0s\n" +
		"  tcp pingpong 1B: 10us median, p99 20us (n=9)\n" +
		"tcp: ok in 1.5s, 1 results\n" +
		"cuda: unavailable (no libcuda.so.1)\n"
	if b.String() != want {
		t.Errorf("lines\n got %q\nwant %q", b.String(), want)
	}
}

func TestBarProgress(t *testing.T) {
	var b strings.Builder
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	p := &Bar{W: &b, Width: 10, Now: func() time.Time { return now }}
	p.Start("tcp", 4, 10*time.Second)
	now = now.Add(2 * time.Second)
	p.Step(record.Result{Probe: "tcp", Variant: "pingpong", Bytes: 1, MedianS: 1e-5, P99S: 2e-5, Iterations: 9, Stable: true})
	p.Done(record.ProbeStatus{Name: "tcp", Status: record.StatusOK, Results: 1, Start: now.Add(-2 * time.Second), End: now})
	out := b.String()
	lines := strings.Split(out, "\r")
	if len(lines) != 4 || lines[0] != "" {
		t.Fatalf("bar output %q", out)
	}
	if !strings.HasPrefix(lines[2], "tcp      [##--------] 1/4  2.0s/10s pingpong 1B: 10us") {
		t.Errorf("bar line %q", lines[2])
	}
	if !strings.HasPrefix(lines[3], "tcp: ok in 2.0s, 1 results") || !strings.HasSuffix(out, "\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("final line %q", lines[3])
	}
}
