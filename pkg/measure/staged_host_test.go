package measure

import (
	"context"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// The host-memory staged transfer over loopback: both variants, one and
// several flows, sizes that do not divide into chunks; every byte checked
// by the receiver.
func TestStagedHostLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real staged transfer over TCP")
	}
	for _, flows := range []string{"1", "3"} {
		p, _ := New("staged-host", Env{})
		var rs []record.Result
		plan := Plan{Budget: time.Second, Sizes: []int64{1, 300 << 10, 2<<20 + 5},
			Options: map[string]string{"chunk": "64KiB", "flows": flows}}
		if err := p.Run(context.Background(), plan, func(r record.Result) error { rs = append(rs, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(rs) != 6 {
			t.Fatalf("flows %s: %d records, want 6", flows, len(rs))
		}
		for _, r := range rs {
			if !(r.ThroughputBps > 0) || r.Extra["verified"] != 1 {
				t.Errorf("flows %s: %s %d: throughput %v", flows, r.Variant, r.Bytes, r.ThroughputBps)
			}
		}
	}
}

// A receiver that finds a byte out of pattern says so.
func TestStagedMismatch(t *testing.T) {
	b := make([]byte, 1000)
	FillStagedPattern(b, 77)
	if n := stagedMismatches(b, 77); n != 0 {
		t.Fatalf("%d mismatches in a clean buffer", n)
	}
	b[500] ^= 1
	if n := stagedMismatches(b, 77); n != 1 {
		t.Fatalf("%d mismatches, want 1", n)
	}
	if got := stripeBytes(10, 3, 1, 2) + stripeBytes(10, 3, 0, 2); got != 10 {
		t.Fatalf("stripes add to %d, want 10", got)
	}
}
