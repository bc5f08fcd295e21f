package measure

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// The host-memory staged transfer: the staged GPU→GPU transfer of
// pkg/measure/gpu with host buffers standing in for the GPUs, so that it
// runs where there is no GPU (CI) and across two hosts. The sender's
// buffer is copied into a staging buffer (the D2H stand-in), sent over one
// or more TCP connections to the peer's Server (mode staged), which copies
// each chunk out of its staging buffer into its receive buffer (the H2D
// stand-in) and checks the pattern byte for byte.
//
// Store-and-forward copies the whole buffer, sends it, and the receiver
// copies when all of its stripe is in; pipelined cuts the transfer into
// chunks, copying chunk k+1 while chunk k is on the wire. With flows > 1
// the chunks are striped round robin over that many connections.

// StagedPattern is the byte at offset i of a staged transfer's sender
// buffer; the receiver checks it (pkg/measure/gpu uses it too).
func StagedPattern(i int64) byte { return byte(i*131+i>>12) ^ 0xA5 }

// FillStagedPattern writes the pattern of offsets off, off+1, … into b.
func FillStagedPattern(b []byte, off int64) {
	for j := range b {
		b[j] = StagedPattern(off + int64(j))
	}
}

// stagedMismatches counts the bytes of b that differ from the pattern at off.
func stagedMismatches(b []byte, off int64) uint64 {
	var bad uint64
	for j := range b {
		if b[j] != StagedPattern(off+int64(j)) {
			bad++
		}
	}
	return bad
}

// stripeBytes is the bytes of an n-byte transfer in chunks of chunk that
// flow (of flows) carries: chunks flow, flow+flows, ...
func stripeBytes(n, chunk int64, flow, flows int) int64 {
	var b int64
	for off := int64(flow) * chunk; off < n; off += int64(flows) * chunk {
		b += min(chunk, n-off)
	}
	return b
}

// StagedSink is the receiving end's buffer of a staged transfer, one
// connection's stripe: WriteAt copies a chunk that arrived at offset off of
// the transfer out of the staging buffer (the H2D copy; host memory: a
// copy), Verify counts the bytes of the chunk at off, n bytes long, that
// differ from the pattern. The GPU variant gives a sink that copies into
// device memory (pkg/measure/gpu); HostSink is the host-memory one.
type StagedSink interface {
	WriteAt(b []byte, off int64) (int, error)
	Verify(off, n int64) (uint64, error)
}

// StagedSource is the sending end's buffer: ReadAt copies len(b) bytes at
// off into the staging buffer b (the D2H copy; host memory: a copy).
type StagedSource = io.ReaderAt

// HostSink is the host-memory stripe of one connection of a staged
// transfer of n bytes in chunks of chunk: flow's chunks, packed.
type HostSink struct {
	buf         []byte
	chunk       int64
	flow, flows int
}

// NewHostSink makes the stripe buffer of flow (of flows).
func NewHostSink(n, chunk int64, flow, flows int) *HostSink {
	return &HostSink{buf: make([]byte, stripeBytes(n, chunk, flow, flows)), chunk: chunk, flow: flow, flows: flows}
}

// pos maps a transfer offset of one of this flow's chunks into the stripe.
func (h *HostSink) pos(off int64) int64 {
	k := off / h.chunk // the chunk's index in the transfer
	return (k/int64(h.flows))*h.chunk + off%h.chunk
}

// WriteAt copies b, which arrived at transfer offset off, into the stripe.
func (h *HostSink) WriteAt(b []byte, off int64) (int, error) {
	p := h.pos(off)
	if p < 0 || p+int64(len(b)) > int64(len(h.buf)) {
		return 0, fmt.Errorf("staged sink: offset %d is not in flow %d's stripe", off, h.flow)
	}
	return copy(h.buf[p:], b), nil
}

// Verify counts the bytes of [off, off+n) that differ from the pattern.
func (h *HostSink) Verify(off, n int64) (uint64, error) {
	p := h.pos(off)
	if p < 0 || p+n > int64(len(h.buf)) {
		return 0, fmt.Errorf("staged sink: offset %d is not in flow %d's stripe", off, h.flow)
	}
	return stagedMismatches(h.buf[p:p+n], off), nil
}

// HostSource is a sender buffer in host memory holding the pattern.
type HostSource []byte

// NewHostSource makes an n-byte sender buffer filled with the pattern.
func NewHostSource(n int64) HostSource {
	b := make(HostSource, n)
	FillStagedPattern(b, 0)
	return b
}

// ReadAt copies the buffer at off into b (the D2H stand-in).
func (h HostSource) ReadAt(b []byte, off int64) (int, error) {
	if off < 0 || off+int64(len(b)) > int64(len(h)) {
		return 0, io.EOF
	}
	return copy(b, h[off:]), nil
}

