package measure

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/gpupath/gpupath/internal/termtext"
	"github.com/gpupath/gpupath/pkg/record"
)

// The pairing protocol of a two-host run, on rank 0's control port. Each
// message is a frame:
//
//	"GPPC", length u32 (little-endian, at most 1 MiB), a JSON PairMessage
//
// rank 1 → rank 0  hello  (tool, version, rank, host inventory)
// rank 0 → rank 1  hello  (the same of rank 0, and Data: the host:port of its
//
//	probe server) — or refuse (another version: both named)
//
// both ways        ping, every heartbeat, while rank 1 measures
// rank 1 → rank 0  done
// rank 0 → rank 1  report (what rank 0's server measured: one Session per
//
//	connection), then rank 0 closes and exits 0
//
// A side that hears nothing for HeartbeatMiss heartbeats, or reads EOF or
// an error before done/report, has lost its peer.

// PairMessage is one message of the pairing protocol.
type PairMessage struct {
	Type     string     `json:"type"` // hello, refuse, ping, done, report
	Hello    *PairHello `json:"hello,omitempty"`
	Sessions []Session  `json:"sessions,omitempty"`
	Error    string     `json:"error,omitempty"`
	// Task and Result are a cluster sweep's (types task and result).
	Task   *SweepTask   `json:"task,omitempty"`
	Result *SweepResult `json:"result,omitempty"`
}

// PairHello is what each side says of itself.
type PairHello struct {
	Tool    string      `json:"tool"`
	Version string      `json:"version"`
	Rank    int         `json:"rank"`
	Host    record.Host `json:"host"`
	// Data is rank 0's probe server (host:port), in its hello only; in a
	// cluster sweep every rank's.
	Data string `json:"data,omitempty"`
	// World is the world size the rank was launched in (a sweep's ranks
	// must agree); 0 in a two-host run.
	World int `json:"world_size,omitempty"`
}

var magicPair = [4]byte{'G', 'P', 'P', 'C'}

const maxPairFrame = 1 << 20

// Heartbeat timing of a pair.
const (
	DefaultHeartbeat = time.Second
	HeartbeatMiss    = 5
)

// ErrPeerLost says the other rank went away mid-run (killed, link down).
var ErrPeerLost = errors.New("peer lost")

// ErrNotGpupath says the other end does not speak the pairing protocol.
var ErrNotGpupath = errors.New("not the gpupath pairing protocol")

func writePair(c net.Conn, m PairMessage, timeout time.Duration) error {
	b, err := termtext.MarshalJSON(m)
	if err != nil {
		return err
	}
	frame := make([]byte, 8, 8+len(b))
	copy(frame, magicPair[:])
	binary.LittleEndian.PutUint32(frame[4:], uint32(len(b)))
	c.SetWriteDeadline(time.Now().Add(timeout))
	_, err = c.Write(append(frame, b...))
	return err
}

func readPair(c net.Conn, timeout time.Duration) (PairMessage, error) {
	var m PairMessage
	c.SetReadDeadline(time.Now().Add(timeout))
	var h [8]byte
	n, err := io.ReadFull(c, h[:])
	if n > 0 && [4]byte(h[:4]) != magicPair && (n >= 4 || !bytes.HasPrefix(magicPair[:], h[:n])) {
		return m, fmt.Errorf("%w: first bytes %q", ErrNotGpupath, h[:n])
	}
	if err != nil {
		return m, err
	}
	l := binary.LittleEndian.Uint32(h[4:])
	if l > maxPairFrame {
		return m, fmt.Errorf("%w: a %d-byte frame", ErrNotGpupath, l)
	}
	b := make([]byte, l)
	if _, err := io.ReadFull(c, b); err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("%w: %v", ErrNotGpupath, err)
	}
	return m, nil
}

