package measure

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"runtime"
	"sync"
	"time"

	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/pkg/units"
)

// The TCP probe protocol. Each measurement opens one connection:
//
//	client → server  hello   32 bytes: "GPTP", version u16, mode u16, size u64, chunk u64, 0 u64
//	server → client  welcome  8 bytes: "GPTP", version u16, status u16
//	                 (0 ok, 1 bad hello, 2 busy: no session slot or no
//	                 buffer memory free; try again later)
//	pingpong: client sends size bytes, server sends them back; repeated
//	stream:   client sends chunk bytes in writes of size, server answers each
//	          chunk with an 8-byte ack (its running byte count)
//	staged:   (staged_host.go) hello size = the transfer's bytes n, chunk =
//	          its chunk, the last u64 = flows<<32 | flow; the client sends
//	          chunks flow, flow+flows, ... of every transfer, the server
//	          copies each into its receive buffer (the H2D stand-in), checks
//	          the pattern on the first transfer, and answers each transfer
//	          with an 8-byte ack (the transfers so far)
//	client    shutdown(SHUT_WR) at a message boundary
//	server → client  trailer 32 bytes: "GPTE", bad u32, count u64, user ns u64, sys ns u64
//
// bad is the number of bytes that differed from the pattern (staged only;
// saturating), 0 otherwise.
//
// count is the number of round trips (pingpong) or bytes (stream) the server
// handled; user and sys are the CPU time of the server's thread from the
// welcome to the end of stream (RUSAGE_THREAD). So the client learns the
// receiving end's CPU cost even when the server runs on another host.
// Integers are little-endian.

const (
	protoVersion = 1
	modePingPong = 1
	modeStream   = 2
	modeStaged   = 3
	// maxFlows bounds the connections of one staged transfer.
	maxFlows = 64
	// maxMessage bounds the message size a server accepts (and allocates).
	maxMessage = 256 << 20
	// maxStreamChunk bounds a stream's bytes between acks (the client
	// sizes a chunk to its rate × about a second: 1 TiB is 100 GB/s for
	// 10 s); past it no client asked, and the log would show no size.
	maxStreamChunk = 1 << 40
	helloLen       = 32
	trailerLen     = 32
)

var (
	magicHello   = [4]byte{'G', 'P', 'T', 'P'}
	magicTrailer = [4]byte{'G', 'P', 'T', 'E'}
)

