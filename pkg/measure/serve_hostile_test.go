package measure

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServeTrickler: a client that announces a large ping-pong and then
// trickles bytes used to hold its session for over 11 minutes; the message
// deadline (Timeout + bytes so far/MinRate, checked at every chunk) cuts it
// off. (TestServeTricklerCutEarly announces 256 MiB.)
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
	cl := &Client{Addr: s.Addr(), Timeout: time.Second, BusyWait: 300 * time.Millisecond}
	_, err = cl.PingPong(context.Background(), 8, RepeatConfig{Warmup: 1, MinIterations: 1, MaxIterations: 1, Budget: time.Second})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "stayed busy") {
		t.Errorf("past MaxConns: %v, want ErrBusy after some tries", err)
	}
	// The check before a run (measure --target): a busy peer is there, and
	// passes after one try, not after DefaultBusyWait of them (it once
	// kept a run of --budget 5s going 30 s); the probes wait within their
	// budgets.
	start := time.Now()
	if err := CheckPeer(context.Background(), s.Addr(), time.Second); err != nil {
		t.Errorf("CheckPeer of a busy peer: %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("CheckPeer of a busy peer took %v", d)
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

// helloBytes is a ping-pong hello announcing size-byte messages.
func helloBytes(size uint64) []byte {
	h := make([]byte, helloLen)
	copy(h, magicHello[:])
	binary.LittleEndian.PutUint16(h[4:], protoVersion)
	binary.LittleEndian.PutUint16(h[6:], modePingPong)
	binary.LittleEndian.PutUint64(h[8:], size)
	return h
}

// dialFrom connects to addr from source address src (127.0.0.0/8).
func dialFrom(ctx context.Context, src, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	return d.DialContext(ctx, "tcp", addr)
}

// honestRound is one honest client's round from 127.0.0.1: a hello (after
// delay), 10 round trips of size bytes, the trailer; one try, no retry.
func honestRound(addr string, size int, delay time.Duration) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	time.Sleep(delay)
	if _, err := c.Write(helloBytes(uint64(size))); err != nil {
		return err
	}
	var w [8]byte
	if _, err := io.ReadFull(c, w[:]); err != nil {
		return fmt.Errorf("no welcome: %w", err)
	}
	if st := binary.LittleEndian.Uint16(w[6:]); st != welcomeOK {
		return fmt.Errorf("welcome status %d (2: busy)", st)
	}
	msg := make([]byte, size)
	for i := 0; i < 10; i++ {
		if _, err := c.Write(msg); err != nil {
			return err
		}
		if _, err := io.ReadFull(c, msg); err != nil {
			return err
		}
	}
	c.(*net.TCPConn).CloseWrite()
	var tr [trailerLen]byte
	if _, err := io.ReadFull(c, tr[:]); err != nil {
		return fmt.Errorf("no trailer: %w", err)
	}
	if binary.LittleEndian.Uint64(tr[8:]) != 10 {
		return fmt.Errorf("trailer counts %d round trips", binary.LittleEndian.Uint64(tr[8:]))
	}
	return nil
}

// idleSockets keeps n connections from src open that send nothing, each
// reopened as soon as the server closes it, until ctx ends; it returns the
// number of connections opened so far.
func idleSockets(ctx context.Context, t *testing.T, n int, src, addr string) *atomic.Int64 {
	var opened atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				c, err := dialFrom(ctx, src, addr)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				opened.Add(1)
				stop := context.AfterFunc(ctx, func() { c.Close() })
				io.Copy(io.Discard, c) // until the server closes it
				stop()
				c.Close()
			}
		}()
	}
	t.Cleanup(wg.Wait)
	return &opened
}

// waitOpened waits until at least n connections were opened.
func waitOpened(t *testing.T, opened *atomic.Int64, n int64) {
	t.Helper()
	for start := time.Now(); opened.Load() < n; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("only %d hostile connections opened", opened.Load())
		}
	}
	time.Sleep(50 * time.Millisecond) // and accepted
}