// PairServer is rank 0's side of a pair.
type PairServer struct {
	// Listen is the control address (host:port; port 0: any).
	Listen string
	// Hello is what rank 0 says of itself (Data is filled in).
	Hello PairHello
	// Wait bounds the wait for rank 1 to connect; Timeout every read and
	// write of the handshake and of the probes' server.
	Wait, Timeout time.Duration
	// Heartbeat between the two while rank 1 measures (default 1s).
	Heartbeat time.Duration
	// Listening, when set, is told the address listened on (to publish it).
	Listening func(addr string) error
}

// Serve listens, waits for rank 1 (at most Wait), checks its hello, serves
// the probes until rank 1 says done, and sends back what its server
// measured. It returns rank 1's hello; an error when rank 1 never came,
// spoke another version or another protocol, or vanished mid-run.
func (p *PairServer) Serve(ctx context.Context) (*PairHello, error) {
	p.defaults()
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", p.Listen)
	if err != nil {
		return nil, fmt.Errorf("pair: listen %s: %w", p.Listen, err)
	}
	defer ln.Close()
	if p.Listening != nil {
		if err := p.Listening(ln.Addr().String()); err != nil {
			return nil, err
		}
	}
	conn, err := accept(ctx, ln.(*net.TCPListener), p.Wait)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	from := conn.RemoteAddr().String()
	m, err := readPair(conn, p.Timeout)
	if err != nil {
		return nil, fmt.Errorf("pair: %s on the control port: %w", from, err)
	}
	if m.Type != "hello" || m.Hello == nil {
		return nil, fmt.Errorf("pair: %s: %w: %q where a hello was due", from, ErrNotGpupath, m.Type)
	}
	peer := m.Hello
	if err := checkPeerVersion(peer, p.Hello.Version, from); err != nil {
		writePair(conn, PairMessage{Type: "refuse", Error: err.Error(), Hello: &p.Hello}, p.Timeout)
		return peer, err
	}
	var mu sync.Mutex
	var sessions []Session
	host, _, _ := net.SplitHostPort(conn.LocalAddr().String())
	srv, err := Listen(ctx, ServerConfig{Addr: net.JoinHostPort(host, "0"), AllowNonLoopback: true, Timeout: p.Timeout,
		OnSession: func(s Session) { mu.Lock(); sessions = append(sessions, s); mu.Unlock() }})
	if err != nil {
		return peer, err
	}
	defer srv.Close()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go srv.Serve(sctx)
	hello := p.Hello
	hello.Data = srv.Addr()
	if err := writePair(conn, PairMessage{Type: "hello", Hello: &hello}, p.Timeout); err != nil {
		return peer, fmt.Errorf("pair: hello to %s: %w", from, err)
	}
	var wmu sync.Mutex
	stop := heartbeat(conn, &wmu, p.Heartbeat, p.Timeout)
	defer stop()
	for {
		if ctx.Err() != nil {
			return peer, ctx.Err()
		}
		m, err := readPair(conn, time.Duration(HeartbeatMiss)*p.Heartbeat)
		if err != nil {
			if ctx.Err() != nil {
				return peer, ctx.Err()
			}
			return peer, fmt.Errorf("%w: rank 1 (%s, %s) vanished mid-run: %v", ErrPeerLost, peer.Host.Hostname, from, lostReason(err))
		}
		switch m.Type {
		case "ping":
		case "done":
			stop()
			srv.Close() // every session has ended: its report is in
			mu.Lock()
			rep := PairMessage{Type: "report", Sessions: sessions}
			mu.Unlock()
			wmu.Lock()
			err := writePair(conn, rep, p.Timeout)
			wmu.Unlock()
			if err != nil {
				return peer, fmt.Errorf("pair: report to %s: %w", from, err)
			}
			return peer, nil
		default:
			return peer, fmt.Errorf("pair: %s: %w: message %q", from, ErrNotGpupath, m.Type)
		}
	}
}