// ServerConfig says where and how a Server listens.
type ServerConfig struct {
	// Addr is host:port to listen on (default "127.0.0.1:0": loopback, any free port).
	Addr string
	// AllowNonLoopback must be set to listen on anything but a loopback
	// address: the probes never open a port to the network unless asked.
	AllowNonLoopback bool
	// Netns names a network namespace (as `ip netns` does) to listen in.
	Netns string
	// Timeout bounds the wait for a client's hello and every read or write
	// of a connection (default 5s).
	Timeout time.Duration
	// MaxConns bounds the sessions served at once (default 16); a client
	// past it gets a "busy" welcome and is closed. A connection takes a
	// session only once its hello has come: until then it is pending.
	MaxConns int
	// MaxPerSource bounds the sessions of one source address (default
	// MaxConns: no bound of its own); past it, a "busy" welcome.
	MaxPerSource int
	// HelloTimeout bounds the wait for a new connection's hello (default
	// Timeout, at most 2s).
	HelloTimeout time.Duration
	// MaxPending bounds the connections waiting for their hello (default
	// 4 × MaxConns), MaxPendingPerSource those of one source address
	// (default MaxPending/4). A new connection past either closes the
	// oldest pending one (of its own source when that bound is the one
	// reached): idle sockets cannot keep an honest client out.
	MaxPending, MaxPendingPerSource int
	// MaxConnTime bounds the life of one connection (default 10m), checked
	// on every read and write.
	MaxConnTime time.Duration
	// MinRate is the slowest a client may deliver one message, in bytes per
	// second (default 10 MB/s): each message must arrive within Timeout +
	// size/MinRate, or the connection is cut. A client that trickles bytes
	// cannot hold a session.
	MinRate float64
	// MaxBuffers bounds the message buffers of all sessions together
	// (default 1 GiB), taken as the data arrives (1 MiB at a time), not as
	// announced (a staged transfer's stripe, which may be device memory,
	// at its hello); the first 1 MiB of a session does not count. A hello for a
	// larger message while the budget is full gets a "busy" welcome; a
	// session whose next chunk finds it full is ended.
	MaxBuffers int64
	// Socket options for accepted connections.
	Socket SocketOptions
	// OnSession, when set, is told about every session that got past its
	// hello, when it ends: what the receiving side measured, so that a
	// paired peer can send it back (pair.go). Called from the session's
	// goroutine.
	OnSession func(Session)
	// Log, when set, is told in one line each of every session admitted
	// (the client's address, what it asked for) and ended (what it moved,
	// how long it took, why it was cut), and of every connection refused
	// or closed before its session (busy, a bad hello, no hello in time,
	// evicted): at most one refusal line per source address every
	// LogEvery, and a bounded number in all (serverlog.go), so that no
	// client can flood it. A client's own bytes in a line are escaped
	// (termtext). Called from the server's goroutines, one at a time.
	Log func(format string, args ...any)
	// LogEvery is how often one address's refusals are logged at most
	// (default DefaultLogEvery, 10 s).
	LogEvery time.Duration
	// NewSink makes the receive buffer of one connection of a staged
	// transfer (default: host memory, NewHostSink); a GPU sink copies into
	// device memory.
	NewSink func(n, chunk int64, flow, flows int) (StagedSink, error)
}

// Session is what the server measured of one connection.
type Session struct {
	Mode  string `json:"mode"` // pingpong, stream, staged
	Size  int64  `json:"size"`
	Chunk int64  `json:"chunk,omitempty"`
	// Flow and Flows of a staged transfer.
	Flow  int `json:"flow,omitempty"`
	Flows int `json:"flows,omitempty"`
	// Count is round trips (pingpong) or bytes received (stream, staged).
	Count uint64 `json:"count"`
	// Mismatches counts received bytes that differed from the pattern (staged).
	Mismatches uint64  `json:"mismatches,omitempty"`
	UserS      float64 `json:"user_s"`
	SysS       float64 `json:"sys_s"`
	WallS      float64 `json:"wall_s"`
	Err        string  `json:"error,omitempty"`
}

var modeNames = map[uint16]string{modePingPong: "pingpong", modeStream: "stream", modeStaged: "staged"}

// Server is the receiving end of the TCP probe: it echoes ping-pong
// messages and sinks streams, and reports its own CPU time to the client. It
// runs in the same process for loopback and veth targets, or on another host
// (`gpupath serve`).
type Server struct {
	cfg ServerConfig
	ln  *rawsock.Listener
	mu  sync.Mutex
	// serving and closed are guarded by mu.
	serving, closed bool
	stop            chan struct{}
	done            chan struct{}
	once            sync.Once
	wg              sync.WaitGroup
	// Guarded by mu: buffered is the bytes of message buffers held past
	// each session's first 1 MiB; live the sessions being served, perSrc
	// their count by source; pending the connections waiting for their
	// hello, pendingSrc their count by source.
	buffered   int64
	live       map[*rawsock.Conn]struct{}
	perSrc     map[netip.Addr]int
	pending    map[*rawsock.Conn]pendingConn
	pendingSrc map[netip.Addr]int
	// evicted counts pending connections closed to make room (tests).
	evicted int
	log     *serverLog
}

// pendingConn is a connection waiting for its hello.
type pendingConn struct {
	src   netip.Addr
	since time.Time
}

// DefaultMaxSessions is the number of sessions a server serves at once
// unless told otherwise.
const DefaultMaxSessions = 16

