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
	helloLen   = 32
	trailerLen = 32
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
	// past it gets a "busy" welcome and is closed.
	MaxConns int
	// MaxConnTime bounds the life of one connection (default 10m), checked
	// on every read and write.
	MaxConnTime time.Duration
	// MinRate is the slowest a client may deliver one message, in bytes per
	// second (default 10 MB/s): each message must arrive within Timeout +
	// size/MinRate, or the connection is cut. A client that trickles bytes
	// cannot hold a session.
	MinRate float64
	// MaxBuffers bounds the message buffers of all sessions together
	// (default 1 GiB); messages up to 1 MiB do not count. A hello whose
	// buffer does not fit gets a "busy" welcome.
	MaxBuffers int64
	// Socket options for accepted connections.
	Socket SocketOptions
	// OnSession, when set, is told about every session that got past its
	// hello, when it ends: what the receiving side measured, so that a
	// paired peer can send it back (pair.go). Called from the session's
	// goroutine.
	OnSession func(Session)
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
	sem             chan struct{}
	// buffered is the bytes of large message buffers held; live the
	// sessions being served; both guarded by mu.
	buffered int64
	live     map[*rawsock.Conn]struct{}
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
		cfg:  cfg,
		ln:   ln,
		stop: make(chan struct{}),
		done: make(chan struct{}),
		sem:  make(chan struct{}, cfg.MaxConns),
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
		select {
		case s.sem <- struct{}{}:
		default:
			// Too many at once: say so, within a short deadline, and close.
			go func() {
				c.SetUntil(time.Now().Add(time.Second))
				var hello [helloLen]byte
				c.ReadFull(hello[:])
				c.WriteAll(welcome(welcomeBusy))
				c.Close()
			}()
			continue
		}
		s.wg.Add(1)
		s.track(c, true)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.sem }()
			defer s.track(c, false)
			s.handle(c)
		}()
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

// handle serves one connection on its own OS thread, so that its thread CPU
// time is the cost of this connection alone.
func (s *Server) handle(c *rawsock.Conn) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer c.Close()
	// The hello must come within one timeout, whatever the peer trickles.
	c.SetUntil(time.Now().Add(s.cfg.Timeout))
	var hello [helloLen]byte
	if err := c.ReadFull(hello[:]); err != nil {
		return
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
		(mode != modeStaged || (chunk <= size && flows >= 1 && flows <= maxFlows && flow < flows &&
			uint64(flow) < (size+chunk-1)/chunk))
	if !ok {
		c.WriteAll(welcome(welcomeBad))
		return
	}
	// A staged session holds its stripe of the transfer and one chunk.
	hold := int64(size)
	if mode == modeStaged {
		hold = stripeBytes(int64(size), int64(chunk), flow, flows) + int64(chunk)
	}
	if !s.reserve(hold) {
		c.WriteAll(welcome(welcomeBusy))
		return
	}
	defer s.release(hold)
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
	}
	if mode == modeStaged {
		// A transfer's stripe must arrive at MinRate.
		lim.message = s.cfg.Timeout + time.Duration(min(float64(hold)/s.cfg.MinRate, 3600)*float64(time.Second))
	}
	t0 := time.Now()
	u0, s0 := ThreadCPU()
	var count, bad uint64
	var err error
	switch mode {
	case modePingPong:
		count, err = servePingPong(c, int(size), lim)
	case modeStream:
		count, err = serveStream(c, int(size), chunk, lim)
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

// track adds (on) or removes a live session.
func (s *Server) track(c *rawsock.Conn, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.live == nil {
		s.live = map[*rawsock.Conn]struct{}{}
	}
	if on {
		s.live[c] = struct{}{}
	} else {
		delete(s.live, c)
	}
}

// shutdownLive ends every live session's socket in both directions.
func (s *Server) shutdownLive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.live {
		c.Shutdown()
	}
}

func welcome(status uint16) []byte {
	var w [8]byte
	copy(w[:], magicHello[:])
	binary.LittleEndian.PutUint16(w[4:], protoVersion)
	binary.LittleEndian.PutUint16(w[6:], status)
	return w[:]
}

// reserve takes size bytes of the buffer budget for a large message; small
// ones always fit.
func (s *Server) reserve(size int64) bool {
	if size <= smallMessage {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buffered+size > s.cfg.MaxBuffers {
		return false
	}
	s.buffered += size
	return true
}

func (s *Server) release(size int64) {
	if size <= smallMessage {
		return
	}
	s.mu.Lock()
	s.buffered -= size
	s.mu.Unlock()
}

// connLimits are the time limits of one session: its end, and the time one
// message (or, in a stream, one chunk's worth of reads) may take.
type connLimits struct {
	end     time.Time
	message time.Duration
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
// at a message boundary; it returns the number of round trips.
func servePingPong(c *rawsock.Conn, size int, lim connLimits) (uint64, error) {
	buf := make([]byte, size)
	var n uint64
	for {
		if time.Now().After(lim.end) {
			return n, errConnTooLong
		}
		lim.next(c)
		if err := c.ReadFull(buf); err != nil {
			if err == io.EOF {
				return n, nil
			}
			return n, err
		}
		if err := c.WriteAll(buf); err != nil {
			return n, err
		}
		n++
	}
}

// serveStream reads and discards the stream in reads of up to size bytes and
// acknowledges every chunk; it returns the number of bytes received.
func serveStream(c *rawsock.Conn, size int, chunk uint64, lim connLimits) (uint64, error) {
	buf := make([]byte, size)
	var got uint64
	next := chunk
	var ack [8]byte
	lim.next(c) // moved on at every acknowledged chunk

	for {
		if time.Now().After(lim.end) {
			return got, errConnTooLong
		}
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
			lim.next(c)
		}
	}
}