// serveStaged receives transfers of n bytes, this flow's chunks of each,
// into a chunk-sized staging buffer, hands every chunk to the sink (the
// H2D copy) and acknowledges every transfer; the first transfer is checked
// against the pattern. It returns the bytes received and the mismatches.
func serveStaged(c *rawsock.Conn, sink StagedSink, n, chunk int64, flow, flows int, lim connLimits) (uint64, uint64, error) {
	staging := make([]byte, chunk)
	var got, bad, transfers uint64
	var ack [8]byte
	for {
		if time.Now().After(lim.end) {
			return got, bad, errConnTooLong
		}
		lim.next(c)
		first := true
		for off := int64(flow) * chunk; off < n; off += int64(flows) * chunk {
			l := min(chunk, n-off)
			if err := c.ReadFull(staging[:l]); err != nil {
				if err == io.EOF && first {
					return got, bad, nil
				}
				return got, bad, err
			}
			first = false
			if _, err := sink.WriteAt(staging[:l], off); err != nil {
				return got, bad, err
			}
			if transfers == 0 {
				m, err := sink.Verify(off, l)
				if err != nil {
					return got, bad, err
				}
				bad += m
			}
			got += uint64(l)
		}
		transfers++
		binary.LittleEndian.PutUint64(ack[:], transfers)
		if err := c.WriteAll(ack[:]); err != nil {
			return got, bad, err
		}
	}
}

// StagedExchange is what one staged transfer measurement found.
type StagedExchange struct {
	Stats   Stats
	Samples []float64
	// Size is the transfer's bytes, Chunk its chunk, Flows its connections.
	Size, Chunk int64
	Flows       int
	// Transfers counts all transfers, warm-up included.
	Transfers int64
	// Client is this process's CPU time over the measurement (all its
	// threads), Server the receiving threads' as the server reported them.
	Client, Server CPUTime
	// Received is the bytes the server received over all connections.
	Received uint64
}

// Staged times transfers of n bytes from a host buffer to the server's,
// store-and-forward (store) or pipelined in chunks of chunk, over flows
// connections; the receiver checks the first transfer byte for byte and a
// mismatch is an error.
func (c *Client) Staged(ctx context.Context, n, chunk int64, flows int, store bool, cfg RepeatConfig) (*StagedExchange, error) {
	return c.StagedFrom(ctx, NewHostSource(n), n, chunk, flows, store, cfg)
}

// StagedFrom is Staged from a sender buffer of at least n bytes that src
// copies out of (the D2H copy): host memory, or a GPU's.
func (c *Client) StagedFrom(ctx context.Context, src StagedSource, n, chunk int64, flows int, store bool, cfg RepeatConfig) (*StagedExchange, error) {
	if n < 1 || n > maxMessage {
		return nil, fmt.Errorf("staged size %d out of range [1, %d]", n, maxMessage)
	}
	if flows < 1 || flows > maxFlows {
		return nil, fmt.Errorf("staged flows %d out of range [1, %d]", flows, maxFlows)
	}
	chunk = min(max(chunk, 1), n)
	flows = int(min(int64(flows), (n+chunk-1)/chunk))
	if store {
		// One chunk per flow: each stripe is received whole before it is copied.
		chunk = (n + int64(flows) - 1) / int64(flows)
	}
	staging := make([]byte, n)
	conns := make([]*rawsock.Conn, flows)
	defer func() {
		for _, cn := range conns {
			if cn != nil {
				cn.Close()
			}
		}
	}()
	for f := range conns {
		cn, err := c.openStaged(ctx, n, chunk, f, flows)
		if err != nil {
			return nil, err
		}
		conns[f] = cn
	}
	var transfers int64
	one := func() (float64, error) {
		t0 := time.Now()
		if store {
			if _, err := src.ReadAt(staging, 0); err != nil { // the D2H copy, whole
				return 0, err
			}
		}
		errs := make([]error, flows)
		var wg sync.WaitGroup
		for f, cn := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[f] = sendStripe(cn, src, staging, n, chunk, f, flows, store)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return 0, err
		}
		transfers++
		return time.Since(t0).Seconds(), nil
	}
	u0, s0 := ProcessCPU()
	st, samples, err := Repeat(ctx, cfg, one)
	u1, s1 := ProcessCPU()
	if err != nil {
		return nil, err
	}
	ex := &StagedExchange{Stats: st, Samples: samples, Size: n, Chunk: chunk, Flows: flows, Transfers: transfers,
		Client: CPUTime{u1 - u0, s1 - s0}}
	for _, cn := range conns {
		count, bad, server, err := c.finishStaged(cn)
		if err != nil {
			return nil, err
		}
		if bad > 0 {
			return nil, fmt.Errorf("peer %s: %d received bytes differ from what was sent (pattern check)", c.Addr, bad)
		}
		ex.Received += count
		ex.Server.User += server.User
		ex.Server.Sys += server.Sys
	}
	if want := uint64(transfers) * uint64(n); ex.Received != want {
		return nil, fmt.Errorf("peer %s received %d bytes, %d were sent", c.Addr, ex.Received, want)
	}
	return ex, nil
}