// The other defaults of ServerConfig: the slowest a message may be
// delivered (10 MB/s), the message buffers of all sessions together, and
// the life of one connection.
const (
	DefaultMinRate     = 10e6
	DefaultMaxBuffers  = 1 << 30
	DefaultMaxConnTime = 10 * time.Minute
)

// smallMessage is the largest message whose buffer does not count against
// ServerConfig.MaxBuffers.
const smallMessage = 1 << 20

const (
	welcomeOK   = 0
	welcomeBad  = 1
	welcomeBusy = 2
)

// Listen opens the server's listening socket. It refuses a non-loopback
// address unless cfg.AllowNonLoopback is set; a port in use is an error
// wrapping unix.EADDRINUSE.
func Listen(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Second
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxSessions
	}
	if cfg.MinRate <= 0 {
		cfg.MinRate = DefaultMinRate
	}
	if cfg.MaxBuffers <= 0 {
		cfg.MaxBuffers = DefaultMaxBuffers
	}
	if cfg.MaxConnTime <= 0 {
		cfg.MaxConnTime = DefaultMaxConnTime
	}
	if cfg.MaxPerSource <= 0 {
		cfg.MaxPerSource = cfg.MaxConns
	}
	if cfg.HelloTimeout <= 0 {
		cfg.HelloTimeout = min(cfg.Timeout, 2*time.Second)
	}
	if cfg.MaxPending <= 0 {
		cfg.MaxPending = 4 * cfg.MaxConns
	}
	if cfg.MaxPendingPerSource <= 0 {
		cfg.MaxPendingPerSource = max(cfg.MaxPending/4, 1)
	}
	ap, err := rawsock.Resolve(ctx, cfg.Addr, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	if !ap.Addr().Unmap().IsLoopback() && !cfg.AllowNonLoopback {
		return nil, fmt.Errorf("listen %s: not a loopback address (listening on the network must be asked for explicitly)", cfg.Addr)
	}
	ln, err := rawsock.Listen(ctx, netip.AddrPortFrom(ap.Addr(), ap.Port()).String(), cfg.Netns, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	return &Server{
		cfg:        cfg,
		ln:         ln,
		stop:       make(chan struct{}),
		done:       make(chan struct{}),
		live:       map[*rawsock.Conn]struct{}{},
		perSrc:     map[netip.Addr]int{},
		pending:    map[*rawsock.Conn]pendingConn{},
		pendingSrc: map[netip.Addr]int{},
		log:        newServerLog(cfg.Log, cfg.LogEvery),
	}, nil
}

// Addr is the address the server listens on, with the port it got.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve accepts and serves connections until ctx is done or Close is
// called; it returns after every connection handler has ended (each is
// bounded by the server's timeouts). It returns nil on a normal stop.
func (s *Server) Serve(ctx context.Context) error {
	s.mu.Lock()
	if s.closed || s.serving {
		s.mu.Unlock()
		return errors.New("server closed or already serving")
	}
	s.serving = true
	s.mu.Unlock()
	defer close(s.done)
	defer s.log.stopped()
	defer s.wg.Wait()
	// On the way out, end every live session at once rather than at its
	// next deadline (a 256 MiB message may be allowed most of a minute).
	defer s.shutdownLive()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.stop:
			return nil
		default:
		}
		c, err := s.ln.Accept(100*time.Millisecond, s.cfg.Timeout, s.cfg.Socket)
		if errors.Is(err, ErrTimeout) {
			continue
		}
		if err != nil {
			return err
		}
		// A hello that came with the connection is read at once; without
		// one, the connection waits for it (pending) and holds no session.
		var hello [helloLen]byte
		got := c.ReadNow(hello[:])
		// When every pending connection is too new to be closed, accept
		// nothing more for a moment: the kernel queues the newcomers, and
		// an honest one's hello arrives meanwhile.
		for got < helloLen && !s.addPending(c) {
			if ctx.Err() != nil || s.stopped() {
				c.Close()
				return nil
			}
			time.Sleep(2 * time.Millisecond)
			got += c.ReadNow(hello[got:])
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(c, hello, got)
		}()
	}
}

