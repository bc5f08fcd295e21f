package measure

import (
	"context"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

func runProbe(t *testing.T, name string, plan Plan) []record.Result {
	t.Helper()
	p, err := New(name, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Available(); err != nil {
		t.Fatalf("%s unavailable: %v", name, err)
	}
	var rs []record.Result
	start := time.Now()
	if err := p.Run(context.Background(), plan, func(r record.Result) error { rs = append(rs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	// A probe keeps to its budget, give or take the minimum repetitions and
	// its set-up: memcpy faults in 2 × 128 MiB first, which takes seconds in
	// a VM whose host backs guest memory lazily (seen here: 2-6 s per GiB).
	if el := time.Since(start); el > 2*plan.Budget+5*time.Second && !raceEnabled {
		t.Errorf("%s took %v on a budget of %v", name, el, plan.Budget)
	}
	if st, ok := p.(Stepper); ok && st.Steps(plan) != len(rs) {
		t.Errorf("%s announced %d steps, made %d records", name, st.Steps(plan), len(rs))
	}
	return rs
}

func TestMemcpyProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real memcpy probe")
	}
	rs := runProbe(t, "memcpy", Plan{Budget: time.Second, Sizes: []int64{4 << 10, 16 << 20}})
	if len(rs) != 4 {
		t.Fatalf("%d records", len(rs))
	}
	for _, r := range rs {
		// One core copies between 0.3 GB/s (a slow VM, cold) and 1 TB/s (L1).
		if r.ThroughputBps < 3e8 || r.ThroughputBps > 1e12 || r.Iterations < 5 {
			t.Errorf("implausible %s", Describe(r))
		}
		if d := float64(r.Bytes)/r.MedianS - r.ThroughputBps; d > 1e-6*r.ThroughputBps || d < -1e-6*r.ThroughputBps {
			t.Errorf("throughput is not bytes/median: %+v", r)
		}
	}
	// A 4 KiB copy from L1 is faster than the same copy from memory.
	if warm, cold := rs[0], rs[1]; warm.Variant != "warm" || cold.Variant != "cold" || warm.ThroughputBps <= cold.ThroughputBps {
		t.Errorf("4KiB warm %s vs cold %s", Describe(warm), Describe(cold))
	}
}

func TestSyscallProbe(t *testing.T) {
	rs := runProbe(t, "syscall", Plan{Budget: time.Second})
	want := []string{"getppid", "socketpair", "tcp-send", "tcp-recv"}
	if len(rs) != len(want) {
		t.Fatalf("%d records", len(rs))
	}
	for i, r := range rs {
		// A system call costs between 20 ns and 100 us on anything alive.
		if r.Variant != want[i] || r.MedianS < 2e-8 || r.MedianS > 1e-4 || r.Iterations < 5 {
			t.Errorf("record %d: %s", i, Describe(r))
		}
	}
	// A send through the TCP stack costs more than a bare system call; the
	// two are measured at different moments on a machine that may be busy,
	// so only a gross inversion counts.
	if rs[2].MedianS < rs[0].MedianS/2 {
		t.Errorf("tcp-send %s far below getppid %s", units.Seconds(rs[2].MedianS).Compact(), units.Seconds(rs[0].MedianS).Compact())
	}
}

func TestQuickConfig(t *testing.T) {
	cfg := QuickConfig("d", nil, "v")
	if cfg.Budget != QuickBudget || !cfg.Plan.Quick || len(cfg.Probes) != 3 || cfg.Dir != "d" {
		t.Errorf("%+v", cfg)
	}
	for _, p := range cfg.Probes {
		if _, err := New(p, Env{}); err != nil {
			t.Error(err)
		}
	}
}

// runCollect runs one probe and returns what it emitted.
func runCollect(t *testing.T, p Probe, plan Plan) ([]record.Result, error) {
	t.Helper()
	var out []record.Result
	err := p.Run(context.Background(), plan, func(r record.Result) error { out = append(out, r); return nil })
	return out, err
}