func (p *PairServer) defaults() {
	if p.Wait <= 0 {
		p.Wait = 60 * time.Second
	}
	if p.Timeout <= 0 {
		p.Timeout = 5 * time.Second
	}
	if p.Heartbeat <= 0 {
		p.Heartbeat = DefaultHeartbeat
	}
	p.Hello.Rank = 0
}

func lostReason(err error) string {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return "no heartbeat"
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "connection closed"
	}
	return err.Error()
}

func checkPeerVersion(peer *PairHello, version, from string) error {
	if peer.Tool != "gpupath" {
		return fmt.Errorf("pair: %s is %q, not gpupath: %w", from, peer.Tool, ErrNotGpupath)
	}
	if peer.Version != version {
		return fmt.Errorf("pair: peer %s runs gpupath %s, this is gpupath %s: refused (run the same version on both hosts)", from, peer.Version, version)
	}
	return nil
}

// accept waits for one connection, at most wait, honouring ctx.
func accept(ctx context.Context, ln *net.TCPListener, wait time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		next := time.Now().Add(200 * time.Millisecond)
		if next.After(deadline) {
			next = deadline
		}
		ln.SetDeadline(next)
		c, err := ln.Accept()
		if err == nil {
			return c, nil
		}
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("pair: rank 1 did not come to %s within %s", ln.Addr(), humanDuration(wait))
		}
	}
}

// heartbeat sends a ping every d until stop is called.
func heartbeat(c net.Conn, mu *sync.Mutex, d, timeout time.Duration) (stop func()) {
	done := make(chan struct{})
	var once sync.Once
	go func() {
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				err := writePair(c, PairMessage{Type: "ping"}, timeout)
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}
	}()
	return func() { once.Do(func() { close(done) }) }
}

// PairClient is rank 1's side of a pair, connected.
type PairClient struct {
	// Peer is rank 0's hello (Data: its probe server).
	Peer PairHello
	Addr string

	conn      net.Conn
	wmu       sync.Mutex
	stop      func()
	timeout   time.Duration
	reports   chan PairMessage
	lost      chan struct{}
	lostErr   error
	heartbeat time.Duration
}

// DialPair connects to rank 0 at addr, retrying a refused connection until
// wait has passed (rank 0 may start later), and exchanges hellos. Another
// version, another protocol or a refusal is an error naming both sides.
func DialPair(ctx context.Context, addr string, me PairHello, wait, timeout, hb time.Duration) (*PairClient, error) {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	if hb <= 0 {
		hb = DefaultHeartbeat
	}
	me.Rank = 1
	conn, err := dialRetry(ctx, addr, wait, timeout)
	if err != nil {
		return nil, err
	}
	m, err := exchangeHello(conn, addr, me, timeout)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if _, port, err := net.SplitHostPort(m.Hello.Data); err != nil || port == "" {
		conn.Close()
		return nil, fmt.Errorf("pair: %s gave no probe server address (%q)", addr, m.Hello.Data)
	} else if _, err := strconv.Atoi(port); err != nil {
		conn.Close()
		return nil, fmt.Errorf("pair: %s gave a bad probe server address (%q)", addr, m.Hello.Data)
	}
	p := &PairClient{Peer: *m.Hello, Addr: addr, conn: conn, timeout: timeout, heartbeat: hb,
		reports: make(chan PairMessage, 1), lost: make(chan struct{})}
	p.stop = heartbeat(conn, &p.wmu, hb, timeout)
	go p.read()
	return p, nil
}

