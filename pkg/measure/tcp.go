package measure

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// TCP probe defaults.
var (
	// PingPongSizes is the default ping-pong sweep: 1 B to 4 MiB by ×4, and 64 B.
	PingPongSizes = []int64{1, 4, 16, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20}
	// StreamSizes is the default streaming sweep of write sizes: 4 KiB to
	// 16 MiB, with iperf3's default of 128 KiB.
	StreamSizes = []int64{4 << 10, 16 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20}
	// Quick sweeps, for `gpupath report`.
	quickPingPongSizes = []int64{1, 64, 1 << 10, 16 << 10, 256 << 10, 4 << 20}
	quickStreamSizes   = []int64{16 << 10, 128 << 10, 1 << 20}
)

// DefaultServePort is the port `gpupath serve` listens on by default.
const DefaultServePort = 7470

func init() { Register("tcp", func(Env) Probe { return &tcpProbe{} }) }

// tcpProbe measures TCP ping-pong latency and streaming goodput with their
// CPU cost at both ends.
//
// Plan.Target: "loopback" (default: a server in this process on 127.0.0.1),
// "veth" (two network namespaces joined by a veth pair, made and removed by
// the probe; needs root), or host:port of a `gpupath serve` peer.
// Plan.Options: "variants" (pingpong,stream), "port" (the local server's
// port, default any), "rate" (shape the veth link with tbf, e.g. 1Gbit/s),
// "timeout" (every connect, read and write; default 5s), "sndbuf", "rcvbuf"
// (bytes; default: kernel autotuning).
type tcpProbe struct{}

func (*tcpProbe) Name() string { return "tcp" }

// SizeRange is the sizes the probe takes (SizeRanger).
func (*tcpProbe) SizeRange() (lo, hi int64) { return 1, maxMessage }
func (*tcpProbe) Available() error          { return nil }
func (*tcpProbe) Weight() float64           { return 3 }

// Options are the settings the tcp probe reads from Plan.Options.
func (*tcpProbe) Options() []Option {
	return []Option{
		{Name: "variants", Kind: OptWords, Default: "pingpong,stream", Doc: "which measurements: pingpong, stream"},
		{Name: "port", Kind: OptInt, Default: "0", Doc: "port of the local server (0: any free port)"},
		{Name: "rate", Kind: OptRate, Doc: "shape the veth link with tbf to this rate, e.g. 1Gbit/s (veth target only)"},
		{Name: "timeout", Kind: OptDuration, Default: "5s", Doc: "deadline of every connect, read and write"},
		{Name: "sndbuf", Kind: OptSize, Doc: "SO_SNDBUF of every socket (default: the kernel's autotuning)"},
		{Name: "rcvbuf", Kind: OptSize, Doc: "SO_RCVBUF of every socket (default: the kernel's autotuning)"},
		{Name: "pingpong_max", Kind: OptSize, Doc: "extend the ping-pong sweep by ×4 up to this size"},
	}
}
func (p *tcpProbe) Steps(plan Plan) int {
	o, err := parseTCPOptions(plan)
	if err != nil {
		return 0
	}
	return len(o.pingpong) + len(o.stream)
}

type tcpOptions struct {
	pingpong, stream []int64
	port             int
	rate             float64
	timeout          time.Duration
	sock             SocketOptions
}

