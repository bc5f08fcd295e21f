package measure

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gpupath/gpupath/internal/rawsock"
	"github.com/gpupath/gpupath/pkg/record"
	"github.com/gpupath/gpupath/pkg/units"
)

// startServer runs a loopback Server for the test.
func startServer(t *testing.T, cfg ServerConfig) *Server {
	t.Helper()
	s, err := Listen(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go s.Serve(ctx)
	t.Cleanup(func() { cancel(); s.Close() })
	return s
}

func TestTCPPingPongAndStream(t *testing.T) {
	s := startServer(t, ServerConfig{})
	c := &Client{Addr: s.Addr(), Timeout: 2 * time.Second}
	ex, err := c.PingPong(context.Background(), 64, RepeatConfig{Budget: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// PingPong itself checks that the server echoed as many messages as were sent.
	if ex.Stats.Iterations < 5 || ex.Stats.Median <= 0 || ex.Stats.Median > 0.01 || ex.Messages < int64(ex.Stats.Iterations) {
		t.Errorf("ping-pong stats %+v, %d messages", ex.Stats, ex.Messages)
	}
	if ex.Client.Total() <= 0 || ex.Server.Total() <= 0 || ex.MSS <= 0 || ex.Bytes != 64*ex.Messages {
		t.Errorf("ping-pong cpu %+v %+v mss %d bytes %d", ex.Client, ex.Server, ex.MSS, ex.Bytes)
	}
	c.StreamIteration = 10 * time.Millisecond
	ex, err = c.Stream(context.Background(), 64<<10, RepeatConfig{Budget: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if ex.Chunk%(64<<10) != 0 || ex.Bytes < int64(ex.Stats.Iterations)*ex.Chunk || ex.Bytes%ex.Chunk != 0 {
		t.Errorf("stream chunk %d bytes %d iterations %d", ex.Chunk, ex.Bytes, ex.Stats.Iterations)
	}
	if rate := float64(ex.Chunk) / ex.Stats.Median; rate < 10e6 {
		t.Errorf("loopback stream at %s", units.Rate(rate).Compact())
	}
	if ex.Messages*(64<<10) != ex.Bytes {
		t.Errorf("%d writes of 64KiB for %d bytes", ex.Messages, ex.Bytes)
	}
	if err := CheckPeer(context.Background(), s.Addr(), time.Second); err != nil {
		t.Errorf("CheckPeer of a live server: %v", err)
	}
}

func TestTCPProbeLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real TCP probes")
	}
	p, _ := New("tcp", Env{})
	var rs []record.Result
	plan := Plan{Budget: 2 * time.Second, Sizes: []int64{1, 64 << 10}, Target: "loopback"}
	if n := p.(Stepper).Steps(plan); n != 4 {
		t.Errorf("steps %d, want 4", n)
	}
	err := p.Run(context.Background(), plan, func(r record.Result) error { rs = append(rs, r); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d records", len(rs))
	}
	for _, r := range rs {
		if r.Target != "loopback" || r.Path != "host-tcp" || r.CPUScope == "" || r.CPUUserS+r.CPUSysS <= 0 ||
			r.ThroughputBps <= 0 || r.MedianS <= 0 || r.P99S < r.MedianS || r.MinS > r.MedianS {
			t.Errorf("record %+v", r)
		}
	}
	pp, st := rs[1], rs[3]
	if pp.Variant != "pingpong" || math.Abs(pp.Extra["rtt_median_s"]-2*pp.MedianS) > 1e-15 {
		t.Errorf("ping-pong record %+v", pp)
	}
	if st.Variant != "stream" || st.Extra["cpu_s_per_byte"] <= 0 ||
		math.Abs(st.ThroughputBps-float64(st.Bytes)/st.MedianS)/st.ThroughputBps > 1e-9 {
		t.Errorf("stream record %+v", st)
	}
}

func TestTCPListenOnlyLoopbackUnlessAsked(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0"} {
		s, err := Listen(context.Background(), ServerConfig{Addr: addr})
		if err == nil {
			s.Close()
			t.Errorf("Listen(%q) without AllowNonLoopback succeeded", addr)
		}
	}
	// The probe's own server is on loopback.
	s := startServer(t, ServerConfig{})
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Errorf("default server address %s", s.Addr())
	}
}

func TestTCPPortInUse(t *testing.T) {
	s := startServer(t, ServerConfig{})
	_, err := Listen(context.Background(), ServerConfig{Addr: s.Addr()})
	if err == nil || !errors.Is(err, unix.EADDRINUSE) || !strings.Contains(err.Error(), "port in use") {
		t.Errorf("second Listen on %s: %v", s.Addr(), err)
	}
}

// A peer that accepts the connection and then says nothing: the handshake
// must time out within the configured timeout.
func TestTCPSilentPeerTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	c := &Client{Addr: ln.Addr().String(), Timeout: 300 * time.Millisecond}
	start := time.Now()
	_, err = c.PingPong(context.Background(), 64, RepeatConfig{})
	el := time.Since(start)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("err = %v", err)
	}
	if el < 250*time.Millisecond || el > time.Second {
		t.Errorf("gave up after %v with a 300ms timeout", el)
	}
}