// dialRetry connects to rank 0 at addr, retrying a refused connection
// until wait has passed (rank 0 may start later).
func dialRetry(ctx context.Context, addr string, wait, timeout time.Duration) (net.Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		d := net.Dialer{Timeout: min(timeout, max(time.Until(deadline), 100*time.Millisecond))}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("pair: rank 0 at %s did not come within %s: %v", addr, humanDuration(wait), err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// exchangeHello sends me and reads rank 0's hello: another version,
// another protocol or a refusal is an error naming both sides.
func exchangeHello(conn net.Conn, addr string, me PairHello, timeout time.Duration) (PairMessage, error) {
	if err := writePair(conn, PairMessage{Type: "hello", Hello: &me}, timeout); err != nil {
		return PairMessage{}, fmt.Errorf("pair: hello to %s: %w", addr, err)
	}
	m, err := readPair(conn, timeout)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return m, fmt.Errorf("pair: %s did not answer the gpupath pairing hello within %s (not a gpupath rank 0?)", addr, humanDuration(timeout))
		}
		return m, fmt.Errorf("pair: %s answered: %w", addr, err)
	}
	switch {
	case m.Type == "refuse":
		return m, fmt.Errorf("pair: rank 0 at %s refused: %s", addr, m.Error)
	case m.Type != "hello" || m.Hello == nil:
		return m, fmt.Errorf("pair: %s: %w: %q where a hello was due", addr, ErrNotGpupath, m.Type)
	}
	return m, checkPeerVersion(m.Hello, me.Version, addr)
}

func (p *PairClient) read() {
	for {
		m, err := readPair(p.conn, time.Duration(HeartbeatMiss)*p.heartbeat)
		if err != nil {
			p.lostErr = fmt.Errorf("%w: rank 0 (%s, %s): %s", ErrPeerLost, p.Peer.Host.Hostname, p.Addr, lostReason(err))
			close(p.lost)
			return
		}
		if m.Type == "report" {
			p.reports <- m
			return
		}
	}
}

// Lost is closed when rank 0 goes away; Err then says how.
func (p *PairClient) Lost() <-chan struct{} { return p.lost }

// Err is why the peer was lost (nil while it is not).
func (p *PairClient) Err() error {
	select {
	case <-p.lost:
		return p.lostErr
	default:
		return nil
	}
}

// Done tells rank 0 the measurement is over and returns what its server
// measured, within the timeout.
func (p *PairClient) Done() ([]Session, error) {
	p.stop()
	p.wmu.Lock()
	err := writePair(p.conn, PairMessage{Type: "done"}, p.timeout)
	p.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("%w: telling rank 0 done: %v", ErrPeerLost, err)
	}
	select {
	case m := <-p.reports:
		return m.Sessions, nil
	case <-p.lost:
		return nil, p.lostErr
	case <-time.After(p.timeout + time.Duration(HeartbeatMiss)*p.heartbeat):
		return nil, fmt.Errorf("%w: rank 0 sent no report", ErrPeerLost)
	}
}

// Close ends the control connection.
func (p *PairClient) Close() error {
	p.stop()
	return p.conn.Close()
}

// SessionResults turns what rank 0's server measured into records (probe
// "peer", variant the session's mode), so the run holds the receiver's
// side too.
func SessionResults(ss []Session, host string, now time.Time) []record.Result {
	var out []record.Result
	for _, s := range ss {
		r := record.Result{
			Probe: "peer", Variant: s.Mode, Path: "host-tcp", Target: host, Timer: "wall", Bytes: s.Size,
			Iterations: 1, MinS: s.WallS, MedianS: s.WallS, P99S: s.WallS, MeanS: s.WallS,
			CPUUserS: s.UserS, CPUSysS: s.SysS, Time: now,
			CPUScope: "rank 0's server thread of this connection (RUSAGE_THREAD), over the whole connection",
			Extra: map[string]float64{
				"count":      float64(s.Count),
				"chunk":      float64(s.Chunk),
				"flow":       float64(s.Flow),
				"flows":      float64(s.Flows),
				"mismatches": float64(s.Mismatches),
			},
			Note: "what the receiving side (rank 0) measured of one connection: count is round trips (pingpong) or bytes received (stream, staged); times are the connection's wall time",
		}
		if s.Mode == "staged" {
			r.Path = "tcp"
		}
		if s.Err != "" {
			r.Note += "; it ended with: " + s.Err
		}
		out = append(out, r)
	}
	return out
}