// parseTCPOptions reads the plan; it is also how the CLI checks its input.
func parseTCPOptions(plan Plan) (tcpOptions, error) {
	o := tcpOptions{timeout: 5 * time.Second}
	pp, st := PingPongSizes, StreamSizes
	if plan.Quick {
		pp, st = quickPingPongSizes, quickStreamSizes
	}
	if len(plan.Sizes) > 0 {
		if err := checkSizeRange("tcp", 1, maxMessage, plan.Sizes); err != nil {
			return o, err
		}
		pp, st = plan.Sizes, plan.Sizes
	}
	if v := plan.Options["pingpong_max"]; v != "" && len(plan.Sizes) == 0 {
		// Extend the ping-pong sweep by ×4 up to this size (for example to
		// cover the sizes of a staged GPU transfer, where buffers no longer
		// fit in the caches).
		m, err := units.ParseBytes(v)
		if err != nil || m < 1 || m > maxMessage {
			return o, fmt.Errorf("tcp: pingpong_max=%q: want a size up to %d bytes", v, maxMessage)
		}
		pp = append([]int64(nil), pp...)
		for n := pp[len(pp)-1] * 4; n <= int64(m); n *= 4 {
			pp = append(pp, n)
		}
	}
	variants := "pingpong,stream"
	if v, ok := plan.Options["variants"]; ok {
		variants = v
	}
	for _, v := range strings.Split(variants, ",") {
		switch strings.TrimSpace(v) {
		case "pingpong":
			o.pingpong = pp
		case "stream":
			o.stream = st
		case "":
		default:
			return o, fmt.Errorf("tcp: unknown variant %q (pingpong, stream)", v)
		}
	}
	if v, ok := plan.Options["port"]; ok && v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return o, fmt.Errorf("tcp: bad port %q", v)
		}
		o.port = p
	}
	if v, ok := plan.Options["rate"]; ok && v != "" {
		r, err := units.ParseRate(v)
		if err != nil || !(r > 0) {
			return o, fmt.Errorf("tcp: bad rate %q (want e.g. 1Gbit/s, 300Mbit/s, 1.5GB/s)", v)
		}
		o.rate = float64(r)
	}
	if v, ok := plan.Options["timeout"]; ok && v != "" {
		d, err := units.ParseDuration(v)
		if err != nil || !(d > 0) {
			return o, fmt.Errorf("tcp: bad timeout %q", v)
		}
		o.timeout = time.Duration(float64(d) * float64(time.Second))
	}
	for key, dst := range map[string]*int{"sndbuf": &o.sock.SendBuffer, "rcvbuf": &o.sock.RecvBuffer} {
		if v, ok := plan.Options[key]; ok && v != "" {
			n, err := units.ParseBytes(v)
			if err != nil || n < 0 || n > 1<<30 {
				return o, fmt.Errorf("tcp: bad %s %q", key, v)
			}
			*dst = int(n)
		}
	}
	return o, nil
}

// CheckTCPPlan reports bad TCP settings in a plan (sizes, options, target)
// without measuring anything, so that a command can refuse bad input early.
func CheckTCPPlan(plan Plan) error {
	o, err := parseTCPOptions(plan)
	if err != nil {
		return err
	}
	switch t := plan.Target; t {
	case "", "loopback":
		if o.rate > 0 {
			return fmt.Errorf("tcp: a rate needs the veth target (loopback cannot be shaped)")
		}
	case "veth":
	default:
		if _, _, err := net.SplitHostPort(t); err != nil {
			return fmt.Errorf("bad target %q: want loopback, veth or host:port", t)
		}
		if o.rate > 0 {
			return fmt.Errorf("tcp: a rate needs the veth target")
		}
	}
	return nil
}