// stopped reports whether Close was called.
func (s *Server) stopped() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// Close stops Serve (if it runs) and closes the listening socket.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		serving := s.serving
		s.mu.Unlock()
		close(s.stop)
		if serving {
			<-s.done // within 100ms plus the handlers' I/O timeouts
		}
		err = s.ln.Close()
	})
	return err
}

// handle reads the rest of a connection's hello (got bytes of it came with
// the connection), admits it to a session or answers "busy", and serves the
// session on its own OS thread, so that its thread CPU time is the cost of
// this connection alone.
func (s *Server) handle(c *rawsock.Conn, hello [helloLen]byte, got int) {
	peer := c.PeerAddr()
	src := peer.Addr().Unmap()
	if got < helloLen {
		// The rest of the hello must come within the hello timeout,
		// whatever the peer trickles; until then the connection is pending.
		err := c.SetTimeout(s.cfg.HelloTimeout)
		if err == nil {
			c.SetUntil(time.Now().Add(s.cfg.HelloTimeout))
			err = c.ReadFull(hello[got:])
		}
		left := s.leavePending(c)
		if !left || err != nil {
			c.Close() // evicted, silent or gone
			switch {
			case !left:
				s.log.refused(peer, fmt.Sprintf("closed before its hello, to make room: too many connections waiting for theirs (%d in all, %d from one address)", s.cfg.MaxPending, s.cfg.MaxPendingPerSource))
			case errors.Is(err, ErrTimeout):
				s.log.refused(peer, "no hello within "+humanDuration(s.cfg.HelloTimeout))
			default:
				s.log.refused(peer, "closed before its hello")
			}
			return
		}
	}
	mode := binary.LittleEndian.Uint16(hello[6:])
	size := binary.LittleEndian.Uint64(hello[8:])
	chunk := binary.LittleEndian.Uint64(hello[16:])
	flowWord := binary.LittleEndian.Uint64(hello[24:])
	flows, flow := int(flowWord>>32), int(flowWord&0xffffffff)
	ok := [4]byte(hello[:4]) == magicHello &&
		binary.LittleEndian.Uint16(hello[4:]) == protoVersion &&
		(mode == modePingPong || mode == modeStream || mode == modeStaged) &&
		size >= 1 && size <= maxMessage &&
		(mode == modePingPong || chunk >= 1) &&
		(mode != modeStream || chunk <= maxStreamChunk) &&
		(mode != modeStaged || (chunk <= size && flows >= 1 && flows <= maxFlows && flow < flows &&
			uint64(flow) < (size+chunk-1)/chunk))
	if !ok {
		c.WriteAll(welcome(welcomeBad))
		c.Close()
		s.log.refused(peer, badHello(hello))
		return
	}
	asked := request(mode, size, chunk, flow, flows)
	// A staged session holds its stripe of the transfer and one chunk from
	// the start (its sink may be device memory); a stream one read buffer;
	// a ping-pong one its first chunk, and more as the message arrives.
	buf := &sessionBuf{s: s}
	first := int64(min(size, msgChunk))
	switch mode {
	case modeStaged:
		first = stripeBytes(int64(size), int64(chunk), flow, flows) + int64(chunk)
	case modeStream:
		first = int64(min(size, streamBuffer))
	}
	sessions, busy := s.admit(c, src, buf, first)
	if busy != "" {
		c.WriteAll(welcome(welcomeBusy))
		c.Close()
		s.log.refused(peer, "busy: "+busy+"; it asked for a "+asked)
		return
	}
	s.log.session("accepted %s: %s (session %d of %d)", peer, asked, sessions, s.cfg.MaxConns)
	defer s.endSession(c, src, buf)
	c.SetUntil(time.Time{})
	if c.SetTimeout(s.cfg.Timeout) != nil {
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.WriteAll(welcome(welcomeOK)); err != nil {
		return
	}
	// A ping-pong message must come in and go back at MinRate; a stream's
	// chunk must come in at MinRate.
	per := 2 * float64(size)
	if mode == modeStream {
		per = float64(chunk)
	}
	lim := connLimits{
		end:     time.Now().Add(s.cfg.MaxConnTime),
		message: s.cfg.Timeout + time.Duration(min(per/s.cfg.MinRate, 3600)*float64(time.Second)),
		timeout: s.cfg.Timeout,
		rate:    s.cfg.MinRate,
	}
	if mode == modeStaged {
		// A transfer's stripe must arrive at MinRate.
		lim.message = s.cfg.Timeout + time.Duration(min(float64(first)/s.cfg.MinRate, 3600)*float64(time.Second))
	}
	t0 := time.Now()
	u0, s0 := ThreadCPU()
	var count, bad uint64
	var err error
	switch mode {
	case modePingPong:
		count, err = servePingPong(c, int(size), lim, buf)
	case modeStream:
		count, err = serveStream(c, int(size), chunk, lim, int(first))
	default:
		var sink StagedSink
		if s.cfg.NewSink != nil {
			sink, err = s.cfg.NewSink(int64(size), int64(chunk), flow, flows)
		} else {
			sink = NewHostSink(int64(size), int64(chunk), flow, flows)
		}
		if err == nil {
			count, bad, err = serveStaged(c, sink, int64(size), int64(chunk), flow, flows, lim)
		}
		if cl, ok := sink.(io.Closer); ok {
			cl.Close()
		}
	}
	u1, s1 := ThreadCPU()
	ended := "ended " + peer.String() + ": " + asked + ": " + moved(mode, size, count, time.Since(t0))
	if err != nil {
		ended += "; cut: " + oneLine(err.Error())
	}
	s.log.session("%s", ended)
	if s.cfg.OnSession != nil {
		ses := Session{Mode: modeNames[mode], Size: int64(size), Count: count, Mismatches: bad,
			UserS: u1 - u0, SysS: s1 - s0, WallS: time.Since(t0).Seconds()}
		if mode != modePingPong {
			ses.Chunk = int64(chunk)
		}
		if mode == modeStaged {
			ses.Flow, ses.Flows = flow, flows
		}
		if err != nil {
			ses.Err = err.Error()
		}
		s.cfg.OnSession(ses)
	}
	if err != nil {
		return
	}
	c.SetUntil(time.Now().Add(s.cfg.Timeout))
	var tr [trailerLen]byte
	copy(tr[:], magicTrailer[:])
	binary.LittleEndian.PutUint32(tr[4:], uint32(min(bad, math.MaxUint32)))
	binary.LittleEndian.PutUint64(tr[8:], count)
	binary.LittleEndian.PutUint64(tr[16:], nanos(u1-u0))
	binary.LittleEndian.PutUint64(tr[24:], nanos(s1-s0))
	c.WriteAll(tr[:])
}

// addPending registers a new connection as waiting for its hello; when
// the pending connections (all, or those of its source) are at their bound,
// the oldest idle one of them (of its source, when that is the bound
// reached) is shut down to make room. One pending for less than a
// hundredth of the hello timeout is not shut down: when all are that new,
// false (the caller waits), so a client between its connect and its hello
// is not crowded out by others that reconnect as fast as they are closed.
func (s *Server) addPending(c *rawsock.Conn) bool {
	src := c.PeerAddr().Addr().Unmap()
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) >= s.cfg.MaxPending || s.pendingSrc[src] >= s.cfg.MaxPendingPerSource {
		own := s.pendingSrc[src] >= s.cfg.MaxPendingPerSource
		// The oldest idle one: a connection whose hello has arrived but
		// not yet been read is not idle, unless all are so.
		var old *rawsock.Conn
		var oldest time.Time
		oldIdle := false
		grace := time.Now().Add(-s.cfg.HelloTimeout / 100)
		for pc, p := range s.pending {
			if (own && p.src != src) || p.since.After(grace) {
				continue
			}
			idle := !pc.Unread()
			if old == nil || (idle && !oldIdle) || (idle == oldIdle && p.since.Before(oldest)) {
				old, oldest, oldIdle = pc, p.since, idle
			}
		}
		if old == nil {
			return false
		}
		s.dropPending(old)
		old.Shutdown() // its handler reads end of stream and closes it
		s.evicted++
	}
	s.pending[c] = pendingConn{src: src, since: time.Now()}
	s.pendingSrc[src]++
	return true
}