// TestServeIdleSockets: more idle connections than sessions, each reopened
// when closed, from the honest client's own address, used to take every
// session slot at accept and hold it for the whole hello timeout, so that
// every honest client was answered "busy". Now a connection takes a slot
// only with its hello, the pending ones are bounded apart and the oldest
// idle one is closed for a newcomer: every honest round is served.
//
// The hello timeout is 5 s, so that a connection is not closed in its first
// 50 ms: the honest client's hello comes right after its connect, but a
// loaded 2-core machine may stall it for some milliseconds in between.
func TestServeIdleSockets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: churning idle sockets")
	}
	s, err := Listen(context.Background(), ServerConfig{Timeout: 2 * time.Second, HelloTimeout: 5 * time.Second, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opened := idleSockets(ctx, t, 16, "127.0.0.1", s.Addr())
	waitOpened(t, opened, 16)
	for i := 0; i < 10; i++ {
		if err := honestRound(s.Addr(), 64, 0); err != nil {
			t.Fatalf("honest round %d beside 16 idle sockets: %v", i+1, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeIdleOtherSource: idle sockets from another address fill only
// their own source's share of the pending connections, so an honest client
// whose hello comes late (it is pending meanwhile) is not closed for them.
func TestServeIdleOtherSource(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: 2 * time.Second, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opened := idleSockets(ctx, t, 16, "127.0.0.2", s.Addr())
	waitOpened(t, opened, 16)
	for i := 0; i < 5; i++ {
		if err := honestRound(s.Addr(), 64, 100*time.Millisecond); err != nil {
			t.Fatalf("honest round %d (hello after 100 ms) beside 16 idle sockets of another address: %v", i+1, err)
		}
	}
	if _, pending, _, evicted := s.counts(); evicted == 0 || pending > 3 {
		t.Errorf("%d pending, %d evicted: want at most 2 of 127.0.0.2 (a quarter of 4 × MaxConns) and evictions", pending, evicted)
	}
}

// TestServePerSource: one address holds at most MaxPerSource sessions;
// another still gets in.
func TestServePerSource(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: 2 * time.Second, MaxConns: 4, MaxPerSource: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	status := func(c net.Conn) uint16 {
		c.Write(helloBytes(8))
		var w [8]byte
		if _, err := io.ReadFull(c, w[:]); err != nil {
			t.Fatalf("no welcome: %v", err)
		}
		return binary.LittleEndian.Uint16(w[6:])
	}
	for i := 0; i < 3; i++ {
		c, err := dialFrom(context.Background(), "127.0.0.2", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		want := uint16(welcomeOK)
		if i == 2 {
			want = welcomeBusy
		}
		if st := status(c); st != want {
			t.Fatalf("session %d of 127.0.0.2: welcome %d, want %d", i+1, st, want)
		}
	}
	if err := honestRound(s.Addr(), 64, 0); err != nil {
		t.Errorf("127.0.0.1 beside 2 sessions of 127.0.0.2: %v", err)
	}
}

// trickler announces a size-byte ping-pong from 127.0.0.1 and trickles
// 1,000 bytes every 100 ms; it returns when the server closes the
// connection (true, with how long it held it) or after hold (false).
func trickler(t *testing.T, addr string, size uint64, hold time.Duration, admitted chan<- bool) (bool, time.Duration) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		admitted <- false
		return false, 0
	}
	defer c.Close()
	c.Write(helloBytes(size))
	var w [8]byte
	if _, err := io.ReadFull(c, w[:]); err != nil || binary.LittleEndian.Uint16(w[6:]) != welcomeOK {
		admitted <- false
		return false, 0
	}
	admitted <- true
	start := time.Now()
	closed := make(chan struct{})
	go func() { io.Copy(io.Discard, c); close(closed) }()
	for time.Since(start) < hold {
		c.Write(make([]byte, 1000))
		select {
		case <-closed:
			return true, time.Since(start)
		case <-time.After(100 * time.Millisecond):
		}
	}
	return false, time.Since(start)
}

// TestServeTricklersBuffers: four clients that announce large messages and
// trickle used to hold the buffer budget as announced (4 × 4 MiB of a
// 16 MiB budget), so an honest 2 MiB ping-pong was answered "busy". Now the
// budget is taken as the data arrives: the honest client is served beside
// them.
func TestServeTricklersBuffers(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits on trickling clients")
	}
	s, err := Listen(context.Background(), ServerConfig{Timeout: 2 * time.Second, MaxBuffers: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	admitted := make(chan bool, 4)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); trickler(t, s.Addr(), 4<<20, 3*time.Second, admitted) }()
	}
	defer wg.Wait()
	for i := 0; i < 4; i++ {
		if !<-admitted {
			t.Fatal("a trickler was not admitted")
		}
	}
	if err := honestRound(s.Addr(), 2<<20, 0); err != nil {
		t.Errorf("honest 2 MiB ping-pong beside 4 tricklers of 4 MiB: %v", err)
	}
}

// TestServeTricklerCutEarly: a client that announces 256 MiB and trickles
// was allowed Timeout + 2 × 256 MiB / MinRate (about 54 s at 10 MB/s)
// before it was cut; now every chunk must keep to the rate, so it is cut
// at its first chunk: Timeout + 1 MiB / MinRate (0.4 s here).
func TestServeTricklerCutEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits on a trickling client")
	}
	s, err := Listen(context.Background(), ServerConfig{Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	admitted := make(chan bool, 1)
	cut, held := trickler(t, s.Addr(), 256<<20, 8*time.Second, admitted)
	if !<-admitted {
		t.Fatal("not admitted")
	}
	if !cut || held > 5*time.Second {
		t.Errorf("the 256 MiB trickler held its session for %v (cut: %v), want about 0.4 s", held, cut)
	}
}

// TestClientRetriesBusy: the client tries a busy server again, with
// backoff, until a session frees (it used to fail at the first "busy").
func TestClientRetriesBusy(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: 2 * time.Second, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	hold, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	hold.Write(helloBytes(8))
	var w [8]byte
	io.ReadFull(hold, w[:])
	time.AfterFunc(300*time.Millisecond, func() { hold.Close() })
	cl := &Client{Addr: s.Addr(), Timeout: 2 * time.Second}
	if _, err := cl.PingPong(context.Background(), 8, RepeatConfig{Warmup: 1, MinIterations: 1, MaxIterations: 1, Budget: time.Second}); err != nil {
		t.Errorf("after the one session ended: %v", err)
	}
}

// TestBusyWaitEndsWithTheBudget: a busy peer is waited for until the
// probe's budget ends (Client.Until), not the 30 s of BusyWait, and the
// wait that reaches it is ErrBudgetSpent (the runner's partial probe):
// a busy peer made a 5 s measure run 17.5 s and fail.
func TestBusyWaitEndsWithTheBudget(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: 2 * time.Second, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go s.Serve(context.Background())
	hold, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Close()
	hold.Write(helloBytes(8))
	var w [8]byte
	io.ReadFull(hold, w[:])
	start := time.Now()
	cl := &Client{Addr: s.Addr(), Timeout: 2 * time.Second, Until: start.Add(300 * time.Millisecond)}
	_, err = cl.PingPong(context.Background(), 8, RepeatConfig{Warmup: 1, MinIterations: 1, MaxIterations: 1, Budget: time.Second})
	if !errors.Is(err, ErrBudgetSpent) || !errors.Is(err, ErrBusy) {
		t.Fatalf("error %v, want ErrBudgetSpent and ErrBusy", err)
	}
	// 30 s is BusyWait's; the budget's end is 0.3 s away (10× slack).
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("waited %v for a busy peer with 0.3 s of budget left", d)
	}
}

// A stream hello asking for more bytes between acks than any client does
// (2^64−1) is refused, not admitted and logged as a negative size.
func TestServeRefusesHugeStreamChunk(t *testing.T) {
	s, err := Listen(context.Background(), ServerConfig{Timeout: time.Second})
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
	binary.LittleEndian.PutUint16(h[6:], modeStream)
	binary.LittleEndian.PutUint64(h[8:], 8)
	binary.LittleEndian.PutUint64(h[16:], math.MaxUint64)
	c.Write(h)
	var w [8]byte
	if _, err := io.ReadFull(c, w[:]); err != nil || binary.LittleEndian.Uint16(w[6:]) != welcomeBad {
		t.Fatalf("welcome %v %v, want refused", w, err)
	}
}
