package measure

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// TestCheckSizes: every probe that takes --sizes declares its range, and
// CheckSizes refuses a size outside any of them before anything runs, with
// the probe, the size and the range in the message.
func TestCheckSizes(t *testing.T) {
	for _, tc := range []struct {
		probe string
		bad   int64
		want  string
	}{
		{"memcpy", 1 << 40, "memcpy: size 1TiB out of range [1B, 1GiB]"},
		{"syscall", 1 << 20, "syscall: size 1MiB out of range [1B, 64KiB]"},
		{"staged-host", 1 << 30, "staged-host: size 1GiB out of range [1B, 256MiB]"},
		{"tcp", 1 << 30, "tcp: size 1GiB out of range [1B, 256MiB]"},
		{"tcp", 0, "tcp: size 0B out of range"},
	} {
		err := CheckSizes([]string{"topo", tc.probe}, []int64{64, tc.bad})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s at %d: error %v, want %q", tc.probe, tc.bad, err, tc.want)
		}
		p, _ := New(tc.probe, Env{})
		lo, hi := p.(SizeRanger).SizeRange()
		if err := CheckSizes([]string{tc.probe}, []int64{lo, hi}); err != nil {
			t.Errorf("%s: its own range [%d, %d] refused: %v", tc.probe, lo, hi, err)
		}
	}
	if err := CheckSizes(nil, []int64{64, 4096}); err != nil {
		t.Errorf("sizes every probe takes: %v", err)
	}
}

// TestRepeatDeadline: past its hard deadline Repeat stops after the
// iteration under way, even below MinIterations.
func TestRepeatDeadline(t *testing.T) {
	n := 0
	st, samples, err := Repeat(context.Background(), RepeatConfig{Budget: time.Hour, MinIterations: 50, Deadline: time.Now().Add(-time.Second)},
		func() (float64, error) { n++; return 1e-3, nil })
	if err != nil || len(samples) != 1 || st.Iterations != 1 || n != 2 { // one warm-up, one sample
		t.Errorf("%d calls, %d samples, error %v", n, len(samples), err)
	}
}

// TestSweepBudget: a sweep shares what is left of the budget among the
// sizes left, ends each repetition at the budget's end, and once the budget
// is spent stops with a budget error that counts the sizes measured.
func TestSweepBudget(t *testing.T) {
	sw := newSweep(Plan{Budget: time.Hour}, 4)
	rc, err := sw.next(64, 0)
	if err != nil || rc.Budget < 14*time.Minute || rc.Deadline.IsZero() || time.Until(rc.Deadline) < 59*time.Minute {
		t.Errorf("first size: %+v, %v", rc, err)
	}
	sw = newSweep(Plan{Budget: time.Nanosecond}, 4)
	if _, err := sw.next(64, 0); err != nil { // one size is always measured
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	if _, err := sw.next(64, 0); !errors.Is(err, errBudget) || !strings.Contains(err.Error(), "after 1 of 4 sizes") {
		t.Errorf("spent budget: %v", err)
	}
}

// TestProbeBudgetHonoured: the staged-host and tcp sweeps on loopback stop
// near their budget (they ran 5–13 times past it: a floor of 20 ms and
// five repetitions per size, whatever was left). The bound allows 10×.
func TestProbeBudgetHonoured(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real transfers over loopback")
	}
	for _, name := range []string{"staged-host", "tcp"} {
		p, _ := New(name, Env{})
		budget := 300 * time.Millisecond
		start := time.Now()
		rs, err := runCollect(t, p, Plan{Budget: budget, Target: "loopback"})
		took := time.Since(start)
		t.Logf("%s: %d results in %v (budget %v): %v", name, len(rs), took, budget, err)
		if took > 10*budget+time.Second {
			t.Errorf("%s ran %v on a budget of %v", name, took, budget)
		}
		if err != nil && !errors.Is(err, errBudget) {
			t.Errorf("%s: %v", name, err)
		}
		if len(rs) == 0 {
			t.Errorf("%s measured nothing", name)
		}
	}
}

