package measure

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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
	// its set-up.
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
	plan := Plan{Budget: 2 * time.Second, Sizes: []int64{4 << 10, 16 << 20}}
	p, _ := New("memcpy", Env{})
	start := time.Now()
	rs, err := runCollect(t, p, plan)
	// The probe stops within its budget, setting up its memory included,
	// on a busy machine and under the race detector too (its buffers are
	// outside the Go heap, so the detector does not check their copies):
	// ten times the budget is far past any scheduling delay.
	if el := time.Since(start); el > 10*plan.Budget {
		t.Errorf("memcpy took %v on a budget of %v", el, plan.Budget)
	}
	// On a machine busy enough that the budget runs out first, the probe
	// says so and keeps what it measured (the run calls it partial): that
	// is its contract, not a failure; what it kept must still be sound.
	if errors.Is(err, ErrBudgetSpent) {
		t.Logf("a busy machine: %v", err)
	} else if err != nil {
		t.Fatal(err)
	} else if len(rs) != 4 {
		t.Fatalf("%d records", len(rs))
	}
	for _, r := range rs {
		// One core copies between 0.3 GB/s (a slow VM, cold) and 1 TB/s
		// (L1); a machine so loaded that the copying thread is descheduled
		// for most of a sample measures less: 10 MB/s is the floor. A step
		// that the end of the budget cut short may have fewer than Repeat's
		// 5 iterations, and says so.
		minIter := 5
		if strings.Contains(r.Note, "stopped at the end of the probe's budget") {
			minIter = 1
		}
		if r.ThroughputBps < 1e7 || r.ThroughputBps > 1e12 || r.Iterations < minIter {
			t.Errorf("implausible %s", Describe(r))
		}
		if d := float64(r.Bytes)/r.MedianS - r.ThroughputBps; d > 1e-6*r.ThroughputBps || d < -1e-6*r.ThroughputBps {
			t.Errorf("throughput is not bytes/median: %+v", r)
		}
		// Two buffers of the largest size: 16 MiB each, not a region
		// sized from the last-level cache.
		if r.Extra["buffer_bytes"] != 16<<20 || r.Extra["setup_s"] <= 0 {
			t.Errorf("%s %d: extra %v", r.Variant, r.Bytes, r.Extra)
		}
	}
	if len(rs) < 4 {
		return
	}
	// A 4 KiB copy from L1 is faster than the same copy from memory.
	if warm, cold := rs[0], rs[1]; warm.Variant != "warm" || cold.Variant != "cold" || warm.ThroughputBps <= cold.ThroughputBps {
		t.Errorf("4KiB warm %s vs cold %s", Describe(warm), Describe(cold))
	}
	if cold := rs[1]; canFlush && (cold.Extra["flushed_bytes"] != 2*256<<10 || !strings.Contains(cold.Note, "CLFLUSH")) {
		t.Errorf("cold 4KiB: %v %q", cold.Extra, cold.Note)
	}
}

// TestMemcpyBudget: the probe stops at the end of its budget, the mapping
// and faulting in of its memory included. With 5 ms for 2 × 256 MiB of
// memory (no machine faults that in so fast) it stops while setting up,
// and says so.
func TestMemcpyBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the real memcpy probe, against the clock")
	}
	p, _ := New("memcpy", Env{})
	budget := 5 * time.Millisecond
	start := time.Now()
	rs, err := runCollect(t, p, Plan{Budget: budget, Sizes: []int64{4 << 10, 256 << 20}})
	el := time.Since(start)
	if !errors.Is(err, ErrBudgetSpent) || !strings.Contains(err.Error(), "of 4 measurements") {
		t.Errorf("err %v, want %v", err, ErrBudgetSpent)
	}
	// Expected: 5 ms and one 4 MiB step of faulting in; 1 s is 100 times that.
	if el > time.Second {
		t.Errorf("took %v on a budget of %v", el, budget)
	}
	if len(rs) > 3 {
		t.Errorf("%d records", len(rs))
	}
	t.Logf("%v, %d records in %v", err, len(rs), el)

	// A budget that runs out in the middle of the sweep: what was measured
	// is kept, every record is whole, and the probe ends at its budget.
	budget = 300 * time.Millisecond
	start = time.Now()
	rs, err = runCollect(t, p, Plan{Budget: budget, Sizes: []int64{4 << 10, 16 << 20, 64 << 20, 64 << 20, 64 << 20, 64 << 20}})
	el = time.Since(start)
	if err != nil && !errors.Is(err, ErrBudgetSpent) {
		t.Error(err)
	}
	if el > 10*budget {
		t.Errorf("took %v on a budget of %v", el, budget)
	}
	for _, r := range rs {
		if r.Iterations < 1 || !(r.ThroughputBps > 0) {
			t.Errorf("record %s", Describe(r))
		}
	}
	t.Logf("%v, %d records in %v", err, len(rs), el)
}

// TestMemcpyEvictBuffer: without a cache flush the cold variant reads an
// eviction buffer of twice the last-level cache, read through the env's
// sysfs root, and its Note says so.
func TestMemcpyEvictBuffer(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "devices", "system", "cpu", "cpu0", "cache", "index3")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "size"), []byte("1024K\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &memcpyProbe{env: Env{SysRoot: root}, evictOnly: true}
	rs, err := runCollect(t, p, Plan{Budget: time.Second, Sizes: []int64{4 << 10}})
	if err != nil || len(rs) != 2 {
		t.Fatalf("%d records, %v", len(rs), err)
	}
	cold := rs[1]
	if cold.Extra["llc_bytes"] != 1<<20 || cold.Extra["evict_bytes"] != 2<<20 || !strings.Contains(cold.Note, "a 2MiB eviction buffer is read (twice the 1MiB last-level cache)") {
		t.Errorf("cold: %v %q", cold.Extra, cold.Note)
	}
	if warm := rs[0]; warm.Extra["evict_bytes"] != 0 || !strings.Contains(warm.Note, "warm: the same source and destination") {
		t.Errorf("warm: %v %q", warm.Extra, warm.Note)
	}
	// A VM that reports a 300 MiB cache gets no more than maxEvictBytes,
	// and the note says the buffer is short of the cache.
	if n := evictBytes(300 << 20); n != maxEvictBytes {
		t.Errorf("evictBytes(300MiB) = %d", n)
	}
	b := &memcpyBuffers{evict: make([]byte, maxEvictBytes/1024)}
	if s := b.coldMethod(300 << 20); !strings.Contains(s, "less than twice the 300MiB last-level cache: cold copies may partly hit it") {
		t.Errorf("note %q", s)
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