// dropPending forgets a pending connection; mu is held.
func (s *Server) dropPending(c *rawsock.Conn) {
	p, ok := s.pending[c]
	if !ok {
		return
	}
	delete(s.pending, c)
	if s.pendingSrc[p.src]--; s.pendingSrc[p.src] <= 0 {
		delete(s.pendingSrc, p.src)
	}
}

// leavePending ends a connection's wait for its hello; false when it was
// evicted meanwhile.
func (s *Server) leavePending(c *rawsock.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[c]; !ok {
		return false
	}
	s.dropPending(c)
	return true
}

// admit gives a connection that sent a valid hello a session, when one is
// free (in all and for its source) and its first buffer fits, and returns
// the sessions now live; or why it is busy.
func (s *Server) admit(c *rawsock.Conn, src netip.Addr, buf *sessionBuf, first int64) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.live) >= s.cfg.MaxConns {
		return 0, fmt.Sprintf("all %d sessions are taken", s.cfg.MaxConns)
	}
	if s.perSrc[src] >= s.cfg.MaxPerSource {
		return 0, fmt.Sprintf("its address holds %d sessions, the most one address may", s.cfg.MaxPerSource)
	}
	if !buf.growLocked(first) {
		return 0, fmt.Sprintf("the message buffers (%s in all) are taken", units.Bytes(s.cfg.MaxBuffers).Human())
	}
	s.live[c] = struct{}{}
	s.perSrc[src]++
	return len(s.live), ""
}