// A sweep's end of budget makes the probe partial in a run, as memcpy's
// does: a tcp sweep cut short under load was "failed" and exited 1.
func TestSweepBudgetMakesPartial(t *testing.T) {
	sw := newSweep(Plan{Budget: time.Nanosecond}, 4)
	if _, err := sw.next(64, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	_, err := sw.next(64, 0)
	useFake(t, &fakeProbe{name: "fake-sweep-spent", n: 1, err: fmt.Errorf("fake: %w", err)})
	m, rerr := Run(context.Background(), RunConfig{Dir: filepath.Join(t.TempDir(), "run"), Probes: []string{"fake-sweep-spent"},
		Budget: time.Second, Host: &record.Host{Hostname: "h"}})
	if rerr != nil {
		t.Fatal(rerr)
	}
	if st := m.Probe("fake-sweep-spent"); st == nil || st.Status != record.StatusPartial {
		t.Errorf("a sweep out of budget: %+v, want partial", st)
	}
}

// fakeClock is a clock that moves only when an operation says it took time.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// op is an operation that takes d on the clock.
func (c *fakeClock) op(d time.Duration) func() (float64, error) {
	return func() (float64, error) { c.t = c.t.Add(d); return d.Seconds(), nil }
}

// TestRepeatLooksAhead: Repeat starts no iteration that, as long as the
// one before it, would end past its deadline (the probe's budget) or, past
// MinIterations, past its own budget: with 1 s iterations and a deadline at
// 6.5 s it stops at 6 s (it started a fourth sample at 6 s and ended at
// 7 s), and a warm-up that would leave no room for MinIterations samples
// is skipped.
func TestRepeatLooksAhead(t *testing.T) {
	for _, tc := range []struct {
		name       string
		cfg        RepeatConfig
		calls      int
		samples    int
		end, bound time.Duration
	}{
		{"deadline", RepeatConfig{Warmup: 3, MinIterations: 5, Budget: time.Hour, Tolerance: 1e-12}, 6, 3, 6 * time.Second, 6500 * time.Millisecond},
		{"budget", RepeatConfig{Warmup: 3, MinIterations: 2, Budget: 4500 * time.Millisecond, Tolerance: 1e-12}, 4, 2, 4 * time.Second, 4500 * time.Millisecond},
		// The first warm-up and the first sample run whatever the time:
		// a size is always measured once.
		{"spent", RepeatConfig{Warmup: 3, MinIterations: 5, Budget: time.Hour}, 2, 1, 2 * time.Second, 2 * time.Second},
		// Unless the caller knows what a call takes (a stream's calibrated
		// chunk): then a warm-up that leaves no room for a sample is
		// skipped too.
		{"expected", RepeatConfig{Warmup: 3, MinIterations: 5, Budget: time.Hour, expect: time.Second}, 1, 1, time.Second, 1500 * time.Millisecond},
	} {
		c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
		t0 := c.t
		cfg := tc.cfg
		cfg.clock = c.now
		switch tc.name {
		case "deadline":
			cfg.Deadline = t0.Add(6500 * time.Millisecond)
		case "spent":
			cfg.Deadline = t0.Add(-time.Second)
		case "expected":
			cfg.Deadline = t0.Add(1500 * time.Millisecond)
		}
		calls := 0
		op := c.op(time.Second)
		st, samples, err := Repeat(context.Background(), cfg, func() (float64, error) { calls++; return op() })
		if err != nil {
			t.Fatal(err)
		}
		if el := c.t.Sub(t0); calls != tc.calls || len(samples) != tc.samples || st.Iterations != tc.samples || el != tc.end || el > tc.bound {
			t.Errorf("%s: %d calls, %d samples, ended at %v (want %d, %d, %v, at most %v)", tc.name, calls, len(samples), el, tc.calls, tc.samples, tc.end, tc.bound)
		}
	}
}

// sweepSim runs a probe's loop on a fake clock: sizes measured as a
// stream at rate bytes per second, each iteration one chunk of
// max(size, rate × 50 ms), after a calibration of one chunk that tells
// Repeat what a chunk takes (as Client.Stream does); it returns the time
// the sweep took and its error.
func sweepSim(t *testing.T, budget time.Duration, sizes []int64, rate float64) (time.Duration, error) {
	t.Helper()
	c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	t0 := c.t
	sw := newSweepAt(Plan{Budget: budget}, len(sizes), c.now)
	for _, size := range sizes {
		rc, err := sw.next(size, max(size, calibrationChunk)+2*size)
		if err != nil {
			return c.t.Sub(t0), err
		}
		chunk := max(float64(size), rate*0.05)
		d := time.Duration(chunk / rate * float64(time.Second))
		c.op(d)() // the calibration
		rc.expect = d
		st, _, err := Repeat(context.Background(), rc, c.op(d))
		if err != nil {
			t.Fatal(err)
		}
		sw.measured(size, chunk/st.Median)
	}
	return c.t.Sub(t0), nil
}

// TestSweepEndsWithinBudget: a sweep whose last sizes each take seconds
// ends within its budget: it stops before a size that the time left cannot
// carry at the last size's rate (the tcp probe's 16 MiB stream at
// 100 Mbit/s, started with 1.6 s left, ran 4.2 s: "ok in 5.6s" on a budget
// of 3 s), and every repetition looks ahead. Only the first size, which is
// always measured, may run past it.
func TestSweepEndsWithinBudget(t *testing.T) {
	const rate = 12.5e6 // 100 Mbit/s
	for _, tc := range []struct {
		budget time.Duration
		sizes  []int64
	}{
		{3 * time.Second, []int64{1 << 20, 16 << 20}},
		{6 * time.Second, []int64{4 << 10, 16 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20}},
		{10 * time.Second, []int64{1 << 20, 4 << 20, 16 << 20}},
		{time.Second, []int64{1 << 20, 4 << 20, 16 << 20}},
	} {
		took, err := sweepSim(t, tc.budget, tc.sizes, rate)
		t.Logf("%v over %d sizes: %v, %v", tc.budget, len(tc.sizes), took, err)
		if err != nil && !errors.Is(err, errBudget) {
			t.Errorf("%v: %v", tc.budget, err)
		}
		if took > tc.budget {
			t.Errorf("%v over %d sizes took %v", tc.budget, len(tc.sizes), took)
		}
	}
	// The first size is measured however long it takes: 16 MiB at
	// 100 Mbit/s, a calibration and a sample (no room for a warm-up),
	// 2.68 s.
	took, err := sweepSim(t, time.Second, []int64{16 << 20}, rate)
	if err != nil || took < 2600*time.Millisecond || took > 2700*time.Millisecond {
		t.Errorf("a first size of 16MiB on a budget of 1 s: %v, %v", took, err)
	}
}

// TestSweepPredictsOnlyNearby: the rate of a size far smaller than the next
// (a 1-byte message, bound by latency) does not stop the sweep; the rate of
// the size before it does, and the error names the size, the time it needs
// and the time left.
func TestSweepPredictsOnlyNearby(t *testing.T) {
	c := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	sw := newSweepAt(Plan{Budget: 10 * time.Second}, 3, c.now)
	if _, err := sw.next(1, 4); err != nil {
		t.Fatal(err)
	}
	sw.measured(1, 1e5) // 10 µs for a byte
	c.t = c.t.Add(5 * time.Second)
	if _, err := sw.next(16<<20, 48<<20); err != nil {
		t.Errorf("a rate measured on 1 B stopped a 16 MiB size: %v", err)
	}
	sw.measured(16<<20, 12.5e6)
	_, err := sw.next(64<<20, 192<<20)
	if !errors.Is(err, errBudget) || !strings.Contains(err.Error(), "after 2 of 3 sizes the 5 s left of 10 s would not hold the next, 64MiB, which needs about 16.1 s") {
		t.Errorf("64 MiB at 100 Mbit/s with 5 s left: %v", err)
	}
}
