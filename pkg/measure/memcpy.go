package measure

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
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
// again and again (caches as warm as the size allows); "cold" makes source
// and destination come from memory each time, as a network buffer does:
// before each timed batch it flushes the batch's source and destination
// lines from every cache level (CLFLUSH on amd64), or, where it cannot
// flush, reads an eviction buffer of twice the last-level cache (at most
// maxEvictBytes). Each record's Note says which.
//
// Memory is bounded: a source and a destination as large as the largest
// size (at least one batch), plus the eviction buffer where there is one,
// mapped outside the Go heap and unmapped when the probe ends. Mapping and
// faulting them in count against the budget, and the probe stops at its
// budget: a step cut short keeps its samples, the steps not reached are an
// error. The size of the last-level cache is read from the env's sysfs tree.
type memcpyProbe struct {
	env Env
	// evictOnly reads the eviction buffer even where the caches can be
	// flushed (a test of that method).
	evictOnly bool
}

func (*memcpyProbe) Name() string { return "memcpy" }

// memcpyMaxSize is the largest copy the memcpy probe makes.
const memcpyMaxSize = 1 << 30

// SizeRange is the sizes the probe takes (SizeRanger).
func (*memcpyProbe) SizeRange() (lo, hi int64) { return 1, memcpyMaxSize }
func (*memcpyProbe) Available() error          { return nil }
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

// memcpyBatchBytes is the least work of one timed sample: small copies are
// batched up to it, so that a sample is at least ~20us of work (a clock
// read costs tens of ns).
const memcpyBatchBytes = 256 << 10

// maxEvictBytes bounds the eviction buffer of the cold variant where the
// caches cannot be flushed: a VM may report a last-level cache of hundreds
// of MiB (this project's CI machines have reported 300 MiB), and twice that
// per run is memory a probe must not take.
const maxEvictBytes = 256 << 20

// evictBytes is the eviction buffer of the cold variant without a cache
// flush: twice the last-level cache (64 MiB when it is unknown), at most
// maxEvictBytes.
func evictBytes(llc int64) int64 {
	if llc <= 0 {
		return 64 << 20
	}
	return min(2*llc, maxEvictBytes)
}

// memcpyBatch is the number of copies of size timed as one sample.
func memcpyBatch(size int64) int64 { return max(1, memcpyBatchBytes/size) }

// memcpyBuffers are the probe's memory: src and dst (each as large as the
// largest batch), and evict where the caches cannot be flushed.
type memcpyBuffers struct {
	src, dst, evict []byte
}

