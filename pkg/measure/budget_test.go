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
