package gpu

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpupath/gpupath/internal/cuda"
	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/internal/stats"
	"github.com/gpupath/gpupath/pkg/measure"
	"github.com/gpupath/gpupath/pkg/record"
)

func init() {
	measure.Register("staged", func(env measure.Env) measure.Probe { return &Staged{Env: env} })
}

// Staged measures the seed's staged transfer end to end on one host:
// GPU → cudaMemcpy device→host into pinned memory → TCP over the loopback
// device → cudaMemcpy host→device → GPU (the second GPU when there are two,
// else the same one). Sender and receiver are two threads of this process,
// each with its own CUDA context current, joined by a loopback TCP
// connection; a transfer is timed from the sender's first call to the
// receiver's last completion on one monotonic clock.
//
// Two variants, each a Result per size ("wall" timer):
//
//   - "store-and-forward": each step finishes before the next starts, as
//     the seed tells it — one synchronous D2H copy of the whole message,
//     send() of all of it, recv() of all of it, one synchronous H2D copy.
//   - "pipelined": the message moves in chunks (option chunk, default
//     512 KiB) through a ring of pinned slots (a message of one chunk or
//     less has nothing to overlap and goes as in store-and-forward): the sender's asynchronous
//     D2H copy of chunk i+1 overlaps its send() of chunk i, and the
//     receiver's asynchronous H2D copy of chunk i overlaps its recv() of
//     chunk i+1.
//
// Plan.Options: gpus=0,1 (sender GPU, receiver GPU), chunk=512KiB,
// slots=3, variants=store-and-forward,pipelined. After each variant's
// timings, one transfer of the largest size is checked byte for byte (the
// receiver GPU must hold the position-dependent pattern the sender GPU held).
type Staged struct {
	// Open loads the driver; nil means libcuda.so.1 (or $GPUPATH_LIBCUDA).
	Open func() (cuda.Driver, error)
	// Env says where diagnostics go.
	Env measure.Env
	// pair connects the sender to the receiver; nil means a loopback TCP
	// connection of the same raw blocking sockets the tcp probe uses, so the
	// transfer's TCP part is what the tcp probe's ping-pong measures.
	pair func() (send, recv stagedConn, err error)
}

// Name returns "staged".
func (p *Staged) Name() string { return "staged" }

// Weight is the probe's share of a run's budget (measure.Weighted).
func (p *Staged) Weight() float64 { return 3 }

// Options are the settings the staged probe reads from Plan.Options.
func (p *Staged) Options() []measure.Option {
	return []measure.Option{
		{Name: "gpus", Kind: measure.OptWords, Doc: "CUDA ordinals of the sending and the receiving GPU (default 0,1 with two GPUs, else 0,0)"},
		{Name: "chunk", Kind: measure.OptSize, Default: "512KiB", Doc: "chunk of the pipelined variant (at least 4KiB)"},
		{Name: "slots", Kind: measure.OptInt, Default: "3", Doc: "pinned slots in the pipeline's ring (2..64)"},
		{Name: "variants", Kind: measure.OptWords, Default: "store-and-forward,pipelined", Doc: "store-and-forward, pipelined"},
	}
}

// Available reports whether a CUDA driver library can be loaded; the GPUs
// are found in Run.
func (p *Staged) Available() error {
	_, err := openDriver(p.Open)
	return err
}

func (p *Staged) logf(format string, args ...any) {
	p.Env.Logf(format, args...)
}

// StagedSizes is the default sweep: 4 B to 256 MiB in powers of four.
func StagedSizes() []int64 {
	var out []int64
	for n := int64(4); n <= 256<<20; n *= 4 {
		out = append(out, n)
	}
	return out
}

// QuickStagedSizes is the short sweep.
func QuickStagedSizes() []int64 { return []int64{4, 4 << 10, 256 << 10, 4 << 20, 64 << 20} }

// stagedConn is one end of the connection between the two sides.
type stagedConn interface {
	WriteAll(b []byte) error
	ReadFull(b []byte) error
	Close() error
}

// stagedSide is what one side (sender or receiver) set up.
type stagedSide struct {
	w      *cuda.Thread
	dev    cuda.Device
	ctx    cuda.Context
	dbuf   cuda.DevicePtr
	pinned uintptr
	pinLen int64
	stream cuda.Stream
	events []cuda.Event
}