// sendStripe sends flow's chunks of one transfer and waits for its ack.
// Pipelined, a copier fills one of two staging chunks (the D2H stand-in)
// while the other is written.
func sendStripe(cn *rawsock.Conn, src StagedSource, staging []byte, n, chunk int64, flow, flows int, store bool) error {
	step := int64(flows) * chunk
	if store {
		for off := int64(flow) * chunk; off < n; off += step {
			if err := cn.WriteAll(staging[off:min(off+chunk, n)]); err != nil {
				return err
			}
		}
	} else {
		type piece struct{ off, l int64 }
		full := make(chan piece, 1)
		var copyErr error
		free := make(chan struct{}, 1)
		free <- struct{}{}
		stop := make(chan struct{})
		go func() {
			defer close(full)
			first := true
			for off := int64(flow) * chunk; off < n; off += step {
				if !first {
					select {
					case <-free:
					case <-stop:
						return
					}
				}
				first = false
				l := min(chunk, n-off)
				if _, err := src.ReadAt(staging[off:off+l], off); err != nil { // the D2H copy, one chunk
					copyErr = err
					return
				}
				select {
				case full <- piece{off, l}:
				case <-stop:
					return
				}
			}
		}()
		for p := range full {
			if err := cn.WriteAll(staging[p.off : p.off+p.l]); err != nil {
				close(stop)
				return err
			}
			select {
			case free <- struct{}{}:
			default:
			}
		}
		if copyErr != nil { // written before full was closed
			return copyErr
		}
	}
	var ack [8]byte
	return cn.ReadFull(ack[:])
}

func (c *Client) openStaged(ctx context.Context, n, chunk int64, flow, flows int) (*rawsock.Conn, error) {
	return c.openWith(ctx, modeStaged, n, chunk, uint64(flows)<<32|uint64(flow))
}

// finishStaged ends one connection of a staged transfer and reads the
// server's trailer, with its mismatch count.
func (c *Client) finishStaged(conn *rawsock.Conn) (count, bad uint64, server CPUTime, err error) {
	if err := conn.CloseWrite(); err != nil {
		return 0, 0, CPUTime{}, err
	}
	var tr [trailerLen]byte
	if err := conn.ReadFull(tr[:]); err != nil {
		return 0, 0, CPUTime{}, fmt.Errorf("peer %s: reading its report: %w", c.Addr, err)
	}
	if [4]byte(tr[:4]) != magicTrailer {
		return 0, 0, CPUTime{}, fmt.Errorf("peer %s: bad trailer", c.Addr)
	}
	bad = uint64(binary.LittleEndian.Uint32(tr[4:]))
	count = binary.LittleEndian.Uint64(tr[8:])
	server.User = float64(binary.LittleEndian.Uint64(tr[16:])) * 1e-9
	server.Sys = float64(binary.LittleEndian.Uint64(tr[24:])) * 1e-9
	return count, bad, server, nil
}

// Staged-host probe defaults.
var (
	// StagedHostSizes is the default sweep: 64 KiB to 64 MiB by ×4.
	StagedHostSizes      = []int64{64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20}
	quickStagedHostSizes = []int64{1 << 20, 16 << 20}
)

func init() { Register("staged-host", func(Env) Probe { return &stagedHostProbe{} }) }

// stagedHostProbe is the host-memory staged transfer. Plan.Target:
// loopback (a server in this process) or host:port of a peer's server
// (gpupath serve, or rank 0 of a pair).
type stagedHostProbe struct{}

func (*stagedHostProbe) Name() string { return "staged-host" }

// SizeRange is the sizes the probe takes (SizeRanger).
func (*stagedHostProbe) SizeRange() (lo, hi int64) { return 1, maxMessage }
func (*stagedHostProbe) Available() error          { return nil }
func (*stagedHostProbe) Weight() float64           { return 2 }

func (*stagedHostProbe) Options() []Option {
	return []Option{
		{Name: "modes", Kind: OptWords, Default: "store,pipelined", Choices: []string{"store", "pipelined"}, Doc: "staged-host: store (store-and-forward), pipelined"},
		{Name: "chunk", Kind: OptSize, Default: "1MiB", Min: 1, Max: maxMessage, Doc: "staged-host: the pipelined chunk"},
		{Name: "flows", Kind: OptInt, Default: "1", Min: 1, Max: maxFlows, Doc: "staged-host: TCP connections, chunks striped round robin"},
		{Name: "timeout", Kind: OptDuration, Default: "5s", Min: 0, Max: maxOptTimeout, Above: true, Doc: "deadline of every connect, read and write"},
	}
}