// endSession frees a session's slot and buffers and closes its connection.
func (s *Server) endSession(c *rawsock.Conn, src netip.Addr, buf *sessionBuf) {
	s.mu.Lock()
	delete(s.live, c)
	if s.perSrc[src]--; s.perSrc[src] <= 0 {
		delete(s.perSrc, src)
	}
	s.buffered -= buf.held
	buf.held = 0
	s.mu.Unlock()
	c.Close()
}

// shutdownLive ends every live session's and pending connection's socket
// in both directions.
func (s *Server) shutdownLive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.live {
		c.Shutdown()
	}
	for c := range s.pending {
		c.Shutdown()
	}
}

// counts is the server's state, for tests: sessions, pending connections,
// counted buffer bytes, evictions.
func (s *Server) counts() (live, pending int, buffered int64, evicted int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live), len(s.pending), s.buffered, s.evicted
}

func welcome(status uint16) []byte {
	var w [8]byte
	copy(w[:], magicHello[:])
	binary.LittleEndian.PutUint16(w[4:], protoVersion)
	binary.LittleEndian.PutUint16(w[6:], status)
	return w[:]
}

// msgChunk is the unit in which a session's message buffer grows, and the
// bytes of it that do not count against ServerConfig.MaxBuffers; a stream
// reads into a buffer of at most streamBuffer bytes.
const (
	msgChunk     = smallMessage
	streamBuffer = 4 << 20
)

// sessionBuf is one session's share of the buffer budget: it holds the
// bytes of its buffers past the first msgChunk.
type sessionBuf struct {
	s    *Server
	held int64
}

// grow takes the budget for buffers of total bytes in all; false when the
// budget is full.
func (b *sessionBuf) grow(total int64) bool {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	return b.growLocked(total)
}