// A peer whose accept queue is full drops the SYN: connect itself must time out.
func TestTCPConnectTimesOut(t *testing.T) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil { // never accepted
		t.Fatal(err)
	}
	sa, _ := unix.Getsockname(fd)
	addr := rawsock.AddrPortOf(sa).String()
	// Fill the accept queue (backlog 0 holds one) with connections that stay.
	var fill []*rawsock.Conn
	defer func() {
		for _, c := range fill {
			c.Close()
		}
	}()
	for i := 0; i < 4; i++ {
		c, err := rawsock.Dial(context.Background(), addr, "", 200*time.Millisecond, SocketOptions{})
		if err != nil {
			break
		}
		fill = append(fill, c)
	}
	start := time.Now()
	err = CheckPeer(context.Background(), addr, 400*time.Millisecond)
	el := time.Since(start)
	if err == nil || !errors.Is(err, ErrTimeout) {
		t.Errorf("err = %v, want a timeout", err)
	}
	if el > 1200*time.Millisecond {
		t.Errorf("gave up after %v with a 400ms timeout", el)
	}
}

func TestTCPNotAGpupathPeer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n")
		time.Sleep(time.Second)
	}()
	err = CheckPeer(context.Background(), ln.Addr().String(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "not a gpupath server") {
		t.Errorf("err = %v", err)
	}
}

// The server drops a client that goes quiet, after its timeout.
func TestTCPServerIdleTimeout(t *testing.T) {
	s := startServer(t, ServerConfig{Timeout: 200 * time.Millisecond})
	conn, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	start := time.Now()
	_, err = conn.Read(make([]byte, 8)) // no hello sent: the server must hang up
	if el := time.Since(start); err == nil || el > 2*time.Second {
		t.Errorf("read %v after %v", err, el)
	}
	// A bad hello is refused with a status.
	conn2, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	conn2.Write([]byte(strings.Repeat("x", helloLen)))
	conn2.SetReadDeadline(time.Now().Add(3 * time.Second))
	w := make([]byte, 8)
	if _, err := io.ReadFull(conn2, w); err != nil || string(w[:4]) != "GPTP" || w[6] != 1 {
		t.Errorf("bad hello answered %q, %v", w, err)
	}
}