// Run measures; see the type's documentation. It reads the options, sets
// up both sides and the connection, measures each variant at each size and
// verifies each variant once.
func (p *Staged) Run(ctx context.Context, plan measure.Plan, emit func(record.Result) error) error {
	drv, err := openDriver(p.Open)
	if err != nil {
		return err
	}
	cfg, err := stagedOptions(plan)
	if err != nil {
		return err
	}
	r := &stagedRun{p: p, drv: drv, cfg: cfg}
	defer r.close()
	if err := r.setup(plan); err != nil {
		return err
	}
	if err := r.connect(); err != nil {
		return err
	}
	perSize := plan.PerSize
	if perSize <= 0 {
		budget := plan.Budget
		if budget <= 0 {
			budget = 60 * time.Second
		}
		perSize = budget / time.Duration(len(cfg.sizes)*len(cfg.variants))
	}
	for _, variant := range cfg.variants {
		for _, n := range cfg.sizes {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, ok, err := r.measure(ctx, plan, variant, n, perSize)
			if ok {
				if eerr := emit(rec); eerr != nil {
					return eerr
				}
			}
			if err != nil {
				return err
			}
		}
		// Check the data once: the receiving GPU must now hold the pattern.
		if err := stagedVerify(drv, r.snd, r.rcv, r.sc, r.rc, variant, cfg.maxN, cfg.chunk); err != nil {
			return err
		}
		p.logf("staged: %s verified at %d bytes", variant, cfg.maxN)
	}
	return nil
}

// stagedConfig is what the options and the plan ask of one Run.
type stagedConfig struct {
	chunk    int64
	slots    int
	variants []string
	sizes    []int64
	maxN     int64 // the largest size
}

// stagedOptions reads the plan: chunk, slots, variants and the sizes.
func stagedOptions(plan measure.Plan) (stagedConfig, error) {
	c := stagedConfig{variants: []string{"store-and-forward", "pipelined"}}
	var err error
	if c.chunk, err = measure.SizeOption(plan, "chunk", 512<<10); err != nil || c.chunk < 4096 {
		return c, fmt.Errorf("staged: chunk=%q: want a size of at least 4KiB", plan.Options["chunk"])
	}
	c.slots = 3
	if v := plan.Options["slots"]; v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 2 || k > 64 {
			return c, fmt.Errorf("staged: slots=%q: want 2..64", v)
		}
		c.slots = k
	}
	if v := plan.Options["variants"]; v != "" {
		c.variants = nil
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f != "store-and-forward" && f != "pipelined" {
				return c, fmt.Errorf("staged: unknown variant %q (store-and-forward, pipelined)", f)
			}
			c.variants = append(c.variants, f)
		}
	}
	c.sizes = plan.Sizes
	if len(c.sizes) == 0 {
		c.sizes = StagedSizes()
		if plan.Quick {
			c.sizes = QuickStagedSizes()
		}
	}
	for _, n := range c.sizes {
		if n <= 0 {
			return c, fmt.Errorf("staged: size %d is not positive", n)
		}
		c.maxN = max(c.maxN, n)
	}
	return c, nil
}

// stagedRun is one Run set up: the driver, the GPUs, both sides and the
// connection between them, and what undoes them.
type stagedRun struct {
	p        *Staged
	drv      cuda.Driver
	cfg      stagedConfig
	ords     [2]int // sending and receiving GPU
	target   string
	snd, rcv *stagedSide
	sc, rc   stagedConn
	cleanup  []func()
}

// close undoes the setup, last first.
func (r *stagedRun) close() {
	for i := len(r.cleanup) - 1; i >= 0; i-- {
		r.cleanup[i]()
	}
}

// setup initialises the driver, chooses the GPUs and sets up both sides.
func (r *stagedRun) setup(plan measure.Plan) error {
	// The first CUDA calls (init, device count) run on a throwaway locked
	// thread; each side then gets its own.
	var ndev int
	probe, err := cuda.StartThread(func() error {
		var err error
		ndev, err = initDriver(r.drv)
		return err
	})
	if err != nil {
		return err
	}
	probe.Stop()
	if ndev >= 2 {
		r.ords[1] = 1
	}
	if v := plan.Options["gpus"]; v != "" {
		got, err := chooseGPUs(v, ndev)
		if err != nil {
			return err
		}
		r.ords[0], r.ords[1] = got[0], got[0]
		if len(got) > 1 {
			r.ords[1] = got[1]
		}
	}
	c := r.cfg
	r.target = fmt.Sprintf("gpu%d->gpu%d over loopback TCP", r.ords[0], r.ords[1])
	r.p.logf("staged: %s, sizes %d..%d, chunk %d, %d slots", r.target, c.sizes[0], c.maxN, c.chunk, c.slots)
	const pattern = 0x5A
	if r.snd, err = r.newSide(r.ords[0], pattern); err != nil {
		return err
	}
	r.rcv, err = r.newSide(r.ords[1], 0)
	return err
}