func (b *sessionBuf) growLocked(total int64) bool {
	need := max(total-msgChunk, 0) - b.held
	if need <= 0 {
		return true
	}
	if b.s.buffered+need > b.s.cfg.MaxBuffers {
		return false
	}
	b.s.buffered += need
	b.held += need
	return true
}

var errBuffersFull = errors.New("the server's message buffers are all taken")

// connLimits are the time limits of one session: its end, and the time one
// message (or, in a stream, one chunk's worth of reads) may take.
type connLimits struct {
	end     time.Time
	message time.Duration
	// timeout and rate: a message started at t must have moved n bytes by
	// t + timeout + n/rate (see at).
	timeout time.Duration
	rate    float64
}

// at sets the connection's deadline for the bytes of a message up to its
// n-th, the message having started at start: timeout + n/rate after it, so
// a peer that falls below the rate is cut at the chunk it is late on.
func (l connLimits) at(c *rawsock.Conn, start time.Time, n int) {
	u := start.Add(l.timeout + time.Duration(min(float64(n)/l.rate, 3600)*float64(time.Second)))
	if u.After(l.end) {
		u = l.end
	}
	c.SetUntil(u)
}

// next sets the connection's deadline for the next message.
func (l connLimits) next(c *rawsock.Conn) {
	u := time.Now().Add(l.message)
	if u.After(l.end) {
		u = l.end
	}
	c.SetUntil(u)
}

func nanos(s float64) uint64 {
	if math.IsNaN(s) || s < 0 {
		return 0
	}
	return uint64(math.Round(s * 1e9))
}

var errConnTooLong = errors.New("connection ran past its time limit")

// servePingPong echoes size-byte messages until the client ends the stream
// at a message boundary; it returns the number of round trips. The message
// buffer grows chunk by chunk as the first message arrives, each chunk
// taken from the buffer budget; every chunk in and out must keep to the
// minimum rate since the message began.
func servePingPong(c *rawsock.Conn, size int, lim connLimits, budget *sessionBuf) (uint64, error) {
	var chunks [][]byte
	var n uint64
	for {
		start := time.Now()
		if start.After(lim.end) {
			return n, errConnTooLong
		}
		moved := 0
		for off, k := 0, 0; off < size; off, k = off+msgChunk, k+1 {
			l := min(msgChunk, size-off)
			if k == len(chunks) {
				if !budget.grow(int64(off + l)) {
					return n, errBuffersFull
				}
				chunks = append(chunks, make([]byte, l))
			}
			lim.at(c, start, moved+l)
			if err := c.ReadFull(chunks[k]); err != nil {
				if err == io.EOF && off == 0 {
					return n, nil
				}
				return n, err
			}
			moved += l
		}
		for _, b := range chunks {
			lim.at(c, start, moved+len(b))
			if err := c.WriteAll(b); err != nil {
				return n, err
			}
			moved += len(b)
		}
		n++
	}
}

// serveStream reads and discards the stream in reads of up to len(buf)
// bytes (buffer bytes, at most the write size) and acknowledges every
// chunk; it returns the number of bytes received. Each read must keep to
// the minimum rate since its chunk began.
func serveStream(c *rawsock.Conn, size int, chunk uint64, lim connLimits, buffer int) (uint64, error) {
	buf := make([]byte, min(size, buffer))
	var got uint64
	next := chunk
	var ack [8]byte
	start := time.Now() // of the chunk being received
	for {
		if time.Now().After(lim.end) {
			return got, errConnTooLong
		}
		lim.at(c, start, int(min(got-(next-chunk)+uint64(len(buf)), chunk)))
		n, err := c.ReadSome(buf)
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got += uint64(n)
		for got >= next {
			binary.LittleEndian.PutUint64(ack[:], next)
			if err := c.WriteAll(ack[:]); err != nil {
				return got, err
			}
			next += chunk
			start = time.Now()
		}
	}
}