// CheckPeer connects to a `gpupath serve` peer and completes the handshake
// within timeout, so that an unreachable or wrong peer fails at once. A
// peer that answers "busy" is there: it passes after one try, and the
// probes wait for it within their budgets (a wait here would not be).
func CheckPeer(ctx context.Context, addr string, timeout time.Duration) error {
	c := &Client{Addr: addr, Timeout: timeout, BusyWait: -1}
	conn, err := c.open(ctx, modePingPong, 1, 0)
	if errors.Is(err, ErrBusy) {
		return nil
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	_, _, err = c.finish(conn)
	return err
}

func (p *tcpProbe) Run(ctx context.Context, plan Plan, emit func(record.Result) error) error {
	o, err := parseTCPOptions(plan)
	if err != nil {
		return err
	}
	if err := CheckTCPPlan(plan); err != nil {
		return err
	}
	// The budget covers the set-up (a veth pair, the server) too.
	sw := newSweep(plan, len(o.pingpong)+len(o.stream))
	client := &Client{Timeout: o.timeout, Socket: o.sock, Until: sw.end()}
	label := plan.Target
	var (
		scope  string
		shaped float64
	)
	var server *Server
	switch plan.Target {
	case "", "loopback":
		label = "loopback"
		server, err = Listen(ctx, ServerConfig{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)),
			Timeout: o.timeout, Socket: o.sock})
		scope = "both ends in this process: client thread + server thread (RUSAGE_THREAD); on loopback the sending thread also runs the receive softirq"
	case "veth":
		v, err := NewVeth(ctx, VethConfig{Rate: o.rate})
		if err != nil {
			return err
		}
		defer v.Close()
		label, shaped = v.Label(), o.rate
		client.Netns = v.ClientNs
		server, err = Listen(ctx, ServerConfig{Addr: net.JoinHostPort(v.ServerAddr, strconv.Itoa(o.port)),
			AllowNonLoopback: true, Netns: v.ServerNs, Timeout: o.timeout, Socket: o.sock})
		if err != nil {
			return err
		}
		scope = "both ends in this process: client thread + server thread (RUSAGE_THREAD), in two network namespaces"
	default:
		client.Addr = plan.Target
		scope = "client thread here (RUSAGE_THREAD) + server thread on the peer, as the peer reported it"
	}
	if err != nil {
		return err
	}
	if server != nil {
		defer server.Close()
		sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		go server.Serve(sctx)
		client.Addr = server.Addr()
	}

	for _, size := range o.pingpong {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The shortest measurement: one warm-up and one sample, a round
		// trip of size bytes each way apiece.
		rc, err := sw.next(size, 4*size)
		if err != nil {
			return err
		}
		ex, err := client.PingPong(ctx, size, rc)
		if err != nil {
			return fmt.Errorf("ping-pong %s: %w", units.Bytes(size), err)
		}
		sw.measured(size, float64(size)/ex.Stats.Median)
		if err := emit(pingPongResult(ex, label, scope)); err != nil {
			return err
		}
	}
	for _, size := range o.stream {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The shortest measurement: a calibration chunk (at least one write
		// and 64 KiB), one warm-up chunk and one sample chunk, each of at
		// least one write.
		rc, err := sw.next(size, max(size, calibrationChunk)+2*size)
		if err != nil {
			return err
		}
		// Aim one sample at a tenth of the size's budget: enough samples
		// for a median, long enough that the ack round trip is noise.
		client.StreamIteration = min(max(rc.Budget/10, 5*time.Millisecond), 50*time.Millisecond)
		ex, err := client.Stream(ctx, size, rc)
		if err != nil {
			return fmt.Errorf("stream %s: %w", units.Bytes(size), err)
		}
		sw.measured(size, float64(ex.Chunk)/ex.Stats.Median)
		if err := emit(streamResult(ex, label, scope, shaped)); err != nil {
			return err
		}
	}
	return nil
}

