package measure

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// TestServeTrickler: a client that announces a large ping-pong and then
// trickles bytes used to hold its session for over 11 minutes (issue 12);
// now the message deadline (Timeout + 2·size/MinRate) cuts it off.
//
// The announced size is 16 MiB, not 256 MiB: the server allocates the
// message buffer before its deadline starts, and under the race detector on
// CI's 2-core machine 256 MiB took over a second to allocate and fault in
// (the session was cut after 2.04 s against a 0.84 s limit).
func TestServeTrickler(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits on a trickling client")
	}
	s, err := Listen(context.Background(), ServerConfig{Timeout: 300 * time.Millisecond, MinRate: 1e8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := make([]byte, helloLen)
	copy(h, magicHello[:])
	binary.LittleEndian.PutUint16(h[4:], protoVersion)
	binary.LittleEndian.PutUint16(h[6:], modePingPong)
	binary.LittleEndian.PutUint64(h[8:], 16<<20)
	c.Write(h)
	var w [8]byte
	if _, err := io.ReadFull(c, w[:]); err != nil || binary.LittleEndian.Uint16(w[6:]) != welcomeOK {
		t.Fatalf("welcome %v %v", w, err)
	}
	// Limit: 0.3 s + 2 × 16 MiB / 100 MB/s ≈ 0.64 s. Trickle for up to 10 s:
	// without the deadline the session lasts all 10 s.
	start := time.Now()
	for time.Since(start) < 10*time.Second {
		if _, err := c.Write(make([]byte, 1000)); err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := c.Read(w[:1]); err != nil && !errors.Is(err, errTimeoutNet(err)) {
			break // closed by the server
		}
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("the trickler held its session for %v", d)
	}
}

// errTimeoutNet returns err itself when it is a timeout (the probe read),
// so errors.Is matches only timeouts.
func errTimeoutNet(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return err
	}
	return errors.New("not a timeout")
}

// TestServeBusy: past MaxConns sessions and past MaxBuffers the server
// answers "busy" and the client's error says so (ErrBusy).
func TestServeBusy(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: time.Second, MaxConns: 1, MaxBuffers: 2 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	// Hold the one slot with an idle session.
	hold, _ := net.Dial("tcp", s.Addr())
	defer hold.Close()
	h := make([]byte, helloLen)
	copy(h, magicHello[:])
	binary.LittleEndian.PutUint16(h[4:], protoVersion)
	binary.LittleEndian.PutUint16(h[6:], modePingPong)
	binary.LittleEndian.PutUint64(h[8:], 8)
	hold.Write(h)
	var w [8]byte
	io.ReadFull(hold, w[:])
	cl := &Client{Addr: s.Addr(), Timeout: time.Second}
	_, err = cl.PingPong(context.Background(), 8, RepeatConfig{Warmup: 1, MinIterations: 1, MaxIterations: 1, Budget: time.Second})
	if !errors.Is(err, ErrBusy) {
		t.Errorf("past MaxConns: %v, want ErrBusy", err)
	}
}

// TestServeStopsSessions: when its context ends, Serve returns promptly
// even while a session is in the middle of a large message (issue 12,
// item 4: it used to wait for every connection's own deadline).
func TestServeStopsSessions(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := make([]byte, helloLen)
	copy(h, magicHello[:])
	binary.LittleEndian.PutUint16(h[4:], protoVersion)
	binary.LittleEndian.PutUint16(h[6:], modePingPong)
	binary.LittleEndian.PutUint64(h[8:], 64<<20)
	c.Write(h)
	var w [8]byte
	io.ReadFull(c, w[:])
	c.Write(make([]byte, 1000)) // the server now waits for the rest of 64 MiB
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	cancel()
	select {
	case <-done:
		if d := time.Since(start); d > time.Second {
			t.Errorf("Serve returned %v after the cancel", d)
		}
	case <-time.After(4 * time.Second):
		t.Fatal("Serve still waits on its session 4 s after the cancel")
	}
}