// maxOptTimeout bounds a timeout option: an hour, in seconds.
const maxOptTimeout = 3600

type stagedHostOptions struct {
	sizes    []int64
	variants []string
	chunk    int64
	flows    int
	timeout  time.Duration
}

func parseStagedHostOptions(plan Plan) (stagedHostOptions, error) {
	o := stagedHostOptions{sizes: StagedHostSizes, chunk: 1 << 20, flows: 1, timeout: 5 * time.Second}
	if plan.Quick {
		o.sizes = quickStagedHostSizes
	}
	if len(plan.Sizes) > 0 {
		o.sizes = plan.Sizes
	}
	if err := checkSizeRange("staged-host", 1, maxMessage, o.sizes); err != nil {
		return o, err
	}
	decl := (*stagedHostProbe)(nil).Options()
	var err error
	if o.variants, err = declared(decl, "modes").Words(plan, []string{"store", "pipelined"}); err != nil {
		return o, err
	}
	chunk, err := declared(decl, "chunk").Number(plan, float64(o.chunk))
	if err != nil {
		return o, err
	}
	flows, err := declared(decl, "flows").Number(plan, float64(o.flows))
	if err != nil {
		return o, err
	}
	timeout, err := declared(decl, "timeout").Number(plan, o.timeout.Seconds())
	if err != nil {
		return o, err
	}
	o.chunk, o.flows, o.timeout = int64(chunk), int(flows), time.Duration(timeout*float64(time.Second))
	return o, nil
}

func (p *stagedHostProbe) Steps(plan Plan) int {
	o, err := parseStagedHostOptions(plan)
	if err != nil {
		return 0
	}
	return len(o.sizes) * len(o.variants)
}

func (p *stagedHostProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	o, err := parseStagedHostOptions(plan)
	if err != nil {
		return err
	}
	// The budget covers the set-up (the server) too.
	sw := newSweep(plan, len(o.sizes)*len(o.variants))
	client := &Client{Timeout: o.timeout, Addr: plan.Target, Until: sw.end()}
	label := plan.Target
	switch plan.Target {
	case "", "loopback":
		label = "loopback"
		srv, err := Listen(ctx, ServerConfig{Timeout: o.timeout})
		if err != nil {
			return err
		}
		defer srv.Close()
		sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		go srv.Serve(sctx)
		client.Addr = srv.Addr()
	default:
		if _, _, err := net.SplitHostPort(plan.Target); err != nil {
			return Unavailable("staged-host runs on loopback or against a peer (host:port), not %q", plan.Target)
		}
	}
	runtime.Gosched()
	for _, v := range o.variants {
		for _, n := range o.sizes {
			if err := ctx.Err(); err != nil {
				return err
			}
			// The shortest measurement: one warm-up and one sample transfer.
			rc, err := sw.next(n, 2*n)
			if err != nil {
				return err
			}
			ex, err := client.Staged(ctx, n, o.chunk, o.flows, v == "store", rc)
			if err != nil {
				return fmt.Errorf("staged-host %s %s: %w", v, units.Bytes(n), err)
			}
			sw.measured(n, float64(n)/ex.Stats.Median)
			if err := emit(stagedHostResult(ex, v, label)); err != nil {
				return err
			}
		}
	}
	return nil
}

func stagedHostResult(ex *StagedExchange, variant, target string) record.Result {
	st := ex.Stats
	r := record.Result{
		Probe: "staged-host", Variant: variant, Path: "tcp", Target: target, Timer: "wall", Bytes: ex.Size,
		Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99, MeanS: st.Mean,
		Spread: st.Spread, Stable: st.Stable,
		CPUScope: "sender: this process (RUSAGE_SELF); receiver: the server's session threads, as it reported them",
		Extra: map[string]float64{
			"chunk_bytes": float64(ex.Chunk),
			"flows":       float64(ex.Flows),
			"transfers":   float64(ex.Transfers),
			"verified":    1,
		},
		Note:    "host-memory stand-in of the staged GPU transfer: copy (D2H) → TCP → copy (H2D), verified byte for byte on the first transfer; time from the first copy to the receiver's ack of the last byte",
		Samples: KeepSamples(ex.Samples, 1),
	}
	if st.Median > 0 {
		r.ThroughputBps = float64(ex.Size) / st.Median
	}
	if ex.Transfers > 0 {
		t := float64(ex.Transfers)
		r.CPUUserS = (ex.Client.User + ex.Server.User) / t
		r.CPUSysS = (ex.Client.Sys + ex.Server.Sys) / t
		r.Extra["cpu_sender_s"] = ex.Client.Total() / t
		r.Extra["cpu_receiver_s"] = ex.Server.Total() / t
	}
	return r
}