func pingPongResult(ex *Exchange, target, scope string) record.Result {
	st := ex.Stats
	msgs := float64(2 * ex.Messages) // one-way messages
	both := perMessage(CPUTime{ex.Client.User + ex.Server.User, ex.Client.Sys + ex.Server.Sys}, msgs)
	cl, sv := perMessage(ex.Client, msgs), perMessage(ex.Server, msgs)
	r := record.Result{
		Probe: "tcp", Variant: "pingpong", Path: "host-tcp", Target: target, Timer: "wall", Bytes: ex.Size,
		Iterations: st.Iterations, MinS: st.Min, MedianS: st.Median, P99S: st.P99, MeanS: st.Mean,
		Spread: st.Spread, Stable: st.Stable,
		CPUUserS: both.User, CPUSysS: both.Sys, CPUScope: scope,
		Extra: map[string]float64{
			"rtt_median_s":      2 * st.Median,
			"round_trips":       float64(ex.Messages),
			"cpu_client_user_s": cl.User, "cpu_client_sys_s": cl.Sys,
			"cpu_server_user_s": sv.User, "cpu_server_sys_s": sv.Sys,
			"mss":         float64(ex.MSS),
			"retransmits": float64(ex.Retransmits),
		},
		Note:    "times are half round trips (TCP_NODELAY); CPU is per one-way message, both ends: (client + server thread CPU) / (2 × round trips, warm-up included)",
		Samples: KeepSamples(ex.Samples, 1),
	}
	if st.Median > 0 {
		r.ThroughputBps = float64(ex.Size) / st.Median
	}
	return r
}

func streamResult(ex *Exchange, target, scope string, shaped float64) record.Result {
	st := ex.Stats
	// Samples are seconds per chunk; the record's times are per write.
	perWrite := float64(ex.Size) / float64(ex.Chunk)
	r := record.Result{
		Probe: "tcp", Variant: "stream", Path: "host-tcp", Target: target, Timer: "wall", Bytes: ex.Size,
		Iterations: st.Iterations, MinS: st.Min * perWrite, MedianS: st.Median * perWrite, P99S: st.P99 * perWrite,
		MeanS: st.Mean * perWrite, Spread: st.Spread, Stable: st.Stable, CPUScope: scope,
		Extra: map[string]float64{
			"chunk_bytes":      float64(ex.Chunk),
			"chunk_median_s":   st.Median,
			"bytes_total":      float64(ex.Bytes),
			"mss":              float64(ex.MSS),
			"tcp_header_bytes": float64(ex.TCPHeaderBytes()),
			"retransmits":      float64(ex.Retransmits),
		},
		Note:    "goodput: application payload from the first write of a chunk to the receiver's ack of its last byte; times are per write of Bytes; CPU is per write, both ends, from thread CPU over all bytes sent (warm-up included)",
		Samples: KeepSamples(ex.Samples, perWrite),
	}
	if st.Median > 0 {
		r.ThroughputBps = float64(ex.Chunk) / st.Median
	}
	if ex.Bytes > 0 {
		b := float64(ex.Bytes)
		perByte := (ex.Client.Total() + ex.Server.Total()) / b
		r.CPUUserS = (ex.Client.User + ex.Server.User) / b * float64(ex.Size)
		r.CPUSysS = (ex.Client.Sys + ex.Server.Sys) / b * float64(ex.Size)
		r.Extra["cpu_s_per_byte"] = perByte
		r.Extra["cpu_client_s_per_byte"] = ex.Client.Total() / b
		r.Extra["cpu_server_s_per_byte"] = ex.Server.Total() / b
	}
	if shaped > 0 {
		r.Extra["shaped_rate_Bps"] = shaped
		// tbf counts frames as the qdisc sees them: payload + IP + TCP + 14 B Ethernet.
		r.Extra["expected_goodput_Bps"] = GoodputForFrameRate(shaped, ex.MSS, ex.TCPHeaderBytes(), 14)
	}
	return r
}

// CheckTarget refuses a --target that is neither loopback, veth nor a
// host:port with a port in 1..65535 (127.0.0.1:0, :99999, http://x).
func CheckTarget(t string) error {
	bad := func() error { return fmt.Errorf("--target %q: want loopback, veth or host:port (port 1..65535)", t) }
	if strings.Contains(t, "://") {
		return bad()
	}
	h, p, err := net.SplitHostPort(t)
	if err != nil || h == "" {
		return bad()
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return bad()
	}
	return nil
}

// PortFree tells whether a TCP port on loopback can be listened on.
func PortFree(port int) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return errors.New("port in use")
		}
		return err
	}
	return ln.Close()
}
