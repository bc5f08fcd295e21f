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
//	server → client  welcome  8 bytes: "GPTP", version u16, status u16 (0 ok)
//	pingpong: client sends size bytes, server sends them back; repeated
//	stream:   client sends chunk bytes in writes of size, server answers each
//	          chunk with an 8-byte ack (its running byte count)
//	client    shutdown(SHUT_WR) at a message boundary
//	server → client  trailer 32 bytes: "GPTE", 0 u32, count u64, user ns u64, sys ns u64
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
	// MaxConns bounds the connections served at once (default 4); further
	// clients are closed at once.
	MaxConns int
	// MaxConnTime bounds the life of one connection (default 10m).
	MaxConnTime time.Duration
	// Socket options for accepted connections.
	Socket SocketOptions
}

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
}

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
		cfg.MaxConns = 4
	}
	if cfg.MaxConnTime <= 0 {
		cfg.MaxConnTime = 10 * time.Minute
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
			c.Close() // too many at once
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.sem }()
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
	var hello [helloLen]byte
	if err := c.ReadFull(hello[:]); err != nil {
		return
	}
	mode := binary.LittleEndian.Uint16(hello[6:])
	size := binary.LittleEndian.Uint64(hello[8:])
	chunk := binary.LittleEndian.Uint64(hello[16:])
	var welcome [8]byte
	copy(welcome[:], magicHello[:])
	binary.LittleEndian.PutUint16(welcome[4:], protoVersion)
	ok := [4]byte(hello[:4]) == magicHello &&
		binary.LittleEndian.Uint16(hello[4:]) == protoVersion &&
		(mode == modePingPong || mode == modeStream) &&
		size >= 1 && size <= maxMessage &&
		(mode == modePingPong || chunk >= 1)
	if !ok {
		binary.LittleEndian.PutUint16(welcome[6:], 1)
		c.WriteAll(welcome[:])
		return
	}
	if err := c.WriteAll(welcome[:]); err != nil {
		return
	}
	deadline := time.Now().Add(s.cfg.MaxConnTime)
	u0, s0 := ThreadCPU()
	var count uint64
	var err error
	if mode == modePingPong {
		count, err = servePingPong(c, int(size), deadline)
	} else {
		count, err = serveStream(c, int(size), chunk, deadline)
	}
	u1, s1 := ThreadCPU()
	if err != nil {
		return
	}
	var tr [trailerLen]byte
	copy(tr[:], magicTrailer[:])
	binary.LittleEndian.PutUint64(tr[8:], count)
	binary.LittleEndian.PutUint64(tr[16:], nanos(u1-u0))
	binary.LittleEndian.PutUint64(tr[24:], nanos(s1-s0))
	c.WriteAll(tr[:])
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
func servePingPong(c *rawsock.Conn, size int, deadline time.Time) (uint64, error) {
	buf := make([]byte, size)
	var n uint64
	for {
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
		if n%256 == 0 && time.Now().After(deadline) {
			return n, errConnTooLong
		}
	}
}

// serveStream reads and discards the stream in reads of up to size bytes and
// acknowledges every chunk; it returns the number of bytes received.
func serveStream(c *rawsock.Conn, size int, chunk uint64, deadline time.Time) (uint64, error) {
	buf := make([]byte, size)
	var got uint64
	next := chunk
	var ack [8]byte
	reads := 0
	for {
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
		}
		reads++
		if reads%256 == 0 && time.Now().After(deadline) {
			return got, errConnTooLong
		}
	}
}
