package measure

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gpupath/gpupath/pkg/record"
)

// startPair serves rank 0 on loopback and returns its address and the
// channel of Serve's outcome.
func startPair(t *testing.T, version string, wait time.Duration) (string, chan error) {
	t.Helper()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	ps := &PairServer{Listen: "127.0.0.1:0", Hello: PairHello{Tool: "gpupath", Version: version, Host: record.Host{Hostname: "zero"}},
		Wait: wait, Timeout: 2 * time.Second, Heartbeat: 100 * time.Millisecond,
		Listening: func(a string) error { addrc <- a; return nil }}
	go func() { _, err := ps.Serve(context.Background()); errc <- err }()
	select {
	case a := <-addrc:
		return a, errc
	case err := <-errc:
		t.Fatal(err)
	}
	return "", nil
}

// A pair on loopback: hellos, a staged transfer against rank 0's server,
// done, and rank 0's report of what its server measured.
func TestPairLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a real pair over TCP")
	}
	addr, errc := startPair(t, "1.0", 5*time.Second)
	pc, err := DialPair(context.Background(), addr, PairHello{Tool: "gpupath", Version: "1.0", Host: record.Host{Hostname: "one"}}, 5*time.Second, 2*time.Second, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if pc.Peer.Host.Hostname != "zero" || pc.Peer.Data == "" {
		t.Fatalf("rank 0's hello: %+v", pc.Peer)
	}
	c := &Client{Addr: pc.Peer.Data, Timeout: 2 * time.Second}
	if _, err := c.Staged(context.Background(), 1<<20, 256<<10, 2, false, RepeatConfig{Budget: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	// Longer than HeartbeatMiss heartbeats: the pings keep both sides up.
	time.Sleep(700 * time.Millisecond)
	ss, err := pc.Done()
	if err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("rank 0: %v", err)
	}
	var got uint64
	for _, s := range ss {
		if s.Mode != "staged" || s.Flows != 2 || s.Mismatches != 0 {
			t.Errorf("session %+v", s)
		}
		got += s.Count
	}
	if len(ss) != 2 || got == 0 || got%(1<<20) != 0 {
		t.Errorf("%d sessions, %d bytes", len(ss), got)
	}
}

// Another version is refused on both sides, both versions named.
func TestPairOtherVersion(t *testing.T) {
	addr, errc := startPair(t, "1.0", 5*time.Second)
	_, err := DialPair(context.Background(), addr, PairHello{Tool: "gpupath", Version: "2.0"}, 5*time.Second, 2*time.Second, 0)
	if err == nil || !strings.Contains(err.Error(), "1.0") || !strings.Contains(err.Error(), "2.0") {
		t.Errorf("rank 1: %v", err)
	}
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "2.0") {
		t.Errorf("rank 0: %v", err)
	}
}

// Rank 1 that goes away without done: rank 0 says so.
func TestPairPeerVanishes(t *testing.T) {
	addr, errc := startPair(t, "1.0", 5*time.Second)
	pc, err := DialPair(context.Background(), addr, PairHello{Tool: "gpupath", Version: "1.0"}, 5*time.Second, 2*time.Second, 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	pc.Close()
	if err := <-errc; !errors.Is(err, ErrPeerLost) {
		t.Errorf("rank 0: %v, want ErrPeerLost", err)
	}
}

// Garbage, and a frame too long, are not the protocol.
func TestPairGarbage(t *testing.T) {
	for _, junk := range []string{"GET / HTTP/1.0\r\n\r\n", "GPPC\xff\xff\xff\xff", "G"} {
		addr, errc := startPair(t, "1.0", 5*time.Second)
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(junk))
		if junk == "G" {
			c.Close()
		}
		err = <-errc
		c.Close()
		if junk != "G" && !errors.Is(err, ErrNotGpupath) {
			t.Errorf("%q: %v, want ErrNotGpupath", junk, err)
		}
		if err == nil {
			t.Errorf("%q: accepted", junk)
		}
	}
}

// Nobody comes: a bounded wait.
func TestPairNobodyComes(t *testing.T) {
	t0 := time.Now()
	_, errc := startPair(t, "1.0", 300*time.Millisecond)
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "did not come") {
		t.Errorf("rank 0: %v", err)
	}
	if el := time.Since(t0); el > 3*time.Second {
		t.Errorf("waited %v", el)
	}
}

// FuzzReadPair: whatever arrives on the control port, readPair returns a
// message or an error, never panics, and never reads past its frame limit.
func FuzzReadPair(f *testing.F) {
	good, _ := json.Marshal(PairMessage{Type: "hello", Hello: &PairHello{Tool: "gpupath", Version: "1"}})
	frame := append([]byte("GPPC\x00\x00\x00\x00"), good...)
	binary.LittleEndian.PutUint32(frame[4:], uint32(len(good)))
	for _, seed := range [][]byte{frame, []byte("GET / HTTP/1.0\r\n\r\n"), []byte("GPPC\xff\xff\xff\xff"), []byte("GP"), {}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, c := net.Pipe()
		defer a.Close()
		go func() { c.Write(b); c.Close() }()
		m, err := readPair(a, time.Second)
		if err == nil && m.Type == "" && len(b) < 8 {
			t.Errorf("%q: a message from less than a header", b)
		}
	})
}