// newSide starts a side's thread with the GPU's primary context current,
// a device buffer of the largest size (filled with pattern when it is not
// negative), the pinned ring, a stream and an event per slot.
func (r *stagedRun) newSide(ord int, pattern int) (*stagedSide, error) {
	drv, c := r.drv, r.cfg
	pinLen := max(c.maxN, int64(c.slots)*c.chunk)
	side := &stagedSide{pinLen: pinLen}
	w, err := cuda.StartThread(func() error {
		d, err := drv.Device(ord)
		if err != nil {
			return err
		}
		side.dev = d
		if side.ctx, err = drv.PrimaryCtxRetain(d); err != nil {
			return err
		}
		if err := drv.CtxSetCurrent(side.ctx); err != nil {
			return err
		}
		if side.dbuf, err = drv.MemAlloc(c.maxN); err != nil {
			return fmt.Errorf("device buffer of %d bytes on gpu%d: %w", c.maxN, ord, err)
		}
		if side.pinned, err = drv.MemAllocHost(pinLen); err != nil {
			return fmt.Errorf("pinned host buffer of %d bytes: %w", pinLen, err)
		}
		if side.stream, err = drv.StreamCreate(); err != nil {
			return err
		}
		for i := 0; i < c.slots; i++ {
			e, err := drv.EventCreate()
			if err != nil {
				return err
			}
			side.events = append(side.events, e)
		}
		if pattern >= 0 {
			return drv.MemsetD8(side.dbuf, byte(pattern), c.maxN)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	side.w = w
	r.cleanup = append(r.cleanup, func() {
		_ = w.Do(func() error {
			for _, e := range side.events {
				_ = drv.EventDestroy(e)
			}
			if side.stream != 0 {
				_ = drv.StreamDestroy(side.stream)
			}
			if side.pinned != 0 {
				_ = drv.MemFreeHost(side.pinned)
			}
			if side.dbuf != 0 {
				_ = drv.MemFree(side.dbuf)
			}
			return drv.PrimaryCtxRelease(side.dev)
		})
		w.Stop()
	})
	return side, nil
}

// connect joins the sender to the receiver.
func (r *stagedRun) connect() error {
	pair := r.p.pair
	if pair == nil {
		pair = loopbackPair
	}
	sc, rc, err := pair()
	if err != nil {
		return fmt.Errorf("staged: loopback connection: %w", err)
	}
	r.sc, r.rc = sc, rc
	r.cleanup = append(r.cleanup, func() { sc.Close(); rc.Close() })
	return nil
}

// measure repeats transfers of n bytes in one variant for up to perSize and
// returns their record; ok is false when no transfer was timed. The error
// is a failed transfer or the end of ctx (with the record of what was
// timed before it).
func (r *stagedRun) measure(ctx context.Context, plan measure.Plan, variant string, n int64, perSize time.Duration) (rec record.Result, ok bool, err error) {
	drv, c, snd, rcv := r.drv, r.cfg, r.snd, r.rcv
	chunked := variant == "pipelined" && n > c.chunk
	var tStart, tEnd, tCopied, tRecv time.Time
	var inD2H, inTCP, inH2D []float64
	transfer := func() error {
		rdone := rcv.w.Go(func() error {
			var err error
			if chunked {
				err = stagedRecvPipelined(drv, rcv, r.rc, n, c.chunk)
			} else {
				err = stagedRecvWhole(drv, rcv, r.rc, n, &tRecv)
			}
			tEnd = time.Now()
			return err
		})
		serr := snd.w.Do(func() error {
			tStart = time.Now()
			if chunked {
				return stagedSendPipelined(drv, snd, r.sc, n, c.chunk)
			}
			return stagedSendWhole(drv, snd, r.sc, n, &tCopied)
		})
		rerr := <-rdone
		if serr != nil {
			return fmt.Errorf("staged %s %d B: send side: %w", variant, n, serr)
		}
		if rerr != nil {
			return fmt.Errorf("staged %s %d B: receive side: %w", variant, n, rerr)
		}
		if !chunked {
			inD2H = append(inD2H, tCopied.Sub(tStart).Seconds())
			inTCP = append(inTCP, tRecv.Sub(tCopied).Seconds())
			inH2D = append(inH2D, tEnd.Sub(tRecv).Seconds())
		}
		return nil
	}
	calls := 0
	u0, s0 := measure.ProcessCPU()
	st, samples, err := measure.Repeat(ctx, measure.RepeatConfig{Warmup: 2, MinIterations: 5, Budget: perSize, Tolerance: plan.Tolerance},
		func() (float64, error) {
			calls++
			if err := transfer(); err != nil {
				return 0, err
			}
			return tEnd.Sub(tStart).Seconds(), nil
		})
	u1, s1 := measure.ProcessCPU()
	if st.Iterations == 0 {
		return rec, false, err
	}
	k := (n + c.chunk - 1) / c.chunk
	if variant == "store-and-forward" {
		k = 1
	}
	rec = record.Result{Probe: "staged", Variant: variant, Path: "tcp", Target: r.target, Timer: "wall", Bytes: n,
		Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99, MeanS: st.Mean,
		Spread: st.Spread, Stable: st.Stable, ThroughputBps: float64(n) / st.Median,
		CPUUserS: (u1 - u0) / float64(calls), CPUSysS: (s1 - s0) / float64(calls),
		Time: time.Now().UTC(), Samples: measure.KeepSamples(samples, 1),
		Extra: map[string]float64{"chunk_bytes": float64(c.chunk), "chunks": float64(k), "slots": float64(c.slots),
			"gpu_src": float64(r.ords[0]), "gpu_dst": float64(r.ords[1])}}
	if len(inD2H) > 0 {
		// The stages inside the transfer (warm-up iterations included):
		// D2H copy, send to receive (TCP over loopback), H2D copy.
		rec.Extra["insitu_d2h_s"] = stats.Median(inD2H)
		rec.Extra["insitu_tcp_s"] = stats.Median(inTCP)
		rec.Extra["insitu_h2d_s"] = stats.Median(inH2D)
	}
	return rec, true, err
}

// stagedPattern is the byte expected at offset i of a verified transfer:
// it differs from chunk to chunk, so a slot sent before its copy finished
// (still holding an earlier chunk) shows.
func stagedPattern(i int64) byte { return measure.StagedPattern(i) }

// stagedVerify writes a position-dependent pattern into the sender's GPU
// buffer, clears every host slot and the receiver's buffer, runs one
// transfer of n bytes and checks every byte that arrived.
func stagedVerify(drv cuda.Driver, snd, rcv *stagedSide, sc, rc stagedConn, variant string, n, chunk int64) error {
	fill := func(s *stagedSide, f func(off int64, b []byte)) error {
		for off := int64(0); off < n; off += s.pinLen {
			m := min(s.pinLen, n-off)
			b := cuda.HostBytes(s.pinned, m)
			f(off, b)
			if err := drv.MemcpyHtoD(s.dbuf+cuda.DevicePtr(off), s.pinned, m); err != nil {
				return err
			}
		}
		clear(cuda.HostBytes(s.pinned, s.pinLen))
		return nil
	}
	if err := snd.w.Do(func() error {
		return fill(snd, func(off int64, b []byte) {
			for i := range b {
				b[i] = stagedPattern(off + int64(i))
			}
		})
	}); err != nil {
		return err
	}
	if err := rcv.w.Do(func() error { return fill(rcv, func(int64, []byte) {}) }); err != nil {
		return err
	}
	rdone := rcv.w.Go(func() error {
		if variant == "pipelined" && n > chunk {
			return stagedRecvPipelined(drv, rcv, rc, n, chunk)
		}
		return stagedRecvWhole(drv, rcv, rc, n, nil)
	})
	serr := snd.w.Do(func() error {
		if variant == "pipelined" && n > chunk {
			return stagedSendPipelined(drv, snd, sc, n, chunk)
		}
		return stagedSendWhole(drv, snd, sc, n, nil)
	})
	if err := errors.Join(serr, <-rdone); err != nil {
		return fmt.Errorf("staged %s: verification transfer: %w", variant, err)
	}
	return rcv.w.Do(func() error {
		for off := int64(0); off < n; off += rcv.pinLen {
			m := min(rcv.pinLen, n-off)
			if err := drv.MemcpyDtoH(rcv.pinned, rcv.dbuf+cuda.DevicePtr(off), m); err != nil {
				return err
			}
			for i, b := range cuda.HostBytes(rcv.pinned, m) {
				if want := stagedPattern(off + int64(i)); b != want {
					return fmt.Errorf("staged %s: byte %d arrived as %#x, sent as %#x", variant, off+int64(i), b, want)
				}
			}
		}
		return nil
	})
}

// stagedSendWhole copies the whole message to the host, then sends it;
// copied (if not nil) is set when the copy is done.
func stagedSendWhole(drv cuda.Driver, s *stagedSide, c stagedConn, n int64, copied *time.Time) error {
	if err := drv.MemcpyDtoH(s.pinned, s.dbuf, n); err != nil {
		return err
	}
	if copied != nil {
		*copied = time.Now()
	}
	return c.WriteAll(cuda.HostBytes(s.pinned, n))
}

// stagedRecvWhole receives the whole message, then copies it to the GPU;
// got (if not nil) is set when the last byte arrived.
func stagedRecvWhole(drv cuda.Driver, s *stagedSide, c stagedConn, n int64, got *time.Time) error {
	if err := c.ReadFull(cuda.HostBytes(s.pinned, n)); err != nil {
		return err
	}
	if got != nil {
		*got = time.Now()
	}
	return drv.MemcpyHtoD(s.dbuf, s.pinned, n)
}

// stagedSendPipelined: copy chunk i+1 to the host while chunk i is sent.
func stagedSendPipelined(drv cuda.Driver, s *stagedSide, c stagedConn, n, chunk int64) error {
	k := int((n + chunk - 1) / chunk)
	slots := len(s.events)
	issue := func(i int) error {
		off := int64(i) * chunk
		m := min(chunk, n-off)
		slot := uintptr(int64(i%slots) * chunk)
		if err := drv.MemcpyDtoHAsync(s.pinned+slot, s.dbuf+cuda.DevicePtr(off), m, s.stream); err != nil {
			return err
		}
		return drv.EventRecord(s.events[i%slots], s.stream)
	}
	if err := issue(0); err != nil {
		return err
	}
	for i := 0; i < k; i++ {
		if err := drv.EventSynchronize(s.events[i%slots]); err != nil {
			return err
		}
		if i+1 < k {
			if err := issue(i + 1); err != nil {
				return err
			}
		}
		off := int64(i) * chunk
		m := min(chunk, n-off)
		if err := c.WriteAll(cuda.HostBytes(s.pinned+uintptr(int64(i%slots)*chunk), m)); err != nil {
			return err
		}
	}
	return nil
}

// stagedRecvPipelined: receive chunk i+1 while chunk i is copied to the GPU.
func stagedRecvPipelined(drv cuda.Driver, s *stagedSide, c stagedConn, n, chunk int64) error {
	k := int((n + chunk - 1) / chunk)
	slots := len(s.events)
	for i := 0; i < k; i++ {
		if i >= slots { // the slot's previous H2D copy must be done before it is reused
			if err := drv.EventSynchronize(s.events[i%slots]); err != nil {
				return err
			}
		}
		off := int64(i) * chunk
		m := min(chunk, n-off)
		slot := uintptr(int64(i%slots) * chunk)
		if err := c.ReadFull(cuda.HostBytes(s.pinned+slot, m)); err != nil {
			return err
		}
		if err := drv.MemcpyHtoDAsync(s.dbuf+cuda.DevicePtr(off), s.pinned+slot, m, s.stream); err != nil {
			return err
		}
		if err := drv.EventRecord(s.events[i%slots], s.stream); err != nil {
			return err
		}
	}
	return drv.StreamSynchronize(s.stream)
}

// loopbackPair connects two raw blocking TCP sockets over 127.0.0.1 (with
// TCP_NODELAY and kernel-tuned buffers, as the tcp probe's), with an I/O
// timeout of a minute.
func loopbackPair() (stagedConn, stagedConn, error) {
	ctx := context.Background()
	const timeout = time.Minute
	ln, err := rawsock.Listen(ctx, "127.0.0.1:0", "", 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	type res struct {
		c   *rawsock.Conn
		err error
	}
	acc := make(chan res, 1)
	go func() {
		c, err := ln.Accept(5*time.Second, timeout, measure.SocketOptions{})
		acc <- res{c, err}
	}()
	sc, err := rawsock.Dial(ctx, ln.Addr().String(), "", timeout, measure.SocketOptions{})
	if err != nil {
		return nil, nil, err
	}
	r := <-acc
	if r.err != nil {
		sc.Close()
		return nil, nil, fmt.Errorf("loopback accept: %w", r.err)
	}
	return sc, r.c, nil
}
