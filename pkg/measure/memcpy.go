package measure

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// MemcpySizes is the default sweep of the memcpy probe: 4 KiB to 64 MiB by ×4.
// It stops at 64 MiB, beyond any last-level cache of one socket slice,
// because fresh memory can be slow to fault in (in a VM, seconds per GiB).
var MemcpySizes = []int64{4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20}

var quickMemcpySizes = []int64{4 << 10, 256 << 10, 4 << 20, 64 << 20}

func init() { Register("memcpy", func(env Env) Probe { return &memcpyProbe{env: env} }) }

// memcpyProbe measures host memory copy bandwidth against size with Go's
// copy (runtime.memmove: vector loads and stores, non-temporal stores for
// large copies), on one core. It stands for the CPU copies of stages B
// (user → socket buffer) and F (socket buffer → user); the kernel copies
// with its own routine (rep movsb on most x86), so the figures are close
// but not identical.
//
// Two variants: "warm" copies the same source to the same destination
// again and again (caches as warm as the size allows), "cold" walks through
// a region many times the size of the last-level cache, so that source and
// destination come from memory each time, as a network buffer does. The
// size of the last-level cache is read from the env's sysfs tree.
type memcpyProbe struct{ env Env }

func (*memcpyProbe) Name() string     { return "memcpy" }
func (*memcpyProbe) Available() error { return nil }
func (*memcpyProbe) Steps(plan Plan) int {
	return 2 * len(memcpySizes(plan))
}

func memcpySizes(plan Plan) []int64 {
	switch {
	case len(plan.Sizes) > 0:
		return plan.Sizes
	case plan.Quick:
		return quickMemcpySizes
	}
	return MemcpySizes
}

// coldRegion is how much memory (each for source and destination) the cold
// variant walks through: eight times the last-level cache, at least 64 MiB,
// 128 MiB when the cache size is unknown, and two copies' worth for large
// sizes.
func coldRegion(llc, size int64) int64 {
	r := int64(128 << 20)
	if llc > 0 {
		r = max(64<<20, 8*llc)
	}
	return max(r, 2*size)
}

func (p *memcpyProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	sizes := memcpySizes(plan)
	for _, s := range sizes {
		if s < 1 || s > 1<<30 {
			return fmt.Errorf("memcpy: size %d out of range [1, 1GiB]", s)
		}
	}
	llc := readLLC(p.env.Sys("devices", "system", "cpu", "cpu0", "cache"))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	steps, done := 2*len(sizes), 0
	perSize := func() time.Duration {
		if plan.PerSize > 0 {
			return plan.PerSize
		}
		left := plan.Budget - time.Since(start)
		return max(left/time.Duration(max(steps-done, 1)), 10*time.Millisecond)
	}
	// One region for all sizes, allocated and faulted in once.
	largest := int64(0)
	for _, s := range sizes {
		largest = max(largest, s)
	}
	region := coldRegion(llc, largest)
	src := make([]byte, region)
	dst := make([]byte, region)
	defer debug.FreeOSMemory()
	if err := fill(ctx, src); err != nil {
		return err
	}
	if err := fill(ctx, dst); err != nil {
		return err
	} // give the region back when done
	for _, size := range sizes {
		slots := region / size
		// Batch small copies so that one sample is at least ~20us of work
		// (a clock read costs tens of ns).
		batch := max(int64(1), (256<<10)/size)
		for _, variant := range []string{"warm", "cold"} {
			if err := ctx.Err(); err != nil {
				return err
			}
			next := int64(0)
			op := func() (float64, error) {
				t0 := time.Now()
				if variant == "warm" {
					for i := int64(0); i < batch; i++ {
						copy(dst[:size], src[:size])
					}
				} else {
					for i := int64(0); i < batch; i++ {
						o := next * size
						copy(dst[o:o+size], src[o:o+size])
						next++
						if next == slots {
							next = 0
						}
					}
				}
				return time.Since(t0).Seconds() / float64(batch), nil
			}
			st, _, err := Repeat(ctx, RepeatConfig{Budget: perSize(), Tolerance: plan.Tolerance}, op)
			done++
			if err != nil {
				return err
			}
			r := record.Result{
				Probe: "memcpy", Variant: variant, Stage: "B,F", Path: "host-tcp", Target: "host", Timer: "wall",
				Bytes: size, Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99,
				MeanS: st.Mean, Spread: st.Spread, Stable: st.Stable,
				Extra: map[string]float64{"batch": float64(batch), "region_bytes": float64(region)},
				Note:  "Go copy (runtime.memmove) on one core; times per copy; throughput = bytes copied per second (each byte is read once and written once)",
			}
			if llc > 0 {
				r.Extra["llc_bytes"] = float64(llc)
			}
			if st.Median > 0 {
				r.ThroughputBps = float64(size) / st.Median
			}
			if err := emit(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// fill writes a pattern into every byte of b, and so faults in every page
// before anything is timed. It checks ctx every 16 MiB.
func fill(ctx context.Context, b []byte) error {
	for i := 0; i < len(b) && i < 4096; i++ {
		b[i] = byte(i*7 + 1)
	}
	const step = 16 << 20
	for n := min(4096, len(b)); n < len(b); {
		if err := ctx.Err(); err != nil {
			return err
		}
		n += copy(b[n:min(len(b), n+step)], b[:n])
	}
	return nil
}