// mapBuffers maps and faults in the buffers (see memcpyBuffers), checking
// ctx as it goes. On error nothing stays mapped.
func mapBuffers(ctx context.Context, span, evict int64) (_ *memcpyBuffers, err error) {
	b := &memcpyBuffers{}
	defer func() {
		if err != nil {
			b.unmap()
		}
	}()
	for _, m := range []struct {
		p *[]byte
		n int64
	}{{&b.src, span}, {&b.dst, span}, {&b.evict, evict}} {
		if m.n == 0 {
			continue
		}
		if *m.p, err = unix.Mmap(-1, 0, int(m.n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON); err != nil {
			return nil, fmt.Errorf("memcpy: mapping %s: %w", units.Bytes(m.n), err)
		}
		if err := fill(ctx, *m.p); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (b *memcpyBuffers) unmap() {
	for _, p := range []*[]byte{&b.src, &b.dst, &b.evict} {
		if *p != nil {
			unix.Munmap(*p)
			*p = nil
		}
	}
}

// evictSink keeps the sum of the eviction reads, so that they are not
// optimised away.
//
//lint:ignore U1000 written, never read: its job is to keep the reads
var evictSink byte

// readEvict reads one byte of every 64-byte line of b.
func readEvict(b []byte) {
	var s byte
	for i := 0; i < len(b); i += 64 {
		s += b[i]
	}
	evictSink += s
}

// coldMethod says how the cold variant evicts, for the records' Note.
func (b *memcpyBuffers) coldMethod(llc int64) string {
	if b.evict == nil {
		return "cold: before each timed batch the lines of its source and destination are flushed from every cache level (CLFLUSH), so both come from memory"
	}
	s := fmt.Sprintf("cold: before each timed batch a %s eviction buffer is read", units.Bytes(len(b.evict)))
	switch {
	case llc <= 0:
		s += " (the last-level cache size is unknown)"
	case int64(len(b.evict)) < 2*llc:
		s += fmt.Sprintf(", less than twice the %s last-level cache: cold copies may partly hit it", units.Bytes(llc))
	default:
		s += fmt.Sprintf(" (twice the %s last-level cache)", units.Bytes(llc))
	}
	return s
}

// coldEvict puts the next cold batch's source and destination (the first
// n bytes of each) out of the caches.
func (b *memcpyBuffers) coldEvict(n int64) {
	if b.evict != nil {
		readEvict(b.evict)
		return
	}
	flushLines(b.src[:n])
	flushLines(b.dst[:n])
}

// ErrBudgetSpent is returned (wrapped) by a probe that stopped at the end
// of its budget with steps of its plan not measured.
var ErrBudgetSpent = errors.New("budget spent")

// memcpyRun is one Run of the memcpy probe: its plan, its deadline, its
// memory and how far it got.
type memcpyRun struct {
	sizes       []int64
	span, evict int64 // bytes of src and of dst; of the eviction buffer
	llc         int64
	start       time.Time
	total       time.Duration // the budget, setting up included
	setup       time.Duration // mapping and faulting in; -1 until done
	steps, done int
	bufs        *memcpyBuffers
}

// newMemcpyRun checks the plan's sizes and sizes the memory.
func (p *memcpyProbe) newMemcpyRun(plan Plan) (*memcpyRun, error) {
	r := &memcpyRun{sizes: memcpySizes(plan), start: time.Now(), setup: -1}
	if err := checkSizeRange(p.Name(), 1, memcpyMaxSize, r.sizes); err != nil {
		return nil, err
	}
	for _, s := range r.sizes {
		r.span = max(r.span, memcpyBatch(s)*s)
	}
	r.steps = 2 * len(r.sizes)
	r.total = plan.Budget
	if plan.PerSize > 0 {
		r.total = max(r.total, time.Duration(r.steps)*plan.PerSize)
	}
	if r.total <= 0 {
		r.total = time.Duration(r.steps) * time.Second
	}
	r.llc = readLLC(sysfsRoot(p.env.SysRoot), "devices/system/cpu/cpu0/cache")
	if !canFlush || p.evictOnly {
		r.evict = evictBytes(r.llc)
	}
	return r, nil
}

// spent is the error of a run whose budget ended before its last step (or
// ctx's error when ctx ended).
func (r *memcpyRun) spent(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	mem := units.Bytes(2*r.span + r.evict)
	how := fmt.Sprintf("while setting up %s of memory", mem)
	if r.setup >= 0 {
		how = fmt.Sprintf("setting up %s of memory took %s", mem, humanDuration(r.setup))
	}
	return fmt.Errorf("memcpy: %w: %s ran out after %d of %d measurements (%s)",
		ErrBudgetSpent, humanDuration(r.total), r.done, r.steps, how)
}

// share is the time of the next step: 90% of what is left of the budget
// over the steps left (at least 10 ms; the rest is slack for the sample
// that ends each step), or the plan's PerSize.
func (r *memcpyRun) share(plan Plan) time.Duration {
	if plan.PerSize > 0 {
		return plan.PerSize
	}
	return max(time.Until(r.start.Add(r.total))*9/10/time.Duration(r.steps-r.done), 10*time.Millisecond)
}

// errNoTime stops a repetition whose next sample would end past the
// deadline.
var errNoTime = errors.New("no time for another sample")

// op is one timed sample of a variant: a batch of copies of size, timed
// per copy. A cold sample evicts its source and destination first,
// untimed. A sample that would end past the deadline (it would take as
// long as the one before) is not started: the op returns errNoTime.
func (r *memcpyRun) op(variant string, size int64) func() (float64, error) {
	batch, src, dst := memcpyBatch(size), r.bufs.src, r.bufs.dst
	// Warm copies go from the same place to the same place; the copies of
	// a cold batch each from and to a place of their own, all evicted.
	cold, stride := variant == "cold", int64(0)
	if cold {
		stride = size
	}
	deadline := r.start.Add(r.total)
	var last time.Duration // wall time of the previous sample, eviction included
	return func() (float64, error) {
		begin := time.Now()
		if begin.Add(last).After(deadline) {
			return 0, errNoTime
		}
		if cold {
			r.bufs.coldEvict(batch * size)
		}
		t0 := time.Now()
		for i := int64(0); i < batch; i++ {
			o := i * stride
			copy(dst[o:o+size], src[o:o+size])
		}
		t := time.Since(t0)
		last = time.Since(begin)
		return t.Seconds() / float64(batch), nil
	}
}

// Run measures warm and cold copies of each size. Everything, mapping and
// faulting in the memory included, ends at the budget: a step cut short
// there keeps its samples, and steps not reached are ErrBudgetSpent.
func (p *memcpyProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	r, err := p.newMemcpyRun(plan)
	if err != nil {
		return err
	}
	bctx, cancel := context.WithDeadline(ctx, r.start.Add(r.total))
	defer cancel()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r.bufs, err = mapBuffers(bctx, r.span, r.evict); err != nil {
		if bctx.Err() != nil {
			return r.spent(ctx)
		}
		return err
	}
	defer r.bufs.unmap()
	r.setup = time.Since(r.start)
	for _, size := range r.sizes {
		for _, variant := range []string{"warm", "cold"} {
			if bctx.Err() != nil {
				return r.spent(ctx)
			}
			st, _, err := Repeat(bctx, RepeatConfig{Budget: r.share(plan), Tolerance: plan.Tolerance}, r.op(variant, size))
			cut := ctx.Err() == nil && (errors.Is(err, errNoTime) || err != nil && bctx.Err() != nil)
			switch {
			case cut && st.Iterations == 0:
				return r.spent(ctx)
			case err != nil && !cut:
				return err
			}
			r.done++
			if err := emit(r.record(variant, size, st, cut)); err != nil {
				return err
			}
			if cut && r.done < r.steps {
				return r.spent(ctx)
			}
		}
	}
	return nil
}

// record is the record of one size and variant. cut says the step was
// stopped by the end of the budget before its median settled.
func (r *memcpyRun) record(variant string, size int64, st Stats, cut bool) record.Result {
	batch := memcpyBatch(size)
	note := "Go copy (runtime.memmove) on one core; times per copy; throughput = bytes copied per second (each byte is read once and written once); "
	res := record.Result{
		Probe: "memcpy", Variant: variant, Stage: "B,F", Path: "host-tcp", Target: "host", Timer: "wall",
		Bytes: size, Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99,
		MeanS: st.Mean, Spread: st.Spread, Stable: st.Stable,
		Extra: map[string]float64{"batch": float64(batch), "buffer_bytes": float64(r.span), "setup_s": r.setup.Seconds()},
	}
	if variant == "warm" {
		note += "warm: the same source and destination each time"
	} else {
		note += r.bufs.coldMethod(r.llc)
		if r.evict > 0 {
			res.Extra["evict_bytes"] = float64(r.evict)
		} else {
			res.Extra["flushed_bytes"] = float64(2 * batch * size)
		}
	}
	if cut {
		note += "; stopped at the end of the probe's budget"
	}
	res.Note = note
	if r.llc > 0 {
		res.Extra["llc_bytes"] = float64(r.llc)
	}
	if st.Median > 0 {
		res.ThroughputBps = float64(size) / st.Median
	}
	return res
}

// fill writes a pattern into every byte of b, and so faults in every page
// before anything is timed. It checks ctx every 4 MiB.
func fill(ctx context.Context, b []byte) error {
	for i := 0; i < len(b) && i < 4096; i++ {
		b[i] = byte(i*7 + 1)
	}
	const step = 4 << 20
	for n := min(4096, len(b)); n < len(b); {
		if err := ctx.Err(); err != nil {
			return err
		}
		n += copy(b[n:min(len(b), n+step)], b[:n])
	}
	return nil
}