// TestTCPStreamShapedVeth is the ground truth of the streaming probe: a
// veth link between two network namespaces shaped with tbf to a known rate.
//
// What "rate" means: tbf meters every packet by its length at the qdisc,
// which on a veth (an Ethernet device) is the frame without preamble and
// FCS: payload + TCP header (20 B + 12 B of timestamp option) + IPv4 header
// (20 B) + Ethernet header (14 B). With MTU 1500 a full segment carries
// MSS = 1448 B of payload in 1514 B, so the probe's goodput is
// rate × 1448/1514 = 95.6% of the shaped rate; the test computes this from
// the connection's actual MSS and options (TCP_INFO), not from a constant.
// ACKs go the other way, on the unshaped side. tbf burst is max(64 KiB,
// 4 ms at the rate) so one burst cannot skew a 50 ms sample by more than
// a few tenths of a percent, and the queue limit (latency 20ms) is deep
// enough that TCP never loses a packet to it.
func TestTCPStreamShapedVeth(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real TCP through a shaped veth pair")
	}
	if err := VethAvailable(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	for _, rate := range []string{"1Gbit/s", "300Mbit/s"} {
		t.Run(strings.ReplaceAll(rate, "/", "_"), func(t *testing.T) {
			p, _ := New("tcp", Env{})
			var rs []record.Result
			plan := Plan{Budget: 3 * time.Second, Target: "veth", Sizes: []int64{128 << 10},
				Options: map[string]string{"rate": rate, "variants": "stream"}}
			if err := p.Run(context.Background(), plan, func(r record.Result) error { rs = append(rs, r); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 {
				t.Fatalf("%d records", len(rs))
			}
			r := rs[0]
			sr, _ := units.ParseRate(rate)
			shaped := float64(sr)
			mss := int(r.Extra["mss"])
			hdr := int(r.Extra["tcp_header_bytes"])
			if mss < 1000 || mss > 1460 || (hdr != 40 && hdr != 52) {
				t.Fatalf("mss %d, header %d: not a 1500-byte MTU Ethernet link", mss, hdr)
			}
			want := shaped * float64(mss) / float64(mss+hdr+14)
			if math.Abs(r.Extra["expected_goodput_Bps"]-want) > 1 {
				t.Errorf("record's expected goodput %v, want %v", r.Extra["expected_goodput_Bps"], want)
			}
			got := r.ThroughputBps
			dev := got/want - 1
			t.Logf("shaped %s: goodput %s, expected %s (mss %d, headers %d+14), deviation %+.2f%%, %d samples, %v retransmits",
				rate, units.Rate(got).CompactBits(), units.Rate(want).CompactBits(), mss, hdr, 100*dev, r.Iterations, r.Extra["retransmits"])
			if math.Abs(dev) > 0.05 {
				t.Errorf("goodput %s is %.1f%% off the shaped rate's %s", units.Rate(got).CompactBits(), 100*dev, units.Rate(want).CompactBits())
			}
			if r.Target != "veth tbf "+units.Rate(shaped).CompactBits() {
				t.Errorf("target label %q", r.Target)
			}
		})
	}
	// The probe removed its namespaces.
	if left := gpupathNetns(t); len(left) > 0 {
		t.Errorf("namespaces left behind: %v", left)
	}
}

// A veth setup that fails half way removes what it made.
func TestVethCleansUpOnFailure(t *testing.T) {
	if err := VethAvailable(); err != nil {
		t.Skipf("skipped: %v", err)
	}
	before := len(gpupathNetns(t))
	_, err := NewVeth(context.Background(), VethConfig{MTU: 1 << 20}) // no veth takes this MTU
	if err == nil {
		t.Fatal("absurd MTU accepted")
	}
	if after := gpupathNetns(t); len(after) != before {
		t.Errorf("namespaces after a failed setup: %v", after)
	}
}

// gpupathNetns lists the network namespaces this test process made (other
// packages' tests may make their own at the same time).
func gpupathNetns(t *testing.T) []string {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	mine := fmt.Sprintf("%s%d-", NetnsPrefix, os.Getpid())
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], mine) {
			names = append(names, f[0])
		}
	}
	return names
}

func TestGoodputForFrameRate(t *testing.T) {
	// 1 Gbit/s of frames, MSS 1448 with timestamps: 125e6 × 1448/1514.
	if g := GoodputForFrameRate(125e6, 1448, 52, 14); math.Abs(g-119550858.65) > 0.01 {
		t.Errorf("goodput %v", g)
	}
	if g := GoodputForFrameRate(125e6, 0, 52, 14); !math.IsNaN(g) {
		t.Errorf("zero MSS gave %v", g)
	}
}