// WriteUnpaired writes the run directory of a rank 1 that found no peer to
// measure against (it never came, spoke another version or another
// protocol): a partial run with the reason (one line) and no records, so
// that the failure is on disk where the results were expected. It returns
// the error to report: the reason and the directory.
func WriteUnpaired(dir string, cfg RunConfig, version, reason string) error {
	reason = oneLine(reason)
	cause := errors.New(reason)
	w, err := record.Create(dir)
	if err != nil {
		return fmt.Errorf("%v (and the run directory: %v)", cause, err)
	}
	defer w.Close()
	now := time.Now().UTC()
	m := &record.Manifest{Format: record.ManifestFormat, Tool: "gpupath", Version: version, Status: record.StatusPartial,
		Start: now, End: now, BudgetS: cfg.Budget.Seconds(), Host: *cfg.Host, Plan: cfg.Plan, Results: record.ResultsFile,
		Reason: reason}
	for _, n := range cfg.Probes {
		m.Probes = append(m.Probes, record.ProbeStatus{Name: n, Status: record.StatusPending})
	}
	if err := w.WriteManifest(m); err != nil {
		return fmt.Errorf("%v (and the run directory: %v)", cause, err)
	}
	return fmt.Errorf("%s: partial run, no results, in %s", m.Reason, dir)
}

// AppendPeer adds what rank 0 measured on its side (its sessions, one
// record each) to the run in dir and the "peer" probe to its manifest.
func AppendPeer(dir string, m *record.Manifest, ss []Session, host string) error {
	now := time.Now().UTC()
	rs := SessionResults(ss, host, now)
	fh, err := os.OpenFile(filepath.Join(dir, record.ResultsFile), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer fh.Close()
	st := record.ProbeStatus{Name: "peer", Status: record.StatusOK, Start: now, End: now,
		Reason: "what rank 0 (" + host + ") measured on its side: one record per connection"}
	for _, r := range rs {
		if err := record.AppendResult(fh, r); err != nil {
			return err
		}
		st.Results++
	}
	m.Probes = append(m.Probes, st)
	return record.WriteManifest(dir, m)
}

// RunPaired is rank 1's run against rank 0 (paired through pc; cfg's
// Pairing says how): it measures toward rank 0's probe server, appends what
// rank 0 measured on its side, and writes one run holding both hosts. When
// rank 0 goes away mid-run (or stops answering) the run is kept as partial
// with the reason, and lost is true: the error then says so and where the
// results are. Otherwise m and err are Run's.
func RunPaired(ctx context.Context, pc *PairClient, cfg RunConfig) (m *record.Manifest, lost bool, err error) {
	cfg.Plan.Target = pc.Peer.Data
	peerHost := pc.Peer.Host
	cfg.Peer = &peerHost
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() {
		select {
		case <-pc.Lost():
			cancel(pc.Err())
		case <-rctx.Done():
		}
	}()
	m, runErr := Run(rctx, cfg)
	if m == nil {
		return nil, false, runErr
	}
	why := pc.Err()
	if why == nil && ctx.Err() == nil {
		sessions, err := pc.Done()
		if err != nil {
			why = err
		} else if err := AppendPeer(cfg.Dir, m, sessions, peerHost.Hostname); err != nil {
			return m, true, err
		}
	}
	if why == nil && runErr != nil && errors.Is(runErr, ErrTimeout) {
		why = runErr
	}
	if why == nil {
		return m, false, runErr
	}
	m.Status, m.Reason = record.StatusPartial, oneLine(why.Error())
	if err := record.WriteManifest(cfg.Dir, m); err != nil {
		return m, true, err
	}
	return m, true, fmt.Errorf("%s: partial run, %d results kept in %s", m.Reason, m.Counted(), cfg.Dir)
}
